"""The server read-model store: PostgreSQL through psycopg 3, by URL.

Each store works in one schema (default `public`; tests use a throwaway one). Text columns are declared
COLLATE "C" so rows order bytewise, as in SQLite: `content_hash` is then equal across backends. Documents are
stored as canonical JSON text, not jsonb, because jsonb re-normalises numbers and key order.

Read-only (`read_only=True`, what the read commands open): the session's transactions default to READ ONLY, so
the server refuses any write, and the schema and tables are not created (they must exist).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import sql

from projections.live.tables import LIVE_TABLES
from projections.store.base import MEMORY_TABLES, SqlStore
from projections.store.protocol import Row


class PostgresStore(SqlStore):
    """`ReadModelStore` over PostgreSQL (`postgresql://user@host:port/db`)."""

    placeholder = "%s"
    text_type = 'TEXT COLLATE "C"'

    def __init__(self, url: str, *, schema: str = "public", read_only: bool = False) -> None:
        super().__init__(read_only=read_only)
        self.url = url
        self.schema = schema
        self._conn: psycopg.Connection[Any] | None = None

    def __repr__(self) -> str:
        # the URL may carry a password
        return f"PostgresStore(schema={self.schema!r}{', read_only=True' if self.read_only else ''})"

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
            if self.read_only:
                # Every transaction of the session, the autocommitted single statements included, is READ ONLY.
                conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            else:
                conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(self.schema)))
            conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(self.schema)))
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        with self.connection.transaction():
            yield

    def _query(self, sql_text: str, params: Sequence[Any] = ()) -> list[Row]:
        with self.connection.cursor() as cur:
            cur.execute(sql_text.encode(), tuple(params) or None)
            return cur.fetchall()

    def _write(self, sql_text: str, params: Sequence[Any] = ()) -> None:
        self.connection.execute(sql_text.encode(), tuple(params) or None)

    def _write_many(self, sql_text: str, rows: Sequence[Row]) -> None:
        if rows:
            with self.connection.cursor() as cur:
                cur.executemany(sql_text.encode(), rows)

    def _delete_all(self) -> None:
        # TRUNCATE is one statement and leaves no dead rows behind
        self._execute(f"TRUNCATE {', '.join((*MEMORY_TABLES, *LIVE_TABLES))}")
