"""The secure broker (`OMEGA_KAFKA_SECURITY=sasl deploy/kafka/kafka.sh up` + `acls`): SASL/SCRAM-SHA-512 and
StandardAuthorizer ACLs refuse the unauthenticated and the unauthorised, and the pipeline runs with credentials.

The broker is this module's own (a tmp runtime dir, free ports, stopped at the end), so the main test broker
keeps running untouched; jars come from the shared cache, fetched by the script on first use.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaConnectionError, TopicAuthorizationFailedError

from streams.kafka.clients import ensure_topics
from streams.settings import Settings
from streams.topics import ALL_TOPICS, PACKETS_JSON, VERDICTS, topic_name
from streams.wire.codec import SchemaRegistry
from tests.conftest import _broker_required
from tests.factories import packet
from tests.integration.worker import WorkerProcess, consume_until, produce

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parents[2] / "deploy" / "kafka" / "kafka.sh"
LIBS = Path(os.environ.get("OMEGA_KAFKA_LIBS", Path.home() / ".cache" / "omega" / "kafka-3.9.1" / "libs"))
UP_TIMEOUT_S = 300  # a cold jar download plus the script's own 90 s readiness budget
PARTITIONS = 2
PACKETS = 40


@dataclass(frozen=True)
class SecureBroker:
    runtime_dir: Path
    bootstrap: str
    controller: str
    prefix: str
    passwords: dict[str, str]

    @property
    def app_id(self) -> str:
        return f"{self.prefix}app"  # what WorkerProcess passes as --app-id

    def options(self, user: str, password: str | None = None) -> dict[str, Any]:
        """aiokafka options of `user` (SCRAM-SHA-512), through the same helper the application uses."""
        settings = Settings(security_protocol="SASL_PLAINTEXT", sasl_mechanism="SCRAM-SHA-512",
                            sasl_username=user, sasl_password=self.passwords[user] if password is None else password)
        return settings.kafka_client_options()

    def server_log(self) -> str:
        return (self.runtime_dir / "logs" / "server.log").read_text(errors="replace")


def _free_ports(n: int) -> list[int]:
    ports: set[int] = set()
    while len(ports) < n:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            ports.add(int(s.getsockname()[1]))
    return sorted(ports)


def _run(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(SCRIPT), *args], env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


@pytest.fixture(scope="module")
def secure_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecureBroker]:
    if not shutil.which("java") or not (shutil.which("mvn") or (LIBS / ".complete").exists()):
        reason = "no Java, or neither Maven nor cached Kafka jars, for deploy/kafka/kafka.sh"
        if _broker_required():
            pytest.fail(reason)
        pytest.skip(reason)
    runtime_dir = tmp_path_factory.mktemp("kafka-sasl")
    port, controller_port = _free_ports(2)
    passwords = {"admin": f"adm-{uuid.uuid4().hex}", "omega-worker": f"wrk-{uuid.uuid4().hex}",
                 "omega-producer": f"prd-{uuid.uuid4().hex}"}
    prefix = f"it-acl-{uuid.uuid4().hex[:8]}."
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMEGA_KAFKA_") or k == "OMEGA_KAFKA_LIBS"}
    env |= {
        "OMEGA_KAFKA_DIR": str(runtime_dir), "OMEGA_KAFKA_PORT": str(port),
        "OMEGA_KAFKA_CONTROLLER_PORT": str(controller_port), "OMEGA_KAFKA_HEAP": "-Xmx512m -Xms128m",
        "OMEGA_KAFKA_SECURITY": "sasl", "OMEGA_KAFKA_ADMIN_PASSWORD": passwords["admin"],
        "OMEGA_KAFKA_WORKER_PASSWORD": passwords["omega-worker"],
        "OMEGA_KAFKA_PRODUCER_PASSWORD": passwords["omega-producer"],
        "OMEGA_TOPIC_PREFIX": prefix, "OMEGA_APP_ID": f"{prefix}app",
    }
    broker = SecureBroker(runtime_dir, f"127.0.0.1:{port}", f"127.0.0.1:{controller_port}", prefix, passwords)
    try:
        up = _run(env, "up", timeout=UP_TIMEOUT_S)
        assert up.returncode == 0, up.stderr[-4000:]
        assert f"bootstrap={broker.bootstrap}" in up.stdout.splitlines()
        # The topics exist before any principal touches them: the admin creates them.
        asyncio.run(ensure_topics(broker.bootstrap, [topic_name(t, prefix) for t in ALL_TOPICS], PARTITIONS,
                                  client_options=broker.options("admin")))
        acls = _run(env, "acls")
        assert acls.returncode == 0, acls.stderr[-4000:]
        yield broker
    finally:
        _run(env, "down", timeout=60)


async def _send_one(bootstrap: str, topic: str, options: dict[str, Any]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True,
                                request_timeout_ms=5000, **options)
    try:
        await producer.start()
        await asyncio.wait_for(producer.send_and_wait(topic, b"{}", key=b"k"), 20)
    finally:
        await producer.stop()


@pytest.mark.parametrize(("user", "password", "logged"), [
    (None, None, "Unexpected Kafka request of type METADATA during SASL handshake"),
    ("omega-producer", "wrong-password", "invalid credentials with SASL mechanism SCRAM-SHA-512"),
])
def test_a_client_without_valid_credentials_is_refused_at_authentication(
    secure_broker: SecureBroker, user: str | None, password: str | None, logged: str
) -> None:
    options = {} if user is None else secure_broker.options(user, password)
    failures_before = secure_broker.server_log().count(logged)

    with pytest.raises(KafkaConnectionError, match="Unable to bootstrap"):
        asyncio.run(_send_one(secure_broker.bootstrap, topic_name(PACKETS_JSON, secure_broker.prefix), options))

    # The broker closed the connection because authentication failed, not for some other reason.
    assert secure_broker.server_log().count(logged) > failures_before


def test_the_controller_port_refuses_an_anonymous_admin_client(secure_broker: SecureBroker) -> None:
    # KIP-919 lets admin clients talk to the controller directly: that port must not be an anonymous way in.
    config = secure_broker.runtime_dir / "anonymous.properties"
    config.write_text("request.timeout.ms=2000\ndefault.api.timeout.ms=3000\n")
    logged = "listenerType=CONTROLLER, nodeId=1] Failed authentication"
    failures_before = secure_broker.server_log().count(logged)

    result = subprocess.run(
        ["java", "-Xmx128m", "-cp", f"{LIBS}/*", "org.apache.kafka.tools.ClusterTool", "cluster-id",
         "--bootstrap-controller", secure_broker.controller, "--config", str(config)],
        capture_output=True, text=True, timeout=60, check=False)

    assert result.returncode != 0
    assert "Cluster ID:" not in result.stdout
    assert secure_broker.server_log().count(logged) > failures_before


def test_the_producer_principal_may_not_write_the_verdicts_topic(secure_broker: SecureBroker) -> None:
    verdicts = topic_name(VERDICTS, secure_broker.prefix)

    with pytest.raises(TopicAuthorizationFailedError, match=verdicts):
        asyncio.run(_send_one(secure_broker.bootstrap, verdicts, secure_broker.options("omega-producer")))


def test_with_credentials_the_worker_judges_what_the_producer_principal_wrote(
    secure_broker: SecureBroker, tmp_path: Path
) -> None:
    worker = WorkerProcess(secure_broker.bootstrap, tmp_path, prefix=secure_broker.prefix, partitions=PARTITIONS,
                           env={"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
                                "KAFKA_SASL_USERNAME": "omega-worker",
                                "KAFKA_SASL_PASSWORD": secure_broker.passwords["omega-worker"]})
    raws = [json.dumps(packet(n % 4, n // 4)).encode() for n in range(PACKETS)]
    records: list[tuple[bytes | None, bytes]] = [(json.loads(r)["header"]["correlation_id"].encode(), r) for r in raws]
    worker.start()
    try:
        asyncio.run(produce(secure_broker.bootstrap, worker.topic(PACKETS_JSON), records,
                            client_options=secure_broker.options("omega-producer")))
        verdict_topic = worker.topic(VERDICTS)
        found = asyncio.run(consume_until(secure_broker.bootstrap, [verdict_topic], SchemaRegistry.from_directory(),
                                          lambda f: len(f[verdict_topic]) >= PACKETS, 60,
                                          client_options=secure_broker.options("omega-worker")))
        assert worker.alive(), worker.log_tail()
    finally:
        worker.stop()

    verdicts = found[verdict_topic]
    assert len(verdicts) == PACKETS, worker.log_tail()
    assert len({v["packet_id"] for v in verdicts}) == PACKETS
    assert Counter(v["status"] for v in verdicts) == {"ACCEPTED": PACKETS}
    assert "TopicAuthorizationFailed" not in (worker.log_path.read_text() if worker.log_path else "")
