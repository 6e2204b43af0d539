"""The embedded read-model store: one SQLite file (stdlib `sqlite3`), WAL mode.

Durability: WAL with synchronous=NORMAL. A power loss may lose the last batches, never half a batch: the
documents and their tracking position commit together, so the runner resumes from the last committed
position and re-applies what was lost.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from projections.store import Row, SqlStore


class SqliteStore(SqlStore):
    """`ReadModelStore` over a SQLite file (":memory:" works too, for tests)."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = str(path)
        self._conn: sqlite3.Connection | None = None

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r})"

    @property
    def connection(self) -> sqlite3.Connection:
        """The open connection (RuntimeError when the store is not open)."""
        if self._conn is None:
            raise RuntimeError(f"{self!r} is not open")
        return self._conn

    def _connect(self) -> None:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions; `_transaction` issues BEGIN/COMMIT itself, so a
        # batch is exactly one transaction.
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=10000")
        self._conn = conn

    def _disconnect(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        conn = self.connection
        # IMMEDIATE takes the write lock up front, so a concurrent writer fails here, not mid-batch.
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return self.connection.execute(sql, tuple(params)).fetchall()

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.connection.execute(sql, tuple(params))

    def _executemany(self, sql: str, rows: Sequence[Row]) -> None:
        self.connection.executemany(sql, rows)
