"""Records only: the §6.5 termination report and its metrics, the `omega.agents.TerminationReport` Avro record.

They live apart from the judgement that builds them (`omega.agents.termination`) so the session state, which
carries the report, can hold them without importing the judgement, which reads the session state. This module
imports nothing of `omega.agents`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["TerminationMetrics", "TerminationReport"]


@dataclass(frozen=True, slots=True)
class TerminationMetrics:
    """§6.5 metrics."""

    iterations: int
    agents_deployed: int
    total_tokens: int
    time_elapsed: str


@dataclass(frozen=True, slots=True)
class TerminationReport:
    """§6.5 termination report; `to_dict` is the `omega.agents.TerminationReport` Avro record."""

    report_id: str
    session_id: str
    event_time: str
    status: str
    metrics: TerminationMetrics
    audit_trail: tuple[tuple[str, str], ...] = ()  # (timestamp, event)
    degradation_level: int | None = None
    answer: str | None = None
    confidence: float | None = None
    caveats: tuple[str, ...] | None = None
    supporting_evidence: tuple[str, ...] | None = None
    verified_by: tuple[int, ...] | None = None
    survived_attacks_from: tuple[int, ...] | None = None
    partial_answer: str | None = None
    answered: tuple[str, ...] | None = None
    unanswered: tuple[str, ...] | None = None
    why_stopped: str | None = None
    what_would_complete: str | None = None
    failure_type: str | None = None
    what_was_attempted: tuple[str, ...] | None = None
    why_failed: str | None = None
    what_was_learned: tuple[str, ...] | None = None
    recommendation: str | None = None
    topic_kind: str = field(default="terminations", init=False)

    @property
    def key(self) -> str:
        """The Kafka key: the session id."""
        return self.session_id

    def to_dict(self) -> dict[str, object]:
        """Matches the `omega.agents.TerminationReport` record, field for field."""
        def seq(value: tuple[Any, ...] | None) -> list[Any] | None:
            return None if value is None else list(value)

        m = self.metrics
        return {
            "report_id": self.report_id, "session_id": self.session_id, "event_time": self.event_time,
            "status": self.status, "degradation_level": self.degradation_level, "answer": self.answer,
            "confidence": self.confidence, "caveats": seq(self.caveats),
            "supporting_evidence": seq(self.supporting_evidence), "verified_by": seq(self.verified_by),
            "survived_attacks_from": seq(self.survived_attacks_from), "partial_answer": self.partial_answer,
            "answered": seq(self.answered), "unanswered": seq(self.unanswered), "why_stopped": self.why_stopped,
            "what_would_complete": self.what_would_complete, "failure_type": self.failure_type,
            "what_was_attempted": seq(self.what_was_attempted), "why_failed": self.why_failed,
            "what_was_learned": seq(self.what_was_learned), "recommendation": self.recommendation,
            "metrics": {"iterations": m.iterations, "agents_deployed": m.agents_deployed,
                        "total_tokens": m.total_tokens, "time_elapsed": m.time_elapsed, "extras": None},
            "audit_trail": [{"timestamp": t, "event": e, "extras": None} for t, e in self.audit_trail],
            "extras": None,
        }
