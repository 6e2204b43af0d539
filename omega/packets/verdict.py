"""The packet verdict: what the validator decided about one packet, with a derived id."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from omega import RULESET_VERSION
from omega.canonical import derived_id
from omega.violations import Severity, Violation


class VerdictStatus(StrEnum):
    """ACCEPTED, ACCEPTED_WITH_WARNINGS (only WARNING violations), or REJECTED (at least one ERROR)."""

    ACCEPTED = "ACCEPTED"
    ACCEPTED_WITH_WARNINGS = "ACCEPTED_WITH_WARNINGS"
    REJECTED = "REJECTED"


EPISODE = "episode"
SINGLE_PACKET = "single_packet"


@dataclass(frozen=True, slots=True)
class PacketVerdict:
    """One verdict per packet; the id is a hash of packet id, content hash and rule-set version."""

    verdict_id: str
    packet_id: str
    correlation_id: str
    packet_type: str
    status: VerdictStatus
    violations: tuple[Violation, ...]
    event_time: str | None
    content_hash: str
    ruleset_version: str = RULESET_VERSION
    state_before: str | None = None
    state_after: str | None = None
    usage: Mapping[str, Any] | None = None
    context: str = EPISODE
    late: bool = False  # judged on arrival, after packets of its episode created later (streams/stages/lateness.py)
    topic_kind: str = field(default="verdicts", init=False)

    @property
    def key(self) -> str:
        """The Kafka key: the episode id."""
        return self.correlation_id

    def to_dict(self) -> dict[str, object]:
        """Plain-dict form, matching the `omega.events.PacketVerdict` record."""
        return {
            "verdict_id": self.verdict_id,
            "packet_id": self.packet_id,
            "correlation_id": self.correlation_id,
            "packet_type": self.packet_type,
            "status": self.status.value,
            "violations": [v.to_dict() for v in self.violations],
            "event_time": self.event_time,
            "ruleset_version": self.ruleset_version,
            "state_before": self.state_before,
            "state_after": self.state_after,
            "content_hash": self.content_hash,
            "usage": None if self.usage is None else dict(self.usage),
            "context": self.context,
            "late": self.late,
        }


def status_of(violations: tuple[Violation, ...] | list[Violation]) -> VerdictStatus:
    """REJECTED on any ERROR, ACCEPTED_WITH_WARNINGS on warnings only, else ACCEPTED."""
    if not violations:  # most packets: no need to scan
        return VerdictStatus.ACCEPTED
    if any(v.severity is Severity.ERROR for v in violations):
        return VerdictStatus.REJECTED
    return VerdictStatus.ACCEPTED_WITH_WARNINGS


def verdict_id_for(packet_id: str, content_hash: str, ruleset_version: str = RULESET_VERSION) -> str:
    """Derived verdict id: the same packet judged by the same rules always gets the same id."""
    return derived_id("vrd_", packet_id, content_hash, ruleset_version)
