"""A read-model store named by URL: `sqlite:PATH` or `postgresql://...` (what `--store` or OMEGA_READ_MODEL
takes)."""

from __future__ import annotations

from projections.store.base import SqlStore
from projections.store.sqlite import SqliteStore

DEFAULT_STORE = "sqlite:.omega-data/memories.sqlite"


def open_store(url: str, *, read_only: bool = False) -> SqlStore:
    """A (closed) store from `sqlite:PATH` or `postgresql://...` (`postgres://` too); ValueError otherwise.
    `read_only`: the store can only be read (the read commands), see `SqliteStore` and `PostgresStore`."""
    if url.startswith("sqlite:"):
        path = url.removeprefix("sqlite:").removeprefix("//")
        if not path:
            raise ValueError("sqlite: needs a path, e.g. sqlite:.omega-data/memories.sqlite")
        return SqliteStore(path, read_only=read_only)
    if url.startswith(("postgresql://", "postgres://")):
        from projections.store.postgres import PostgresStore  # psycopg only when asked for

        return PostgresStore(url, read_only=read_only)
    raise ValueError(f"unknown read-model store {url!r}: use sqlite:PATH or postgresql://...")
