"""Shared fixtures. Broker order: KAFKA_BOOTSTRAP_SERVERS; the local KRaft broker; testcontainers."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.external_data import REQUIRED, SHARED
from tests.pg_server import postgres_url  # noqa: F401  (a session fixture, for every test that needs PostgreSQL)
from tests.registry_server import schema_registry_url  # noqa: F401  (the same, for a Schema Registry)

REPO = Path(__file__).resolve().parents[1]
LOCAL_BROKER = "127.0.0.1:9092"
INTEGRATION = REPO / "tests" / "integration"
# The fixtures of a server every test of the session shares (the broker, PostgreSQL, a Schema Registry)
SHARED_SERVERS = frozenset({"kafka_bootstrap", "postgres_url", "schema_registry_url"})


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under CI the external test data must be there (tests/external_data.py): a missing shelf is a failed run,
    not a run with its tests skipped."""
    if REQUIRED and not SHARED.is_dir():
        pytest.exit(f"CI is set and the external test data {SHARED} is missing", returncode=pytest.ExitCode.USAGE_ERROR)


# Serial tests that start brokers of their own (a cluster, a bounced or secure broker): one at a time, in one
# pytest-xdist worker, so no two sets of extra JVMs compete for the 2 cores and the memory.
OWN_BROKERS = frozenset({"test_broker_loss.py", "test_kafka_acl_live.py", "test_kafka_sh.py", "test_under_fire.py"})
# Serial tests that assert a wall-clock bound (the alert in the page's feed within FEED_WITHIN seconds): `alone`,
# run by themselves after the others, as every serial test ran before.
ALONE = frozenset({"test_live_page_browser.py"})


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: `-m serial` / `-m "not serial"` see the marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`serial`: every test under tests/integration/ (servers, worker processes, the browser, wall-clock
    deadlines) and every other test that asks for a shared server by its fixture; `alone` the few of them that
    assert a wall-clock bound. scripts/run-tests.sh runs the rest in parallel (`-m "not serial" -n 2`), the serial
    ones but `alone` on 2 workers by module (`--dist loadscope`, OWN_BROKERS as one scope: see
    pytest_xdist_make_scheduler), then the `alone` ones in one process."""
    for item in items:
        if item.path.is_relative_to(INTEGRATION) or SHARED_SERVERS & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.serial)
            if item.path.name in ALONE:
                item.add_marker(pytest.mark.alone)


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `--dist loadscope`: each module on one worker, as loadscope does (its tests share module fixtures,
    helpers and ports), and the OWN_BROKERS modules together on one. (Not `xdist_group` marks with `--dist
    loadgroup`: pytest-xdist 3.8 renames `item._nodeid`, which pytest 9 no longer reads, so they group nothing.)"""
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class OwnBrokersTogether(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return "own-brokers" if module.rpartition("/")[2] in OWN_BROKERS else str(super()._split_scope(nodeid))

    return OwnBrokersTogether(config, log)


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


# Every datum a test encodes in this process is also written by fastavro, and every record it decodes also read by
# fastavro, and the two compared: the generated writers and readers (streams/wire/avro_writer.py, avro_reader.py)
# are held to fastavro on everything the suite sends through them, not only on their own tests. A difference fails
# the session at its end (a step's guard turns an exception raised inside it into a dead letter, which a test might
# not look at).
_CODEC_DIFFERENCES: list[str] = []


@pytest.fixture(autouse=True, scope="session")
def _generated_codecs_checked_against_fastavro() -> Iterator[None]:
    from streams.wire.codec import DecodeError, SchemaRegistry

    encode, decode = SchemaRegistry.encode, SchemaRegistry.decode

    def checked_encode(self: SchemaRegistry, name: str, datum: object) -> bytes:
        encoded = encode(self, name, datum)
        if encoded != self.fastavro_encode(name, datum):
            _CODEC_DIFFERENCES.append(f"written {name}: {datum!r:.500}")
        return encoded

    def checked_decode(self: SchemaRegistry, data: bytes, reader_name: str | None = None) -> tuple[str, object]:
        name, datum = decode(self, data, reader_name)
        whole = self.single_object(data)
        writer = self.writer_of(whole)
        try:
            reference = repr(self.fastavro_decode(whole, writer, self.get(reader_name or writer.name)))
        except DecodeError as exc:
            reference = f"refused: {exc}"
        if repr(datum) != reference:
            _CODEC_DIFFERENCES.append(f"read {name}: {bytes(data)[:300]!r}")
        return name, datum

    SchemaRegistry.encode, SchemaRegistry.decode = checked_encode, checked_decode  # type: ignore[method-assign]
    yield
    SchemaRegistry.encode, SchemaRegistry.decode = encode, decode  # type: ignore[method-assign]


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: a worker's differences, reported by the controller
def pytest_testnodedown(node: Any, error: object) -> None:
    _CODEC_DIFFERENCES.extend(getattr(node, "workeroutput", {}).get("codec_differences", []))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: its exit status is not the run's, so the controller reports
        workeroutput["codec_differences"] = list(_CODEC_DIFFERENCES)
        return
    if _CODEC_DIFFERENCES:
        print(f"\n{len(_CODEC_DIFFERENCES)} record(s) written or read otherwise than fastavro does:")
        print("\n".join(_CODEC_DIFFERENCES[:20]))
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
