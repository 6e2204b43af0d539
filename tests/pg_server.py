"""A reachable PostgreSQL for the tests that need one: OMEGA_PG_URL, else a throwaway server started with
deploy/postgres/pg.sh for the session (fixture `postgres_url`, registered in tests/conftest.py).

With OMEGA_REQUIRE_POSTGRES=1 (make test) a PostgreSQL that cannot be reached or started fails the run; otherwise
the tests that need it are skipped with the reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.local_service import LocalService, serve

REPO = Path(__file__).resolve().parents[1]
PG_SH = REPO / "deploy" / "postgres" / "pg.sh"


def _answers(url: str) -> str | None:
    try:
        with psycopg.connect(url, connect_timeout=5) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return str(exc).strip()
    return None


def _url_of(stdout: str, up: bool) -> str | None:
    """pg.sh prints the URL as the last line of `up`, the last word of `status`."""
    words = stdout.strip().splitlines()[-1:] if up else stdout.split()[-1:]
    return words[0] if words else None


POSTGRES = LocalService("PostgreSQL", PG_SH, "OMEGA_PG_URL", "OMEGA_REQUIRE_POSTGRES", _answers, _url_of, 300)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A reachable PostgreSQL: OMEGA_PG_URL, else the pg.sh server (stopped at the end if this run started it)."""
    yield from serve(POSTGRES)
