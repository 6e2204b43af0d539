"""The query parameters the live resources share (/episodes, /alerts): severity, since, page size and cursor.

The routes' modules import them by name: FastAPI resolves the (postponed) annotations of a route function in the
namespace of the module that defines it.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

from projections.live import views as live_views

SeverityQuery = Annotated[str | None, Query(description="this severity or worse (normalised scale)",
                                            json_schema_extra={"enum": list(live_views.SEVERITIES)})]
SinceQuery = Annotated[str | None, Query(description="ISO-8601 time: only what happened at or after it")]
LimitQuery = Annotated[int, Query(ge=1, le=live_views.MAX_LIMIT, description="page size")]
CursorQuery = Annotated[str | None, Query(description="the `next` of the previous page")]
