"""The response models of the live resources (issue 25): episodes, the alert feed, an OMEGA-57 session's status;
the shapes of `projections.live.views`."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class Budget(BaseModel):
    """Usage of one budget against its limit; burn = used / limit."""

    used: float
    limit: float | None
    burn: float | None


class Packets(BaseModel):
    """Verdicts of the episode by status (exclusive)."""

    accepted: int
    warnings: int
    rejected: int


class Directive(BaseModel):
    """A directive without a known result; its deadline once its TASK_TIMEOUT fired."""

    directive_id: str
    deadline: str | None


class Rejection(BaseModel):
    """The last rejected packet and the first ERROR rule it broke."""

    packet_id: str
    rule: str | None
    reason: str | None
    event_time: str


class Alert(BaseModel):
    """One row of the alert feed: an alert, an escalation or a termination (`source`)."""

    seq: int = Field(description="arrival order in the read model; resume a stream after it")
    alert_id: str
    source: str = Field(description="alert, escalation or termination")
    kind: str
    severity: str = Field(description="normalised: CRITICAL, HIGH, MEDIUM, LOW, INFO")
    spec_severity: str | None
    subject_id: str
    episode_id: str | None
    session_id: str | None
    event_time: str
    summary: str
    details: Any = None


class EpisodeSummary(BaseModel):
    """An OMEN episode as the live page lists it."""

    episode_id: str
    fsm_state: str
    safe_mode: bool
    packets: Packets
    budgets: dict[str, Budget]
    max_burn: float | None
    open_directives: list[Directive]
    last_rejection: Rejection | None
    alerts: int
    top_severity: str | None
    trouble: int = Field(description="0 = fine; higher = more trouble (see projections.live.model.trouble)")
    last_event_time: str


class TimelineEntry(BaseModel):
    """One verdict of the episode."""

    event_time: str
    packet_id: str
    status: str
    fsm_from: str
    fsm_to: str
    usage: dict[str, float]


class EpisodeDetail(EpisodeSummary):
    """An episode with its verdict timeline and newest alerts."""

    timeline: list[TimelineEntry]
    recent_alerts: list[Alert]


class EpisodePage(BaseModel):
    """A page of episodes; `next` is the cursor of the following page (null on the last)."""

    items: list[EpisodeSummary]
    next: str | None


class AlertPage(BaseModel):
    """A page of the alert feed; `next` is the cursor of the following page (null on the last)."""

    items: list[Alert]
    next: str | None


class SessionStatus(BaseModel):
    """An OMEGA-57 session's live status."""

    session_id: str
    iteration: int
    messages: int
    confidence_trend: list[dict[str, Any]] = Field(description="[{iteration, messages, confidence}]")
    failure_signatures: list[dict[str, Any]] = Field(
        description="[{signature, severity, spec_severity, count, iterations, last_event_time}]")
    termination: dict[str, Any] | None
    session_status: str = Field(description="RUNNING, or the termination status")
    alerts: int
    top_severity: str | None
    trouble: int
    last_event_time: str
    recent_alerts: list[Alert]
