"""Alerts and escalations: the outputs besides verdicts, shared by every judge (OMEN, OMEGA-57, ...)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from omega.canonical import canonical_json, derived_id

SEVERITY_SCALE = ("CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO")
"""The one ordered scale of every alert's `severity`, most severe first (issue 23: on-call sorts and filters one
topic carrying two specs' labels). The spec's own label travels beside it as `spec_severity`."""

SPEC_SEVERITY = {
    # OMEN (OMEN.md alerts): CRITICAL > HIGH > WARNING
    "CRITICAL": "CRITICAL", "HIGH": "HIGH", "WARNING": "MEDIUM",
    # OMEGA-57 §4.1.2 failure levels: CRITICAL > SERIOUS > MODERATE > MINOR
    "SERIOUS": "HIGH", "MODERATE": "MEDIUM", "MINOR": "LOW",
    # the scale's own labels map to themselves
    "MEDIUM": "MEDIUM", "LOW": "LOW", "INFO": "INFO",
}
"""Spec label -> its place on `SEVERITY_SCALE` (the table docs/concepts.md shows)."""


def normalised_severity(label: str) -> str:
    """`label`'s place on `SEVERITY_SCALE`; a label no spec here uses is a programming error (ValueError)."""
    try:
        return SPEC_SEVERITY[label]
    except KeyError:
        raise ValueError(f"alert severity {label!r} is on no known scale: {sorted(SPEC_SEVERITY)}") from None


@dataclass(frozen=True, slots=True)
class Alert:
    """A real-time alert; its id derives from the triggering event and the kind, so replays agree."""

    kind: str
    severity: str  # the spec's own label (WARNING, SERIOUS, ...); the record adds its place on SEVERITY_SCALE
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
            "alert_id": self.alert_id, "kind": self.kind, "severity": normalised_severity(self.severity),
            "spec_severity": self.severity, "subject_id": self.subject_id,
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
