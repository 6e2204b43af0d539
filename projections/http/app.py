"""The HTTP read API of the read model (FastAPI; the OpenAPI description is served at /openapi.json), one router per
resource:

    GET /health, /metrics                 store reachable, tracking positions, lag (projections.http.operations)
    GET /sessions, /sessions/{id}/memory, /sessions/{id}/memory/{kind}
                                          the memories of a session (projections.http.memories)
    GET /failures?pattern=&type=, /successes?pattern=&type=
                                          entries across sessions, in time order (projections.http.entries)
    GET /consistency                      the §3.5.5 cross-memory violations (projections.http.consistency)
    GET /episodes, /episodes/{id}         OMEN episodes (projections.http.episodes)
    GET /alerts, /alerts/stream (SSE)     the alert feed (projections.http.alerts)
    GET /sessions/{id}/status             an OMEGA-57 session's live status (projections.http.session_status)
    GET /, /static/...                    the live page (projections.live.page)

Reads only: the API never writes the read model. One store connection is shared by the request threads behind
a lock (projections.http.reading).
"""

from __future__ import annotations

from fastapi import FastAPI

from projections.http.alerts import alerts_router
from projections.http.consistency import consistency_router
from projections.http.entries import failures_router, successes_router
from projections.http.episodes import episodes_router
from projections.http.memories import memories_router
from projections.http.operations import LagProbe, operations_router
from projections.http.reading import locked
from projections.http.session_status import session_status_router
from projections.live.page import mount_live_page
from projections.store.base import SqlStore


def read_model_api(store: SqlStore, *, lag: LagProbe | None = None, title: str = "OMEGA memory read API",
                   poll_interval: float = 0.5) -> FastAPI:
    """The read API over an OPEN store (the caller opens and closes it); `poll_interval`: seconds between the
    alert stream's looks for new rows."""
    app = FastAPI(title=title, version="1.0",
                  description="Session, Pattern, Failure and Success Memory (OMEGA-57 agents 53-56) and the live views "
                              "(OMEN episodes, OMEGA-57 session status, the alert feed), rebuilt from the log by "
                              "`omega project`. Read only.")
    reading = locked(store)
    for router in (operations_router(reading, repr(store), lag), memories_router(reading), failures_router(reading),
                   successes_router(reading), consistency_router(reading), episodes_router(reading),
                   alerts_router(reading, poll_interval=poll_interval), session_status_router(reading)):
        app.include_router(router)
    mount_live_page(app)
    return app
