"""A reachable Schema Registry (Confluent API) for the tests that need one: OMEGA_SCHEMA_REGISTRY_URL, else a local
Apicurio Registry started with deploy/registry/registry.sh for the session (fixture `schema_registry_url`, to be
registered in tests/conftest.py).

With OMEGA_REQUIRE_REGISTRY=1 (make test) a registry that cannot be reached or started fails the run; otherwise the
tests that need it are skipped with the reason. The registry keeps its schemas in memory: tests never assume ids,
and each test uses subjects of its own (a topic prefix)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.local_service import LocalService, serve

REPO = Path(__file__).resolve().parents[1]
REGISTRY_SH = REPO / "deploy" / "registry" / "registry.sh"
UP_TIMEOUT_S = 600  # a cold download of the distribution (~110 MB) plus the script's own readiness budget


def registry_problem(url: str) -> str | None:
    """None when `url` serves the Confluent API's subject listing, else why not."""
    try:
        response = httpx.get(f"{url.rstrip('/')}/subjects", timeout=5)
    except httpx.HTTPError as exc:
        return repr(exc)
    return None if response.status_code == 200 else f"GET /subjects answered {response.status_code}"


def _url_of(output: str) -> str | None:
    """The `url=...` that registry.sh prints on `up` and `status`."""
    for word in output.split():
        if word.startswith("url="):
            return word.removeprefix("url=")
    return None


REGISTRY = LocalService("Schema Registry", REGISTRY_SH, "OMEGA_SCHEMA_REGISTRY_URL", "OMEGA_REQUIRE_REGISTRY",
                        registry_problem, lambda stdout, _up: _url_of(stdout), UP_TIMEOUT_S)


@pytest.fixture(scope="session")
def schema_registry_url() -> Iterator[str]:
    """A reachable registry: OMEGA_SCHEMA_REGISTRY_URL, else the registry.sh one (stopped at the end if this run
    started it)."""
    yield from serve(REGISTRY)
