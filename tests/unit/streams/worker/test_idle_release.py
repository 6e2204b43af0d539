"""The idle release (streams/worker/idle_release.py) on a fake clock, no sleeps: a packets partition with packets
waiting that has received no packet for the idle time is due a tick past its newest event time by the lateness;
a packet restarts the wait, a tick does not; one release per idle time; what waits and for how long (/metrics,
/healthz). Then the worker's timer (`install`, sending ticks as worker/app.py does) over the validator's own
step: the bundled examples under a minute's lateness, published keyed and nothing after, give every verdict of
`omega replay --max-lateness-ms 60000`, the same bytes, and a packet after the release is late."""

from __future__ import annotations

import asyncio
import copy
import functools
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from faust.types import TP

from streams.kafka.partitioning import partition_of
from streams.replay.inputs import read_inputs
from streams.replay.replayer import Replayer
from streams.stages.base import Emit, Source
from streams.stages.episodes import TICK_KEY, EpisodeSteps
from streams.stages.packets import PacketStage
from streams.topics import PACKETS, VERDICTS, topic_name
from streams.worker import app as worker_app
from streams.worker.idle_release import IdleRelease, PartitionWait, install
from streams.worker.metrics import WorkerMetrics

EXAMPLES = Path(__file__).parents[4] / "examples" / "omen"
LATENESS_MS, IDLE_MS = 60_000, 5_000
TICK = TICK_KEY.encode()


class Clock:
    """Wall time in seconds, moved by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _waiting(table: dict[int, list[tuple[int, int]]]) -> Callable[[int], list[tuple[int, int]]]:
    return lambda partition: table.get(partition, [])


def _no_watermark(_partition: int) -> int | None:
    return None


def test_a_partition_quiet_for_the_idle_time_with_packets_waiting_is_due_a_tick_past_its_newest_packet() -> None:
    clock = Clock()
    idle = IdleRelease(IDLE_MS, LATENESS_MS, clock)
    idle.received(0, 7)
    idle.received(0, 8)
    waiting = _waiting({0: [(1_000, 7), (4_000, 8)]})  # (created_ms, offset); partition 1 has nothing waiting

    clock.now = 4.999
    assert idle.due([0, 1], waiting, _no_watermark) == []
    clock.now = 5.0
    assert idle.due([0, 1], waiting, _no_watermark) == [(0, 4_000 + 60_000 + 1)]


def test_the_release_passes_the_partition_watermark_when_it_is_newer_than_what_waits() -> None:
    clock = Clock()
    idle = IdleRelease(IDLE_MS, LATENESS_MS, clock)
    clock.now = 6.0  # never received anything since it took the partition at 0 (a restart with packets waiting)
    idle.look([0], _waiting({}))
    clock.now = 11.0
    assert idle.due([0], _waiting({0: [(1_000, 3)]}), lambda p: 9_000) == [(0, 9_000 + 60_000 + 1)]


def test_a_packet_restarts_the_wait_and_a_tick_does_not() -> None:
    clock = Clock()
    idle = IdleRelease(IDLE_MS, LATENESS_MS, clock)
    judged: list[bytes] = []

    def step(raw: bytes, src: Source) -> list[Emit]:
        judged.append(raw)
        return []

    watched = idle.watched(step, TICK)
    waiting = _waiting({2: [(1_000, 0)]})
    watched(b"p", Source("packets", 2, 0, b"corr_a", 1_000))
    clock.now = 4.0
    watched(b"p2", Source("packets", 2, 1, b"corr_b", 2_000))  # traffic: the wait starts again
    clock.now = 8.0
    watched(b"t", Source("packets", 2, 2, TICK, 2_000))  # the worker's own tick: not traffic

    assert judged == [b"p", b"p2", b"t"]  # the step runs for every record
    assert idle.due([2], waiting, _no_watermark) == []
    clock.now = 9.0
    assert [p for p, _ in idle.due([2], waiting, _no_watermark)] == [2]


def test_a_partition_is_released_once_per_idle_time_while_its_tick_is_on_its_way() -> None:
    clock = Clock()
    idle = IdleRelease(IDLE_MS, LATENESS_MS, clock)
    waiting = _waiting({0: [(1_000, 0)]})
    idle.received(0, 0)
    clock.now = 5.0
    assert len(idle.due([0], waiting, _no_watermark)) == 1
    idle.sent(0)
    clock.now = 9.9  # still waiting (the tick not yet judged): not again yet
    assert idle.due([0], waiting, _no_watermark) == []
    clock.now = 10.0  # the tick was lost: once more
    assert len(idle.due([0], waiting, _no_watermark)) == 1


@pytest.mark.parametrize(("idle_ms", "lateness_ms"), [(0, LATENESS_MS), (IDLE_MS, 0)])
def test_no_release_with_the_idle_time_or_the_lateness_at_zero(idle_ms: int, lateness_ms: int) -> None:
    clock = Clock()
    idle = IdleRelease(idle_ms, lateness_ms, clock)
    idle.received(0, 0)
    clock.now = 3600.0
    assert not idle.on
    assert idle.due([0], _waiting({0: [(1_000, 0)]}), _no_watermark) == []


def test_the_oldest_wait_is_the_longest_waiting_packet_since_it_came_or_since_the_partition_was_taken() -> None:
    clock = Clock()
    idle = IdleRelease(IDLE_MS, LATENESS_MS, clock)
    assert idle.look([0], _waiting({0: [(500, 3)]})) == {0: PartitionWait(1, 0.0, 0.0)}  # taken at 0, 3 waits
    clock.now = 2.0
    idle.received(0, 10)
    clock.now = 6.0
    both = idle.look([0, 1], _waiting({0: [(500, 3), (900, 10)]}))
    assert both == {0: PartitionWait(2, 6.0, 4.0), 1: PartitionWait(0, None, 0.0)}
    after = idle.look([0], _waiting({0: [(900, 10)]}))  # offset 3 released; partition 1 given away
    assert after == {0: PartitionWait(1, 4.0, 4.0)}
    assert idle.totals(after) == {"idle_release_ms": 5_000, "waiting": 1, "oldest_wait_seconds": 4.0,
                                  "partitions": {"0": {"waiting": 1, "oldest_wait_seconds": 4.0,
                                                       "quiet_seconds": 4.0}}}
    assert 1 not in idle.taken


def test_metrics_show_each_partitions_waiting_packets_and_oldest_wait() -> None:
    metrics = WorkerMetrics()
    metrics.waiting({0: PartitionWait(3, 12.5, 4.0), 1: PartitionWait(0, None, 1.0)})
    value = metrics.registry.get_sample_value

    assert value("omega_waiting_packets", {"partition": "0"}) == 3
    assert value("omega_waiting_oldest_seconds", {"partition": "0"}) == 12.5
    assert value("omega_waiting_packets", {"partition": "1"}) == 0
    assert value("omega_waiting_oldest_seconds", {"partition": "1"}) == 0


# ----------------------------------------------------------------------------- the worker's timer, no broker
class FakeTopic:
    """The packets topic: what the timer sends to it."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, **record: Any) -> None:
        self.sent.append(record)


class FakeApp:
    """What the idle-release timer uses of a Faust app: `timer` keeps the function it registers; the broker's end
    offset of each partition is `ends`."""

    def __init__(self, owned: set[TP]) -> None:
        self.timers: list[tuple[float, Callable[[], Coroutine[Any, Any, None]]]] = []
        self.rebalancing = False
        self.tables = SimpleNamespace(recovery=SimpleNamespace(in_recovery=False))
        self.assignor = SimpleNamespace(assigned_actives=lambda: owned)
        self.ends: dict[TP, int] = {}
        self.consumer = SimpleNamespace(highwaters=self._highwaters, _committed_offset={})

    async def _highwaters(self, *tps: TP) -> dict[TP, int]:
        return {tp: self.ends.get(tp, 0) for tp in tps}

    def timer(self, interval: float) -> Callable[[Callable[[], Coroutine[Any, Any, None]]], Any]:
        def register(fun: Callable[[], Coroutine[Any, Any, None]]) -> Any:
            self.timers.append((interval, fun))
            return fun
        return register


class Worker:
    """The validator agent's step (noting packets for the idle release) and the idle-release timer, over a dict
    table, 4 packets partitions, one clock."""

    def __init__(self, pipeline: PacketStage) -> None:
        self.clock = Clock()
        self.pipeline = pipeline
        self.steps = EpisodeSteps(pipeline, {}, lambda key: partition_of(key, 4), lateness_ms=LATENESS_MS)
        self.idle = IdleRelease(IDLE_MS, LATENESS_MS, self.clock)
        self.step = self.idle.watched(self.steps.record, TICK)
        self.topic = FakeTopic()
        packets = topic_name(PACKETS, "")
        self.app = FakeApp({TP(packets, p) for p in range(4)})
        self.omega = SimpleNamespace(packet_stage=pipeline, topics={PACKETS.logical: self.topic})
        self.metrics = WorkerMetrics()
        send = functools.partial(worker_app._send_tick, self.omega)  # type: ignore[arg-type]  # what it uses of one
        self.processed: dict[tuple[str, int], int] = {}  # what the agent loop marks: the next offset to process
        self.first_stored: dict[int, int | None] = {}  # partition -> the broker's first record at or after a position
        install(self.app, packets, self.steps, self.idle, send,
                lambda partition: self.metrics.idle_releases.labels(str(partition)).inc(), self.processed, self._stored)
        self.offsets: dict[int, int] = {}

    async def _stored(self, topic: str, partition: int, offset: int, timeout_ms: int) -> int | None:
        return self.first_stored.get(partition, offset)

    def read(self, partition: int, key: bytes, value: bytes, timestamp_ms: int | None) -> list[Emit]:
        """The validator agent reads the partition's next record."""
        offset = self.offsets[partition] = self.offsets.get(partition, -1) + 1
        topic = topic_name(PACKETS, "")
        self.app.ends[TP(topic, partition)] = self.processed[topic, partition] = offset + 1
        return self.step(value, Source(topic, partition, offset, key, timestamp_ms))

    def publish(self, lines: list[str]) -> list[Emit]:
        """Packets published keyed: the ingress's packets-topic records, read by the validator."""
        emits: list[Emit] = []
        for n, line in enumerate(lines):
            for emit in self.pipeline.ingress(line.encode(), Source("omen.packets.json", 0, n)):
                if emit.topic is PACKETS:
                    emits += self.read(partition_of(emit.key, 4), emit.key.encode(), emit.value, emit.timestamp_ms)
        return emits

    def timer_runs(self, at: float) -> list[Emit]:
        """The idle-release timer runs at wall time `at`; the ticks it sent are read by the validator."""
        self.clock.now = at
        [(_, timer)] = self.app.timers
        before = len(self.topic.sent)
        asyncio.run(timer())
        return [e for tick in self.topic.sent[before:] for e in
                self.read(tick["partition"], tick["key"], tick["value"], round(tick["timestamp"] * 1000))]


def _lines() -> list[str]:
    return [line for path in sorted(EXAMPLES.glob("*.jsonl")) for line in path.read_text().splitlines() if line.strip()]


def _verdicts(emits: list[Emit]) -> dict[str, bytes]:
    return {e.record["verdict_id"]: e.value for e in emits if e.topic is VERDICTS}


def test_the_examples_published_keyed_and_nothing_after_give_every_verdict_of_replay_once_idle(
        pipeline: PacketStage) -> None:
    replayer = Replayer(pipeline.outputs, LATENESS_MS, partitions=4)
    replay = _verdicts([e for r in read_inputs(sorted(EXAMPLES.glob("*.jsonl"))) for e in replayer.feed(r)]
                       + replayer.finish())
    worker = Worker(pipeline)

    live = worker.publish(_lines())
    assert len(_verdicts(live)) < len(replay)  # the last minute of each partition waits
    live += worker.timer_runs(4.9)
    assert len(_verdicts(live)) < len(replay)
    live += worker.timer_runs(5.0)

    assert _verdicts(live) == replay  # the same verdicts, the same bytes
    assert worker.steps.room.positions(0) == worker.steps.room.positions(2) == []
    assert worker.metrics.registry.get_sample_value("omega_idle_releases_total", {"partition": "0"}) == 1
    assert worker.timer_runs(60.0) == []  # nothing waits: no more ticks
    assert len(worker.topic.sent) == 4  # one release for each partition, as every one had packets waiting


def test_a_packet_after_its_partitions_release_is_late_and_one_newer_than_everything_waits(
        pipeline: PacketStage) -> None:
    worker = Worker(pipeline)
    lines = (EXAMPLES / "dangling_directive.jsonl").read_text().splitlines()  # partition 0, 21:00:00 to 21:01:30
    worker.publish(lines)
    worker.timer_runs(5.0)

    def again(packet_id: str, created_at: str) -> str:
        packet = copy.deepcopy(json.loads(lines[1]))
        packet["header"].update(packet_id=packet_id, created_at=created_at)
        return json.dumps(packet)

    assert [json.loads(x)["header"]["created_at"] for x in lines][-1] == "2025-12-28T21:01:30+00:00"  # the newest
    [late] = _verdicts(worker.publish([again("pkt_dd_late", "2025-12-28T21:01:30+00:00")])).values()
    assert worker.publish([again("pkt_dd_next", "2025-12-28T21:01:30.001+00:00")]) == []  # newer: it waits
    assert pipeline.outputs.registry.decode(late)[1]["late"] is True


def test_a_partition_with_records_unread_is_not_released_however_quiet_but_a_commit_marker_is_no_record(
        pipeline: PacketStage) -> None:
    worker = Worker(pipeline)
    worker.publish(_lines())
    behind = TP(topic_name(PACKETS, ""), 0)
    worker.app.ends[behind] += 2  # two more records on partition 0 that the agent has not read yet

    worker.timer_runs(5.0)
    assert sorted(t["partition"] for t in worker.topic.sent) == [1, 2, 3]
    assert worker.steps.room.positions(0) != []
    worker.first_stored[0] = None  # nothing stored there after all: a transactional producer's commit markers
    worker.timer_runs(6.0)
    assert sorted(t["partition"] for t in worker.topic.sent) == [0, 1, 2, 3]
    assert worker.steps.room.positions(0) == []
