"""Read-model store backends for the contract suite: SQLite in a temporary directory, and PostgreSQL from
OMEGA_PG_URL or, failing that, a throwaway server started with deploy/postgres/pg.sh for the session.

With OMEGA_REQUIRE_POSTGRES=1 a PostgreSQL that cannot be reached or started fails the run; otherwise its
half of the suite is skipped with the reason."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from projections.postgres_store import PostgresStore
from projections.sqlite_store import SqliteStore
from projections.store import SqlStore

REPO = Path(__file__).resolve().parents[3]
PG_SH = REPO / "deploy" / "postgres" / "pg.sh"


def _unavailable(reason: str) -> None:
    if os.environ.get("OMEGA_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"PostgreSQL required (OMEGA_REQUIRE_POSTGRES=1) but {reason}")
    pytest.skip(reason)


def _answers(url: str) -> str | None:
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return str(exc).strip()
    return None


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A reachable PostgreSQL: OMEGA_PG_URL, else the pg.sh server (stopped at the end if this run started it)."""
    url = os.environ.get("OMEGA_PG_URL")
    if url:
        problem = _answers(url)
        if problem:
            _unavailable(f"OMEGA_PG_URL does not answer: {problem}")
        yield url
        return
    status = subprocess.run(["bash", str(PG_SH), "status"], capture_output=True, text=True, check=False)
    started = status.returncode != 0
    if started:
        up = subprocess.run(["bash", str(PG_SH), "up"], capture_output=True, text=True, check=False, timeout=300)
        if up.returncode != 0:
            _unavailable(f"deploy/postgres/pg.sh up failed: {up.stderr.strip()[-2000:]}")
        url = up.stdout.strip().splitlines()[-1]
    else:
        url = status.stdout.split()[-1]
    try:
        problem = _answers(url)
        if problem:
            _unavailable(f"{url} does not answer: {problem}")
        yield url
    finally:
        if started:
            subprocess.run(["bash", str(PG_SH), "down"], capture_output=True, check=False, timeout=120)


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
