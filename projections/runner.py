"""The projection runner: pulls log events from a source and feeds the projector, one transaction per batch.

Sources (`EventSource`):
    FileSource   the JSONL that `omega replay --out` writes (embedded, `make run`); position ("file:PATH", 0,
                 line number), lines at or before the stored position are skipped without decoding; how a file
                 is opened (gunzipped, stdin) is the caller's `opener`
    KafkaSource  in `streams.kafka.projection_source` (this package never imports the shell): an aiokafka consumer
                 assigned to the output topics, seeking each partition to the STORE's position + 1
Tracking-record pattern: the store, not Kafka's committed offsets, is the truth of where to resume; a batch's
documents and positions commit together, so a crash at any moment loses at most the uncommitted batch, which is
consumed again on restart and applied once.

Undecodable records become events of the pseudo-topic `UNDECODABLE`: no memory reads them, but they advance the
position like any event (otherwise the runner would fetch them again forever), and they are counted, logged and
reported in `RunStats.undecodable`.

A long run logs `project_progress` every few seconds (`ProgressLog`): records done, the rate, and where it is.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import orjson

from omega.bytes_json import unjsonable
from projections.memories.log_events import LogEvent
from projections.projector import DEFAULT_BATCH, Projector, collector_paused
from projections.store.protocol import BatchResult, Position

UNDECODABLE = "undecodable"
"""Logical topic of a record that could not be decoded (read by no memory; it only advances the position)."""


clock = time.monotonic


class EventSource(Protocol):
    """Where the runner reads log events from."""

    undecodable: int
    """How many records could not be decoded so far."""

    async def start(self, positions: Mapping[Position, int]) -> None:
        """Open, and position every partition after its stored offset (from the beginning when absent)."""

    async def poll(self, max_events: int, timeout: float) -> list[LogEvent]:
        """Up to `max_events` next events, in log order per partition; [] after `timeout` seconds idle."""

    def exhausted(self) -> bool:
        """Whether the source has nothing more, ever (a file at its end); a live log never is."""

    async def lag(self, positions: Mapping[Position, int]) -> int | None:
        """Records after `positions` not yet applied (None when unknown)."""

    async def commit(self, positions: Mapping[Position, int]) -> None:
        """Record progress outside the store (Kafka offsets: a monitoring aid only)."""

    async def stop(self) -> None:
        """Release the source."""


# ------------------------------------------------------------------------------------------- files
def undecodable_event(source: str, partition: int, offset: int, key: str, reason: str) -> LogEvent:
    """The placeholder of a record that could not be decoded: it advances the position and nothing else."""
    return LogEvent(UNDECODABLE, partition, offset, key, {"reason": reason}, source=source)


Opener = Callable[[Path], AbstractContextManager[Iterable[bytes]]]
"""Opens one input as its lines of bytes (what `FileSource` reads); a plain `Path.open("rb")` by default."""


def _open_binary(path: Path) -> AbstractContextManager[Iterable[bytes]]:
    return path.open("rb")


class FileSource:
    """Events of `omega replay --out` JSONL files, in the order given; topic names map back to logical ones.

    Files are opened one at a time, when reached, through `opener` (the CLI's gunzips and reads `-` as stdin)."""

    def __init__(self, paths: Sequence[Path], topics: Mapping[str, str], *, log: Callable[..., None] | None = None,
                 opener: Opener = _open_binary) -> None:
        self.paths = list(paths)
        self.topics = dict(topics)  # physical topic name -> logical name; unknown names stay as they are
        self.undecodable = 0
        self._log = log
        self._opener = opener
        self._pending: list[Path] = []
        self._current: tuple[str, Iterator[bytes], ExitStack] | None = None
        self._line = 0
        self._after: dict[str, int] = {}

    async def start(self, positions: Mapping[Position, int]) -> None:
        """See `EventSource.start`."""
        self._pending = list(self.paths)
        self._after = {s: o for (s, _), o in positions.items() if s.startswith("file:")}
        self._line = 0

    def _reading(self) -> tuple[str, Iterator[bytes]] | None:
        """The file being read, the next one opened when none is; None at the end of the last."""
        if self._current is None and self._pending:
            path = self._pending.pop(0)
            stack = ExitStack()
            try:
                lines = iter(stack.enter_context(self._opener(path)))
            except BaseException:
                stack.close()
                raise
            self._current = (f"file:{path}", lines, stack)
            self._line = 0
        return None if self._current is None else self._current[:2]

    async def poll(self, max_events: int, timeout: float) -> list[LogEvent]:
        """See `EventSource.poll`; never waits."""
        out: list[LogEvent] = []
        while len(out) < max_events and (reading := self._reading()) is not None:
            source, lines = reading
            raw = next(lines, None)
            if raw is None:
                self._close_current()
                continue
            self._line += 1
            if self._line <= self._after.get(source, -1) or not raw.strip():
                continue  # applied in an earlier run, or a blank line
            out.append(self._event(source, self._line, raw))
        return out

    def _close_current(self) -> None:
        if self._current is not None:
            stack = self._current[2]
            self._current = None
            stack.close()

    def _event(self, source: str, line: int, raw: bytes) -> LogEvent:
        try:
            item = orjson.loads(raw)
            topic, value = item["topic"], unjsonable(item["value"])
            if not isinstance(topic, str) or not isinstance(value, dict):
                raise TypeError("topic must be text and value an object")
            key = item.get("key")
            return LogEvent(self.topics.get(topic, topic), 0, line, "" if key is None else str(key), value,
                            source=source)
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            self.undecodable += 1
            if self._log is not None:
                self._log("undecodable record skipped", source=source, offset=line, reason=repr(exc))
            return undecodable_event(source, 0, line, "", repr(exc))

    def exhausted(self) -> bool:
        """See `EventSource.exhausted`."""
        return self._current is None and not self._pending

    async def lag(self, positions: Mapping[Position, int]) -> int | None:
        """Unknown for files (their length is not counted ahead)."""
        return None

    async def commit(self, positions: Mapping[Position, int]) -> None:
        """Nothing to do: the store holds the positions."""

    async def stop(self) -> None:
        """Close what is still open; nothing further is read."""
        self._close_current()
        self._pending = []


# ------------------------------------------------------------------------------------------- the runner
@dataclass
class RunStats:
    """What a run did."""

    applied: int = 0
    skipped: int = 0
    undecodable: int = 0
    batches: int = 0
    seconds: float = 0.0
    lag: int | None = None
    stopped_by: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The figures as a JSON object (what `omega project` prints)."""
        rate = self.applied / self.seconds if self.seconds > 0 else None
        return {"applied": self.applied, "skipped": self.skipped, "undecodable": self.undecodable,
                "batches": self.batches, "seconds": round(self.seconds, 3),
                "events_per_second": None if rate is None else round(rate), "lag": self.lag,
                "stopped_by": self.stopped_by}


@dataclass
class ProgressLog:
    """Reports a run's progress through `log` (`project_progress`) at most every `every` seconds of `clock`:
    records done, records/s since the last report, and where the run is: for files the file and line, else the
    last offset of each topic and partition."""

    log: Callable[..., None]
    every: float = 5.0
    clock: Callable[[], float] = time.monotonic
    _since: float = field(default=0.0, init=False)
    _done: int = field(default=0, init=False)

    def begin(self) -> None:
        """The run starts now: the first report comes `every` seconds later."""
        self._since, self._done = self.clock(), 0

    def batch_done(self, stats: RunStats, last: LogEvent, positions: Callable[[], Mapping[Position, int]]) -> None:
        """After a batch whose last event is `last`: report when `every` seconds have passed since the last one."""
        now = self.clock()
        elapsed = now - self._since
        if elapsed < self.every:
            return
        done = stats.applied + stats.skipped
        where: dict[str, Any]
        if last.position_source.startswith("file:"):
            where = {"file": last.position_source.removeprefix("file:"), "line": last.offset}
        else:
            offsets: dict[str, dict[int, int]] = {}
            for (source, partition), offset in sorted(positions().items()):
                offsets.setdefault(source, {})[partition] = offset
            where = {"offsets": offsets}
        self.log("project_progress", records=done, records_per_second=round((done - self._done) / elapsed),
                 **where)
        self._since, self._done = now, done


@dataclass
class Runner:
    """Feeds a projector from a source until the source is exhausted, idle for `until_idle` seconds, or
    `request_stop()` is called (then the batch in hand is finished first)."""

    projector: Projector
    source: EventSource
    batch_size: int = DEFAULT_BATCH
    until_idle: float | None = None
    poll_timeout: float = 0.5
    commit_interval: float = 1.0
    on_batch: Callable[[RunStats], None] | None = None
    progress: ProgressLog | None = None
    overlap: bool | None = None
    """Apply each batch in a worker thread while the next is fetched and decoded (see `_apply_fetching`). None:
    when rebuilding only, where nothing else reads the store meanwhile (a live run may share its connection with a
    reader in the same event loop, `omega watch`, which must not see a transaction half written)."""
    _stop: bool = field(default=False, init=False)

    def request_stop(self) -> None:
        """Stop after the current batch (what SIGTERM and SIGINT do)."""
        self._stop = True

    async def run(self, *, rebuild: bool = False) -> RunStats:
        """Consume until a stop condition; with `rebuild`, empty the read model first and start from the log's
        beginning."""
        stats = RunStats()
        store = self.projector.store
        if rebuild:
            self.projector.rebuild(())  # reset: the store and the projector's cache start empty
        overlap = rebuild if self.overlap is None else self.overlap
        started = clock()
        last_event = last_commit = started
        await self.source.start(store.positions())
        if self.progress is not None:
            self.progress.begin()
        pool = ThreadPoolExecutor(1, thread_name_prefix="omega-projector") if overlap else None
        try:
            upcoming: list[LogEvent] | None = None
            while not self._stop:
                batch = await self._next_batch() if upcoming is None else upcoming
                upcoming = None
                now = clock()
                if not batch:
                    gc.unfreeze()  # idle: what was frozen may be collected again (see _freeze_heap)
                    if self.source.exhausted():
                        stats.stopped_by = "end of input"
                        break
                    if self.until_idle is not None and now - last_event >= self.until_idle:
                        stats.stopped_by = "idle"
                        break
                    continue
                last = batch[-1]
                if pool is None:
                    result = self._apply(batch)
                else:
                    result, upcoming = await self._apply_fetching(pool, batch)
                last_event = clock()  # idle means no new record: the time spent applying is not idle
                if await self._batch_done(stats, result, last, last_event - last_commit):
                    last_commit = last_event
            else:
                stats.stopped_by = "signal"
            stats.seconds = clock() - started
            await self.source.commit(store.positions())
            stats.lag = await self.source.lag(store.positions())
        finally:
            if pool is not None:
                pool.shutdown(wait=True)  # a batch still being applied (a cancelled run) ends before the store does
            gc.unfreeze()
            stats.undecodable = self.source.undecodable
            await self.source.stop()
        return stats

    async def _batch_done(self, stats: RunStats, result: BatchResult, last: LogEvent, since_commit: float) -> bool:
        """Count a committed batch, report it; commit the monitoring offsets when `commit_interval` has passed
        since they last were (returns whether it did)."""
        stats.applied += result.applied
        stats.skipped += result.skipped
        stats.batches += 1
        store = self.projector.store
        committing = since_commit >= self.commit_interval
        if committing:
            # 1. the store committed the batch with its positions; 2. only then the monitoring offsets
            await self.source.commit(store.positions())
        if self.progress is not None:
            self.progress.batch_done(stats, last, store.positions)
        if self.on_batch is not None:
            self.on_batch(stats)
        return committing

    def _apply(self, batch: list[LogEvent]) -> BatchResult:
        """Apply one batch as one transaction; its events are garbage afterwards, then the heap is frozen."""
        # The freeze's collection runs before the collector resumes: resumed first, it would start a pass of its
        # own over everything the batch left in the youngest generation, and the freeze would scan it all again.
        with collector_paused():
            result = self.projector.process_batch(batch)
            batch.clear()  # not kept alive through the freeze
            _freeze_heap()
        return result

    async def _apply_fetching(self, pool: ThreadPoolExecutor, batch: list[LogEvent]
                              ) -> tuple[BatchResult, list[LogEvent] | None]:
        """`_apply(batch)` in the worker thread while the next batch is fetched and decoded here; returns the
        batch's result and the next batch (None after a stop request: nothing more is read).

        Only reading overlaps: the next batch is applied after this one committed, by the same thread, so the
        order of transactions and the tracking positions are those of `_apply` alone; a batch read ahead and
        never applied (a stop, a failure) is read again by the next run, after the stored positions."""
        applying = asyncio.get_running_loop().run_in_executor(pool, self._apply, batch)
        try:
            upcoming = None if self._stop else await self._next_batch()
        except BaseException:
            await asyncio.wait([applying])  # the store is never left to a thread still writing
            raise
        return await applying, upcoming

    async def _next_batch(self) -> list[LogEvent]:
        batch = await self.source.poll(self.batch_size, self.poll_timeout)
        # Top the batch up from what is already fetched: fewer, larger transactions.
        while batch and len(batch) < self.batch_size and not self._stop:
            more = await self.source.poll(self.batch_size - len(batch), 0.0)
            if not more:
                break
            batch += more
        return batch


def _freeze_heap() -> None:
    """Move everything alive after a batch out of the cyclic collector's sight until the next idle poll.

    Why: the cached memories are millions of long-lived acyclic containers (freed by reference counting), and
    decoding the next batch allocates fast, so the collector's full passes rescan them for nothing (about a
    fifth of a catch-up's CPU time). The young generations are collected first, so no pending cyclic garbage is
    frozen; `gc.unfreeze()` when the source idles (and at the end) hands the rest back to the collector."""
    gc.collect(1)
    gc.freeze()


def run(runner: Runner, *, rebuild: bool = False) -> RunStats:
    """`Runner.run` on a fresh event loop (for callers that are not async)."""
    return asyncio.run(runner.run(rebuild=rebuild))
