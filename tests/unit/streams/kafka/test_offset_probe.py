"""OffsetProbe (streams/kafka/offset_probe.py): the first record stored at or after an offset, read outside the group,
with the worker's isolation level, so that offsets holding no record are told from records passed over.
Run against the in-memory cluster of tests/unit/streams/fakes_kafka.py."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import TopicPartition
from aiokafka.errors import KafkaConnectionError

from streams.kafka import offset_probe
from streams.kafka.offset_probe import OffsetProbe
from tests.unit.streams.fakes_kafka import FakeCluster
from tests.unit.streams.log_capture import captured

TOPIC = "t.packets"


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch) -> FakeCluster:
    """The cluster every AIOKafkaConsumer the probe builds talks to."""
    fake = FakeCluster()
    monkeypatch.setattr(offset_probe, "AIOKafkaConsumer", fake.new_consumer)
    return fake


@pytest.fixture
async def probe(cluster: FakeCluster) -> OffsetProbe:
    return OffsetProbe("broker:9092", {"security_protocol": "PLAINTEXT"}, timeout_ms=250)


async def test_an_offset_holding_a_record_is_answered_with_itself(cluster: FakeCluster, probe: OffsetProbe) -> None:
    cluster.log(TOPIC, 0, [0, 1, 2, 3])
    assert await probe.first_at_or_after(TOPIC, 0, 2) == 2


async def test_an_offset_holding_no_record_is_answered_with_the_next_stored_one(
        cluster: FakeCluster, probe: OffsetProbe) -> None:
    cluster.log(TOPIC, 0, [10, 13, 14])  # 11: a transaction's commit marker, 12: compacted away
    assert await probe.first_at_or_after(TOPIC, 0, 11) == 13
    assert await probe.first_at_or_after(TOPIC, 0, 12) == 13


async def test_an_offset_below_the_start_of_the_log_is_answered_with_the_first_record_left(
        cluster: FakeCluster, probe: OffsetProbe) -> None:
    cluster.log(TOPIC, 0, [40, 41], start=40)  # retention deleted 0..39
    assert await probe.first_at_or_after(TOPIC, 0, 7) == 40


async def test_nothing_stored_at_or_after_the_offset_is_none(cluster: FakeCluster, probe: OffsetProbe) -> None:
    cluster.log(TOPIC, 0, [0, 1, 2])
    assert await probe.first_at_or_after(TOPIC, 0, 3) is None


async def test_records_of_an_aborted_transaction_are_not_stored_records(
        cluster: FakeCluster, probe: OffsetProbe) -> None:
    # the worker reads read_committed: it never gets 5 or 6, so the probe must not report them either
    cluster.log(TOPIC, 0, [4, 8], aborted=[5, 6])
    assert await probe.first_at_or_after(TOPIC, 0, 5) == 8


async def test_the_probe_consumer_reads_committed_records_outside_any_group(
        cluster: FakeCluster, probe: OffsetProbe) -> None:
    cluster.log(TOPIC, 0, [0])
    await probe.first_at_or_after(TOPIC, 0, 0)

    [consumer] = cluster.consumers
    assert consumer.topics == ()
    assert consumer.kwargs == {"bootstrap_servers": "broker:9092", "group_id": None, "enable_auto_commit": False,
                               "auto_offset_reset": "earliest", "isolation_level": "read_committed",
                               "security_protocol": "PLAINTEXT"}
    assert consumer.started_with is not None
    assert consumer.started_with["isolation_level"] == "read_committed"


async def test_the_probe_assigns_the_asked_partition_and_seeks_to_the_asked_offset(
        cluster: FakeCluster, probe: OffsetProbe) -> None:
    cluster.log(TOPIC, 0, [0, 1, 2])
    cluster.log(TOPIC, 3, [5, 9])
    assert await probe.first_at_or_after(TOPIC, 3, 6) == 9
    assert await probe.first_at_or_after(TOPIC, 0, 1) == 1  # another partition, the same consumer

    [consumer] = cluster.consumers
    tp0, tp3 = TopicPartition(TOPIC, 0), TopicPartition(TOPIC, 3)
    assert [c for c in consumer.calls if c[0] in ("assign", "seek")] == [
        ("assign", [tp3]), ("seek", tp3, 6), ("assign", [tp0]), ("seek", tp0, 1)]


async def test_one_record_is_fetched_within_the_timeout(cluster: FakeCluster, probe: OffsetProbe) -> None:
    cluster.log(TOPIC, 0, [0, 1, 2, 3])
    await probe.first_at_or_after(TOPIC, 0, 0)
    await probe.first_at_or_after(TOPIC, 0, 0, timeout_ms=40)

    [consumer] = cluster.consumers
    fetches = [c for c in consumer.calls if c[0] == "getmany"]
    assert fetches == [("getmany", [TopicPartition(TOPIC, 0)], 250, 1), ("getmany", [TopicPartition(TOPIC, 0)], 40, 1)]


async def test_the_fetch_names_the_asked_partition(cluster: FakeCluster, probe: OffsetProbe) -> None:
    # not "whatever is assigned": the fetch itself says which partition the answer must come from
    cluster.log(TOPIC, 0, [0, 1, 2])
    cluster.log(TOPIC, 3, [5, 9])
    await probe.first_at_or_after(TOPIC, 3, 6)
    await probe.first_at_or_after(TOPIC, 0, 1)

    [consumer] = cluster.consumers
    assert [c[1] for c in consumer.calls if c[0] == "getmany"] == [[TopicPartition(TOPIC, 3)],
                                                                    [TopicPartition(TOPIC, 0)]]


async def test_the_broker_is_given_five_seconds_by_default(cluster: FakeCluster) -> None:
    probe = OffsetProbe("broker:9092", {})  # as the app builds it (streams/worker/app.py)
    cluster.log(TOPIC, 0, [0])
    await probe.first_at_or_after(TOPIC, 0, 0)

    [consumer] = cluster.consumers
    assert [c[2] for c in consumer.calls if c[0] == "getmany"] == [5_000]


async def test_a_broker_error_is_logged_with_the_partition_offset_and_error(
        cluster: FakeCluster, probe: OffsetProbe) -> None:
    cluster.log(TOPIC, 2, [0, 1])
    cluster.fail_with = KafkaConnectionError("broker gone")
    with captured(offset_probe) as logs:
        await probe.first_at_or_after(TOPIC, 2, 1)

    assert logs == [{"event": "offset_probe_failed", "log_level": "warning", "topic": TOPIC, "partition": 2,
                     "offset": 1, "error": "KafkaConnectionError: broker gone"}]


async def test_a_broker_error_is_answered_none(cluster: FakeCluster, probe: OffsetProbe) -> None:
    cluster.log(TOPIC, 0, [0, 1])
    cluster.fail_with = KafkaConnectionError("broker gone")
    assert await probe.first_at_or_after(TOPIC, 0, 0) is None
    cluster.fail_with = None
    assert await probe.first_at_or_after(TOPIC, 0, 0) == 0  # the probe still works afterwards


async def test_the_consumer_starts_at_first_use_once_and_close_stops_it(
        cluster: FakeCluster, probe: OffsetProbe) -> None:
    await probe.close()  # never used: nothing to stop
    assert cluster.consumers == []

    cluster.log(TOPIC, 0, [0])
    await probe.first_at_or_after(TOPIC, 0, 0)
    await probe.first_at_or_after(TOPIC, 0, 0)
    [consumer] = cluster.consumers
    assert [c for c in consumer.calls if c[0] in ("start", "stop")] == [("start",)]

    await probe.close()
    await probe.close()
    assert [c for c in consumer.calls if c[0] in ("start", "stop")] == [("start",), ("stop",)]


async def test_concurrent_questions_are_answered_one_partition_at_a_time(
        cluster: FakeCluster, probe: OffsetProbe) -> None:
    cluster.log(TOPIC, 0, [0, 2, 4])
    cluster.log(TOPIC, 1, [1, 3, 5])
    answers = await asyncio.gather(*(probe.first_at_or_after(TOPIC, p, o) for p, o in [(0, 1), (1, 2), (0, 3)]))

    assert answers == [2, 3, 4]
    [consumer] = cluster.consumers
    steps = [c[0] for c in consumer.calls if c[0] in ("assign", "seek", "getmany")]
    assert steps == ["assign", "seek", "getmany"] * 3  # never assign another partition mid-question
