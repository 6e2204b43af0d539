"""A real `omega worker` process against the test broker, plus plain aiokafka helpers to feed and drain it."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from streams.topics import TopicSpec, topic_name
from streams.wire.codec import SchemaRegistry

REPO = Path(__file__).resolve().parents[2]


@dataclass
class WorkerProcess:
    """One `python -m streams.cli.main worker` subprocess with its own topic prefix and consumer group."""

    bootstrap: str
    data_dir: Path
    prefix: str = field(default_factory=lambda: f"it-{uuid.uuid4().hex[:10]}.")
    partitions: int = 4
    store: str = "memory://"
    env: dict[str, str] = field(default_factory=dict)  # extra environment, e.g. OMEGA_TICK_INTERVAL
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    def topic(self, spec: TopicSpec) -> str:
        """The physical name of a topic under this worker's prefix."""
        return topic_name(spec, self.prefix)

    def start(self, timeout: float = 90.0) -> None:
        """Start the worker and wait until Faust reports it ready."""
        self.log_path = self.data_dir / f"worker-{int(time.monotonic() * 1000)}.log"
        env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": self.bootstrap, "OMEGA_LOG_LEVEL": "INFO",
               "PYTHONUNBUFFERED": "1", **self.env}
        cmd = [sys.executable, "-m", "streams.cli.main", "worker", "--prefix", self.prefix,
               "--app-id", f"{self.prefix}app", "--partitions", str(self.partitions), "--store", self.store,
               "--data-dir", str(self.data_dir / "faust")]
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited with {self.process.returncode}:\n{self.log_tail()}")
            if b"Worker]: Ready" in self.log_path.read_bytes():
                return
            time.sleep(0.2)
        raise TimeoutError(f"worker not ready after {timeout}s:\n{self.log_tail()}")

    def alive(self) -> bool:
        """Whether the worker process is still running."""
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it does not stop in time."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def kill(self) -> None:
        """SIGKILL: the worker dies mid-step, with no commit, no flush and no leave-group (a crash)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.kill()
        self.process.wait(timeout=10)

    def logs(self) -> str:
        """Every log this worker wrote (one file per start), oldest first."""
        return "\n".join(p.read_text(errors="replace") for p in sorted(self.data_dir.glob("worker-*.log")))

    def log_tail(self, lines: int = 60) -> str:
        """The last lines of the worker's log, for failure messages."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


async def produce(bootstrap: str, topic: str, records: Iterable[tuple[bytes | None, bytes]],
                  client_options: Mapping[str, Any] | None = None) -> list[tuple[int, int]]:
    """Send (key, value) records in order; returns each record's (partition, offset).
    `client_options`: aiokafka security options (streams.settings.kafka_client_options), e.g. SASL credentials."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True,
                                **(client_options or {}))
    await producer.start()
    try:
        futures = [await producer.send(topic, value=value, key=key) for key, value in records]
        metas = [await f for f in futures]
    finally:
        await producer.stop()
    return [(m.partition, m.offset) for m in metas]


async def consume_until(
    bootstrap: str, topics: list[str], registry: SchemaRegistry | None,
    done: Callable[[dict[str, list[dict[str, Any]]]], bool], timeout: float,
    client_options: Mapping[str, Any] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Read `topics` from the beginning (once they exist) until `done(records so far)` holds or time runs out;
    each record decoded by `registry`, or with no registry its raw bytes as `value`."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, **(client_options or {}))
    await consumer.start()
    found: dict[str, list[dict[str, Any]]] = {t: [] for t in topics}
    try:
        deadline = time.monotonic() + timeout
        assigned = False
        while time.monotonic() < deadline and not done(found):
            if not assigned:
                metadata = await consumer._client.fetch_all_metadata()  # no public per-topic lookup
                tps = [TopicPartition(t, p) for t in topics for p in sorted(metadata.partitions_for_topic(t) or [])]
                if {tp.topic for tp in tps} < set(topics):
                    await asyncio.sleep(0.5)
                    continue
                consumer.assign(tps)
                await consumer.seek_to_beginning()
                assigned = True
            batch = await consumer.getmany(timeout_ms=500)
            for tp, messages in batch.items():
                for msg in messages:
                    _, datum = registry.decode(msg.value) if registry is not None else ("", {"value": msg.value})
                    found[tp.topic].append({"key": msg.key, "partition": tp.partition, "offset": msg.offset,
                                            "timestamp": msg.timestamp, **datum})
    finally:
        await consumer.stop()
    return found


async def drain(
    bootstrap: str, topics: dict[str, int], registry: SchemaRegistry, timeout: float
) -> dict[str, list[dict[str, Any]]]:
    """Read each topic from the start until it holds at least the expected count (or time runs out)."""
    return await consume_until(bootstrap, list(topics), registry,
                               lambda found: all(len(found[t]) >= n for t, n in topics.items()), timeout)


@contextmanager
def worker_pair(bootstrap: str, root: Path, env: dict[str, str] | None = None) -> Iterator[list[WorkerProcess]]:
    """Two workers, one topic prefix and app id (so one consumer group), each its own data dir under `root`."""
    first = WorkerProcess(bootstrap, root / "worker-1", env=dict(env or {}))
    workers = [first, WorkerProcess(bootstrap, root / "worker-2", prefix=first.prefix, env=dict(env or {}))]
    try:
        for worker in workers:
            worker.data_dir.mkdir()
            worker.start()
        yield workers
    finally:
        for worker in workers:
            worker.stop()
