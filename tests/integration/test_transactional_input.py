"""Input published by a transactional producer, on the real broker: every commit marker takes an offset of its
own, so the input partitions have offsets that hold no record. The agents must pass them (streams/kafka/offset_probe.py)
instead of reading the partition again from them forever."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Sequence

import pytest
from aiokafka import AIOKafkaProducer

from streams.kafka.offset_probe import OffsetProbe
from streams.topics import PACKETS_JSON, VERDICTS
from streams.wire.codec import SchemaRegistry
from tests.factories import packet
from tests.integration.worker import WorkerProcess, drain

pytestmark = pytest.mark.integration

PACKETS, PER_TRANSACTION = 300, 7


async def produce_in_transactions(bootstrap: str, topic: str, records: list[tuple[bytes, bytes]],
                                  per_transaction: int, partition: int | None = None,
                                  aborted: Sequence[tuple[bytes, bytes]] = ()) -> None:
    """Send `records` in transactions of `per_transaction`, each committed (one marker per partition it wrote),
    and in the middle `aborted` in one transaction that is aborted."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, transactional_id=f"it-{uuid.uuid4().hex[:10]}")
    await producer.start()
    try:
        for start in range(0, len(records), per_transaction):
            if aborted and start == per_transaction * (len(records) // per_transaction // 2):
                await producer.begin_transaction()
                for key, value in aborted:
                    await producer.send(topic, value=value, key=key, partition=partition)
                await producer.abort_transaction()
            async with producer.transaction():
                for key, value in records[start:start + per_transaction]:
                    await producer.send(topic, value=value, key=key, partition=partition)
    finally:
        await producer.stop()


async def _probe_answers(bootstrap: str, topic: str) -> list[int | None]:
    await produce_in_transactions(bootstrap, topic, [(b"k", b"a"), (b"k", b"b")], per_transaction=1, partition=0)
    probe = OffsetProbe(bootstrap, {}, timeout_ms=1_000)
    try:  # offsets: a 0, marker 1, b 2, marker 3
        return [await probe.first_at_or_after(topic, 0, offset) for offset in (0, 1, 2, 3)]
    finally:
        await probe.close()


def test_the_probe_finds_the_first_record_stored_past_a_commit_marker(kafka_bootstrap: str) -> None:
    topic = f"it-probe-{uuid.uuid4().hex[:10]}"
    assert asyncio.run(_probe_answers(kafka_bootstrap, topic)) == [0, 2, 2, None]


def test_packets_published_in_transactions_are_all_judged_and_aborted_ones_not(worker: WorkerProcess,
                                                                                 kafka_bootstrap: str) -> None:
    packets = [packet(n // 15, n % 15) for n in range(PACKETS)]  # 15 episodes, interleaved
    never = [packet(n, 900) for n in range(PER_TRANSACTION)]  # an episode of its own, in the aborted transaction
    records, aborted = ([(p["header"]["correlation_id"].encode(), json.dumps(p).encode()) for p in batch]
                        for batch in (packets, never))
    asyncio.run(produce_in_transactions(kafka_bootstrap, worker.topic(PACKETS_JSON), records, PER_TRANSACTION,
                                        aborted=aborted))

    verdict_topic = worker.topic(VERDICTS)
    found = asyncio.run(drain(kafka_bootstrap, {verdict_topic: PACKETS}, SchemaRegistry.from_directory(), 120))

    judged = {v["packet_id"] for v in found[verdict_topic]}
    # every partition carries committed packets after the aborted ones: their verdicts would have come first
    assert judged == {p["header"]["packet_id"] for p in packets}, worker.log_tail()
    assert worker.log_path is not None
    assert "input_gap" in worker.log_path.read_text(errors="replace")
