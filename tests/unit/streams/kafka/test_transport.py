"""The worker's Kafka transport (streams/kafka/transport.py) without a broker: what its consumer asks aiokafka for (read
committed records only, a short long-poll), which records it admits to the agents (each partition's next one;
a record past a passed-over one rewinds the partition unless the offsets between hold nothing), where reading
starts (the committed offset; without one, the log's start under "earliest", else the first record read), and
that commits never pass a record not processed. The aiokafka consumers are the in-memory ones of
tests/unit/streams/fakes_kafka.py; Faust's consumer thread runs its calls inline."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, cast
from unittest.mock import AsyncMock, MagicMock, patch

import aiokafka
import aiokafka.consumer.consumer as aiokafka_consumer
import faust
import pytest
from aiokafka import TopicPartition
from aiokafka.errors import KafkaConnectionError
from faust.types import TP

from streams.kafka import offset_probe
from streams.kafka import transport as transport_module
from streams.kafka.offset_probe import OffsetProbe
from streams.kafka.transport import admitted, transport_class
from streams.settings import Settings
from streams.wire.codec import SchemaRegistry
from streams.worker.app import create_app
from tests.unit.streams.fakes_kafka import FakeCluster
from tests.unit.streams.log_capture import captured

TOPIC = "t.packets-json"
TP0 = TP(TOPIC, 0)


@dataclass(frozen=True)
class Message:
    """What `admit` reads of a Faust message."""

    tp: TP
    offset: int


class Worker:
    """A Faust app on the transport under test, its consumer's aiokafka consumer a fake of `cluster`."""

    def __init__(self, cluster: FakeCluster, reset: str = "earliest", fetch_max_wait_ms: int = 50) -> None:
        self.cluster = cluster
        self.app = faust.App("omega-transport-test", broker="kafka://broker:9092", store="memory://",
                             web_enabled=False, consumer_auto_offset_reset=reset)
        self.app.transport = transport_class(fetch_max_wait_ms, OffsetProbe("broker:9092", {}))(
            self.app.conf.broker_consumer, self.app)
        self.consumer: Any = cast(Any, self.app.consumer)
        self.kafka = cluster.new_consumer(group_id="omega-transport-test", auto_offset_reset=reset)
        self.consumer._thread._consumer = self.kafka

        async def inline(fun: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
            result = fun(*args, **kwargs)
            return await result if inspect.isawaitable(result) else result

        self.consumer._thread.call_thread = inline

    async def assigned(self, *tps: TP) -> None:
        """The group assigns `tps`; Faust seeks them to their committed offsets."""
        self.kafka.assign(tps)
        await self.consumer.perform_seek()

    async def admits(self, *offsets: int, tp: TP = TP0) -> list[bool]:
        return [await self.consumer.admit(Message(tp, offset)) for offset in offsets]

    def close(self) -> None:
        # the consumer thread was never started, but it made an event loop of its own
        self.consumer._thread.thread_loop.close()


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch) -> FakeCluster:
    """Every aiokafka consumer built by Faust or by the offset probe is a fake of this cluster."""
    fake = FakeCluster()
    monkeypatch.setattr(aiokafka, "AIOKafkaConsumer", fake.new_consumer)  # Faust's driver: aiokafka.AIOKafkaConsumer
    monkeypatch.setattr(offset_probe, "AIOKafkaConsumer", fake.new_consumer)
    return fake


@pytest.fixture
async def worker(cluster: FakeCluster) -> AsyncIterator[Worker]:
    made = Worker(cluster)
    yield made
    made.close()


async def test_the_worker_consumer_reads_only_committed_records(cluster: FakeCluster, worker: Worker) -> None:
    kafka = worker.consumer._thread._create_worker_consumer(worker.app.transport)
    await kafka.start()
    assert kafka.started_with["isolation_level"] == "read_committed"  # aborted transactions are never judged


async def test_the_consumer_thread_hands_its_results_to_the_consumers_event_loop() -> None:
    # the thread's answers (fetches, offsets, commits) resolve futures of the consumer's loop, not of whichever
    # loop is running when the consumer is built
    app = faust.App("omega-transport-test", broker="kafka://broker:9092", store="memory://", web_enabled=False)
    consumer_loop = asyncio.new_event_loop()
    try:
        app.transport = transport_class(50, OffsetProbe("broker:9092", {}))(app.conf.broker_consumer, app,
                                                                             loop=consumer_loop)
        consumer: Any = app.consumer
        try:
            assert consumer.loop is consumer_loop
            assert consumer._thread.parent_loop is consumer_loop
        finally:
            consumer._thread.thread_loop.close()
    finally:
        consumer_loop.close()


async def test_the_worker_consumer_long_polls_for_the_configured_wait_not_fausts(cluster: FakeCluster) -> None:
    worker = Worker(cluster, fetch_max_wait_ms=37)
    try:
        kafka = worker.consumer._thread._create_worker_consumer(worker.app.transport)
        await kafka.start()
    finally:
        worker.close()
    assert kafka.kwargs["fetch_max_wait_ms"] == 1500  # what Faust asks for: replaced before the fetcher starts
    assert kafka.started_with["fetch_max_wait_ms"] == 37


async def test_the_app_wires_its_settings_into_the_worker_consumer_and_the_probe(
        cluster: FakeCluster, registry: SchemaRegistry) -> None:
    omega = create_app(Settings(bootstrap_servers="broker:9093", app_id="omega-wiring-test", fetch_max_wait_ms=21,
                                fetch_min_bytes=4096), registry)
    consumer: Any = omega.app.consumer
    try:
        kafka = consumer._thread._create_worker_consumer(omega.app.transport)
        await kafka.start()
    finally:
        consumer._thread.thread_loop.close()
    assert kafka.started_with == {"isolation_level": "read_committed", "fetch_max_wait_ms": 21,
                                  "fetch_min_bytes": 4096}
    assert kafka.kwargs["auto_offset_reset"] == "earliest"
    assert kafka.kwargs["enable_auto_commit"] is False  # offsets are committed by Faust, clamped by the transport
    assert kafka.kwargs["group_id"] == "omega-wiring-test"
    assert (consumer.probe.bootstrap, consumer.probe.client_options) == ("broker:9093",
                                                                         {"security_protocol": "PLAINTEXT"})


async def test_aiokafka_hands_the_settings_the_transport_overrides_to_its_fetcher() -> None:
    # The transport sets private attributes after Faust built the consumer; this pins aiokafka reading them
    # when it starts (an aiokafka upgrade that stops doing so would silently restore read_uncommitted and 1.5 s).
    consumer = aiokafka.AIOKafkaConsumer(bootstrap_servers="127.0.0.1:1", group_id=None,
                                         isolation_level="read_uncommitted", fetch_max_wait_ms=1500)
    consumer._isolation_level = "read_committed"
    consumer._fetch_max_wait_ms = 37
    consumer._fetch_min_bytes = 4096
    fetcher = MagicMock()
    fetcher.return_value.close = AsyncMock()
    with patch.object(aiokafka_consumer, "Fetcher", fetcher), \
            patch.object(consumer._client, "bootstrap", AsyncMock()), \
            patch.object(consumer, "_wait_topics", AsyncMock()):
        await consumer.start()
        await asyncio.sleep(0)  # let the coordinator's task begin, so that stop() can cancel it
        await consumer.stop()
    assert fetcher.call_args.kwargs["isolation_level"] == "read_committed"
    assert fetcher.call_args.kwargs["fetch_max_wait_ms"] == 37
    assert fetcher.call_args.kwargs["fetch_min_bytes"] == 4096


async def test_records_from_the_committed_offset_on_are_admitted_in_order(worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, range(0, 20))
    worker.cluster.committed[TopicPartition(TOPIC, 0)] = 10
    await worker.assigned(TP0)

    assert await worker.admits(10, 11, 12) == [True, True, True]
    assert await worker.admits(11) == [False]  # redelivered: processed already
    assert await worker.admits(13) == [True]
    assert worker.kafka.seeks() == []  # nothing read again


async def test_a_record_past_a_passed_over_one_is_refused_and_the_partition_read_again(worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, range(0, 20))
    worker.cluster.committed[TopicPartition(TOPIC, 0)] = 10
    await worker.assigned(TP0)
    worker.kafka.calls.clear()

    assert await worker.admits(10, 12, 13) == [True, False, False]  # 11 never reached the agents
    assert worker.kafka.seeks() == [(TopicPartition(TOPIC, 0), 11)]  # once: 13 came while the rewind was under way
    assert worker.consumer._read_offset[TP0] is None  # Faust's fetch loop must not drop the records read again
    assert await worker.admits(11, 12, 13) == [True, True, True]


async def test_a_rewind_that_brought_nothing_is_asked_again_once_overdue(worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, range(0, 20))
    worker.cluster.committed[TopicPartition(TOPIC, 0)] = 10
    await worker.assigned(TP0)
    worker.kafka.calls.clear()

    clock = iter([100.0, 104.0, 105.5])  # the rewind is retried 5 s after it was asked, not before
    with patch("streams.kafka.transport.time", SimpleNamespace(monotonic=lambda: next(clock))):
        assert await worker.admits(12, 13, 14) == [False, False, False]
    assert worker.kafka.seeks() == [(TopicPartition(TOPIC, 0), 10), (TopicPartition(TOPIC, 0), 10)]


async def test_a_rewind_is_logged_with_the_partition_the_expected_offset_and_the_record_got(
        worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, range(0, 20))
    worker.cluster.committed[TopicPartition(TOPIC, 0)] = 10
    await worker.assigned(TP0)

    assert await worker.admits(10) == [True]
    with captured(transport_module) as logs:
        assert await worker.admits(13) == [False]  # 11 and 12 passed over
    assert logs == [{"event": "input_rewound", "log_level": "warning", "topic": TOPIC, "partition": 0,
                     "expected": 11, "got": 13}]


async def test_offsets_holding_no_record_are_passed_without_a_rewind(worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, [10, 13, 14])  # 11: a commit marker, 12: compacted away
    worker.cluster.committed[TopicPartition(TOPIC, 0)] = 10
    await worker.assigned(TP0)
    worker.kafka.calls.clear()

    assert await worker.admits(10, 13, 14) == [True, True, True]
    assert worker.kafka.seeks() == []


async def test_an_aborted_transactions_records_are_passed_without_a_rewind(worker: Worker) -> None:
    # the worker reads committed records: 11 and 12 never come, and the probe must not find them either
    worker.cluster.log(TOPIC, 0, [10, 13], aborted=[11, 12])
    worker.cluster.committed[TopicPartition(TOPIC, 0)] = 10
    await worker.assigned(TP0)
    worker.kafka.calls.clear()

    assert await worker.admits(10, 13) == [True, True]
    assert worker.kafka.seeks() == []


async def test_a_gap_is_logged_with_the_partition_the_expected_offset_and_the_next_stored_one(
        worker: Worker) -> None:
    tp3 = TP(TOPIC, 3)
    worker.cluster.log(TOPIC, 3, [10, 14, 15])  # 11..13 hold nothing
    worker.cluster.committed[TopicPartition(TOPIC, 3)] = 10
    await worker.assigned(tp3)

    assert await worker.admits(10, tp=tp3) == [True]
    with captured(transport_module) as logs:
        assert await worker.admits(15, tp=tp3) == [False]  # 14 is stored: passed over, read again
    assert logs == [
        {"event": "input_gap", "log_level": "info", "topic": TOPIC, "partition": 3, "expected": 11, "next": 14},
        {"event": "input_rewound", "log_level": "warning", "topic": TOPIC, "partition": 3, "expected": 14,
         "got": 15},
    ]


async def test_a_gap_before_a_passed_over_record_is_passed_and_the_record_read_again(worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, [10, 12, 13])  # 11 holds nothing; 12 is stored but never reached the agents
    worker.cluster.committed[TopicPartition(TOPIC, 0)] = 10
    await worker.assigned(TP0)
    worker.kafka.calls.clear()

    assert await worker.admits(10, 13) == [True, False]
    assert worker.kafka.seeks() == [(TopicPartition(TOPIC, 0), 12)]
    assert await worker.admits(12, 13) == [True, True]


async def test_a_record_the_probe_no_longer_finds_is_still_admitted(worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, [10, 11, 12, 13, 14, 15])
    worker.cluster.committed[TopicPartition(TOPIC, 0)] = 10
    await worker.assigned(TP0)
    worker.kafka.calls.clear()
    worker.cluster.log(TOPIC, 0, [14, 15])  # retention deleted up to 13 after 12 was fetched

    assert await worker.admits(12) == [True]  # the probe's 14 cannot skip the record in hand
    assert await worker.admits(13, 14) == [True, True]
    assert worker.kafka.seeks() == []


async def test_a_probe_that_cannot_tell_leads_to_a_rewind(worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, range(0, 20))
    worker.cluster.committed[TopicPartition(TOPIC, 0)] = 10
    await worker.assigned(TP0)
    worker.kafka.calls.clear()
    worker.cluster.fail_with = KafkaConnectionError("broker gone")

    assert await worker.admits(12) == [False]
    assert worker.kafka.seeks() == [(TopicPartition(TOPIC, 0), 10)]


async def test_without_a_committed_offset_reading_starts_at_the_log_start_under_earliest(worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, range(3, 20), start=3)  # retention deleted 0..2
    await worker.assigned(TP0)
    worker.kafka.calls.clear()

    assert await worker.admits(5) == [False]  # 3 and 4 were passed over
    assert worker.kafka.seeks() == [(TopicPartition(TOPIC, 0), 3)]
    assert ("beginning_offsets", [TopicPartition(TOPIC, 0)]) in worker.kafka.calls
    assert await worker.admits(3, 4, 5) == [True, True, True]


async def test_a_committed_offset_of_zero_reads_from_the_log_start(worker: Worker) -> None:
    # Faust keeps a committed 0 as "none"; the log's start is then where reading began
    worker.cluster.log(TOPIC, 0, range(0, 5))
    worker.cluster.committed[TopicPartition(TOPIC, 0)] = 0
    await worker.assigned(TP0)
    worker.kafka.calls.clear()

    assert await worker.admits(1) == [False]
    assert worker.kafka.seeks() == [(TopicPartition(TOPIC, 0), 0)]
    assert await worker.admits(0, 1) == [True, True]


async def test_without_a_committed_offset_or_a_known_log_start_reading_starts_at_the_first_record_read(
        worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, range(0, 20))
    await worker.assigned(TP0)
    worker.kafka.beginning_offsets = AsyncMock(return_value={})  # the broker named no start for the partition

    assert await worker.admits(17, 18) == [True, True]
    assert await worker.admits(16) == [False]  # before the first record read: not this assignment's
    assert worker.kafka.seeks() == []


async def test_without_a_committed_offset_under_latest_reading_starts_at_the_first_record_read(
        cluster: FakeCluster) -> None:
    worker = Worker(cluster, reset="latest")
    try:
        cluster.log(TOPIC, 0, range(0, 20))
        await worker.assigned(TP0)
        worker.kafka.calls.clear()
        assert await worker.admits(17, 18) == [True, True]
        assert await worker.admits(16) == [False]
    finally:
        worker.close()
    assert worker.kafka.seeks() == []
    assert not any(call[0] == "beginning_offsets" for call in worker.kafka.calls)


async def test_commits_stop_at_the_first_record_not_processed(worker: Worker) -> None:
    tp1 = TP(TOPIC, 1)
    worker.cluster.log(TOPIC, 0, range(0, 40))
    worker.cluster.log(TOPIC, 1, range(0, 40))
    worker.cluster.committed.update({TopicPartition(TOPIC, 0): 10, TopicPartition(TOPIC, 1): 4})
    await worker.assigned(TP0, tp1)
    assert await worker.admits(10, 11) == [True, True]

    assert await worker.consumer._commit({TP0: 30, tp1: 3}) is True
    assert worker.kafka.commits == [{TopicPartition(TOPIC, 0): 12, TopicPartition(TOPIC, 1): 3}]


async def test_a_commit_for_a_partition_not_yet_placed_is_passed_on(worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, range(0, 40))
    await worker.assigned(TP0)  # no committed offset, no record seen yet
    assert await worker.consumer._commit({TP0: 8}) is True
    assert worker.kafka.commits == [{TopicPartition(TOPIC, 0): 8}]


async def test_before_the_first_seek_commits_are_passed_on(worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, range(0, 40))
    worker.kafka.assign([TP0])  # order not reset yet: nothing tracked
    assert await worker.admits(7) == [True]
    assert await worker.consumer._commit({TP0: 30}) is True
    assert worker.kafka.commits == [{TopicPartition(TOPIC, 0): 30}]


async def test_a_seek_leaves_no_read_offset_for_fausts_fetch_loop(worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, range(0, 40))
    worker.cluster.committed[TopicPartition(TOPIC, 0)] = 25
    await worker.assigned(TP0)
    await worker.consumer.seek(TP0, 20)
    assert worker.consumer._read_offset[TP0] is None  # Faust would drop every record below it


async def test_admitted_asks_the_consumer_that_tracks_the_order(worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, range(0, 40))
    worker.cluster.committed[TopicPartition(TOPIC, 0)] = 10
    await worker.assigned(TP0)
    assert await admitted(worker.consumer, Message(TP0, 10)) is True
    assert await admitted(worker.consumer, Message(TP0, 10)) is False
    assert await admitted(object(), Message(TP0, 99)) is True  # a consumer that tracks nothing admits all


class SlowBuffer:
    """Faust's table-write buffer under load: each `flush_atmost` gives up (as Faust's does after 0.1 s without a
    write leaving it) having moved only one write on."""

    def __init__(self, queued: int) -> None:
        self.size = queued
        self.flushes = 0

    async def flush_atmost(self, max_messages: int | None) -> int:
        self.flushes += 1
        self.size -= 1
        return 1


async def test_a_commit_waits_until_every_buffered_table_write_has_left_the_buffer() -> None:
    buffer = SlowBuffer(queued=3)
    left_at_flush: list[int] = []

    async def flush() -> None:
        left_at_flush.append(buffer.size)

    await transport_module.drain_table_writes(SimpleNamespace(buffer=buffer, flush=flush), pause=0)
    assert (buffer.size, buffer.flushes) == (0, 3)
    assert left_at_flush == [0]  # the client is flushed once the buffer is empty, not before


async def test_the_worker_consumer_drains_table_writes_before_it_commits(worker: Worker) -> None:
    worker.cluster.log(TOPIC, 0, range(0, 40))
    await worker.assigned(TP0)
    order: list[str] = []

    async def drained(producer: Any) -> None:
        order.append("drained")

    real_commit = worker.kafka.commit

    async def commit(*args: Any, **kwargs: Any) -> Any:
        order.append("committed")
        return await real_commit(*args, **kwargs)

    with patch.object(transport_module, "drain_table_writes", drained), patch.object(worker.kafka, "commit", commit):
        assert await worker.consumer._commit({TP0: 8}) is True
    assert order == ["drained", "committed"]
