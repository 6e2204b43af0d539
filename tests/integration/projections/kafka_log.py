"""Helpers of the projection tests on a real broker: generated output-topic records (the factories' workload)
produced as single-object Avro under a fresh prefix, and an in-process run of the projector from Kafka."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from pathlib import Path

from aiokafka import AIOKafkaProducer

from projections.memories.log_events import LogEvent
from projections.projector import Projector
from projections.runner import Runner, RunStats
from projections.store.base import SqlStore
from projections.store.sqlite import SqliteStore
from streams.kafka.clients import ensure_topics
from streams.kafka.projection_source import PROJECTED, KafkaSource
from streams.topics import BY_LOGICAL, topic_name
from streams.wire.codec import SchemaRegistry
from tests.unit.projections.factories import workload

SCHEMA = {spec.logical: str(spec.value_schema) for spec in PROJECTED}


def fresh_prefix(label: str = "proj") -> str:
    """A topic prefix no other test uses."""
    return f"it-{label}-{uuid.uuid4().hex[:10]}."


def events(count: int, sessions: int) -> list[LogEvent]:
    """`count` realistic events of the projected topics over `sessions` sessions (factories.workload)."""
    return workload(count, sessions)


async def produce_events(bootstrap: str, prefix: str, log: Sequence[LogEvent], *, partitions: int = 4,
                         registry: SchemaRegistry | None = None) -> None:
    """Create the projected topics under `prefix` and send every event, keyed by its key, as single-object Avro
    (Kafka's partitioner places it: each key stays in order within its partition)."""
    registry = registry or SchemaRegistry.from_directory()
    await ensure_topics(bootstrap, [topic_name(spec, prefix) for spec in PROJECTED], partitions)
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True, linger_ms=20,
                                max_batch_size=512 * 1024, max_request_size=8 * 1024 * 1024)
    await producer.start()
    try:
        futures = [await producer.send(topic_name(BY_LOGICAL[e.topic], prefix), key=e.key.encode(),
                                       value=registry.encode(SCHEMA[e.topic], dict(e.record))) for e in log]
        await asyncio.gather(*futures)
    finally:
        await producer.stop()


async def project_from_kafka(bootstrap: str, prefix: str, store: SqlStore, *, rebuild: bool = True,
                             until_idle: float = 2.0, batch_size: int = 1000) -> RunStats:
    """An uninterrupted run of the projector from the broker into an open store, until idle."""
    source = KafkaSource(bootstrap, prefix=prefix, group_id=f"{prefix}projector-{uuid.uuid4().hex[:6]}",
                         max_fetch=batch_size)
    runner = Runner(Projector(store, batch_size=batch_size), source, batch_size=batch_size, until_idle=until_idle)
    return await runner.run(rebuild=rebuild)


def rebuild_hash(bootstrap: str, prefix: str, path: Path) -> str:
    """The content hash of an uninterrupted rebuild from the broker into a new SQLite file."""
    with SqliteStore(path) as store:
        asyncio.run(project_from_kafka(bootstrap, prefix, store))
        return store.content_hash()
