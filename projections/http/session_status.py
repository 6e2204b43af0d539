"""The session status resource (issue 25): `GET /sessions/{session_id}/status`, an OMEGA-57 session's live status."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from projections.http.live_models import SessionStatus
from projections.http.reading import NOT_FOUND, Reading, read_found
from projections.live import views as live_views


def session_status_router(reading: Reading) -> APIRouter:
    """/sessions/{session_id}/status over the lent store."""
    router = APIRouter(tags=["live"])

    @router.get("/sessions/{session_id}/status", response_model=SessionStatus, responses=NOT_FOUND)
    def get_session_status(session_id: str) -> Any:
        """An OMEGA-57 session: iteration, confidence trend, failure signatures fired, termination."""
        return read_found(reading, lambda s: live_views.session_status(s, session_id),
                          f"unknown session {session_id!r}")

    return router
