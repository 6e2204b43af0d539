"""A reachable PostgreSQL for the tests that need one: OMEGA_PG_URL, else a throwaway server started with
deploy/postgres/pg.sh for the session (fixture `postgres_url`, registered in tests/conftest.py).

With OMEGA_REQUIRE_POSTGRES=1 (make test) a PostgreSQL that cannot be reached or started fails the run; otherwise
the tests that need it are skipped with the reason."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

REPO = Path(__file__).resolve().parents[1]
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


