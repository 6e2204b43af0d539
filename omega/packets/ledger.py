"""The episode ledger: one record per correlation_id, the state the validator keeps between packets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from omega.packets.verdict import PacketVerdict, VerdictStatus
from omega.violations import Severity, Violation


@dataclass(frozen=True, slots=True)
class Judgement:
    """What the ledger keeps of a judged packet: enough, with the packet itself, to rebuild its verdict.

    The rest of a verdict (ids, type, event time, hash) derives from the packet, so a redelivered packet
    re-emits an identical verdict while the ledger stays small (it is rewritten to the changelog whole).
    """

    content_hash: str
    status: VerdictStatus
    violations: tuple[Violation, ...] = ()
    state_before: str | None = None
    state_after: str | None = None

    @classmethod
    def of(cls, verdict: PacketVerdict) -> Judgement:
        """The part of `verdict` that does not derive from the packet."""
        return cls(verdict.content_hash, verdict.status, verdict.violations, verdict.state_before,
                   verdict.state_after)

    def to_list(self) -> list[Any]:
        """Compact JSON form: [hash, status, violations, state_before, state_after]."""
        return [self.content_hash, self.status.value, [v.to_dict() for v in self.violations],
                self.state_before, self.state_after]

    @classmethod
    def from_list(cls, data: list[Any]) -> Judgement:
        """Inverse of `to_list`."""
        content_hash, status, violations, before, after = data
        return cls(content_hash, VerdictStatus(status),
                   tuple(Violation(v["rule"], Severity(v["severity"]), v["message"], v["field"]) for v in violations),
                   before, after)


@dataclass(frozen=True, slots=True)
class EpisodeLedger:
    """Per-episode state. Immutable: `evolve` returns a new ledger (Faust persists only reassignment)."""

    correlation_id: str
    applied: Mapping[str, Judgement] = field(default_factory=dict)
    accepted: int = 0
    rejected: int = 0
    last_event_time: str | None = None

    def record(self, packet_id: str, verdict: PacketVerdict) -> EpisodeLedger:
        """The ledger after `verdict` on a packet seen for the first time."""
        ok = verdict.status is VerdictStatus.ACCEPTED
        return replace(
            self,
            applied={**self.applied, packet_id: Judgement.of(verdict)},
            accepted=self.accepted + ok,
            rejected=self.rejected + (not ok),
            last_event_time=verdict.event_time or self.last_event_time,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form for the Faust table and snapshots."""
        return {
            "correlation_id": self.correlation_id,
            "applied": {pid: j.to_list() for pid, j in self.applied.items()},
            "accepted": self.accepted,
            "rejected": self.rejected,
            "last_event_time": self.last_event_time,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EpisodeLedger:
        """Inverse of `to_dict`."""
        applied = {pid: Judgement.from_list(j) for pid, j in data["applied"].items()}
        return cls(data["correlation_id"], applied, data["accepted"], data["rejected"], data["last_event_time"])
