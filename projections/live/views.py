"""The live views (issue 25) over an open store: episodes in trouble first, one episode, the alert feed (paged
newest first, or after a `seq` for the SSE stream and `omega watch`), and an OMEGA-57 session's status.

Every function returns plain JSON-able dicts (the shapes of /tmp/ci/live_view_contract.md, documented in
projections.live.model). Arguments are validated here: an unknown severity, kind or state, a `since` that is
not ISO-8601, a limit outside 1..MAX_LIMIT or a cursor this module did not write raise ValueError (the HTTP
API answers 422). Cursors are opaque: base64url of the sort key of a page's last row.
"""

from __future__ import annotations

import base64
from typing import Any

import orjson

from projections.live.model import ALERT_KINDS, RANK, SEVERITIES, STATES, public
from projections.memories.documents import JSONObject
from projections.memories.log_events import normalise_time
from projections.store.base import SqlStore

__all__ = ["KINDS", "MAX_LIMIT", "SEVERITIES", "STATES", "alerts", "alerts_after", "episode", "episodes",
           "last_seq", "session_status"]

KINDS = ALERT_KINDS
MAX_LIMIT = 500
RECENT_ALERTS = 20
"""How many of an episode's (or session's) newest alerts its detail shows."""


def _severity_rank(severity: str | None) -> int | None:
    if severity is None:
        return None
    if severity not in RANK:
        raise ValueError(f"unknown severity {severity!r}; one of {', '.join(SEVERITIES)}")
    return RANK[severity]


def _since(since: str | None) -> str | None:
    if since is None:
        return None
    moment = normalise_time(since)
    if moment is None:
        raise ValueError(f"since {since!r} is not an ISO-8601 time")
    return moment


def _limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be an integer in 1..{MAX_LIMIT}, not {limit!r}")
    return limit


def _encode(kind: str, *key: Any) -> str:
    return base64.urlsafe_b64encode(orjson.dumps([kind, *key])).decode("ascii").rstrip("=")


def _decode(cursor: str, kind: str, types: tuple[type, ...]) -> tuple[Any, ...]:
    try:
        value = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, TypeError):
        value = None
    if (not isinstance(value, list) or len(value) != len(types) + 1 or value[0] != kind
            or not all(type(v) is t for v, t in zip(value[1:], types, strict=True))):
        raise ValueError(f"invalid cursor {cursor!r}")
    return tuple(value[1:])


def _summary(doc: JSONObject) -> JSONObject:
    out = public(doc)
    out.pop("timeline", None)
    return out


def episodes(store: SqlStore, *, state: str | None = None, severity: str | None = None, since: str | None = None,
             trouble_only: bool = False, limit: int = 50, cursor: str | None = None) -> dict[str, Any]:
    """{"items": [EpisodeSummary], "next": cursor | None}: in trouble first (trouble desc, last_event_time desc,
    episode_id); `severity`: top alert severity this or worse; `since`: last event at or after."""
    if state is not None and state not in STATES:
        raise ValueError(f"unknown state {state!r}; one of {', '.join(STATES)}")
    rank, moment, size = _severity_rank(severity), _since(since), _limit(limit)
    after = None if cursor is None else _decode(cursor, "e", (int, str, str))
    docs = store.episode_documents(state=state, max_rank=rank, since=moment, trouble_only=trouble_only,
                                   after=after, limit=size + 1)
    page = docs[:size]
    last = page[-1] if page else {}
    more = len(docs) > size
    return {"items": [_summary(d) for d in page],
            "next": _encode("e", last["trouble"], last["last_event_time"], last["episode_id"]) if more else None}


def episode(store: SqlStore, episode_id: str) -> dict[str, Any] | None:
    """EpisodeDetail (the summary, its timeline and its newest alerts), None when the episode is unknown."""
    doc = store.episode_document(episode_id)
    if doc is None:
        return None
    return {**public(doc), "recent_alerts": store.alert_records(episode_id=episode_id, limit=RECENT_ALERTS)}


def alerts(store: SqlStore, *, since: str | None = None, severity: str | None = None, kind: str | None = None,
           limit: int = 50, cursor: str | None = None) -> dict[str, Any]:
    """{"items": [Alert], "next": cursor | None}: newest first (event_time desc, alert_id); `severity`: this
    or worse; `kind`: one of KINDS; `since`: event time at or after."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown alert kind {kind!r}; one of {', '.join(KINDS)}")
    rank, moment, size = _severity_rank(severity), _since(since), _limit(limit)
    after = None if cursor is None else _decode(cursor, "a", (str, str))
    rows = store.alert_records(since=moment, max_rank=rank, kind=kind, after=after,
                               limit=size + 1)
    page = rows[:size]
    more = len(rows) > size
    return {"items": page, "next": _encode("a", page[-1]["event_time"], page[-1]["alert_id"]) if more else None}


def alerts_after(store: SqlStore, after_seq: int, limit: int = 100) -> list[dict[str, Any]]:
    """Alerts with `seq` > `after_seq`, in arrival order (what the SSE stream and `omega watch` poll)."""
    if isinstance(after_seq, bool) or not isinstance(after_seq, int):
        raise ValueError(f"after_seq must be an integer, not {after_seq!r}")
    return store.alert_records_after(after_seq, _limit(limit))


def last_seq(store: SqlStore) -> int:
    """The `seq` of the newest alert (0 when there is none): where a stream of only new alerts starts."""
    return store.alert_last_seq()


def session_status(store: SqlStore, session_id: str) -> dict[str, Any] | None:
    """An OMEGA-57 session's live status (iteration, confidence trend, failure signatures fired, termination
    and its newest alerts), None when the session is unknown."""
    doc = store.session_status_document(session_id)
    if doc is None:
        return None
    newest = store.alert_records(session_id=session_id, limit=RECENT_ALERTS)
    return {**public(doc), "recent_alerts": newest}
