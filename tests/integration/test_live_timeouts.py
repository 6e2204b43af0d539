"""INV-011 live: a directive left dangling in an episode that goes quiet times out on the worker's watermark
tick, driven by ANOTHER episode's later packet on the same partition, with the very alert embedded replay
raises at the end of the log.

The first test runs a real worker (tick interval 1 s) on the broker. The others drive the same tick path
through Faust's `agent.test_context()` with an in-memory table, as `tests/agents/test_packet_agents.py`
does: the validator turning a tick into timeouts, and the timer deciding when to append a tick.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest.mock import AsyncMock, patch

import pytest
from faust.types import TP

from omega.eventtime import to_ms
from streams.kafka.partitioning import partition_of
from streams.replay.inputs import InputRecord
from streams.replay.replayer import Replayer
from streams.settings import Settings
from streams.stages.base import Outputs
from streams.stages.packets import WatermarkTick
from streams.topics import ALERTS, ALL_TOPICS, ESCALATIONS, PACKETS, PACKETS_JSON, VERDICTS
from streams.wire.codec import SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from streams.worker.app import OmegaApp, create_app
from tests.factories import example_cycle, packet
from tests.integration.test_two_workers_equivalence import as_check_line, check_packets, consume_until, write_jsonl
from tests.integration.worker import WorkerProcess, produce

PARTITIONS = 4
QUIET = "corr_quiet_0001"
START = datetime(2025, 12, 21, 9, 0, tzinfo=UTC)
REGISTRY = SchemaRegistry.from_directory()


def other_episode_on_the_same_partition(key: str, stem: str) -> str:
    """The first `<stem>NNNN` correlation id the producers' partitioner puts where `key` goes."""
    target = partition_of(key, PARTITIONS)
    return next(c for c in (f"{stem}{n:04d}" for n in range(1000)) if partition_of(c, PARTITIONS) == target)


LATER = other_episode_on_the_same_partition(QUIET, "corr_later_")


def quiet_episode() -> list[dict[str, Any]]:
    """Observation, belief, ACT decision, then a READ directive (time budget 240 s) that never gets its result."""
    packets = example_cycle("degraded_tools", QUIET, "quiet", START)[:4]
    assert packets[-1]["header"]["packet_type"] == "TaskDirectivePacket"
    assert packets[-1]["payload"]["timeout_seconds"] == 20
    return packets


def later_packet(minutes: int = 10) -> dict[str, Any]:
    """One observation of the other episode, well past the quiet episode's deadline."""
    later = packet(0, 1)
    later["header"].update(packet_id=f"pkt_later_{minutes:04d}", correlation_id=LATER,
                           created_at=(START + timedelta(minutes=minutes)).isoformat())
    return later


def deadline_of(packets: list[dict[str, Any]]) -> str:
    """INV-011: the directive's time budget, or its timeout x (1 + retries) when longer (here 240 s > 20 x 2)."""
    directive = packets[-1]
    issued = to_ms(directive["header"]["created_at"])
    assert issued is not None
    attempts = 1 + directive["payload"]["retry_policy"]["max_retries"]
    budget, timeout = directive["mcp"]["budgets"]["time_budget_seconds"], directive["payload"]["timeout_seconds"]
    allowed = max(budget, timeout * attempts)
    return datetime.fromtimestamp(issued / 1000 + allowed, UTC).isoformat()


# ------------------------------------------------------------------------------------------ a real worker
@pytest.fixture
def ticking_worker(kafka_bootstrap: str, tmp_path: Path) -> Iterator[WorkerProcess]:
    worker = WorkerProcess(kafka_bootstrap, tmp_path, env={"OMEGA_TICK_INTERVAL": "1"})
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()


@pytest.mark.integration
def test_a_quiet_episode_times_out_on_the_tick_another_episodes_packet_moves(
    ticking_worker: WorkerProcess, kafka_bootstrap: str, tmp_path: Path
) -> None:
    worker = ticking_worker
    quiet, later = quiet_episode(), later_packet()
    assert partition_of(QUIET, PARTITIONS) == partition_of(LATER, PARTITIONS)
    embedded = check_packets(write_jsonl(tmp_path / "quiet.jsonl", [*quiet, later]))
    [expected] = [line for line in embedded if line["kind"] == "alert"]
    assert (expected["alert_kind"], expected["subject_id"], expected["event_time"]) == (
        "TASK_TIMEOUT", QUIET, deadline_of(quiet))
    assert not [line for line in embedded if line["kind"] == "escalation"]  # MEDIUM stakes: no escalation

    topics = {worker.topic(spec): spec.logical for spec in (VERDICTS, ALERTS, ESCALATIONS)}
    names = {logical: name for name, logical in topics.items()}

    def read(verdicts: int, settle: float) -> dict[str, list[dict[str, Any]]]:
        """Everything on the output topics once `verdicts` verdicts (and an alert) are there, plus `settle` s."""
        asyncio.run(consume_until(kafka_bootstrap, list(topics), REGISTRY,
                                  lambda f: len(f[names["verdicts"]]) >= verdicts
                                  and (verdicts < 5 or bool(f[names["alerts"]])), timeout=60))
        time.sleep(settle)  # room for a wrong extra alert (or a second tick's duplicate) to show up
        return asyncio.run(consume_until(kafka_bootstrap, list(topics), REGISTRY, lambda f: False, timeout=2))

    def send(packets: list[dict[str, Any]]) -> list[tuple[int, int]]:
        records = [(p["header"]["correlation_id"].encode(), json.dumps(p).encode()) for p in packets]
        return asyncio.run(produce(kafka_bootstrap, worker.topic(PACKETS_JSON), records))

    # 1. The quiet episode alone: its own packets never pass its deadline, so ticks (1 s) raise nothing.
    positions = send(quiet)
    assert {p for p, _ in positions} == {partition_of(QUIET, PARTITIONS)}
    before = read(verdicts=4, settle=3.0)
    assert len(before[names["verdicts"]]) == 4, worker.log_tail()
    assert before[names["alerts"]] == [], "a timeout before any packet passed the deadline"

    # 2. Another episode's packet on the same partition moves the watermark 10 minutes on.
    send([later])
    after = read(verdicts=5, settle=3.0)
    alerts = [as_check_line(ALERTS.logical, a) for a in after[names["alerts"]]]
    assert alerts == [expected], f"{len(alerts)} alert(s) live: {alerts}\n{worker.log_tail()}"
    assert after[names["escalations"]] == []
    [alert] = after[names["alerts"]]
    assert alert["key"] == QUIET.encode()
    assert alert["partition"] == partition_of(QUIET, PARTITIONS)
    # ...and it came from a watermark tick the timer appended to that packets partition
    log = asyncio.run(consume_until(kafka_bootstrap, [worker.topic(PACKETS)], REGISTRY, lambda f: False, timeout=2))
    ticks = [r for r in log[worker.topic(PACKETS)] if r["key"] == b"__watermark__"]
    assert {(t["partition"], t["watermark"]) for t in ticks} >= {
        (partition_of(QUIET, PARTITIONS), datetime.fromisoformat(later["header"]["created_at"]).isoformat())}

    # The verdicts are replay's too, and the later packet did not itself raise the quiet episode's timeout.
    verdicts = [as_check_line(VERDICTS.logical, v) for v in after[names["verdicts"]]]
    replayed = [line for line in embedded if line["kind"] == "verdict"]
    assert sorted(verdicts, key=lambda v: v["verdict_id"]) == sorted(replayed, key=lambda v: v["verdict_id"])
    assert all(v["status"] == "ACCEPTED" for v in verdicts)
    assert worker.alive()


# ------------------------------------------------------------------------------------------ the tick path, in memory
@pytest.fixture
async def omega() -> AsyncIterator[OmegaApp]:
    """A fresh app per test, tables in memory, every topic's send captured (as in tests/agents)."""
    app = create_app(Settings(app_id="omega-tick-test", store="memory://", topic_prefix="t.",
                              partitions=PARTITIONS), REGISTRY)
    app.app.finalize()
    patches = [patch.object(app.topics[s.logical], "send", new=AsyncMock(name=s.logical)) for s in ALL_TOPICS]
    for p in patches:
        p.start()
    try:
        yield app
    finally:
        for p in reversed(patches):
            p.stop()
        consumer = app.app._consumer
        if consumer is not None:  # the consumer thread's own loop, never started by test_context
            consumer._thread.thread_loop.close()  # type: ignore[attr-defined]


def _sends(app: OmegaApp, logical: str) -> list[dict[str, Any]]:
    return [dict(call.kwargs) for call in app.topics[logical].send.await_args_list]


async def _settle(app: OmegaApp, logical: str, count: int, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while len(_sends(app, logical)) < count:
        assert loop.time() < deadline, f"fewer than {count} sends to {logical} in time"
        await asyncio.sleep(0.001)
    for _ in range(20):  # room for an extra one to show up
        await asyncio.sleep(0)


def _avro(p: dict[str, Any]) -> bytes:
    return REGISTRY.encode(PACKET_SCHEMA, PacketConverter(REGISTRY.get(PACKET_SCHEMA).parsed).to_avro(p))


def _replay_alerts(packets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What embedded replay raises for `packets` followed by the end of the log."""
    from streams.stages.base import Source

    replayer = Replayer(Outputs(REGISTRY))
    for n, p in enumerate(packets):
        replayer.feed(InputRecord(Source("file:x", 0, n), json.dumps(p).encode(), "json"))
    return [dict(e.record) for e in replayer.finish() if e.topic is ALERTS]


async def test_the_validator_turns_a_tick_into_the_alert_replay_raises_once(omega: OmegaApp) -> None:
    quiet, later = quiet_episode(), later_packet()
    partition = partition_of(QUIET, PARTITIONS)
    watermark = to_ms(later["header"]["created_at"])
    assert watermark is not None
    validator = omega.app.agents[f"{omega.settings.topic_prefix}validator"]
    async with validator.test_context() as agent:
        for p in quiet:
            await agent.put(_avro(p), key=QUIET.encode(), partition=partition)
        await _settle(omega, VERDICTS.logical, 4)
        early = omega.packet_stage.encode_tick(partition, watermark - 15 * 60_000)  # before the deadline
        elsewhere = omega.packet_stage.encode_tick((partition + 1) % PARTITIONS, watermark)  # another partition's
        assert omega.packet_stage.read(early) == WatermarkTick(partition, watermark - 15 * 60_000)
        for tick in (early, elsewhere):
            await agent.put(tick, key=b"__watermark__", partition=partition)
        await _settle(omega, VERDICTS.logical, 4)
        assert _sends(omega, ALERTS.logical) == []
        tick = omega.packet_stage.encode_tick(partition, watermark)
        for _ in range(2):  # the same tick twice (a redelivery): the same alert again, the ledger as it was
            await agent.put(tick, key=b"__watermark__", partition=partition)
        await _settle(omega, ALERTS.logical, 2)
        stored = omega.episodes[QUIET]
        later_tick = omega.packet_stage.encode_tick(partition, watermark + 60_000)  # a later watermark: nothing new
        await agent.put(later_tick, key=b"__watermark__", partition=partition)
        await _settle(omega, ALERTS.logical, 2)

    sent, again = _sends(omega, ALERTS.logical)
    assert again == sent  # byte-identical: a consumer deduplicating by alert_id sees one alert
    assert sent["key"] == QUIET.encode()
    name, record = REGISTRY.decode(sent["value"])
    assert name == ALERTS.value_schema
    assert [record] == _replay_alerts([*quiet, later])
    assert record["event_time"] == deadline_of(quiet)
    assert sent["timestamp"] * 1000 == to_ms(deadline_of(quiet))  # stamped with the deadline
    assert [d["timed_out"] for d in stored["open_directives"].values()] == [True]  # reassigned, so logged
    assert {s.logical for s in ALL_TOPICS if _sends(omega, s.logical)} == {VERDICTS.logical, ALERTS.logical}


async def test_the_timer_appends_one_tick_per_owned_partition_whose_watermark_moved(omega: OmegaApp) -> None:
    partition = partition_of(LATER, PARTITIONS)
    packets_topic = f"{omega.settings.topic_prefix}{PACKETS.name}"
    timer = inspect.unwrap(next(t for t in omega.app._app_tasks if t.__name__ == "watermark_ticks"))
    owned = {TP(packets_topic, partition), TP(f"{omega.settings.topic_prefix}{PACKETS_JSON.name}", partition)}
    validator = omega.app.agents[f"{omega.settings.topic_prefix}validator"]
    with patch.object(omega.app.assignor, "assigned_actives", return_value=owned):
        await timer()
        assert _sends(omega, PACKETS.logical) == []  # no packet seen yet: nothing to tick
        async with validator.test_context() as agent:
            for minutes in (10, 11):
                later = later_packet(minutes)
                stamp = to_ms(later["header"]["created_at"])
                assert stamp is not None
                await agent.put(_avro(later), key=LATER.encode(), partition=partition,
                                timestamp=stamp / 1000)
                await _settle(omega, VERDICTS.logical, minutes - 9)
                await timer()
                await timer()  # the watermark did not move again: no second tick
        ticks = _sends(omega, PACKETS.logical)

    marks = [to_ms(later_packet(m)["header"]["created_at"]) for m in (10, 11)]
    assert [(t["key"], t["partition"]) for t in ticks] == [(b"__watermark__", partition)] * 2
    assert [omega.packet_stage.read(t["value"]) for t in ticks] == [WatermarkTick(partition, mark) for mark in marks]
    assert [t["timestamp"] * 1000 for t in ticks] == marks
