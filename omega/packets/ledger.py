"""The episode ledger: one record per correlation_id, the state the validator keeps between packets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from omega.packets.verdict import PacketVerdict, VerdictStatus
from omega.violations import Severity, Violation


@dataclass(frozen=True, slots=True)
class AppliedPacket:
    """What the ledger remembers of a judged packet, so a redelivery re-emits the same verdict."""

    content_hash: str
    verdict: PacketVerdict


@dataclass(frozen=True, slots=True)
class EpisodeLedger:
    """Per-episode state. Immutable: `evolve` returns a new ledger (Faust persists only reassignment)."""

    correlation_id: str
    applied: Mapping[str, AppliedPacket] = field(default_factory=dict)
    accepted: int = 0
    rejected: int = 0
    last_event_time: str | None = None

    def record(self, packet_id: str, verdict: PacketVerdict) -> EpisodeLedger:
        """The ledger after `verdict` on a packet seen for the first time."""
        applied = {**self.applied, packet_id: AppliedPacket(verdict.content_hash, verdict)}
        ok = verdict.status is VerdictStatus.ACCEPTED
        return replace(
            self,
            applied=applied,
            accepted=self.accepted + ok,
            rejected=self.rejected + (not ok),
            last_event_time=verdict.event_time or self.last_event_time,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form for the Faust table and snapshots."""
        return {
            "correlation_id": self.correlation_id,
            "applied": {pid: {"content_hash": a.content_hash, "verdict": a.verdict.to_dict()}
                        for pid, a in self.applied.items()},
            "accepted": self.accepted,
            "rejected": self.rejected,
            "last_event_time": self.last_event_time,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EpisodeLedger:
        """Inverse of `to_dict`."""
        applied = {pid: AppliedPacket(a["content_hash"], _verdict_from_dict(a["verdict"]))
                   for pid, a in data["applied"].items()}
        return cls(data["correlation_id"], applied, data["accepted"], data["rejected"], data["last_event_time"])


def _verdict_from_dict(d: Mapping[str, Any]) -> PacketVerdict:
    return PacketVerdict(
        verdict_id=d["verdict_id"],
        packet_id=d["packet_id"],
        correlation_id=d["correlation_id"],
        packet_type=d["packet_type"],
        status=VerdictStatus(d["status"]),
        violations=tuple(Violation(v["rule"], Severity(v["severity"]), v["message"], v["field"])
                         for v in d["violations"]),
        event_time=d["event_time"],
        content_hash=d["content_hash"],
        ruleset_version=d["ruleset_version"],
        state_before=d["state_before"],
        state_after=d["state_after"],
    )
