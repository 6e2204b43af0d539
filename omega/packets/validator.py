"""`evolve(ledger, packet) -> (ledger, outputs)`: the validator stages, in the order the spec gives.

Order per packet (spec "Validator Integration"): schema -> FSM transition -> invariants -> ledger update.
This stage set runs the schema check and the duplicate check; later stages plug in between.
"""

from __future__ import annotations

from collections.abc import Mapping

from omega.canonical import content_hash
from omega.packets.ledger import EpisodeLedger
from omega.packets.schema import check_schema
from omega.packets.verdict import PacketVerdict, VerdictStatus, verdict_id_for
from omega.violations import Severity, Violation, is_rejecting

Output = PacketVerdict


def evolve(ledger: EpisodeLedger | None, packet: Mapping[str, object]) -> tuple[EpisodeLedger, list[Output]]:
    """Judge one packet of an episode; a redelivered packet changes nothing and re-emits its verdict."""
    header = _header(packet)
    packet_id = str(header["packet_id"])
    current = ledger or EpisodeLedger(str(header["correlation_id"]))
    digest = content_hash(packet)
    seen = current.applied.get(packet_id)
    if seen is not None and seen.content_hash == digest:
        return current, [_verdict(header, digest, seen.violations, seen.state_before, seen.state_after)]
    violations = [duplicate_packet_id(packet_id)] if seen is not None else []
    violations += check_schema(packet)
    verdict = _verdict(header, digest, tuple(violations))
    if seen is not None:  # a conflicting re-use of an id must not overwrite what was judged first
        return current, [verdict]
    return current.record(packet_id, verdict), [verdict]


def duplicate_packet_id(packet_id: str) -> Violation:
    """DUPLICATE: the id was already used in this episode by a packet with different content."""
    return Violation("DUPLICATE", Severity.ERROR,
                     f"packet_id {packet_id} was already used in this episode for a different packet",
                     "header.packet_id")


def _verdict(
    header: Mapping[str, object],
    digest: str,
    violations: tuple[Violation, ...],
    state_before: str | None = None,
    state_after: str | None = None,
) -> PacketVerdict:
    packet_id = str(header["packet_id"])
    return PacketVerdict(
        verdict_id=verdict_id_for(packet_id, digest),
        packet_id=packet_id,
        correlation_id=str(header["correlation_id"]),
        packet_type=str(header["packet_type"]),
        status=VerdictStatus.REJECTED if is_rejecting(list(violations)) else VerdictStatus.ACCEPTED,
        violations=violations,
        event_time=_event_time(header),
        content_hash=digest,
        state_before=state_before,
        state_after=state_after,
    )


def _header(packet: Mapping[str, object]) -> Mapping[str, object]:
    header = packet.get("header")
    if not isinstance(header, Mapping) or not all(
        isinstance(header.get(k), str) for k in ("packet_id", "packet_type", "correlation_id")
    ):
        raise ValueError("packet lacks the identity fields packet_id, packet_type, correlation_id")
    return header


def _event_time(header: Mapping[str, object]) -> str | None:
    created = header.get("created_at")
    return created if isinstance(created, str) else None
