"""Shared fixtures. Broker order (DESIGN.md): KAFKA_BOOTSTRAP_SERVERS; the local KRaft broker; testcontainers."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pg_server import postgres_url  # noqa: F401  (a session fixture, for every test that needs PostgreSQL)
from tests.registry_server import schema_registry_url  # noqa: F401  (the same, for a Schema Registry)

REPO = Path(__file__).resolve().parents[1]
SHARED = (REPO / ".." / "shared").resolve()
LOCAL_BROKER = "127.0.0.1:9092"


def _answers(bootstrap: str) -> bool:
    host, _, port = bootstrap.split(",", maxsplit=1)[0].rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=2):
            return True
    except OSError:
        return False


def _broker_required() -> bool:
    return bool(os.environ.get("OMEGA_REQUIRE_BROKER") or os.environ.get("CI"))


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    """A reachable Kafka; in CI (or under make test) a missing broker fails instead of skipping."""
    env = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
    if env:
        if not _answers(env):
            pytest.fail(f"KAFKA_BOOTSTRAP_SERVERS={env} does not answer")
        yield env
        return
    if _answers(LOCAL_BROKER):
        yield LOCAL_BROKER
        return
    try:
        from testcontainers.kafka import KafkaContainer

        with KafkaContainer("apache/kafka:3.9.1").with_kraft() as container:
            yield container.get_bootstrap_server()
            return
    except Exception as exc:  # noqa: BLE001 - any failure means no Docker engine answered
        reason = f"no Kafka broker: KAFKA_BOOTSTRAP_SERVERS unset, {LOCAL_BROKER} silent, testcontainers: {exc}"
    if _broker_required():
        pytest.fail(reason)
    pytest.skip(reason)
