"""`OffsetProbe`: reads an input partition directly, outside the consumer group, to tell a record the group's
consumer passed over from offsets that hold no record.

An agent seeing a record past its partition's expected offset (streams/kafka/input_order.py) cannot tell from the
record alone whether the consumer skipped what lies between or nothing lies there: a transactional producer
leaves a commit marker on an offset of its own after every transaction and its aborted records are not read,
compaction removes records, retention deletes the oldest. Rewinding to an offset that holds no record would
deliver the same record again, forever. One fetch from the expected offset answers it: the first record stored
at or after it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import structlog
from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.errors import KafkaError

from streams.logs import error_text

log = structlog.get_logger("omega.transport")


class OffsetProbe:
    """A group-less consumer, started at its first use, that finds the first record of a partition at or after an
    offset; None when the broker does not answer in time (the caller then rewinds, as if the record existed)."""

    def __init__(self, bootstrap: str, client_options: Mapping[str, Any], timeout_ms: int = 5_000) -> None:
        self.bootstrap, self.client_options, self.timeout_ms = bootstrap, dict(client_options), timeout_ms
        self._consumer: AIOKafkaConsumer | None = None
        self._lock = asyncio.Lock()  # one partition assigned at a time; agents may ask concurrently

    async def first_at_or_after(self, topic: str, partition: int, offset: int,
                                timeout_ms: int | None = None) -> int | None:
        """The offset of the first record of `topic`/`partition` at `offset` or after it (after the log's start
        when `offset` is below it), or None if none came within the timeout or the broker failed."""
        async with self._lock:
            try:
                consumer = await self._started()
                tp = TopicPartition(topic, partition)
                consumer.assign([tp])
                consumer.seek(tp, offset)
                batch = await consumer.getmany(tp, timeout_ms=timeout_ms or self.timeout_ms, max_records=1)
            except KafkaError as exc:
                log.warning("offset_probe_failed", topic=topic, partition=partition, offset=offset,
                            error=error_text(exc))
                return None
        records = batch.get(tp) or []
        return records[0].offset if records else None

    async def close(self) -> None:
        """Stop the probe's consumer, if it was started."""
        if self._consumer is not None:
            consumer, self._consumer = self._consumer, None
            await consumer.stop()

    async def _started(self) -> AIOKafkaConsumer:
        if self._consumer is None:
            # read_committed, like the worker's own consumer (streams/kafka/transport.py): it sees the same records
            consumer = AIOKafkaConsumer(bootstrap_servers=self.bootstrap, group_id=None, enable_auto_commit=False,
                                        auto_offset_reset="earliest", isolation_level="read_committed",
                                        **self.client_options)
            await consumer.start()
            self._consumer = consumer
        return self._consumer
