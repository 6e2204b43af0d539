"""The cross-session entries resources: `GET /failures` and `GET /successes` (brilliant ideas too), by pattern and
type, in time order; one router each."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel

from projections.http.reading import Reading
from projections.store.base import SqlStore

# Module-level: FastAPI resolves the (postponed) annotations of the route functions in this module's namespace.
PatternQuery = Annotated[str | None, Query(description="pattern name or pattern id")]
FailureTypeQuery = Annotated[str | None, Query(description="failure type, e.g. REASONING")]
SuccessTypeQuery = Annotated[str | None, Query(description="success type, or BRILLIANT_IDEA")]


class Entries(BaseModel):
    """Failure or success entries across sessions, each with its session_id, in time order."""

    count: int
    entries: list[dict[str, Any]]


def failures_router(reading: Reading) -> APIRouter:
    """/failures over the lent store."""
    router = APIRouter(tags=["queries"])

    @router.get("/failures", response_model=Entries)
    def failures(pattern: PatternQuery = None, type: FailureTypeQuery = None) -> Entries:
        """Session failures across sessions, by pattern and/or failure type."""
        # an empty parameter (`?pattern=&type=`, a form left blank) filters nothing, as if absent
        return _entries(reading, lambda s: s.failures(pattern=pattern or None, failure_type=type or None))

    return router


def successes_router(reading: Reading) -> APIRouter:
    """/successes over the lent store."""
    router = APIRouter(tags=["queries"])

    @router.get("/successes", response_model=Entries)
    def successes(pattern: PatternQuery = None, type: SuccessTypeQuery = None) -> Entries:
        """Session successes and brilliant ideas across sessions, by pattern and/or type."""
        return _entries(reading, lambda s: s.successes(pattern=pattern or None, success_type=type or None))

    return router


def _entries(reading: Reading, lookup: Callable[[SqlStore], list[dict[str, Any]]]) -> Entries:
    with reading() as store:
        found = lookup(store)
    return Entries(count=len(found), entries=found)
