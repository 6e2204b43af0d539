"""The consistency resource: `GET /consistency`, the §3.5.5 cross-memory violations of every session."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from projections.http.reading import Reading
from projections.memories.consistency import check_consistency
from projections.store.base import SqlStore


class SessionViolation(BaseModel):
    """One §3.5.5 cross-memory rule broken in one session."""

    session_id: str
    violation: str


class Consistency(BaseModel):
    """The cross-memory check of every session."""

    consistent: bool
    sessions_checked: int
    violations: list[SessionViolation]


def consistency_report(store: SqlStore) -> Consistency:
    """`check_consistency` over every session of the store."""
    sessions = store.sessions()
    violations = [SessionViolation(session_id=sid, violation=v) for sid in sessions
                  for v in check_consistency(store.session(sid))]
    return Consistency(consistent=not violations, sessions_checked=len(sessions), violations=violations)


def consistency_router(reading: Reading) -> APIRouter:
    """/consistency over the lent store."""
    router = APIRouter(tags=["queries"])

    @router.get("/consistency", response_model=Consistency)
    def consistency() -> Consistency:
        """§3.5.5 cross-memory consistency of every session."""
        with reading() as s:
            return consistency_report(s)

    return router
