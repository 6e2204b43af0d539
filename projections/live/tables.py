"""The live read models' tables (issue 25), shared by both SQL backends through `SqlStore`.

Tables (written in the batch's transaction, beside the memories and the tracking positions):
    live_episodes (episode_id, fsm_state, trouble, severity_rank, last_event_time, doc)   one row per OMEN episode
    live_sessions (session_id, doc)                                                       one per OMEGA-57 session
    live_alerts   (seq, alert_id, source, kind, severity, severity_rank, spec_severity, subject_id, episode_id,
                   session_id, event_time, summary, details)                            the alert feed
`seq` is assigned at insert, in arrival order, one above the highest stored: a rebuild from the same log gives
the same numbers, and a reader polls for `seq > last`. It is left out of the content hash: across Kafka
partitions the arrival order (not the content) may differ between two projections of the same log.
`severity_rank` is the place on omega.events.SEVERITY_SCALE (0 = CRITICAL; an episode without alerts has 5),
so "this severity or worse" is one comparison.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import orjson

from projections.live.model import NO_SEVERITY, RANK, LiveDelta
from projections.memories.documents import JSONObject, canonical, parse

Row = tuple[Any, ...]
ALERT_COLUMNS = ("seq", "alert_id", "source", "kind", "severity", "spec_severity", "subject_id", "episode_id",
                 "session_id", "event_time", "summary", "details")
LIVE_TABLES = ("live_episodes", "live_sessions", "live_alerts")
HASHED_LIVE = (
    ("live_episodes", "episode_id, doc", "episode_id"),
    ("live_sessions", "session_id, doc", "session_id"),
    ("live_alerts", ", ".join(c for c in ALERT_COLUMNS if c != "seq"), "alert_id"),
)
"""(table, columns, order) of the content hash; `seq` is not hashed (see the module docstring)."""


class LiveTables(ABC):
    """The live tables over a backend's primitives (`SqlStore` supplies them)."""

    text_type = "TEXT"

    @abstractmethod
    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    @abstractmethod
    def _execute(self, sql: str, params: Sequence[Any] = ()) -> None: ...

    @abstractmethod
    def _executemany(self, sql: str, rows: Sequence[Row]) -> None: ...

    @abstractmethod
    def _sql(self, sql: str) -> str: ...

    def _live_ddl(self) -> list[str]:
        t = self.text_type
        return [
            f"CREATE TABLE IF NOT EXISTS live_episodes (episode_id {t} NOT NULL PRIMARY KEY, fsm_state {t} NOT NULL, "
            f"trouble INTEGER NOT NULL, severity_rank INTEGER NOT NULL, last_event_time {t} NOT NULL, "
            f"doc {t} NOT NULL)",
            f"CREATE TABLE IF NOT EXISTS live_sessions (session_id {t} NOT NULL PRIMARY KEY, doc {t} NOT NULL)",
            f"CREATE TABLE IF NOT EXISTS live_alerts (seq BIGINT NOT NULL PRIMARY KEY, alert_id {t} NOT NULL UNIQUE, "
            f"source {t} NOT NULL, kind {t} NOT NULL, severity {t} NOT NULL, severity_rank INTEGER NOT NULL, "
            f"spec_severity {t}, subject_id {t} NOT NULL, episode_id {t}, session_id {t}, event_time {t} NOT NULL, "
            f"summary {t} NOT NULL, details {t})",
            "CREATE INDEX IF NOT EXISTS live_episodes_order ON live_episodes (trouble, last_event_time, episode_id)",
            "CREATE INDEX IF NOT EXISTS live_alerts_order ON live_alerts (event_time, alert_id)",
            "CREATE INDEX IF NOT EXISTS live_alerts_episode ON live_alerts (episode_id, event_time)",
            "CREATE INDEX IF NOT EXISTS live_alerts_session ON live_alerts (session_id, event_time)",
        ]

    # -------------------------------------------------------------- writing (inside the batch's transaction)
    def _write_live(self, delta: LiveDelta) -> None:
        self._executemany(self._sql(
            "INSERT INTO live_episodes (episode_id, fsm_state, trouble, severity_rank, last_event_time, doc) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (episode_id) DO UPDATE SET fsm_state = excluded.fsm_state, "
            "trouble = excluded.trouble, severity_rank = excluded.severity_rank, "
            "last_event_time = excluded.last_event_time, doc = excluded.doc"),
            [(eid, d["fsm_state"], d["trouble"], RANK.get(d["top_severity"] or "", NO_SEVERITY),
              d["last_event_time"], canonical(d)) for eid, d in delta.episodes.items()])
        self._executemany(self._sql(
            "INSERT INTO live_sessions (session_id, doc) VALUES (?, ?) "
            "ON CONFLICT (session_id) DO UPDATE SET doc = excluded.doc"),
            [(sid, canonical(d)) for sid, d in delta.sessions.items()])
        if not delta.alerts:
            return
        last = int(self._query("SELECT COALESCE(MAX(seq), 0) FROM live_alerts")[0][0])
        self._executemany(self._sql(
            "INSERT INTO live_alerts (seq, alert_id, source, kind, severity, severity_rank, spec_severity, subject_id, "
            "episode_id, session_id, event_time, summary, details) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (alert_id) DO NOTHING"),
            [(last + i, a["alert_id"], a["source"], a["kind"], a["severity"], RANK.get(a["severity"], NO_SEVERITY),
              a["spec_severity"], a["subject_id"], a["episode_id"], a["session_id"], a["event_time"], a["summary"],
              None if a["details"] is None else canonical(a["details"])) for i, a in enumerate(delta.alerts, 1)])

    # -------------------------------------------------------------- reading
    def episode_document(self, episode_id: str) -> JSONObject | None:
        """The stored episode document (bookkeeping keys included), None when unknown."""
        rows = self._query(self._sql("SELECT doc FROM live_episodes WHERE episode_id = ?"), (episode_id,))
        return parse(rows[0][0]) if rows else None

    def session_status_document(self, session_id: str) -> JSONObject | None:
        """The stored OMEGA-57 session status document, None when unknown."""
        rows = self._query(self._sql("SELECT doc FROM live_sessions WHERE session_id = ?"), (session_id,))
        return parse(rows[0][0]) if rows else None

    def episode_documents(self, *, state: str | None = None, max_rank: int | None = None, since: str | None = None,
                          trouble_only: bool = False, after: tuple[int, str, str] | None = None,
                          limit: int = 50) -> list[JSONObject]:
        """Episodes in trouble first (trouble desc, last_event_time desc, episode_id), filtered; `after` is the
        (trouble, last_event_time, episode_id) of the last row of the previous page."""
        where = _Where()
        where.given(("fsm_state = ?", state), ("severity_rank <= ?", max_rank), ("last_event_time >= ?", since))
        if trouble_only:
            where.add("trouble > 0")
        if after is not None:
            t, at, eid = after
            where.add("(trouble < ? OR (trouble = ? AND (last_event_time < ? OR (last_event_time = ? AND "
                      "episode_id > ?))))", t, t, at, at, eid)
        rows = self._query(self._sql(
            f"SELECT doc FROM live_episodes{where} "  # noqa: S608 - constant clauses, values bound
            "ORDER BY trouble DESC, last_event_time DESC, episode_id LIMIT ?"), [*where.params, limit])
        return [parse(r[0]) for r in rows]

    def alert_records(self, *, since: str | None = None, max_rank: int | None = None, kind: str | None = None,
                      episode_id: str | None = None, session_id: str | None = None,
                      after: tuple[str, str] | None = None,
                      limit: int = 50) -> list[JSONObject]:
        """Feed rows newest first (event_time desc, alert_id), filtered; `after` is the (event_time, alert_id)
        of the last row of the previous page."""
        where = _Where()
        where.given(("event_time >= ?", since), ("severity_rank <= ?", max_rank), ("kind = ?", kind),
                    ("episode_id = ?", episode_id), ("session_id = ?", session_id))
        if after is not None:
            at, aid = after
            where.add("(event_time < ? OR (event_time = ? AND alert_id > ?))", at, at, aid)
        rows = self._query(self._sql(
            f"SELECT {', '.join(ALERT_COLUMNS)} FROM live_alerts{where} "  # noqa: S608 - constants, values bound
            "ORDER BY event_time DESC, alert_id LIMIT ?"), [*where.params, limit])
        return [_alert(r) for r in rows]

    def alert_last_seq(self) -> int:
        """The highest `seq` of the feed (0 when it is empty)."""
        return int(self._query("SELECT COALESCE(MAX(seq), 0) FROM live_alerts")[0][0])

    def alert_records_after(self, after_seq: int, limit: int = 100) -> list[JSONObject]:
        """Feed rows with `seq` > `after_seq`, in arrival order."""
        rows = self._query(self._sql(
            f"SELECT {', '.join(ALERT_COLUMNS)} FROM live_alerts WHERE seq > ? "  # noqa: S608 - constants
            "ORDER BY seq LIMIT ?"), (after_seq, limit))
        return [_alert(r) for r in rows]


class _Where:
    """AND-joined conditions, rendered as " WHERE ..." (or nothing), and the values they bind, in order."""

    def __init__(self) -> None:
        self.conditions: list[str] = []
        self.params: list[Any] = []

    def add(self, condition: str, *values: Any) -> None:
        self.conditions.append(condition)
        self.params.extend(values)

    def given(self, *filters: tuple[str, Any]) -> None:
        """Adds each (condition, value) whose value is given (not None)."""
        for condition, value in filters:
            if value is not None:
                self.add(condition, value)

    def __str__(self) -> str:
        return f" WHERE {' AND '.join(self.conditions)}" if self.conditions else ""


def _alert(row: Row) -> JSONObject:
    out = dict(zip(ALERT_COLUMNS, row, strict=True))
    out["seq"] = int(out["seq"])
    out["details"] = None if out["details"] is None else parse_any(out["details"])
    return out


def parse_any(text: str) -> Any:
    """A stored JSON value (details may be any JSON value, not only an object)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)  # integers past 64 bits, which orjson refuses
