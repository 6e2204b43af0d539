"""The HTTP read API of the memories (FastAPI; the OpenAPI description is served at /openapi.json).

    GET /health                           store reachable, tracking positions, lag (when a lag probe is given)
    GET /metrics                          the same for Prometheus: sessions, positions, lag, store up
    GET /sessions                         ids of the sessions with memories
    GET /sessions/{id}/memory             every memory of a session, by kind
    GET /sessions/{id}/memory/{kind}      one memory (session, pattern, failure, success); 404 when unknown
    GET /failures?pattern=&type=          session failures across sessions, in time order
    GET /successes?pattern=&type=         session successes and brilliant ideas (type BRILLIANT_IDEA), likewise
    GET /consistency                      the §3.5.5 cross-memory violations of every session
    GET /episodes, /episodes/{id}, /alerts, /alerts/stream (SSE), /sessions/{id}/status
                                          the live views of issue 25 (projections.live_api)
    GET /, /static/...                    the live page (projections.live_page)

Reads only: the API never writes the read model. One store connection is shared by the request threads behind
a lock (a SQLite connection must not run two statements at once).
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, Path, Query
from fastapi.responses import JSONResponse, PlainTextResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Gauge, generate_latest
from pydantic import BaseModel, Field

from projections.http.live_routes import Problem, add_live_routes
from projections.live.page import mount_live_page
from projections.memories.consistency import check_consistency
from projections.memories.documents import KINDS
from projections.store.base import SqlStore
from projections.store.protocol import Position

LagProbe = Callable[[Mapping[Position, int]], Awaitable[int | None]]
"""Given the stored positions, the records not yet applied (e.g. `streams.kafka.projection_source.kafka_lag`)."""

# Module-level: FastAPI resolves the (postponed) annotations of the route functions in this module's namespace.
PatternQuery = Annotated[str | None, Query(description="pattern name or pattern id")]
FailureTypeQuery = Annotated[str | None, Query(description="failure type, e.g. REASONING")]
SuccessTypeQuery = Annotated[str | None, Query(description="success type, or BRILLIANT_IDEA")]
KindPath = Annotated[str, Path(description="session, pattern, failure or success")]


class TrackingPosition(BaseModel):
    """The last applied offset of one log partition."""

    source: str = Field(description="Kafka topic, or file:PATH for a file source")
    partition: int
    offset: int = Field(description="last applied offset (file sources: line number)")


class Health(BaseModel):
    """Whether the read model answers, where the projector stands, and how far behind the log it is."""

    status: str = Field(description="ok, or unavailable when the store does not answer")
    store: str
    sessions: int | None = None
    positions: list[TrackingPosition] = Field(default_factory=list)
    lag: int | None = Field(default=None, description="records in the log not yet applied; null without a broker")
    error: str | None = None


class Sessions(BaseModel):
    """Session (and OMEN episode) ids with at least one memory, sorted."""

    sessions: list[str]


class MemoryDocument(BaseModel):
    """One memory of one session, as the projector stored it (see the projections.*_memory docstrings)."""

    session_id: str
    kind: str = Field(description="session, pattern, failure or success")
    document: dict[str, Any]


class SessionMemories(BaseModel):
    """Every memory a session has, by kind."""

    session_id: str
    memories: dict[str, dict[str, Any]]


class Entries(BaseModel):
    """Failure or success entries across sessions, each with its session_id, in time order."""

    count: int
    entries: list[dict[str, Any]]


class Violation(BaseModel):
    """One §3.5.5 cross-memory rule broken in one session."""

    session_id: str
    violation: str


class Consistency(BaseModel):
    """The cross-memory check of every session."""

    consistent: bool
    sessions_checked: int
    violations: list[Violation]


def consistency_report(store: SqlStore) -> Consistency:
    """`check_consistency` over every session of the store."""
    sessions = store.sessions()
    violations = [Violation(session_id=sid, violation=v) for sid in sessions
                  for v in check_consistency(store.session(sid))]
    return Consistency(consistent=not violations, sessions_checked=len(sessions), violations=violations)


METRICS_MEDIA_TYPE = CONTENT_TYPE_LATEST.split(";", 1)[0]


def metrics_text(sessions: int | None, positions: Mapping[Position, int], lag: int | None) -> str:
    """The read model's Prometheus text (a fresh registry per scrape: the store belongs to another process).
    `sessions` None: the store did not answer."""
    registry = CollectorRegistry()
    Gauge("omega_memory_store_up", "1 when the store answers", registry=registry).set(sessions is not None)
    if sessions is not None:
        Gauge("omega_memory_sessions", "Sessions in the read model", registry=registry).set(sessions)
    position = Gauge("omega_memory_position", "Next offset (or line) the projector will apply, by source",
                     ["source", "partition"], registry=registry)
    for (source, partition), offset in positions.items():
        position.labels(source, str(partition)).set(offset)
    if lag is not None:
        Gauge("omega_memory_lag", "Records in the log not yet applied", registry=registry).set(lag)
    return generate_latest(registry).decode("utf-8")


async def scrape(reading: Callable[[], AbstractContextManager[SqlStore]], lag: LagProbe | None) -> str:
    """`metrics_text` of the store as `reading` opens it now (a store that does not answer is a metric too)."""
    try:
        with reading() as s:
            positions, count = s.committed_positions(), len(s.sessions())
    except Exception:  # noqa: BLE001 - any store failure: store_up 0, not a failed scrape
        return metrics_text(None, {}, None)
    return metrics_text(count, positions, await lag(positions) if lag is not None and positions else None)


def create_app(store: SqlStore, *, lag: LagProbe | None = None, title: str = "OMEGA memory read API",
               poll_interval: float = 0.5) -> FastAPI:
    """The read API over an OPEN store (the caller opens and closes it); `poll_interval`: seconds between the
    alert stream's looks for new rows."""
    app = FastAPI(title=title, version="1.0",
                  description="Session, Pattern, Failure and Success Memory (OMEGA-57 agents 53-56) and the live views "
                              "(OMEN episodes, OMEGA-57 session status, the alert feed), rebuilt from the log by "
                              "`omega project`. Read only.")
    lock = threading.Lock()

    @contextmanager
    def reading() -> Iterator[SqlStore]:
        with lock:
            yield store

    not_found: dict[int | str, dict[str, Any]] = {404: {"model": Problem}}

    @app.get("/health", response_model=Health, tags=["operations"],
             responses={503: {"model": Health, "description": "the store does not answer"}})
    async def health() -> Any:
        """Store reachable, tracking positions, and lag when a broker is configured."""
        try:
            with reading() as s:
                positions = s.committed_positions()  # fresh: the projector is another process
                count = len(s.sessions())
        except Exception as exc:  # noqa: BLE001 - any store failure means "unavailable", reported as data
            body = Health(status="unavailable", store=repr(store), error=repr(exc))
            return JSONResponse(body.model_dump(), status_code=503)
        behind = await lag(positions) if lag is not None else None
        return Health(status="ok", store=repr(store), sessions=count, lag=behind,
                      positions=[TrackingPosition(source=src, partition=p, offset=o)
                                 for (src, p), o in sorted(positions.items())])

    @app.get("/metrics", tags=["operations"], response_class=PlainTextResponse,
             responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text format"}})
    async def metrics() -> PlainTextResponse:
        """Prometheus metrics of the read model: sessions, the projector's position per source partition, the lag
        when a broker is configured, and whether the store answers."""
        return PlainTextResponse(await scrape(reading, lag), media_type=METRICS_MEDIA_TYPE)

    @app.get("/sessions", response_model=Sessions, tags=["memories"])
    def sessions() -> Sessions:
        """Every session id with memories."""
        with reading() as s:
            return Sessions(sessions=s.sessions())

    @app.get("/sessions/{session_id}/memory", response_model=SessionMemories, responses=not_found,
             tags=["memories"])
    def session_memories(session_id: str) -> SessionMemories:
        """All memories of a session (404 when the session is unknown)."""
        with reading() as s:
            docs = s.session(session_id)
        if not docs:
            raise HTTPException(404, f"unknown session {session_id!r}")
        return SessionMemories(session_id=session_id, memories={k: docs[k] for k in KINDS if k in docs})

    @app.get("/sessions/{session_id}/memory/{kind}", response_model=MemoryDocument, responses=not_found,
             tags=["memories"])
    def memory(session_id: str, kind: KindPath) -> MemoryDocument:
        """One memory of a session (404 when the session or the kind is unknown, or the session has none)."""
        if kind not in KINDS:
            raise HTTPException(404, f"unknown memory kind {kind!r}; one of {', '.join(KINDS)}")
        with reading() as s:
            doc = s.get(session_id, kind)
            known = doc is not None or bool(s.session(session_id))
        if doc is None:
            raise HTTPException(404, f"session {session_id!r} has no {kind} memory" if known
                                else f"unknown session {session_id!r}")
        return MemoryDocument(session_id=session_id, kind=kind, document=doc)

    @app.get("/failures", response_model=Entries, tags=["queries"])
    def failures(pattern: PatternQuery = None, type: FailureTypeQuery = None) -> Entries:
        """Session failures across sessions, by pattern and/or failure type."""
        with reading() as s:
            # an empty parameter (`?pattern=&type=`, a form left blank) filters nothing, as if absent
            found = s.failures(pattern=pattern or None, failure_type=type or None)
        return Entries(count=len(found), entries=found)

    @app.get("/successes", response_model=Entries, tags=["queries"])
    def successes(pattern: PatternQuery = None, type: SuccessTypeQuery = None) -> Entries:
        """Session successes and brilliant ideas across sessions, by pattern and/or type."""
        with reading() as s:
            found = s.successes(pattern=pattern or None, success_type=type or None)
        return Entries(count=len(found), entries=found)

    @app.get("/consistency", response_model=Consistency, tags=["queries"])
    def consistency() -> Consistency:
        """§3.5.5 cross-memory consistency of every session."""
        with reading() as s:
            return consistency_report(s)

    add_live_routes(app, reading, poll_interval=poll_interval)
    mount_live_page(app)
    return app
