"""A worker that has work waiting and makes no progress on it says so and stops, so its supervisor restarts it.

Faust has hang modes it only logs as warnings: a table recovery that never completes after a rebalance
(faust-streaming#74, #155, #651) and an assigned partition that is never fetched (#471, #629). A stalled worker
still heartbeats, so the group never moves its partitions away and their input waits for ever. Stopping is safe:
outputs are at-least-once and carry ids derived from their inputs, so what the restart repeats deduplicates.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from streams.logs import error_text, get_logger

log = get_logger(__name__)

RECOVERY = "table recovery"


class WorkerStalled(RuntimeError):
    """The worker crashed itself: work was waiting and nothing moved for the stall window."""


@dataclass(frozen=True, slots=True)
class Progress:
    """One look at a worker: its table recovery and, per input partition, the next offset it will process
    and the partition's end offset (work waits while the first is below the second)."""

    in_recovery: bool
    recovery_remaining: int
    partitions: Mapping[str, tuple[int, int]]
    where: Mapping[str, tuple[str, int]] = field(default_factory=dict)  # name -> (topic, partition)


# (topic, partition, offset, timeout_ms) -> the first offset holding a record at or after offset, None if none
Stored = Callable[[str, int, int, int], Awaitable[int | None]]
STORED_TIMEOUT_MS = 1_000


@dataclass
class StallWatch:
    """Remembers since when each piece of waiting work has shown the same position."""

    stall_seconds: float
    _marks: dict[str, tuple[int, float]] = field(default_factory=dict)

    def observe(self, now: float, progress: Progress) -> list[str]:
        """The stalls `progress` shows at monotonic time `now`: waiting work unmoved for `stall_seconds`."""
        waiting: dict[str, int] = {}
        if progress.in_recovery:
            # Streams are paused while tables recover, so only the recovery itself can be stuck.
            if progress.recovery_remaining > 0:
                waiting[RECOVERY] = progress.recovery_remaining
        else:
            waiting = {name: position for name, (position, end) in progress.partitions.items() if position < end}
        stalls = []
        for name, position in sorted(waiting.items()):
            seen = self._marks.get(name)
            if seen is None or seen[0] != position:
                self._marks[name] = (position, now)
            elif now - seen[1] >= self.stall_seconds:
                stalls.append(_describe(name, position, progress, now - seen[1]))
        for name in self._marks.keys() - waiting.keys():
            del self._marks[name]
        return stalls

    def forget(self) -> None:
        """Start every window afresh (the worker could not be looked at, e.g. while its broker is away)."""
        self._marks.clear()

    def state(self, now: float) -> dict[str, Any]:
        """What the watch sees waiting, for /healthz: per piece of work, its position and how long it has not moved."""
        return {"stall_seconds": self.stall_seconds,
                "waiting": {name: {"position": position, "unmoved_seconds": round(now - since, 1)}
                            for name, (position, since) in sorted(self._marks.items())}}


def _describe(name: str, position: int, progress: Progress, seconds: float) -> str:
    if name == RECOVERY:
        return f"{RECOVERY}: {position} changelog records still to read, unchanged for {seconds:.0f} s"
    end = progress.partitions[name][1]
    return f"{name}: {end - position} records waiting from offset {position}, none processed for {seconds:.0f} s"


def next_offsets(processed: Mapping[tuple[str, int], int], committed: Mapping[Any, int | None],
                 assigned: Iterable[Any]) -> dict[tuple[str, int], int]:
    """The next offset to process per assigned partition: after the last one processed here, or else the one
    after Faust's committed offset (which is the last processed; an over-estimate by one at worst)."""
    out: dict[tuple[str, int], int] = {}
    for tp in assigned:
        key = (tp.topic, tp.partition)
        mine = processed.get(key)
        theirs = committed.get(tp)
        candidates = [x for x in (mine, None if theirs is None else theirs + 1) if x is not None]
        out[key] = max(candidates, default=0)
    return out


def input_topics(app: Any) -> set[str]:
    """The topics the Faust `app`'s agents read."""
    return {t for agent in app.agents.values() for t in getattr(agent.channel, "topics", ()) if isinstance(t, str)}


async def look(app: Any, processed: Mapping[tuple[str, int], int], inputs: set[str]) -> Progress:
    """A Progress of the Faust `app` now: its recovery, and its assigned input partitions against their ends."""
    recovery = app.tables.recovery
    assigned = [tp for tp in app.assignor.assigned_actives() if tp.topic in inputs]
    ends = await app.consumer.highwaters(*assigned) if assigned else {}
    starts = next_offsets(processed, app.consumer._committed_offset, assigned)  # noqa: SLF001 - no public accessor
    return Progress(
        in_recovery=bool(recovery.in_recovery),
        recovery_remaining=int(recovery.active_remaining_total()) if recovery.in_recovery else 0,
        partitions={f"{tp.topic}[{tp.partition}]": (starts[(tp.topic, tp.partition)], int(ends.get(tp) or 0))
                    for tp in assigned},
        where={f"{tp.topic}[{tp.partition}]": (tp.topic, tp.partition) for tp in assigned},
    )


async def without_empty_tails(progress: Progress, stored: Stored) -> Progress:
    """`progress` with each waiting partition whose offsets from its position on hold no record (a
    transactional producer's last commit marker) read to its end: nothing there can be processed."""
    partitions = dict(progress.partitions)
    for name, (position, end) in progress.partitions.items():
        if position < end and name in progress.where:
            topic, partition = progress.where[name]
            first = await stored(topic, partition, position, STORED_TIMEOUT_MS)
            if first is None or first >= end:
                partitions[name] = (end, end)
    return replace(progress, partitions=partitions)


def install(app: Any, processed: Mapping[tuple[str, int], int], stall_seconds: float, every: float,
            stored: Stored | None = None) -> StallWatch | None:
    """Check the worker every `every` seconds; after `stall_seconds` without progress on waiting work (records
    `stored` past its position, when given), log `worker_stalled` and crash the worker (exit code 1).
    `stall_seconds` <= 0 turns the watch off (None); else the watch, whose `state` /healthz shows."""
    if stall_seconds <= 0:
        return None
    watch = StallWatch(stall_seconds)

    @app.timer(interval=every)  # type: ignore[untyped-decorator]  # faust is untyped
    async def stall_watch() -> None:
        inputs = input_topics(app)
        try:
            progress = await look(app, processed, inputs)
        except Exception as exc:  # noqa: BLE001 - mid-rebalance or broker away: no judgement this round
            log.info("stall_watch_skipped", error=error_text(exc))
            watch.forget()
            return
        stalls = watch.observe(app.loop.time(), progress)
        if stalls and stored is not None:  # rare: ask the broker whether any record is really waiting
            stalls = watch.observe(app.loop.time(), await without_empty_tails(progress, stored))
        if stalls:
            log.error("worker_stalled", stalls=stalls, stall_seconds=stall_seconds)
            await app.crash(WorkerStalled("; ".join(stalls)))

    return watch
