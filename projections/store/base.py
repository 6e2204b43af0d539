"""The SQL both read-model backends share: the tables, one batch's commit, the reads and the content hash; a
backend supplies only its connection, its transaction and its paramstyle.

Tables (the same in both backends; text compared bytewise, so both order rows alike):
    memory_documents  (session_id, kind, doc)                 one canonical JSON document per memory
    memory_failures   (session_id, entry_id, failure_type, pattern, pattern_id, occurred_at, entry)
    memory_successes  (session_id, entry_id, success_type, pattern, pattern_id, occurred_at, entry)
    memory_positions  (source, log_partition, log_offset)     the tracking records
    memory_applied    (source, log_partition, log_offset, event_id)   only with `audit = True`: one row per
                      applied event, written in the batch's transaction (no key, so a duplicate would show)
    live_episodes, live_sessions, live_alerts   the live read models (projections.live.tables), written from the
                      batch's live changes in the same transaction, so the positions cover them too
The two index tables (projections.store.index_rows) are rewritten with their document.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any, Protocol, Self

import orjson

from projections.live.model import LiveDelta
from projections.live.tables import HASHED_LIVE, LIVE_TABLES, LiveTables
from projections.memories.documents import KINDS, JSONObject, canonical, parse
from projections.store.index_rows import INDEX_TABLES, index_changes
from projections.store.protocol import AuditRow, Batch, DocKey, Position, Row

MEMORY_TABLES = ("memory_documents", "memory_failures", "memory_successes", "memory_positions", "memory_applied")
HASHED = (
    ("memory_documents", "session_id, kind, doc", "session_id, kind"),
    ("memory_failures", "session_id, entry_id, failure_type, pattern, pattern_id, occurred_at, entry",
     "session_id, entry_id"),
    ("memory_successes", "session_id, entry_id, success_type, pattern, pattern_id, occurred_at, entry",
     "session_id, entry_id"),
    *HASHED_LIVE,
)


class ReadOnlyStoreError(RuntimeError):
    """A write attempted through a store opened read-only."""


class Connection(Protocol):
    """What the base needs of a backend's connection."""

    def close(self) -> None: ...


class SqlStore(LiveTables, ABC):
    """The store logic over a DB-API connection; a backend supplies the connection, its transaction and its
    statements' execution. SQL is written with `?` placeholders and translated to the backend's paramstyle.
    `read_only`: no DDL runs and every write is refused (`ReadOnlyStoreError`)."""

    placeholder = "?"
    text_type = "TEXT"  # PostgreSQL declares its text columns COLLATE "C", so ORDER BY is bytewise there too

    max_remembered = 100_000
    audit = False
    """Also record every applied event in `memory_applied` (an audit trail: proves exactly-once application)."""

    def __init__(self, *, read_only: bool = False) -> None:
        self.read_only = read_only
        self._conn: Connection | None = None
        self._positions: dict[Position, int] = {}
        self._open = False
        # The failure / success documents last committed, by key: the next version is diffed against them by
        # entry identity (the reducers keep an unchanged entry as the same object), so a batch writes only the
        # new or changed index rows. A key not remembered (first write after open, or forgotten past
        # `max_remembered`) has its rows rewritten whole.
        self._indexed: OrderedDict[DocKey, Mapping[str, Any]] = OrderedDict()

    # -------------------------------------------------------------- backend primitives
    @abstractmethod
    def _connect(self) -> None: ...

    def _disconnect(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @abstractmethod
    def _transaction(self) -> AbstractContextManager[None]:
        """A context that commits on success and rolls back on an exception."""

    @abstractmethod
    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    @abstractmethod
    def _write(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run one writing statement."""

    @abstractmethod
    def _write_many(self, sql: str, rows: Sequence[Row]) -> None:
        """Run one writing statement over `rows`."""

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._writable()
        self._write(sql, params)

    def _executemany(self, sql: str, rows: Sequence[Row]) -> None:
        self._writable()
        self._write_many(sql, rows)

    def _writable(self) -> None:
        # Every write goes through _execute/_executemany: refused here with the store's name, before the
        # backend's own refusal (SQLite's "attempt to write a readonly database", PostgreSQL's READ ONLY).
        if self.read_only:
            raise ReadOnlyStoreError(f"{self!r} is open read-only: it cannot be written")

    def _sql(self, sql: str) -> str:
        return sql if self.placeholder == "?" else sql.replace("?", self.placeholder)

    def _ddl(self) -> list[str]:
        if self.read_only:
            return []  # the tables must be there already: a database without them fails on the first query
        t = self.text_type
        index_columns = (f"session_id {t} NOT NULL, entry_id {t} NOT NULL, {{type}} {t}, pattern {t}, "
                         f"pattern_id {t}, occurred_at {t}, entry {t} NOT NULL, PRIMARY KEY (session_id, entry_id)")
        return [
            f"CREATE TABLE IF NOT EXISTS memory_documents (session_id {t} NOT NULL, kind {t} NOT NULL, "
            f"doc {t} NOT NULL, PRIMARY KEY (session_id, kind))",
            f"CREATE TABLE IF NOT EXISTS memory_failures ({index_columns.format(type='failure_type')})",
            f"CREATE TABLE IF NOT EXISTS memory_successes ({index_columns.format(type='success_type')})",
            f"CREATE TABLE IF NOT EXISTS memory_positions (source {t} NOT NULL, log_partition INTEGER NOT NULL, "
            "log_offset BIGINT NOT NULL, PRIMARY KEY (source, log_partition))",
            f"CREATE TABLE IF NOT EXISTS memory_applied (source {t} NOT NULL, log_partition INTEGER NOT NULL, "
            f"log_offset BIGINT NOT NULL, event_id {t} NOT NULL)",
            "CREATE INDEX IF NOT EXISTS memory_failures_pattern ON memory_failures (pattern, occurred_at)",
            "CREATE INDEX IF NOT EXISTS memory_failures_pattern_id ON memory_failures (pattern_id, occurred_at)",
            "CREATE INDEX IF NOT EXISTS memory_failures_type ON memory_failures (failure_type, occurred_at)",
            "CREATE INDEX IF NOT EXISTS memory_successes_pattern ON memory_successes (pattern, occurred_at)",
            "CREATE INDEX IF NOT EXISTS memory_successes_pattern_id ON memory_successes (pattern_id, occurred_at)",
            "CREATE INDEX IF NOT EXISTS memory_successes_type ON memory_successes (success_type, occurred_at)",
            *self._live_ddl(),
        ]

    # -------------------------------------------------------------- lifecycle
    def open(self) -> None:
        """Connect, create the tables when missing and load the tracking positions."""
        if self._open:
            return
        self._connect()
        try:
            with self._transaction():
                for statement in self._ddl():
                    self._execute(statement)
            self._positions = self._load_positions()
            self._indexed.clear()  # what another process wrote since is unknown: rewrite rows whole first
        except BaseException:
            self._disconnect()
            raise
        self._open = True

    def close(self) -> None:
        """Disconnect; a closed store can be opened again."""
        if self._open:
            self._open = False
            self._disconnect()

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _load_positions(self) -> dict[Position, int]:
        rows = self._query("SELECT source, log_partition, log_offset FROM memory_positions")
        return {(str(s), int(p)): int(o) for s, p, o in rows}

    # -------------------------------------------------------------- writing
    def commit(self, batch: Batch) -> None:
        """See `ReadModelStore.commit`; a batch that moved no position writes nothing."""
        if batch.positions:
            self._commit(batch.documents, batch.positions, batch.audit, batch.live)
        # Only now, once committed: a failed batch leaves the known positions as they were.
        self._positions.update(batch.positions)

    def _commit(self, documents: Mapping[DocKey, JSONObject], positions: Mapping[Position, int],
                audit: Sequence[AuditRow] = (), live: LiveDelta | None = None) -> None:
        # Serialise before the transaction opens: a document that cannot be encoded fails the batch without
        # holding the write lock, and the lock is held only for the writes themselves.
        rows = [(sid, kind, canonical(doc)) for (sid, kind), doc in documents.items()]
        indexed = {kind: index_changes(kind, documents, self._indexed) for kind in INDEX_TABLES}
        with self._transaction():
            # 1. the documents
            self._executemany(self._sql(
                "INSERT INTO memory_documents (session_id, kind, doc) VALUES (?, ?, ?) "
                "ON CONFLICT (session_id, kind) DO UPDATE SET doc = excluded.doc"), rows)
            # 2. their index rows: new and changed entries, or the session's rows whole when not remembered
            for kind, (table, type_column) in INDEX_TABLES.items():
                changes = indexed[kind]
                # Table and column names are constants of this module; every value is a bound parameter.
                self._executemany(self._sql(f"DELETE FROM {table} WHERE session_id = ?"),  # noqa: S608
                                  [(sid,) for sid in changes.rewrite])
                self._executemany(self._sql(f"DELETE FROM {table} WHERE session_id = ? AND entry_id = ?"),  # noqa: S608
                                  changes.delete)
                self._executemany(self._sql(
                    f"INSERT INTO {table} (session_id, entry_id, {type_column}, pattern, pattern_id, "  # noqa: S608
                    "occurred_at, entry) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, entry_id) DO UPDATE "
                    f"SET {type_column} = excluded.{type_column}, pattern = excluded.pattern, "
                    "pattern_id = excluded.pattern_id, occurred_at = excluded.occurred_at, entry = excluded.entry"),
                    changes.upsert)
            # 3. the tracking positions, in the same transaction
            self._executemany(self._sql(
                "INSERT INTO memory_positions (source, log_partition, log_offset) VALUES (?, ?, ?) "
                "ON CONFLICT (source, log_partition) DO UPDATE SET log_offset = excluded.log_offset"),
                [(s, p, o) for (s, p), o in positions.items()])
            # 4. the audit trail, when asked for: committed or rolled back with the batch
            self._executemany(self._sql("INSERT INTO memory_applied (source, log_partition, log_offset, event_id) "
                                        "VALUES (?, ?, ?, ?)"), audit)
            # 5. the live read models (episodes, sessions, the alert feed), covered by the same positions
            if live:
                self._write_live(live)
        # Committed: remember what the index now holds (a rolled-back batch leaves the memory as it was).
        for key, doc in documents.items():
            if key[1] in INDEX_TABLES:
                self._indexed[key] = doc
                self._indexed.move_to_end(key)
        while len(self._indexed) > self.max_remembered:
            self._indexed.popitem(last=False)

    def reset(self) -> None:
        """See `ReadModelStore.reset`."""
        with self._transaction():
            self._delete_all()
        self._positions = {}
        self._indexed.clear()

    def _delete_all(self) -> None:
        for table in (*MEMORY_TABLES, *LIVE_TABLES):
            self._execute(f"DELETE FROM {table}")  # noqa: S608 - a constant table name

    # -------------------------------------------------------------- reading
    def position(self, source: str, partition: int) -> int | None:
        """See `ReadModelStore.position`."""
        return self._positions.get((source, partition))

    def positions(self) -> dict[Position, int]:
        """See `ReadModelStore.positions`."""
        return dict(self._positions)

    def committed_positions(self) -> dict[Position, int]:
        """The tracking positions as committed now, read from the database (another process may be writing:
        `positions` is what this store knows)."""
        return self._load_positions()

    def applied_events(self) -> list[tuple[str, int, int, str]]:
        """The audit trail (source, partition, offset, event_id) in position order; empty unless `audit`."""
        rows = self._query("SELECT source, log_partition, log_offset, event_id FROM memory_applied "
                           "ORDER BY source, log_partition, log_offset")
        return [(str(s), int(p), int(o), str(e)) for s, p, o, e in rows]

    def get(self, session_id: str, kind: str) -> JSONObject | None:
        """See `ReadModelStore.get`."""
        if kind not in KINDS:
            raise ValueError(f"unknown memory kind {kind!r}; one of {', '.join(KINDS)}")
        rows = self._query(self._sql("SELECT doc FROM memory_documents WHERE session_id = ? AND kind = ?"),
                           (session_id, kind))
        return parse(rows[0][0]) if rows else None

    def session(self, session_id: str) -> dict[str, JSONObject]:
        """See `ReadModelStore.session`."""
        rows = self._query(self._sql("SELECT kind, doc FROM memory_documents WHERE session_id = ?"), (session_id,))
        return {str(kind): parse(doc) for kind, doc in rows}

    def sessions(self) -> list[str]:
        """See `ReadModelStore.sessions`."""
        return [str(r[0]) for r in self._query("SELECT DISTINCT session_id FROM memory_documents ORDER BY session_id")]

    def failures(self, *, pattern: str | None = None, failure_type: str | None = None) -> list[JSONObject]:
        """See `ReadModelStore.failures`."""
        return self._entries("failure", pattern, failure_type)

    def successes(self, *, pattern: str | None = None, success_type: str | None = None) -> list[JSONObject]:
        """See `ReadModelStore.successes`."""
        return self._entries("success", pattern, success_type)

    def _entries(self, kind: str, pattern: str | None, type_: str | None) -> list[JSONObject]:
        table, type_column = INDEX_TABLES[kind]
        where, params = [], []
        if pattern is not None:
            where.append("(pattern = ? OR pattern_id = ?)")
            params += [pattern, pattern]
        if type_ is not None:
            where.append(f"{type_column} = ?")
            params.append(type_)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        rows = self._query(self._sql(
            f"SELECT session_id, entry FROM {table}{clause} "  # noqa: S608 - constant names, values bound
            # `occurred_at IS NULL` first: both backends then put untimed entries last (their NULL orders differ)
            "ORDER BY occurred_at IS NULL, occurred_at, session_id, entry_id"), params)
        return [{**parse(entry), "session_id": sid} for sid, entry in rows]

    def _dump(self) -> Iterator[bytes]:
        for table, columns, order in HASHED:
            for row in self._query(f"SELECT {columns} FROM {table} ORDER BY {order}"):  # noqa: S608 - constants
                yield orjson.dumps([table, *row]) + b"\n"

    def content_hash(self) -> str:
        """See `ReadModelStore.content_hash`."""
        digest = hashlib.sha256()
        for line in self._dump():
            digest.update(line)
        return digest.hexdigest()
