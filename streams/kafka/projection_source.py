"""The Kafka source of the memory projections (`projections.runner.EventSource` over aiokafka).

The consumer has its own group id (default "omega-projector") and `enable_auto_commit=False`; it is ASSIGNED the
partitions of the output topics (no group rebalance: one projector owns the read model) and seeks each one to
the store's position + 1. The offsets it commits afterwards are a monitoring aid (`kafka-consumer-groups`
shows the projector's lag); they are never read back.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, cast

import structlog
from aiokafka import AIOKafkaConsumer, ConsumerRecord, TopicPartition
from aiokafka.structs import OffsetAndMetadata

from projections.memories.log_events import LogEvent
from projections.projector import collector_paused
from projections.runner import undecodable_event
from projections.store.protocol import Position
from streams.records import key_text
from streams.settings import kafka_client_options
from streams.topics import AGENT_MESSAGES, ALERTS, ESCALATIONS, TERMINATIONS, VERDICTS, TopicSpec, topic_name
from streams.wire.codec import DecodeError, SchemaRegistry

_TOMBSTONE = DecodeError("NO_VALUE", "record without a value (tombstone)")
FILL_WAIT = 1.0
"""Most seconds a poll waits in all for the records the broker holds past the consumer's position (normally a
fetch round trip; the bound only matters when the high watermark misleads, e.g. records deleted meanwhile)."""

PROJECTED: tuple[TopicSpec, ...] = (AGENT_MESSAGES, ALERTS, ESCALATIONS, TERMINATIONS, VERDICTS)
"""The output topics the memories are rebuilt from."""
DEFAULT_GROUP = "omega-projector"

log = structlog.get_logger("omega.projections")


def projected_topics(prefix: str = "") -> dict[str, str]:
    """Physical topic name -> logical name of the projected topics under `prefix`."""
    return {topic_name(spec, prefix): spec.logical for spec in PROJECTED}


class KafkaSource:
    """Log events from the projected topics of one broker."""

    def __init__(self, bootstrap: str, *, prefix: str = "", group_id: str = DEFAULT_GROUP,
                 registry: SchemaRegistry | None = None, max_fetch: int = 1000,
                 client_options: Mapping[str, Any] | None = None) -> None:
        self.bootstrap = bootstrap
        self.client_options = dict(kafka_client_options() if client_options is None else client_options)
        self.topics = projected_topics(prefix)
        self.group_id = group_id
        self.registry = registry or SchemaRegistry.from_directory()
        self.undecodable = 0
        self._max_fetch = max_fetch
        self._consumer: AIOKafkaConsumer | None = None
        self._assigned: set[TopicPartition] = set()
        self._positions: dict[Position, int] = {}

    @property
    def consumer(self) -> AIOKafkaConsumer:
        """The started consumer (RuntimeError before `start`)."""
        if self._consumer is None:
            raise RuntimeError("KafkaSource is not started")
        return self._consumer

    async def start(self, positions: Mapping[Position, int]) -> None:
        """Connect, assign every partition of the projected topics, seek after the stored positions."""
        self._positions = dict(positions)
        self._consumer = AIOKafkaConsumer(
            bootstrap_servers=self.bootstrap, group_id=self.group_id, enable_auto_commit=False,
            auto_offset_reset="earliest", max_poll_records=self._max_fetch,
            # Fetch ahead generously: decoding and the SQL batch run while the next records arrive.
            fetch_max_bytes=64 * 1024 * 1024, max_partition_fetch_bytes=4 * 1024 * 1024, **self.client_options)
        try:
            await self._consumer.start()
        except BaseException:  # a broker that cannot be reached: close the client, then let the caller say so
            await self.stop()
            raise
        await self._assign()

    async def _assign(self) -> None:
        """(Re)assign when partitions appeared (a topic created after start, or more partitions)."""
        consumer = self.consumer
        metadata = await consumer._client.fetch_all_metadata()  # noqa: SLF001 - no public per-topic lookup
        found = {TopicPartition(t, p) for t in self.topics for p in metadata.partitions_for_topic(t) or ()}
        new = found - self._assigned
        if not new:
            return
        self._assigned |= new
        consumer.assign(sorted(self._assigned))
        for tp in sorted(self._assigned):
            stored = self._positions.get((tp.topic, tp.partition))
            if stored is None:
                await consumer.seek_to_beginning(tp)
            else:
                consumer.seek(tp, stored + 1)  # the store is the truth: resume right after its position

    async def poll(self, max_events: int, timeout: float) -> list[LogEvent]:
        """See `EventSource.poll`. While catching up (the broker holds more of an assigned partition than was
        handed out) the batch is topped up from the next fetches, up to `max_events`, instead of ending at what
        was buffered: fewer, larger transactions. A source that has caught up returns what it has at once."""
        consumer = self.consumer
        fetched = await consumer.getmany(timeout_ms=int(timeout * 1000), max_records=max_events)
        if not fetched:
            if timeout > 0 and {tp.topic for tp in self._assigned} != set(self.topics):
                await self._assign()  # some topic did not exist yet: look again while idle
            return []
        records: dict[TopicPartition, list[ConsumerRecord[bytes, bytes]]] = dict(fetched)
        count = sum(map(len, fetched.values()))
        waited = 0.0
        while count < max_events and waited < FILL_WAIT and await self._behind():
            started = time.monotonic()
            more = await consumer.getmany(timeout_ms=int((FILL_WAIT - waited) * 1000), max_records=max_events - count)
            waited += time.monotonic() - started
            for tp, messages in more.items():
                records.setdefault(tp, []).extend(messages)
                count += len(messages)
        return self._events(records)

    async def _behind(self) -> bool:
        """Whether the broker has records of an assigned partition past the consumer's position (as of the last
        fetch: the high watermarks come with the fetch responses)."""
        consumer = self.consumer
        for tp in self._assigned:
            end = consumer.highwater(tp)
            if end is not None and await consumer.position(tp) < end:
                return True
        return False

    def _events(self, records: Mapping[TopicPartition, Sequence[ConsumerRecord[bytes, bytes]]]) -> list[LogEvent]:
        """The log events of fetched records, by partition in offset order; decoded in one pass (see
        `SchemaRegistry.decode_batch`) with the cyclic collector paused, as the projector's batch is."""
        out: list[LogEvent] = []
        with collector_paused():
            for tp, messages in sorted(records.items()):
                logical, topic, partition = self.topics[tp.topic], tp.topic, tp.partition
                values = [m.value for m in messages]
                present = [v for v in values if v is not None]
                decoded = iter(self.registry.decode_batch(present) if present else ())
                for msg, value in zip(messages, values, strict=True):
                    raw_key = msg.key
                    key = key_text(raw_key, "")
                    result = next(decoded) if value is not None else _TOMBSTONE
                    if type(result) is tuple:
                        out.append(LogEvent(logical, partition, msg.offset, key, result[1], source=topic))
                    else:
                        out.append(self._undecodable(tp, msg.offset, key, cast(DecodeError, result)))
                self._positions[(topic, partition)] = messages[-1].offset
        return out

    def _undecodable(self, tp: TopicPartition, offset: int, key: str, exc: DecodeError) -> LogEvent:
        self.undecodable += 1
        log.warning("undecodable record skipped", topic=tp.topic, partition=tp.partition, offset=offset,
                    error_class=exc.error_class, reason=str(exc))
        return undecodable_event(tp.topic, tp.partition, offset, key, f"{exc.error_class}: {exc}")

    def exhausted(self) -> bool:
        """A topic is never exhausted."""
        return False

    async def lag(self, positions: Mapping[Position, int]) -> int | None:
        """See `EventSource.lag`: sum over partitions of (high watermark - 1 - stored position)."""
        if not self._assigned:
            return None
        ends = await self.consumer.end_offsets(sorted(self._assigned))
        return lag_of(ends, positions)

    async def commit(self, positions: Mapping[Position, int]) -> None:
        """Commit the store's positions as the group's offsets (monitoring only; a failure is logged)."""
        offsets = {tp: OffsetAndMetadata(positions[(tp.topic, tp.partition)] + 1, "")
                   for tp in self._assigned if (tp.topic, tp.partition) in positions}
        if not offsets:
            return
        try:
            await self.consumer.commit(offsets)
        except Exception as exc:  # noqa: BLE001 - a monitoring aid must never stop the projection
            log.warning("offset commit failed (monitoring only)", error=repr(exc))

    async def stop(self) -> None:
        """Close the consumer."""
        if self._consumer is not None:
            await self._consumer.stop()
            self._consumer = None


def lag_of(ends: Mapping[TopicPartition, int], positions: Mapping[Position, int]) -> int:
    """Sum over partitions of (high watermark - 1 - stored position); a partition never applied counts whole."""
    return sum(max(0, end - 1 - positions.get((tp.topic, tp.partition), -1)) for tp, end in ends.items())


async def kafka_lag(bootstrap: str, prefix: str, positions: Mapping[Position, int]) -> int | None:
    """The projector's lag on a broker, for the read API's /health (None when no projected topic exists)."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, **kafka_client_options())
    await consumer.start()
    try:
        metadata = await consumer._client.fetch_all_metadata()  # noqa: SLF001 - no public per-topic lookup
        tps: Sequence[TopicPartition] = [TopicPartition(t, p) for t in projected_topics(prefix)
                                         for p in metadata.partitions_for_topic(t) or ()]
        if not tps:
            return None
        ends: dict[TopicPartition, int] = await consumer.end_offsets(list(tps))
        return lag_of(ends, positions)
    finally:
        await consumer.stop()

