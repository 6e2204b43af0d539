"""The episodes resource (issue 25): `GET /episodes` (in trouble first, paged) and `GET /episodes/{episode_id}`
(one episode with its timeline). Arguments are checked by projections.live.views: a refusal is answered 422."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from projections.http.live_models import EpisodeDetail, EpisodePage
from projections.http.live_queries import CursorQuery, LimitQuery, SeverityQuery, SinceQuery
from projections.http.reading import NOT_FOUND, REFUSED, Reading, read_checked, read_found
from projections.live import views as live_views

# Module-level: FastAPI resolves the (postponed) annotations of the route functions in this module's namespace.
StateQuery = Annotated[str | None, Query(description="current FSM state",
                                         json_schema_extra={"enum": list(live_views.STATES)})]
TroubleQuery = Annotated[bool, Query(description="only episodes in trouble (trouble > 0)")]


def episodes_router(reading: Reading) -> APIRouter:
    """/episodes and /episodes/{episode_id} over the lent store."""
    router = APIRouter(tags=["live"])

    @router.get("/episodes", response_model=EpisodePage, responses=REFUSED)
    def list_episodes(state: StateQuery = None, severity: SeverityQuery = None, since: SinceQuery = None,
                      trouble: TroubleQuery = False, limit: LimitQuery = 50, cursor: CursorQuery = None) -> Any:
        """OMEN episodes, in trouble first (trouble desc, last event desc, id)."""
        return read_checked(reading, lambda s: live_views.episodes(
            s, state=state, severity=severity, since=since, trouble_only=trouble, limit=limit, cursor=cursor))

    @router.get("/episodes/{episode_id}", response_model=EpisodeDetail, responses=NOT_FOUND)
    def get_episode(episode_id: str) -> Any:
        """One episode: its summary, verdict timeline (usage per budget over time) and newest alerts."""
        return read_found(reading, lambda s: live_views.episode(s, episode_id), f"unknown episode {episode_id!r}")

    return router
