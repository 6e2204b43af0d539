"""Alerts and escalations: the outputs besides verdicts, shared by every judge (OMEN, OMEGA-57, ...)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from omega.canonical import canonical_json, derived_id


@dataclass(frozen=True, slots=True)
class Alert:
    """A real-time alert; its id derives from the triggering event and the kind, so replays agree."""

    kind: str
    severity: str
    subject_id: str
    message: str
    source_event_id: str
    event_time: str | None = None
    details: Mapping[str, Any] | None = None
    topic_kind: str = field(default="alerts", init=False)

    @property
    def alert_id(self) -> str:
        """Derived id: subject, source event and kind."""
        return derived_id("alr_", self.subject_id, self.source_event_id, self.kind)

    @property
    def key(self) -> str:
        """The Kafka key: the episode or session id."""
        return self.subject_id

    def to_dict(self) -> dict[str, object]:
        """Matches the `omega.events.Alert` record."""
        return {
            "alert_id": self.alert_id, "kind": self.kind, "severity": self.severity, "subject_id": self.subject_id,
            "message": self.message, "event_time": self.event_time, "source_event_id": self.source_event_id,
            "details": None if self.details is None else canonical_json(self.details),
        }


@dataclass(frozen=True, slots=True)
class Escalation:
    """A request for human or Layer 1 attention raised by the verifier."""

    level: str
    subject_id: str
    reason: str
    source_event_id: str
    event_time: str | None = None
    details: Mapping[str, Any] | None = None
    topic_kind: str = field(default="escalations", init=False)

    @property
    def escalation_id(self) -> str:
        """Derived id: subject, source event and level."""
        return derived_id("esc_", self.subject_id, self.source_event_id, self.level, self.reason)

    @property
    def key(self) -> str:
        """The Kafka key: the episode or session id."""
        return self.subject_id

    def to_dict(self) -> dict[str, object]:
        """Matches the `omega.events.Escalation` record."""
        return {
            "escalation_id": self.escalation_id, "level": self.level, "subject_id": self.subject_id,
            "reason": self.reason, "event_time": self.event_time, "source_event_id": self.source_event_id,
            "details": None if self.details is None else canonical_json(self.details),
        }
