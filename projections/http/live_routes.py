"""The live routes of the read API (issue 25), added to `projections.api.create_app`'s app:

    GET /episodes?state=&severity=&since=&trouble=&limit=&cursor=   episodes, in trouble first, paged
    GET /episodes/{episode_id}                                      one episode with its timeline; 404 unknown
    GET /alerts?since=&severity=&kind=&limit=&cursor=                the alert feed, newest first, paged
    GET /alerts/stream?after=                                       the feed as Server-Sent Events (`event: alert`,
                                                                    `id: <seq>`), new rows polled from the store
    GET /sessions/{session_id}/status                               an OMEGA-57 session's live status; 404

Arguments are checked by projections.live_views: what it refuses (unknown enum value, bad time or cursor) is
answered 422 with the reason. The enums (severity, kind, state) are declared in the OpenAPI description.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager
from functools import partial
from typing import Annotated, Any, TypeVar

import orjson
from fastapi import FastAPI, Header, HTTPException, Query, Request
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse

from projections.live import views as live_views
from projections.store.base import SqlStore

T = TypeVar("T")
Reading = Callable[[], AbstractContextManager[SqlStore]]

SeverityQuery = Annotated[str | None, Query(description="this severity or worse (normalised scale)",
                                            json_schema_extra={"enum": list(live_views.SEVERITIES)})]
KindQuery = Annotated[str | None, Query(description="alert kind (escalations: ESCALATION, terminations: TERMINATION)",
                                        json_schema_extra={"enum": list(live_views.KINDS)})]
StateQuery = Annotated[str | None, Query(description="current FSM state",
                                         json_schema_extra={"enum": list(live_views.STATES)})]
SinceQuery = Annotated[str | None, Query(description="ISO-8601 time: only what happened at or after it")]
LimitQuery = Annotated[int, Query(ge=1, le=live_views.MAX_LIMIT, description="page size")]
CursorQuery = Annotated[str | None, Query(description="the `next` of the previous page")]
TroubleQuery = Annotated[bool, Query(description="only episodes in trouble (trouble > 0)")]
AfterQuery = Annotated[int | None, Query(ge=0, description="start after this seq (default: the newest alert; "
                                                           "0: the whole feed); Last-Event-ID wins")]
LastEventId = Annotated[str | None, Header(alias="Last-Event-ID", description="resume after this seq")]


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
    trouble: int = Field(description="0 = fine; higher = more trouble (see projections.live_model.trouble)")
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


class Problem(BaseModel):
    """An error answer."""

    detail: str


def _checked(call: Callable[[], T]) -> T:
    """`call()`, its ValueError (a refused argument) answered 422."""
    try:
        return call()
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from exc


def add_live_routes(app: FastAPI, reading: Reading, *, poll_interval: float = 0.5) -> None:
    """Add the live routes to `app`; `reading` lends the shared store, `poll_interval` paces the SSE polling."""
    errors: dict[int | str, dict[str, Any]] = {422: {"model": Problem, "description": "a refused argument"}}
    not_found: dict[int | str, dict[str, Any]] = {404: {"model": Problem}}

    def read(call: Callable[[SqlStore], T]) -> T:
        with reading() as store:
            return _checked(lambda: call(store))

    @app.get("/episodes", response_model=EpisodePage, responses=errors, tags=["live"])
    def list_episodes(state: StateQuery = None, severity: SeverityQuery = None, since: SinceQuery = None,
                      trouble: TroubleQuery = False, limit: LimitQuery = 50, cursor: CursorQuery = None) -> Any:
        """OMEN episodes, in trouble first (trouble desc, last event desc, id)."""
        return read(lambda s: live_views.episodes(s, state=state, severity=severity, since=since,
                                                  trouble_only=trouble, limit=limit, cursor=cursor))

    @app.get("/episodes/{episode_id}", response_model=EpisodeDetail, responses=not_found, tags=["live"])
    def get_episode(episode_id: str) -> Any:
        """One episode: its summary, verdict timeline (usage per budget over time) and newest alerts."""
        found = read(lambda s: live_views.episode(s, episode_id))
        if found is None:
            raise HTTPException(404, f"unknown episode {episode_id!r}")
        return found

    @app.get("/alerts", response_model=AlertPage, responses=errors, tags=["live"])
    def list_alerts(since: SinceQuery = None, severity: SeverityQuery = None, kind: KindQuery = None,
                    limit: LimitQuery = 50, cursor: CursorQuery = None) -> Any:
        """The alert feed (alerts, escalations, terminations), newest first."""
        return read(lambda s: live_views.alerts(s, since=since, severity=severity, kind=kind, limit=limit,
                                                cursor=cursor))

    @app.get("/alerts/stream", tags=["live"], response_class=EventSourceResponse,
             responses={200: {"content": {"text/event-stream": {}},
                              "description": "`event: alert`, `id: <seq>`, `data: <Alert JSON>`"}, **errors})
    async def stream_alerts(request: Request, after: AfterQuery = None,
                            last_event_id: LastEventId = None) -> EventSourceResponse:
        """New alerts as Server-Sent Events, found by polling the read model (the projector writes them)."""
        if last_event_id is not None:
            try:
                start = int(last_event_id)
            except ValueError:
                raise HTTPException(422, f"Last-Event-ID {last_event_id!r} is not a seq") from None
        elif after is not None:
            start = after
        else:
            start = await asyncio.to_thread(read, live_views.last_seq)
        return EventSourceResponse(_events(request, read, start, poll_interval))

    @app.get("/sessions/{session_id}/status", response_model=SessionStatus, responses=not_found, tags=["live"])
    def get_session_status(session_id: str) -> Any:
        """An OMEGA-57 session: iteration, confidence trend, failure signatures fired, termination."""
        found = read(lambda s: live_views.session_status(s, session_id))
        if found is None:
            raise HTTPException(404, f"unknown session {session_id!r}")
        return found


async def _events(request: Request, read: Callable[[Callable[[SqlStore], Any]], Any], after: int,
                  poll_interval: float) -> AsyncIterator[dict[str, str]]:
    """The stream's events: every alert with seq > `after`, then each new one as the projector writes it."""
    while not await request.is_disconnected():
        rows: list[dict[str, Any]] = await asyncio.to_thread(read, partial(live_views.alerts_after, after_seq=after))
        for row in rows:
            after = row["seq"]
            yield {"event": "alert", "id": str(after), "data": orjson.dumps(row).decode("utf-8")}
        if not rows:
            await asyncio.sleep(poll_interval)
