"""Exit code 2 of the broker commands `omega worker`, `omega publish` and `omega tail` (issues 20, 22): each usage,
setting or connection failure exits 2 with one line naming the problem, and nothing after it runs. The aiokafka
clients (and the Faust side of the worker) are mostly fakes that fail as told and record what was asked; the tests
marked "real client" dial a closed local port, which refuses at once."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_USAGE
from tests.factories import packet

BOOTSTRAP = "127.0.0.1:1"  # a closed port: the real clients below are refused at once, the fakes never dial
# Variables of the machine running the tests that would change what the commands do; unset unless a test sets them.
UNSET: dict[str, str | None] = dict.fromkeys((
    "KAFKA_BOOTSTRAP_SERVERS", "KAFKA_SECURITY_PROTOCOL", "KAFKA_SASL_MECHANISM", "KAFKA_SASL_USERNAME",
    "KAFKA_SASL_PASSWORD", "OMEGA_TOPIC_PREFIX", "OMEGA_PACKET_AUTH_POLICY", "OMEGA_STALL_SECONDS",
    "OMEGA_PARTITIONS", "OMEGA_MAX_EVENT_BYTES",
))


def _invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), prog_name="omega", catch_exceptions=False,
                              env={**UNSET, **(env or {})})


class Calls:
    """What the fakes were asked: (what, detail) in order."""

    def __init__(self) -> None:
        self.made: list[tuple[str, Any]] = []
        self.loop_class: type | None = None

    def names(self) -> list[str]:
        return [what for what, _ in self.made]


def _client(calls: Calls, kind: str, start_error: BaseException | None) -> type:
    """A stand-in for an aiokafka client class: records its construction and start, whose failure is `start_error`
    (None: starts), and records anything else it is asked."""

    class FakeClient:
        def __init__(self, **options: Any) -> None:
            calls.made.append((f"{kind}()", options))

        async def start(self) -> None:
            calls.made.append((f"{kind}.start", None))
            if start_error is not None:
                raise start_error

        async def list_topics(self) -> list[str]:
            calls.made.append((f"{kind}.list_topics", None))
            return []

        async def create_topics(self, new_topics: list[Any]) -> None:
            calls.made.append((f"{kind}.create_topics", [t.name for t in new_topics]))

        async def describe_topics(self, topics: list[str]) -> list[dict[str, Any]]:
            calls.made.append((f"{kind}.describe_topics", topics))
            return [{"topic": t, "error_code": 0, "partitions": [{"replicas": [1]}]} for t in topics]

        async def send(self, topic: str, value: bytes, key: bytes | None = None) -> None:
            calls.made.append((f"{kind}.send", topic))

        def __getattr__(self, name: str) -> Any:  # stop / close / flush / getmany ...: recorded, harmless
            async def recorded(*args: Any, **kwargs: Any) -> None:
                calls.made.append((f"{kind}.{name}", None))
            return recorded

    return FakeClient


def _jsonl(path: Path) -> Path:
    path.write_text(json.dumps(packet(0, 1)) + "\n", encoding="utf-8")
    return path


# --- omega worker -------------------------------------------------------------------------------------------------


@pytest.fixture
def worker_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    """The worker's admin client (topic preparation), app factory and Faust Worker, all recording into one list;
    the admin client starts unless a test replaces it. Nothing here touches a broker or the data directory."""
    import aiokafka.admin
    import faust.worker

    import streams.worker.app

    calls = Calls()
    monkeypatch.setattr(aiokafka.admin, "AIOKafkaAdminClient", _client(calls, "admin", None))
    real_create_app = streams.worker.app.create_app

    def create_app(settings: Any, *args: Any, **kwargs: Any) -> Any:
        calls.made.append(("create_app", settings))
        return real_create_app(settings, *args, **kwargs)

    class Worker:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            calls.made.append(("Worker()", None))
            made = asyncio.get_event_loop_policy().new_event_loop()  # as the worker's, and its consumer thread's
            calls.loop_class = type(made)
            made.close()

        def execute_from_commandline(self) -> None:
            calls.made.append(("Worker.execute_from_commandline", None))

    monkeypatch.setattr(streams.worker.app, "create_app", create_app)
    monkeypatch.setattr(faust.worker, "Worker", Worker)
    yield calls
    asyncio.set_event_loop_policy(None)  # the worker command sets the process's policy: put the default back


def _worker(tmp_path: Path, env: dict[str, str] | None = None) -> Result:
    return _invoke("worker", "--bootstrap", BOOTSTRAP, "--data-dir", str(tmp_path / "data"), env=env)


def test_the_worker_refuses_an_unknown_security_protocol_before_it_contacts_the_broker(
    tmp_path: Path, worker_calls: Calls,
) -> None:
    # (test_settings_security.py pins exit 2 for SASL without credentials; this pins that the check comes first)
    result = _worker(tmp_path, env={"KAFKA_SECURITY_PROTOCOL": "SSL"})
    assert result.exit_code == EXIT_USAGE, result.output
    assert result.stderr == ("omega: KAFKA_SECURITY_PROTOCOL='SSL': "
                             "expected one of PLAINTEXT, SASL_PLAINTEXT, SASL_SSL\n")
    assert worker_calls.made == []  # no admin client, no app, no Faust worker
    assert not (tmp_path / "data").exists()


def test_the_worker_exits_two_naming_the_broker_when_its_topics_cannot_be_prepared(
    tmp_path: Path, worker_calls: Calls, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import aiokafka.admin
    from aiokafka.errors import KafkaConnectionError

    # what aiokafka 0.14 raises when no bootstrap server answers
    refused = KafkaConnectionError("Unable to bootstrap from [('127.0.0.1', 1, <AddressFamily.AF_INET: 2>)]")
    monkeypatch.setattr(aiokafka.admin, "AIOKafkaAdminClient", _client(worker_calls, "admin", refused))
    result = _worker(tmp_path)
    assert result.exit_code == EXIT_USAGE, result.output
    assert result.stderr == (f"omega: cannot reach Kafka at {BOOTSTRAP}: "
                             "Unable to bootstrap from [('127.0.0.1', 1, <AddressFamily.AF_INET: 2>)]\n")
    assert worker_calls.names() == ["admin()", "admin.start"]  # no topic created, no app built, no worker run
    assert worker_calls.made[0][1]["bootstrap_servers"] == BOOTSTRAP
    assert not (tmp_path / "data").exists()


def test_the_worker_exits_two_naming_an_unreadable_auth_policy_and_never_runs(
    tmp_path: Path, worker_calls: Calls,
) -> None:
    policy = tmp_path / "absent-policy.yaml"
    result = _worker(tmp_path, env={"OMEGA_PACKET_AUTH_POLICY": str(policy)})
    assert result.exit_code == EXIT_USAGE, result.output
    assert f"omega: cannot read auth policy {policy}" in result.stderr
    assert "create_app" in worker_calls.names()  # the branch is the app factory's refusal ...
    assert "Worker()" not in worker_calls.names()  # ... and the Faust worker is never built nor run
    assert "Worker.execute_from_commandline" not in worker_calls.names()


# --- omega publish ------------------------------------------------------------------------------------------------


@pytest.fixture
def producer_calls(monkeypatch: pytest.MonkeyPatch) -> Calls:
    """`omega publish`'s producer; a test that expects no producer asserts the list stays empty."""
    import streams.kafka.clients

    calls = Calls()
    monkeypatch.setattr(streams.kafka.clients, "AIOKafkaProducer", _client(calls, "producer", None))
    return calls


def test_publish_exits_two_naming_every_missing_file_and_sends_nothing(tmp_path: Path, producer_calls: Calls) -> None:
    present = _jsonl(tmp_path / "ok.jsonl")
    missing = [tmp_path / "nowhere.jsonl", tmp_path / "gone.avro"]
    result = _invoke("publish", str(present), *map(str, missing), "--topic", "packets_json", "--bootstrap", BOOTSTRAP)
    assert result.exit_code == EXIT_USAGE, result.output
    assert f"omega: no such file: {missing[0]}, {missing[1]}" in result.stderr
    assert "published" not in result.output
    assert producer_calls.made == []  # refused before any producer exists: not even the present file is sent


def test_publish_exits_two_naming_the_broker_it_cannot_reach_and_sends_nothing(
    tmp_path: Path, producer_calls: Calls, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import streams.kafka.clients

    monkeypatch.setattr(streams.kafka.clients, "AIOKafkaProducer",
                        _client(producer_calls, "producer", ConnectionRefusedError(111, "Connection refused")))
    result = _invoke("publish", str(_jsonl(tmp_path / "ok.jsonl")), "--topic", "packets_json",
                     "--bootstrap", BOOTSTRAP)
    assert result.exit_code == EXIT_USAGE, result.output
    assert result.stderr == f"omega: cannot reach Kafka at {BOOTSTRAP}: [Errno 111] Connection refused\n"
    assert producer_calls.names() == ["producer()", "producer.start", "producer.stop"]  # nothing sent, closed


# --- omega tail ---------------------------------------------------------------------------------------------------


def test_tail_exits_two_naming_the_broker_it_cannot_reach_and_prints_no_record(monkeypatch: pytest.MonkeyPatch) -> None:
    import streams.kafka.clients

    calls = Calls()
    monkeypatch.setattr(streams.kafka.clients, "AIOKafkaConsumer",
                        _client(calls, "consumer", ConnectionRefusedError(111, "Connection refused")))
    result = _invoke("tail", "packets", "--bootstrap", BOOTSTRAP, "--prefix", "t.")
    assert result.exit_code == EXIT_USAGE, result.output
    assert result.stderr == f"omega: cannot reach Kafka at {BOOTSTRAP}: [Errno 111] Connection refused\n"
    assert result.stdout == ""
    assert calls.names() == ["consumer()", "consumer.start", "consumer.stop"]  # never assigned nor fetched
    assert calls.made[0][1]["bootstrap_servers"] == BOOTSTRAP


def test_a_missing_topic_is_one_line_naming_it_and_the_broker_and_nothing_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import streams.kafka.clients

    calls = Calls()

    class Metadata:
        def partitions_for_topic(self, name: str) -> set[int] | None:
            calls.made.append(("metadata", name))
            return None  # what aiokafka's ClusterMetadata answers for a topic it does not know

    class Client:
        async def fetch_all_metadata(self) -> Metadata:
            return Metadata()

    consumer = _client(calls, "consumer", None)
    consumer._client = Client()  # type: ignore[attr-defined]
    monkeypatch.setattr(streams.kafka.clients, "AIOKafkaConsumer", consumer)
    result = _invoke("tail", "nosuch", "--bootstrap", BOOTSTRAP)
    assert result.exit_code == EXIT_USAGE, result.output
    assert result.stderr == f"omega: topic nosuch does not exist at {BOOTSTRAP}\n"
    assert result.stdout == ""
    assert calls.names() == ["consumer()", "consumer.start", "metadata", "consumer.stop"]  # no assign, no fetch


# --- real clients, broker down --------------------------------------------------------------------------------------

REFUSED = f"omega: cannot reach Kafka at {BOOTSTRAP}: [Errno 111] Connect call failed ('127.0.0.1', 1)\n"


def test_publish_with_the_broker_down_is_one_line_naming_it_and_exit_2(tmp_path: Path) -> None:
    # real client: aiokafka's own log line about the refused host is folded into ours, not printed as well
    result = _invoke("publish", str(_jsonl(tmp_path / "ok.jsonl")), "--topic", "packets_json",
                     "--bootstrap", BOOTSTRAP)
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == REFUSED
    assert result.stdout == ""


def test_tail_with_the_broker_down_is_one_line_naming_it_and_exit_2() -> None:
    result = _invoke("tail", "packets", "--bootstrap", BOOTSTRAP)  # real client
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == REFUSED
    assert result.stdout == ""


def test_a_failed_sasl_handshake_is_reported_as_refused_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    import logging

    from aiokafka.errors import KafkaConnectionError, SaslAuthenticationFailed

    import streams.kafka.clients

    def start_error() -> BaseException:
        # what aiokafka does when the handshake of every bootstrap server fails: log each, raise a generic error
        logging.getLogger("aiokafka").error('Unable connect to "%s:%s": %s', "127.0.0.1", 1,
                                            SaslAuthenticationFailed("bad password"))
        return KafkaConnectionError("Unable to bootstrap from [('127.0.0.1', 1, <AddressFamily.AF_INET: 2>)]")

    calls = Calls()

    class Consumer(_client(calls, "consumer", None)):  # type: ignore[misc]
        async def start(self) -> None:
            raise start_error()

    monkeypatch.setattr(streams.kafka.clients, "AIOKafkaConsumer", Consumer)
    result = _invoke("tail", "packets", "--bootstrap", BOOTSTRAP)
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == (f"omega: Kafka at {BOOTSTRAP} refused our credentials: "
                             "[Error 58] SaslAuthenticationFailed: bad password\n")


# --- bad settings ---------------------------------------------------------------------------------------------------

BAD_PARTITIONS = "omega: OMEGA_PARTITIONS='four': expected a whole number >= 1\n"


def test_publish_with_a_bad_setting_is_one_line_naming_it_and_no_producer_is_made(
    tmp_path: Path, producer_calls: Calls,
) -> None:
    result = _invoke("publish", str(_jsonl(tmp_path / "ok.jsonl")), "--topic", "packets_json",
                     "--bootstrap", BOOTSTRAP, env={"OMEGA_PARTITIONS": "four"})
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == BAD_PARTITIONS
    assert producer_calls.made == []


def test_the_worker_reads_omega_partitions_with_the_same_one_line_refusal(tmp_path: Path, worker_calls: Calls) -> None:
    result = _worker(tmp_path, env={"OMEGA_PARTITIONS": "four"})
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == BAD_PARTITIONS
    assert worker_calls.made == []


def test_the_worker_still_takes_its_partitions_from_omega_partitions(tmp_path: Path, worker_calls: Calls) -> None:
    _worker(tmp_path, env={"OMEGA_PARTITIONS": "7"})
    assert worker_calls.made[0][0] == "admin()"
    assert worker_calls.made[3][0] == "admin.create_topics"
    assert next(s for what, s in worker_calls.made if what == "create_app").partitions == 7


def test_the_worker_runs_without_standbys_on_the_memory_store_and_warns_when_asked_for_one(
        tmp_path: Path, worker_calls: Calls) -> None:
    quiet = _worker(tmp_path)
    assert next(s for what, s in worker_calls.made if what == "create_app").standbys == 0
    assert "OMEGA_STANDBY_REPLICAS" not in quiet.stderr
    asked = _worker(tmp_path, env={"OMEGA_STANDBY_REPLICAS": "1"})
    assert [s.standbys for what, s in worker_calls.made if what == "create_app"] == [0, 1]  # honoured
    assert "warning: OMEGA_STANDBY_REPLICAS=1 with the memory store" in asked.stderr


@pytest.mark.parametrize(("env", "loop"), [
    ({"OMEGA_EVENT_LOOP": "uvloop"}, "uvloop.Loop"),
    ({"OMEGA_EVENT_LOOP": "asyncio"}, "asyncio.unix_events._UnixSelectorEventLoop"),
])
def test_the_worker_makes_its_loops_with_the_event_loop_it_is_told(
        tmp_path: Path, worker_calls: Calls, env: dict[str, str], loop: str) -> None:
    result = _worker(tmp_path, env=env)
    assert result.exit_code == 0, result.output
    assert worker_calls.loop_class is not None
    assert f"{worker_calls.loop_class.__module__}.{worker_calls.loop_class.__qualname__}" == loop


def test_the_worker_refuses_an_unknown_event_loop_in_one_line(tmp_path: Path, worker_calls: Calls) -> None:
    result = _worker(tmp_path, env={"OMEGA_EVENT_LOOP": "trio"})
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == "omega: OMEGA_EVENT_LOOP='trio': expected one of uvloop, asyncio\n"
    assert worker_calls.made == []


def test_the_worker_without_uvloop_installed_says_how_to_go_on(
        tmp_path: Path, worker_calls: Calls, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop raises ImportError
    result = _worker(tmp_path, env={"OMEGA_EVENT_LOOP": "uvloop"})
    assert result.exit_code == EXIT_USAGE
    assert "OMEGA_EVENT_LOOP='uvloop', but uvloop cannot be imported" in result.stderr
    assert "OMEGA_EVENT_LOOP=asyncio" in result.stderr
    assert worker_calls.made == []


def test_replay_runs_with_kafka_settings_it_does_not_use_being_bad(tmp_path: Path) -> None:
    result = _invoke("replay", str(_jsonl(tmp_path / "ok.jsonl")), "--no-summary",
                     env={"OMEGA_PARTITIONS": "four", "KAFKA_SECURITY_PROTOCOL": "SSL"})
    assert result.exit_code in (0, 1), result.stderr  # judged: accepted or rejected, not a usage error
    assert "omega:" not in result.stderr


def test_replay_refuses_a_bad_setting_it_uses_in_one_line(tmp_path: Path) -> None:
    result = _invoke("replay", str(_jsonl(tmp_path / "ok.jsonl")), "--no-summary",
                     env={"OMEGA_MAX_EVENT_BYTES": "-1"})
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == "omega: OMEGA_MAX_EVENT_BYTES='-1': expected a whole number >= 1\n"


def test_project_from_kafka_with_the_broker_down_is_one_line_naming_it_and_exit_2(tmp_path: Path) -> None:
    result = _invoke("project", "--bootstrap", BOOTSTRAP, "--store", f"sqlite:{tmp_path / 'memory.sqlite'}",
                     "--until-idle", "1")  # real client
    assert result.exit_code == EXIT_USAGE
    assert result.stderr.splitlines()[0] == REFUSED.rstrip("\n")
    assert "Traceback" not in result.stderr
