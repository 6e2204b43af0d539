"""Event-time order within a bounded lateness, live (issue 22): with `OMEGA_MAX_LATENESS_MS` set, two workers
judge every episode in event-time order however its packets reach them, and give exactly the verdicts of
`omega check packets --max-lateness-ms` (embedded replay, same setting) of the same records in send order.

- keyless: a producer sends every packet without a key, so one episode's packets scatter over the 4 ingress
  partitions and reach the validator in whatever order the two workers' ingress agents re-key them;
- two producers: each episode's packets alternate between two keyed producers sending concurrently with jitter
  (the layers of one episode publishing from different processes).

After each burst, one closing packet per packets partition, two hours later in event time, moves every
partition's watermark past the burst (what a live stream's later traffic does); a packet then sent for an old
moment is past the lateness: judged on arrival, `late: true`, live and in replay alike, never lost.

With no later traffic at all (issue 43), the idle release does it: the bundled examples published keyed to a worker
with a minute's lateness, and nothing after, give every verdict of `omega replay --max-lateness-ms 60000` on the
same files, the same bytes, within the idle release (5 s) and a few seconds; `/healthz` and `/metrics` then show
nothing waiting and one release per partition that had packets waiting.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import json
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiokafka import AIOKafkaProducer

from streams.kafka.partitioning import partition_of
from streams.records import json_view
from streams.replay.inputs import read_inputs
from streams.replay.replayer import Replayer
from streams.stages.base import Outputs
from streams.topics import PACKETS, PACKETS_JSON, VERDICTS
from streams.wire.codec import SchemaRegistry
from tests.factories import merged_log, mixed_episode
from tests.integration.equivalence import VERDICT_FIELDS, Record, as_check_line, unique_by, write_jsonl
from tests.integration.worker import REPO, WorkerProcess, consume_until, produce, worker_pair

pytestmark = pytest.mark.integration

LATENESS_MS = 3_600_000  # an hour of event time: more than a burst spans, so no packet of it can be late
EPISODES, PER_EPISODE, PARTITIONS = 40, 30, 4


@pytest.fixture(scope="module")
def workers(kafka_bootstrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[WorkerProcess]]:
    """Two workers in one group, both with the lateness set."""
    with worker_pair(kafka_bootstrap, tmp_path_factory.mktemp("lateness"),
                     {"OMEGA_MAX_LATENESS_MS": str(LATENESS_MS)}) as pair:
        yield pair


def _burst(first_episode: int, start: datetime) -> list[Record]:
    return merged_log([mixed_episode(first_episode + e, PER_EPISODE, start + timedelta(seconds=2 * e))
                       for e in range(EPISODES)])


def _closers(template: Record, at: datetime, tag: str) -> list[Record]:
    """One packet per packets partition, at `at`: its own episode, keyed to land on that partition."""
    closers, partitions = [], set()
    for n in range(1000):
        correlation_id = f"corr_close_{tag}_{n}"
        partition = partition_of(correlation_id, PARTITIONS)
        if partition in partitions:
            continue
        partitions.add(partition)
        closer = copy.deepcopy(template)
        closer["header"].update(packet_id=f"pkt_close_{tag}_{n}", correlation_id=correlation_id,
                                created_at=at.isoformat())
        closer["header"].pop("previous_packet_id", None)
        closers.append(closer)
    assert len(closers) == PARTITIONS
    return closers


def _late(burst: list[Record], at: datetime) -> Record:
    """A new packet of the burst's first episode, created at `at` (long before the closers)."""
    late = copy.deepcopy(burst[0])
    late["header"].update(packet_id=late["header"]["packet_id"] + "_late", created_at=at.isoformat())
    return late


def _replay_with_lateness(path: Path) -> list[Record]:
    done = subprocess.run([sys.executable, "-m", "streams.cli.main", "check", "packets", str(path),
                           "--max-lateness-ms", str(LATENESS_MS)], cwd=REPO, capture_output=True, timeout=300,
                          check=False)
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")
    return [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]


def _key(packet: Record) -> bytes:
    return str(packet["header"]["correlation_id"]).encode()


def _wait_ingested(bootstrap: str, packets_topic: str, packet_ids: set[str]) -> None:
    def done(found: dict[str, list[Record]]) -> bool:
        return {r["header"]["packet_id"] for r in found[packets_topic] if "header" in r} >= packet_ids

    asyncio.run(consume_until(bootstrap, [packets_topic], SchemaRegistry.from_directory(), done, timeout=120))


def _json(packet: Record) -> bytes:
    return json.dumps(packet, separators=(",", ":")).encode()


async def _jittered(bootstrap: str, topic: str, packets: list[Record], seed: int) -> None:
    """Send keyed packets in order, pausing now and then (one producer of two)."""
    rng = random.Random(seed)
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True)
    await producer.start()
    try:
        futures = []
        for packet in packets:
            futures.append(await producer.send(topic, value=_json(packet), key=_key(packet)))
            if rng.random() < 0.05:
                await asyncio.sleep(rng.uniform(0, 0.05))
        for future in futures:
            await future
    finally:
        await producer.stop()


async def _two_producers(bootstrap: str, topic: str, packets: list[Record]) -> None:
    """Each episode's packets alternate between two producers, which send at the same time."""
    turn: dict[str, int] = {}
    shares: tuple[list[Record], list[Record]] = ([], [])
    for packet in packets:
        episode = packet["header"]["correlation_id"]
        turn[episode] = turn.get(episode, -1) + 1
        shares[turn[episode] % 2].append(packet)
    await asyncio.gather(_jittered(bootstrap, topic, shares[0], 1), _jittered(bootstrap, topic, shares[1], 2))


def _live_equals_replay(workers: list[WorkerProcess], bootstrap: str, tmp_path: Path, burst: list[Record],
                        send_burst: Any, closers: list[Record], late: Record) -> None:
    first = workers[0]
    topic = first.topic(PACKETS_JSON)
    path = write_jsonl(tmp_path / "sent.jsonl", [*burst, *closers, late])
    with ThreadPoolExecutor(max_workers=1) as pool:
        embedded = pool.submit(_replay_with_lateness, path)
        asyncio.run(send_burst(bootstrap, topic, burst))
        # the closers only once the whole burst is on the packets topic (a keyless packet re-keyed after its
        # partition's closer would be late live and not in the file's order); closers and the late packet keyed,
        # so that the closer of the late packet's partition reaches the validator before it
        _wait_ingested(bootstrap, first.topic(PACKETS), {p["header"]["packet_id"] for p in burst})
        asyncio.run(produce(bootstrap, topic, [(_key(p), _json(p)) for p in [*closers, late]]))
        replay = embedded.result(timeout=300)

    closing = {c["header"]["correlation_id"] for c in closers}  # still waiting live: nothing comes after them
    expected = unique_by([line for line in replay if line["kind"] == "verdict" and line["correlation_id"]
                          not in closing], "verdict_id", "replay")
    verdicts_topic = first.topic(VERDICTS)

    def complete(found: dict[str, list[Record]]) -> bool:
        return {r["verdict_id"] for r in found[verdicts_topic]} >= expected.keys()

    found = asyncio.run(consume_until(bootstrap, [verdicts_topic], SchemaRegistry.from_directory(), complete,
                                      timeout=180))
    got = unique_by([as_check_line("verdicts", r) for r in found[verdicts_topic]
                     if r["correlation_id"] in {p["header"]["correlation_id"] for p in [*burst, late]}],
                    "verdict_id", "live")
    assert got.keys() == expected.keys(), (f"missing live: {len(expected.keys() - got.keys())}, extra live: "
                                           f"{len(got.keys() - expected.keys())}\n{first.log_tail()}")
    fields = VERDICT_FIELDS | {"late", "fsm", "status", "violations", "usage"}
    differing = [k for k in expected if {f: got[k].get(f) for f in fields} != {f: expected[k].get(f) for f in fields}]
    assert not differing, f"{len(differing)} differ, e.g.\nlive   {got[differing[0]]}\nreplay {expected[differing[0]]}"
    late_ones = [v["packet_id"] for v in expected.values() if v["late"]]
    assert late_ones == [late["header"]["packet_id"]]  # judged late, not lost, and nothing else late
    assert all(w.alive() for w in workers)


def test_a_keyless_burst_over_4_partitions_gives_the_verdicts_of_replay(
        workers: list[WorkerProcess], kafka_bootstrap: str, tmp_path: Path) -> None:
    start = datetime(2025, 12, 21, 9, 0, tzinfo=UTC)
    burst = _burst(0, start)

    async def keyless(bootstrap: str, topic: str, packets: list[Record]) -> None:
        await produce(bootstrap, topic, [(None, _json(p)) for p in packets])

    _live_equals_replay(workers, kafka_bootstrap, tmp_path, burst, keyless,
                        _closers(burst[0], start + timedelta(hours=3), "keyless"),
                        _late(burst, start + timedelta(minutes=5)))


def test_two_producers_of_each_episode_interleaved_with_jitter_give_the_verdicts_of_replay(
        workers: list[WorkerProcess], kafka_bootstrap: str, tmp_path: Path) -> None:
    start = datetime(2025, 12, 21, 16, 0, tzinfo=UTC)  # after the keyless test's closers
    burst = _burst(500, start)
    _live_equals_replay(workers, kafka_bootstrap, tmp_path, burst, _two_producers,
                        _closers(burst[0], start + timedelta(hours=3), "two"),
                        _late(burst, start + timedelta(minutes=5)))


IDLE_LATENESS_MS, IDLE_RELEASE_S = 60_000, 5.0  # docs/operations.md's lateness for many producers; the default release
EXAMPLES = sorted((REPO / "examples" / "omen").glob("*.jsonl"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _omega(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "streams.cli.main", *args], cwd=REPO, capture_output=True,
                          timeout=300, check=False, env={**os.environ, "OMEGA_PARTITIONS": "4"})


def test_the_examples_published_with_nothing_after_give_every_verdict_of_replay_once_their_partitions_idle(
        kafka_bootstrap: str, tmp_path: Path) -> None:
    out = tmp_path / "replay.jsonl"
    done = _omega("replay", "--max-lateness-ms", str(IDLE_LATENESS_MS), "--no-summary", "--out", str(out),
                  *map(str, EXAMPLES))
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")
    replay = {line["value"]["verdict_id"]: line["value"] for line in map(json.loads, out.read_text().splitlines())
              if line["topic"] == VERDICTS.name}
    # the bytes behind those lines: the same Replayer, in process (the worker's Avro records)
    replayer = Replayer(Outputs(_registry()), IDLE_LATENESS_MS, partitions=4)
    replay_bytes = {e.record["verdict_id"]: e.value for e in
                    [*(e for r in read_inputs(EXAMPLES) for e in replayer.feed(r)), *replayer.finish()]
                    if e.topic is VERDICTS}
    assert replay_bytes.keys() == replay.keys()
    assert sum(v["late"] for v in replay.values()) > 0  # files out of event-time order: some packets are late

    port = _free_port()
    worker = WorkerProcess(kafka_bootstrap, tmp_path / "worker", env={
        "OMEGA_MAX_LATENESS_MS": str(IDLE_LATENESS_MS), "OMEGA_WEB_PORT": str(port)})  # idle release: its default
    worker.data_dir.mkdir()
    worker.start()
    try:
        published = _omega("publish", "--topic", "packets_json", "--bootstrap", kafka_bootstrap,
                           "--prefix", worker.prefix, *map(str, EXAMPLES))
        assert published.returncode == 0, published.stderr.decode(errors="replace")
        sent = time.monotonic()
        verdicts = worker.topic(VERDICTS)

        def complete(found: dict[str, list[Record]]) -> bool:
            return {_verdict_id(r["value"]) for r in found[verdicts]} >= replay.keys()

        # nothing comes after the examples: without the idle release, the last minute of every partition waits
        found = asyncio.run(consume_until(kafka_bootstrap, [verdicts], None, complete,
                                          timeout=IDLE_RELEASE_S + 20))
        took = time.monotonic() - sent
        live = {_verdict_id(r["value"]): r["value"] for r in found[verdicts]}
        missing = replay.keys() - live.keys()
        assert not missing, f"{len(missing)} of {len(replay)} verdicts missing live after {took:.1f} s\n" \
                            f"{worker.log_tail()}"
        assert live.keys() == replay.keys()
        differing = [k for k in replay if live[k] != replay_bytes[k]]
        assert not differing, f"{len(differing)} differ, e.g. {replay[differing[0]]}"
        assert all(json.loads(json.dumps(json_view(_registry().decode(live[k])[1]))) == replay[k] for k in replay)
        print(f"\n{len(live)} verdicts, the last {took:.1f} s after the examples were published")

        base = f"http://127.0.0.1:{port}"
        health = httpx.get(f"{base}/healthz", timeout=5).json()["lateness"]
        assert (health["idle_release_ms"], health["waiting"], health["oldest_wait_seconds"]) == (5_000, 0, None)
        metrics = httpx.get(f"{base}/metrics", timeout=5).text
        releases = [line for line in metrics.splitlines() if line.startswith("omega_idle_releases_total")]
        assert len(releases) == 4, metrics  # every partition had packets of the examples waiting
        assert "omega_waiting_packets{" in metrics
    finally:
        worker.stop()


@functools.cache
def _registry() -> SchemaRegistry:
    return SchemaRegistry.from_directory()


def _verdict_id(value: bytes) -> str:
    return str(_registry().decode(value)[1]["verdict_id"])
