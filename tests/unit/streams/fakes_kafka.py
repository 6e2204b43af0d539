"""An in-memory stand-in for aiokafka's consumer, for the tests of the Kafka plumbing without a broker.

`FakeCluster` holds partition logs (which offsets hold a record, which of those belong to aborted transactions,
where the log starts) and the group's committed offsets. `cluster.new_consumer` is a drop-in for the
`AIOKafkaConsumer` constructor: the `FakeConsumer` it returns keeps its constructor arguments and records every
call, so a test can assert what the code under test asked the client for (isolation level, seeks, commits).

It models only what the code under test relies on, as aiokafka 0.14 does it:
- the fetch settings are read from the private attributes `_isolation_level`, `_fetch_max_wait_ms` and
  `_fetch_min_bytes` when the consumer starts (`started_with`), so a change made to them after construction still
  counts;
- `read_committed` hides records of aborted transactions; offsets that hold no record (transaction markers,
  compacted or deleted records) are never returned;
- a position below the log's start (retention) resets to the start, as `auto_offset_reset="earliest"` does;
- a fetch yields to the loop, and drops a partition unassigned meanwhile;
- `seek_to_committed` answers None for a partition without a committed offset and moves nothing there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from aiokafka import TopicPartition
from aiokafka.errors import IllegalStateError

AIOKAFKA_DEFAULT_ISOLATION = "read_uncommitted"
AIOKAFKA_DEFAULT_FETCH_MAX_WAIT_MS = 500


@dataclass(frozen=True)
class FakeRecord:
    """The fields of aiokafka's ConsumerRecord the code under test reads."""

    topic: str
    partition: int
    offset: int
    key: bytes | None = None
    value: bytes = b""


@dataclass
class FakeLog:
    """One partition: the offsets holding a record and the ones among them an aborted transaction wrote."""

    stored: list[int] = field(default_factory=list)
    aborted: set[int] = field(default_factory=set)
    start: int = 0

    @property
    def end(self) -> int:
        return max(self.stored, default=self.start - 1) + 1


def _tp(tp: Any) -> TopicPartition:
    """aiokafka's TopicPartition for aiokafka's or Faust's (both are (topic, partition) tuples)."""
    return TopicPartition(tp.topic, tp.partition)


class FakeCluster:
    """Partition logs and committed offsets, shared by every consumer it makes."""

    def __init__(self) -> None:
        self.logs: dict[TopicPartition, FakeLog] = {}
        self.committed: dict[TopicPartition, int] = {}
        self.consumers: list[FakeConsumer] = []
        self.fail_with: Exception | None = None  # raised by every getmany while set (a broker error)

    def log(self, topic: str, partition: int, stored: Iterable[int], *, aborted: Iterable[int] = (),
            start: int | None = None) -> TopicPartition:
        """Give `topic`/`partition` records at `stored` (those in `aborted` written by an aborted transaction);
        the log starts at `start` (by default its first stored offset)."""
        offsets = sorted(set(stored) | set(aborted))
        tp = TopicPartition(topic, partition)
        self.logs[tp] = FakeLog(offsets, set(aborted), offsets[0] if start is None and offsets else start or 0)
        return tp

    def new_consumer(self, *topics: str, **kwargs: Any) -> FakeConsumer:
        """What `AIOKafkaConsumer(*topics, **kwargs)` would build, against this cluster."""
        consumer = FakeConsumer(self, topics, kwargs)
        self.consumers.append(consumer)
        return consumer


class FakeConsumer:
    """aiokafka's consumer API as far as the worker's transport and the offset probe use it, recording calls."""

    def __init__(self, cluster: FakeCluster, topics: tuple[str, ...], kwargs: dict[str, Any]) -> None:
        self.cluster, self.topics, self.kwargs = cluster, topics, kwargs
        # aiokafka keeps these as private attributes and reads them when it starts (its Fetcher's settings)
        self._isolation_level: str = kwargs.get("isolation_level", AIOKAFKA_DEFAULT_ISOLATION)
        self._fetch_max_wait_ms: int = kwargs.get("fetch_max_wait_ms", AIOKAFKA_DEFAULT_FETCH_MAX_WAIT_MS)
        self._fetch_min_bytes: int = kwargs.get("fetch_min_bytes", 1)
        self._max_poll_records: int | None = kwargs.get("max_poll_records")
        self.started_with: dict[str, Any] | None = None
        self.stopped = False
        self.calls: list[tuple[Any, ...]] = []
        self.commits: list[dict[TopicPartition, int]] = []
        self.positions: dict[TopicPartition, int] = {}
        self._assigned: set[TopicPartition] = set()

    async def start(self) -> None:
        self.calls.append(("start",))
        self.started_with = {"isolation_level": self._isolation_level, "fetch_max_wait_ms": self._fetch_max_wait_ms,
                             "fetch_min_bytes": self._fetch_min_bytes}

    async def stop(self) -> None:
        self.calls.append(("stop",))
        self.stopped = True

    def assign(self, partitions: Iterable[Any]) -> None:
        self._assigned = {_tp(tp) for tp in partitions}
        self.calls.append(("assign", sorted(self._assigned)))

    def assignment(self) -> set[TopicPartition]:
        return set(self._assigned)

    def seek(self, tp: Any, offset: int) -> None:
        self.calls.append(("seek", _tp(tp), offset))
        self.positions[_tp(tp)] = offset

    def seeks(self) -> list[tuple[TopicPartition, int]]:
        """(partition, offset) of every seek, in order."""
        return [(call[1], call[2]) for call in self.calls if call[0] == "seek"]

    async def position(self, tp: Any) -> int:
        return self._position(_tp(tp))

    async def committed(self, tp: Any) -> int | None:
        return self.cluster.committed.get(_tp(tp))

    async def seek_to_committed(self, *partitions: Any) -> dict[TopicPartition, int | None]:
        self.calls.append(("seek_to_committed",))
        answer: dict[TopicPartition, int | None] = {}
        for tp in [_tp(p) for p in partitions] or sorted(self._assigned):
            answer[tp] = offset = self.cluster.committed.get(tp)
            if offset:  # aiokafka moves only partitions with a committed offset above 0
                self.positions[tp] = offset
        return answer

    async def commit(self, offsets: Mapping[Any, Any]) -> None:
        plain = {_tp(tp): getattr(meta, "offset", meta) for tp, meta in offsets.items()}
        self.calls.append(("commit", plain))
        self.commits.append(plain)
        self.cluster.committed.update(plain)

    async def beginning_offsets(self, partitions: Iterable[Any]) -> dict[TopicPartition, int]:
        self.calls.append(("beginning_offsets", [_tp(tp) for tp in partitions]))
        return {_tp(tp): self.cluster.logs[_tp(tp)].start for tp in partitions}

    async def end_offsets(self, partitions: Iterable[Any]) -> dict[TopicPartition, int]:
        self.calls.append(("end_offsets", [_tp(tp) for tp in partitions]))
        return {_tp(tp): self.cluster.logs[_tp(tp)].end for tp in partitions}

    async def getmany(self, *partitions: Any, timeout_ms: int = 0,
                      max_records: int | None = None) -> dict[TopicPartition, list[FakeRecord]]:
        """The records from each partition's position on (those this isolation level sees); {} when none.

        Without `partitions`, every assigned one (as aiokafka does); the call is recorded with the partitions asked
        for, [] when none. It yields to the loop first, as a fetch does; a partition no longer assigned by then
        returns nothing."""
        asked = [_tp(tp) for tp in partitions]
        tps = asked or sorted(self._assigned)
        self.calls.append(("getmany", asked, timeout_ms, max_records))
        if not set(tps) <= self._assigned:
            raise IllegalStateError(f"{set(tps) - self._assigned} not assigned")
        await asyncio.sleep(0)
        if self.cluster.fail_with is not None:
            raise self.cluster.fail_with
        batch: dict[TopicPartition, list[FakeRecord]] = {}
        for tp in tps:
            if tp not in self._assigned:
                continue
            log = self.cluster.logs[tp]
            visible = [o for o in log.stored if o >= max(self._position(tp), log.start)
                       and (self._isolation_level == "read_uncommitted" or o not in log.aborted)]
            records = [FakeRecord(tp.topic, tp.partition, o) for o in visible[:max_records]]
            if records:
                batch[tp] = records
                self.positions[tp] = records[-1].offset + 1
        return batch

    def _position(self, tp: TopicPartition) -> int:
        if tp not in self.positions:  # auto_offset_reset: the committed offset, else the log's start or end
            log = self.cluster.logs[tp]
            reset = log.start if self.kwargs.get("auto_offset_reset", "latest") == "earliest" else log.end
            self.positions[tp] = self.cluster.committed.get(tp, reset)
        return self.positions[tp]
