"""One session-scoped local service for the tests (PostgreSQL, a Schema Registry): the URL an environment variable
names, else the deploy/ script's own server, started for the session when it was down and stopped at the end.

With the service's OMEGA_REQUIRE_* set to 1 (make test) a service that cannot be reached or started fails the run;
otherwise the tests that need it are skipped with the reason."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LocalService:
    """How to find, start, check and stop one service."""

    what: str  # as the skip/fail reason names it, e.g. "PostgreSQL"
    script: Path  # deploy/.../X.sh with up, status, down
    url_env: str  # an already running service, e.g. OMEGA_PG_URL
    require_env: str  # "1": unavailable fails the run instead of skipping
    problem: Callable[[str], str | None]  # None when the URL answers, else why not
    url_of: Callable[[str, bool], str | None]  # the URL in the script's stdout (after `up` when True, else `status`)
    up_timeout: float


def unavailable(service: LocalService, reason: str) -> None:
    """Skip, or fail when the run requires the service."""
    import pytest

    if os.environ.get(service.require_env) == "1":
        pytest.fail(f"{service.what} required ({service.require_env}=1) but {reason}")
    pytest.skip(reason)


def serve(service: LocalService) -> Iterator[str]:
    """The body of the session fixture: yields a URL that answers."""
    url = os.environ.get(service.url_env)
    if url:
        problem = service.problem(url)
        if problem:
            unavailable(service, f"{service.url_env}={url} does not answer: {problem}")
        yield url
        return
    script = str(service.script)
    status = subprocess.run(["bash", script, "status"], capture_output=True, text=True, check=False)
    started = status.returncode != 0
    if started and os.environ.get("PYTEST_XDIST_WORKER"):
        # each pytest-xdist worker has a session of its own: they would race to start the one server, and the first
        # to finish would stop it under the others. A parallel run uses a server started before it (run-tests.sh).
        unavailable(service, f"{service.script.name} reports no server, and a pytest-xdist worker starts none: "
                             f"start it first (`bash {service.script.relative_to(service.script.parents[2])} up`) "
                             f"or set {service.url_env}")
    if started:
        up = subprocess.run(["bash", script, "up"], capture_output=True, text=True, check=False,
                            timeout=service.up_timeout)
        if up.returncode != 0:
            unavailable(service, f"{service.script.name} up failed: {up.stderr.strip()[-2000:]}")
        found = service.url_of(up.stdout, True)
    else:
        found = service.url_of(status.stdout, False)
    try:
        if found is None:
            unavailable(service, f"{service.script.name} printed no URL")
        assert found is not None
        problem = service.problem(found)
        if problem:
            unavailable(service, f"{found} does not answer: {problem}")
        yield found
    finally:
        if started:
            subprocess.run(["bash", script, "down"], capture_output=True, check=False, timeout=120)
