"""The embedded read-model store: one SQLite file (stdlib `sqlite3`), WAL mode.

Durability: WAL with synchronous=NORMAL. A power loss may lose the last batches, never half a batch: the
documents and their tracking position commit together, so the runner resumes from the last committed
position and re-applies what was lost.

Read-only (`read_only=True`, what the read commands open): the file is opened `mode=ro`, nothing is created and no
DDL or pragma that writes runs, so a read never changes the database file. SQLite still needs the `-wal` and
`-shm` files beside a WAL database to coordinate with a writer, and creates them (empty) when they are missing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from projections.store.base import SqlStore
from projections.store.protocol import Row


class SqliteStore(SqlStore):
    """`ReadModelStore` over a SQLite file (":memory:" works too, for tests); `read_only`: see the module."""

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        super().__init__(read_only=read_only)
        self.path = str(path)
        if read_only and self.path == ":memory:":
            raise ValueError("a read-only SQLite store needs a file: an in-memory one would always be empty")
        self._conn: sqlite3.Connection | None = None

    def __repr__(self) -> str:
        return f"SqliteStore({self.path!r}{', read_only=True' if self.read_only else ''})"

    @property
    def connection(self) -> sqlite3.Connection:
        """The open connection (RuntimeError when the store is not open)."""
        if self._conn is None:
            raise RuntimeError(f"{self!r} is not open")
        return self._conn

    def _connect(self) -> None:
        if self.read_only:
            self._conn = self._connect_read_only()
            return
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: no implicit transactions; `_transaction` issues BEGIN/COMMIT itself, so a
        # batch is exactly one transaction.
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=10000")
        self._conn = conn

    def _connect_read_only(self) -> sqlite3.Connection:
        # A URI with mode=ro: SQLite itself refuses to create the file or write to it, whatever runs later.
        # as_uri() percent-encodes the path, so a `?` or `#` in a file name is not read as the URI's query.
        uri = f"{Path(self.path).resolve().as_uri()}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout=10000")
        return conn

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        conn = self.connection
        # IMMEDIATE takes the write lock up front, so a concurrent writer fails here, not mid-batch; a read-only
        # store only ever reads (its `open` runs an empty DDL transaction).
        conn.execute("BEGIN" if self.read_only else "BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return self.connection.execute(sql, tuple(params)).fetchall()

    def _write(self, sql: str, params: Sequence[Any] = ()) -> None:
        self.connection.execute(sql, tuple(params))

    def _write_many(self, sql: str, rows: Sequence[Row]) -> None:
        self.connection.executemany(sql, rows)
