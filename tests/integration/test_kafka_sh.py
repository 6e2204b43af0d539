"""deploy/kafka/kafka.sh against a real, second broker.

The broker here has its own runtime dir under tmp_path and its own free ports, so a main test
broker on 9092 keeps running untouched. Jars come from the shared cache (OMEGA_KAFKA_LIBS or
~/.cache/omega), fetched by the script on first use.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parents[2] / "deploy" / "kafka" / "kafka.sh"
UP_TIMEOUT_S = 300  # a cold jar download plus the script's own 90 s readiness budget


@dataclass(frozen=True)
class Broker:
    runtime_dir: Path
    port: int
    env: dict[str, str]

    def run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", str(SCRIPT), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def pid(self) -> int:
        return int((self.runtime_dir / "kafka.pid").read_text().strip())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _is_running(pid: int) -> bool:
    """True while pid is a live process; an unreaped zombie has already exited."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _java_cmdlines_mentioning(needle: str) -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:  # exited while we looked
            continue
        line = " ".join(a.decode(errors="replace") for a in argv)
        if argv and argv[0].endswith(b"java") and needle in line:
            found.append(f"{proc.name}: {line}")
    return found


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    runtime_dir = tmp_path / "kafka"
    port = _free_port()
    controller_port = _free_port()
    while controller_port == port:
        controller_port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMEGA_KAFKA_") or k == "OMEGA_KAFKA_LIBS"}
    env |= {
        "OMEGA_KAFKA_DIR": str(runtime_dir),
        "OMEGA_KAFKA_PORT": str(port),
        "OMEGA_KAFKA_CONTROLLER_PORT": str(controller_port),
        "OMEGA_KAFKA_HEAP": "-Xmx512m -Xms128m",
    }
    b = Broker(runtime_dir=runtime_dir, port=port, env=env)
    yield b
    # Whatever a test did, never leave this broker behind.
    b.run("down", timeout=60)


def _up(broker: Broker) -> subprocess.CompletedProcess[str]:
    result = broker.run("up", timeout=UP_TIMEOUT_S)
    if result.returncode != 0:
        sys.stderr.write(result.stderr)
    assert result.returncode == 0, result.stderr[-4000:]
    return result


def test_up_serves_metadata_and_prints_bootstrap(broker: Broker) -> None:
    result = _up(broker)

    assert f"bootstrap=127.0.0.1:{broker.port}" in result.stdout.splitlines()
    assert _is_running(broker.pid())
    log = (broker.runtime_dir / "logs" / "server.log").read_text()
    assert "Kafka Server started" in log


def test_second_up_says_already_up_and_keeps_the_same_process(broker: Broker) -> None:
    _up(broker)
    first_pid = broker.pid()

    again = _up(broker)

    assert "already up" in again.stdout
    assert f"bootstrap=127.0.0.1:{broker.port}" in again.stdout
    assert broker.pid() == first_pid


def test_status_reports_up_with_bootstrap_and_exit_0(broker: Broker) -> None:
    _up(broker)

    status = broker.run("status")

    assert status.returncode == 0, status.stderr
    assert status.stdout.startswith("up")
    assert f"127.0.0.1:{broker.port}" in status.stdout


def test_down_stops_the_broker_and_leaves_no_java_process_behind(broker: Broker) -> None:
    _up(broker)
    pid = broker.pid()

    down = broker.run("down", timeout=60)

    assert down.returncode == 0, down.stderr
    assert not _is_running(pid)
    assert _java_cmdlines_mentioning(str(broker.runtime_dir)) == []
    assert not (broker.runtime_dir / "kafka.pid").exists()
    status = broker.run("status")
    assert status.returncode == 3
    assert status.stdout.startswith("down")


def test_down_and_status_when_never_started_exit_0_and_3(broker: Broker) -> None:
    assert broker.run("down").returncode == 0
    assert broker.run("status").returncode == 3


def test_stale_pidfile_naming_a_foreign_process_is_ignored_not_killed(broker: Broker) -> None:
    # A recycled pid now belongs to something else; here, a plain sleep.
    with subprocess.Popen(["sleep", "60"]) as foreign:
        try:
            broker.runtime_dir.mkdir(parents=True)
            (broker.runtime_dir / "kafka.pid").write_text(f"{foreign.pid}\n")

            assert broker.run("status").returncode == 3
            assert broker.run("down").returncode == 0
            assert foreign.poll() is None
        finally:
            foreign.kill()


def test_up_refuses_a_client_port_someone_else_listens_on(broker: Broker) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", broker.port))
        squatter.listen()

        result = broker.run("up", timeout=UP_TIMEOUT_S)

    assert result.returncode != 0
    assert "already in use" in result.stderr
    assert _java_cmdlines_mentioning(str(broker.runtime_dir)) == []


# ------------------------------------------------------------------------------------------ --brokers N
@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Broker]:
    """A 3-node cluster's runtime dir and env (client ports port..port+2, controllers +100); always taken down."""
    runtime_dir = tmp_path / "cluster"
    # Fixed ports below Linux's ephemeral range (32768-60999): while node 3 started, the quorum's own connections
    # took 39594 as a local port once ("Address already in use", a CI run). Free-port probing cannot help: the
    # three nodes need consecutive ports that stay free until the last one binds.
    port = 28792
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMEGA_KAFKA_") or k == "OMEGA_KAFKA_LIBS"}
    env |= {"OMEGA_KAFKA_CLUSTER_DIR": str(runtime_dir), "OMEGA_KAFKA_CLUSTER_PORT": str(port),
            "OMEGA_KAFKA_CLUSTER_CONTROLLER_PORT": str(port + 100), "OMEGA_KAFKA_HEAP": "-Xmx384m -Xms128m"}
    b = Broker(runtime_dir=runtime_dir, port=port, env=env)
    yield b
    b.run("down", "--brokers", "3", timeout=90)


def _cluster_brokers(bootstrap: str) -> tuple[str, list[int]]:
    import asyncio

    from aiokafka.admin import AIOKafkaAdminClient

    async def describe() -> tuple[str, list[int]]:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        await admin.start()
        try:
            cluster = await admin.describe_cluster()
        finally:
            await admin.close()
        return cluster["cluster_id"], sorted(b["node_id"] for b in cluster["brokers"])

    return asyncio.run(describe())


def test_brokers_3_is_one_cluster_that_restarts_a_killed_node_and_stops_all(cluster: Broker) -> None:
    bootstrap = ",".join(f"127.0.0.1:{cluster.port + k}" for k in range(3))
    up = cluster.run("up", "--brokers", "3", timeout=UP_TIMEOUT_S)
    assert up.returncode == 0, up.stderr[-4000:]
    assert f"bootstrap={bootstrap}" in up.stdout.splitlines()
    cluster_id, nodes = _cluster_brokers(bootstrap)
    assert nodes == [1, 2, 3]
    pids = {k: int((cluster.runtime_dir / f"node-{k}" / "kafka.pid").read_text()) for k in (1, 2, 3)}
    config = (cluster.runtime_dir / "node-2" / "server.properties").read_text()
    settings = [line for line in config.splitlines() if line.startswith(("node.id=", "default.repl", "min.insync"))]
    assert settings == ["node.id=2", "default.replication.factor=3", "min.insync.replicas=2"]

    os.kill(pids[2], 9)
    status = cluster.run("status", "--brokers", "3")
    assert status.returncode == 3
    assert [line.split(" (")[0].split(" bootstrap")[0] for line in status.stdout.splitlines()[:3]] == [
        "node 1: up", "node 2: down", "node 3: up"]

    again = cluster.run("up", "--brokers", "3", timeout=UP_TIMEOUT_S)
    assert again.returncode == 0, again.stderr[-4000:]
    restarted = {k: int((cluster.runtime_dir / f"node-{k}" / "kafka.pid").read_text()) for k in (1, 2, 3)}
    assert [restarted[k] == pids[k] for k in (1, 2, 3)] == [True, False, True]  # only the killed node started
    assert _cluster_brokers(bootstrap) == (cluster_id, [1, 2, 3])

    down = cluster.run("down", "--brokers", "3", timeout=90)
    assert down.returncode == 0, down.stderr
    assert not any(_is_running(pid) for pid in restarted.values())
    assert _java_cmdlines_mentioning(str(cluster.runtime_dir)) == []
    assert cluster.run("status", "--brokers", "3").returncode == 3


@pytest.mark.parametrize("brokers", ["0", "10", "x"])
def test_brokers_outside_1_to_9_is_a_usage_error(cluster: Broker, brokers: str) -> None:
    result = cluster.run("up", "--brokers", brokers)
    assert result.returncode == 2
    assert "--brokers takes 1 to 9" in result.stderr
