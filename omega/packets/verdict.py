"""The packet verdict: what the validator decided about one packet, with a derived id."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from omega import RULESET_VERSION
from omega.canonical import derived_id
from omega.violations import Violation


class VerdictStatus(StrEnum):
    """ACCEPTED (possibly with warnings) or REJECTED (at least one ERROR)."""

    ACCEPTED = "ACCEPTED"
    REJECTED = "REJECTED"


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
    kind: str = field(default="packet_verdict", init=False)

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
        }


def verdict_id_for(packet_id: str, content_hash: str, ruleset_version: str = RULESET_VERSION) -> str:
    """Derived verdict id: the same packet judged by the same rules always gets the same id."""
    return derived_id("vrd_", packet_id, content_hash, ruleset_version)
