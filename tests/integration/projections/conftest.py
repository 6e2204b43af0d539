"""Read-model store backends for the contract suite: SQLite in a temporary directory, and PostgreSQL from
OMEGA_PG_URL or, failing that, a throwaway server started with deploy/postgres/pg.sh for the session.

With OMEGA_REQUIRE_POSTGRES=1 a PostgreSQL that cannot be reached or started fails the run; otherwise its
half of the suite is skipped with the reason."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from projections.store.base import SqlStore
from projections.store.postgres import PostgresStore
from projections.store.sqlite import SqliteStore

# the session fixture `postgres_url` comes from tests/conftest.py (tests/pg_server.py)

StoreFactory = Callable[[], SqlStore]


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """How to make a (closed) store of the backend under test; every store a test makes shares one database
    (PostgreSQL: one throwaway schema, dropped afterwards)."""
    if request.param == "sqlite":
        path = tmp_path / "memories.sqlite"
        yield lambda: SqliteStore(path)
        return
    url: str = request.getfixturevalue("postgres_url")
    schema = f"contract_{uuid.uuid4().hex[:12]}"
    yield lambda: PostgresStore(url, schema=schema)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


@pytest.fixture
def make_store(backend: StoreFactory) -> Iterator[StoreFactory]:
    """A factory of opened stores of the backend under test; every store it made is closed afterwards."""
    made: list[SqlStore] = []

    def make() -> SqlStore:
        store = backend()
        store.open()
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()
