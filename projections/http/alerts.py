"""The alerts resource (issue 25): `GET /alerts` (the feed, newest first, paged) and `GET /alerts/stream` (the feed
as Server-Sent Events, `event: alert`, `id: <seq>`, new rows polled from the store)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from functools import partial
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Header, HTTPException, Query, Request
from sse_starlette import EventSourceResponse

from projections.http.live_models import AlertPage
from projections.http.live_queries import CursorQuery, LimitQuery, SeverityQuery, SinceQuery
from projections.http.reading import REFUSED, Reading, read_checked
from projections.live import views as live_views

# Module-level: FastAPI resolves the (postponed) annotations of the route functions in this module's namespace.
KindQuery = Annotated[str | None, Query(description="alert kind (escalations: ESCALATION, terminations: TERMINATION)",
                                        json_schema_extra={"enum": list(live_views.KINDS)})]
AfterQuery = Annotated[int | None, Query(ge=0, description="start after this seq (default: the newest alert; "
                                                           "0: the whole feed); Last-Event-ID wins")]
LastEventId = Annotated[str | None, Header(alias="Last-Event-ID", description="resume after this seq")]


def alerts_router(reading: Reading, *, poll_interval: float = 0.5) -> APIRouter:
    """/alerts and /alerts/stream over the lent store; `poll_interval` paces the stream's looks for new rows."""
    router = APIRouter(tags=["live"])

    @router.get("/alerts", response_model=AlertPage, responses=REFUSED)
    def list_alerts(since: SinceQuery = None, severity: SeverityQuery = None, kind: KindQuery = None,
                    limit: LimitQuery = 50, cursor: CursorQuery = None) -> Any:
        """The alert feed (alerts, escalations, terminations), newest first."""
        return read_checked(reading, lambda s: live_views.alerts(s, since=since, severity=severity, kind=kind,
                                                                 limit=limit, cursor=cursor))

    @router.get("/alerts/stream", response_class=EventSourceResponse,
                responses={200: {"content": {"text/event-stream": {}},
                                 "description": "`event: alert`, `id: <seq>`, `data: <Alert JSON>`"}, **REFUSED})
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
            start = await asyncio.to_thread(read_checked, reading, live_views.last_seq)
        return EventSourceResponse(_events(request, reading, start, poll_interval))

    return router


async def _events(request: Request, reading: Reading, after: int, poll_interval: float
                  ) -> AsyncIterator[dict[str, str]]:
    """The stream's events: every alert with seq > `after`, then each new one as the projector writes it."""
    while not await request.is_disconnected():
        rows: list[dict[str, Any]] = await asyncio.to_thread(
            read_checked, reading, partial(live_views.alerts_after, after_seq=after))
        for row in rows:
            after = row["seq"]
            yield {"event": "alert", "id": str(after), "data": orjson.dumps(row).decode("utf-8")}
        if not rows:
            await asyncio.sleep(poll_interval)
