"""The operations resource: `GET /health` (store reachable, tracking positions, lag) and `GET /metrics` (the same
for Prometheus)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, PlainTextResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Gauge, generate_latest
from pydantic import BaseModel, Field

from projections.http.reading import Reading
from projections.store.protocol import Position

LagProbe = Callable[[Mapping[Position, int]], Awaitable[int | None]]
"""Given the stored positions, the records not yet applied (e.g. `streams.kafka.projection_source.kafka_lag`)."""


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


async def scrape(reading: Reading, lag: LagProbe | None) -> str:
    """`metrics_text` of the store as `reading` lends it now (a store that does not answer is a metric too)."""
    try:
        with reading() as s:
            positions, count = s.committed_positions(), len(s.sessions())
    except Exception:  # noqa: BLE001 - any store failure: store_up 0, not a failed scrape
        return metrics_text(None, {}, None)
    return metrics_text(count, positions, await lag(positions) if lag is not None and positions else None)


def operations_router(reading: Reading, store_name: str, lag: LagProbe | None) -> APIRouter:
    """/health and /metrics over the lent store (`store_name`: how /health names it)."""
    router = APIRouter(tags=["operations"])

    @router.get("/health", response_model=Health,
                responses={503: {"model": Health, "description": "the store does not answer"}})
    async def health() -> Any:
        """Store reachable, tracking positions, and lag when a broker is configured."""
        try:
            with reading() as s:
                positions = s.committed_positions()  # fresh: the projector is another process
                count = len(s.sessions())
        except Exception as exc:  # noqa: BLE001 - any store failure means "unavailable", reported as data
            body = Health(status="unavailable", store=store_name, error=repr(exc))
            return JSONResponse(body.model_dump(), status_code=503)
        behind = await lag(positions) if lag is not None else None
        return Health(status="ok", store=store_name, sessions=count, lag=behind,
                      positions=[TrackingPosition(source=src, partition=p, offset=o)
                                 for (src, p), o in sorted(positions.items())])

    @router.get("/metrics", response_class=PlainTextResponse,
                responses={200: {"content": {"text/plain": {}}, "description": "Prometheus text format"}})
    async def metrics() -> PlainTextResponse:
        """Prometheus metrics of the read model: sessions, the projector's position per source partition, the lag
        when a broker is configured, and whether the store answers."""
        return PlainTextResponse(await scrape(reading, lag), media_type=METRICS_MEDIA_TYPE)

    return router
