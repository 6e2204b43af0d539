"""The memories resource: `GET /sessions`, a session's memories, and one memory of a session."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path
from pydantic import BaseModel, Field

from projections.http.reading import NOT_FOUND, Reading
from projections.memories.documents import KINDS

# Module-level: FastAPI resolves the (postponed) annotations of the route functions in this module's namespace.
KindPath = Annotated[str, Path(description="session, pattern, failure or success")]


class Sessions(BaseModel):
    """Session (and OMEN episode) ids with at least one memory, sorted."""

    sessions: list[str]


class MemoryDocument(BaseModel):
    """One memory of one session, as the projector stored it (see the projections.memories.*_memory docstrings)."""

    session_id: str
    kind: str = Field(description="session, pattern, failure or success")
    document: dict[str, Any]


class SessionMemories(BaseModel):
    """Every memory a session has, by kind."""

    session_id: str
    memories: dict[str, dict[str, Any]]


def memories_router(reading: Reading) -> APIRouter:
    """/sessions, /sessions/{id}/memory and /sessions/{id}/memory/{kind} over the lent store."""
    router = APIRouter(tags=["memories"])

    @router.get("/sessions", response_model=Sessions)
    def sessions() -> Sessions:
        """Every session id with memories."""
        with reading() as s:
            return Sessions(sessions=s.sessions())

    @router.get("/sessions/{session_id}/memory", response_model=SessionMemories, responses=NOT_FOUND)
    def session_memories(session_id: str) -> SessionMemories:
        """All memories of a session (404 when the session is unknown)."""
        with reading() as s:
            docs = s.session(session_id)
        if not docs:
            raise HTTPException(404, f"unknown session {session_id!r}")
        return SessionMemories(session_id=session_id, memories={k: docs[k] for k in KINDS if k in docs})

    @router.get("/sessions/{session_id}/memory/{kind}", response_model=MemoryDocument, responses=NOT_FOUND)
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

    return router
