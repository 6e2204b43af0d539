"""The server read-model store: PostgreSQL through psycopg 3, by URL.

Each store works in one schema (default `public`; tests use a throwaway one). Text columns are declared
COLLATE "C" so rows order bytewise, as in SQLite: `content_hash` is then equal across backends. Documents are
stored as canonical JSON text, not jsonb, because jsonb re-normalises numbers and key order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import sql

from projections.store import Row, SqlStore


class PostgresStore(SqlStore):
    """`ReadModelStore` over PostgreSQL (`postgresql://user@host:port/db`)."""

    placeholder = "%s"
    text_type = 'TEXT COLLATE "C"'

    def __init__(self, url: str, *, schema: str = "public") -> None:
        super().__init__()
        self.url = url
        self.schema = schema
        self._conn: psycopg.Connection[Any] | None = None

    def __repr__(self) -> str:
        return f"PostgresStore(schema={self.schema!r})"  # the URL may carry a password

    @property
    def connection(self) -> psycopg.Connection[Any]:
        """The open connection (RuntimeError when the store is not open)."""
        if self._conn is None:
            raise RuntimeError(f"{self!r} is not open")
        return self._conn

    def _connect(self) -> None:
        # autocommit: reads are single statements and every write goes through `_transaction`, so no
        # implicit transaction stays open between batches (it would hold locks and a stale snapshot).
        conn = psycopg.connect(self.url, autocommit=True)
        try:
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(self.schema)))
            conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(self.schema)))
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    def _disconnect(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        with self.connection.transaction():
            yield

    def _query(self, sql_text: str, params: Sequence[Any] = ()) -> list[Row]:
        with self.connection.cursor() as cur:
            cur.execute(sql_text.encode(), tuple(params) or None)
            return cur.fetchall()

    def _execute(self, sql_text: str, params: Sequence[Any] = ()) -> None:
        self.connection.execute(sql_text.encode(), tuple(params) or None)

    def _executemany(self, sql_text: str, rows: Sequence[Row]) -> None:
        if rows:
            with self.connection.cursor() as cur:
                cur.executemany(sql_text.encode(), rows)

    def reset(self) -> None:
        """See `ReadModelStore.reset`; TRUNCATE is one statement and leaves no dead rows behind."""
        with self._transaction():
            self._execute("TRUNCATE memory_documents, memory_failures, memory_successes, memory_positions, "
                          "memory_applied")
        self._positions = {}
        self._indexed.clear()
