"""Idle release (issue 43): under a maximum lateness, the packets waiting on a packets partition that has received
no packet for `OMEGA_IDLE_RELEASE_MS` of wall time are released as if its watermark had passed them, instead of
waiting for traffic that may never come.

The wall clock lives here, in the worker, never in `omega/` or `streams/stages/`: what the validator receives is an
ordinary watermark tick sent to that partition, at the partition's newest event time + the lateness + 1 ms
(`omega.packets.lateness.releasing_watermark`). So the release is a record of the partition's log, taken in order
after the packets before it, and releases them in (created_at, packet id) order like any watermark; after it a
packet created at or before that newest time is late (judged on arrival, `late: true`). Replay has no wall clock:
the end of its log releases everything, which gives the same verdicts once every waiting packet was released.

A partition is idle when its last packet reached the validator that long ago and the broker holds no record of it
still unread here (a worker catching up on a backlog releases nothing early).

Also what waits, for `/metrics` and `/healthz`: per partition, the packets waiting and how long (wall time) the
oldest of them has waited on this worker (a packet that was waiting before this worker took the partition counts
from the moment it took it).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from faust.types import TP

from omega.packets.lateness import releasing_watermark
from streams.logs import error_text, get_logger
from streams.stages.base import Emit, Source
from streams.stages.episodes import EpisodeSteps
from streams.worker.guard import Step
from streams.worker.watchdog import STORED_TIMEOUT_MS, Stored, next_offsets

log = get_logger("omega.worker")

Positions = Callable[[int], list[tuple[int, int]]]  # partition -> (created_ms, offset) of each packet waiting there


@dataclass(frozen=True)
class PartitionWait:
    """What waits on one packets partition."""

    waiting: int  # packets waiting for the watermark
    oldest_wait_seconds: float | None  # wall time the longest-waiting of them has waited; None: nothing waits
    quiet_seconds: float  # wall time since the partition's last packet (or since this worker took it)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (`/healthz`)."""
        oldest = None if self.oldest_wait_seconds is None else round(self.oldest_wait_seconds, 3)
        return {"waiting": self.waiting, "oldest_wait_seconds": oldest, "quiet_seconds": round(self.quiet_seconds, 3)}


class IdleRelease:
    """Per owned packets partition: when its last packet came and when each waiting packet came (wall time, from
    `clock`), and which partitions are due a release."""

    def __init__(self, idle_ms: int, lateness_ms: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.idle_seconds, self.lateness_ms, self.clock = idle_ms / 1000, lateness_ms, clock
        self.taken: dict[int, float] = {}  # partition -> when this worker first looked at it
        self.last: dict[int, float] = {}  # partition -> when its last packet came
        self.released: dict[int, float] = {}  # partition -> when a release was last sent to it
        self.arrived: dict[int, dict[int, float]] = {}  # partition -> offset -> when that packet came

    @property
    def on(self) -> bool:
        """Whether partitions are ever released for being idle (a lateness and an idle time both set)."""
        return self.idle_seconds > 0 and self.lateness_ms > 0

    def received(self, partition: int, offset: int) -> None:
        """A packet (not a tick) of `partition` at `offset` reached the validator now."""
        now = self.clock()
        self.last[partition] = now
        self.arrived.setdefault(partition, {})[offset] = now

    def watched(self, step: Step, tick_key: bytes) -> Step:
        """`step` (the validator's), noting every packet it receives; records keyed `tick_key` are ticks, not
        traffic (the worker's own timer sends them)."""
        def watched_step(raw: bytes, src: Source) -> list[Emit]:
            if src.key != tick_key:
                self.received(src.partition, src.offset)
            return step(raw, src)
        return watched_step

    def look(self, owned: Iterable[int], positions: Positions) -> dict[int, PartitionWait]:
        """What waits on each partition of `owned` now; partitions no longer owned are forgotten."""
        now = self.clock()
        owned = set(owned)
        for state in (self.taken, self.last, self.released, self.arrived):
            for partition in [p for p in state if p not in owned]:
                del state[partition]
        seen: dict[int, PartitionWait] = {}
        for partition in sorted(owned):
            taken = self.taken.setdefault(partition, now)
            offsets = {offset for _, offset in positions(partition)}
            # only the waiting packets' arrivals are kept: a packet judged or released needs none
            arrived = self.arrived[partition] = {o: t for o, t in self.arrived.get(partition, {}).items()
                                                 if o in offsets}
            oldest = min((arrived.get(o, taken) for o in offsets), default=None)
            seen[partition] = PartitionWait(len(offsets), None if oldest is None else now - oldest,
                                            now - self.last.get(partition, taken))
        return seen

    def due(self, owned: Iterable[int], positions: Positions,
            watermark_of: Callable[[int], int | None]) -> list[tuple[int, int]]:
        """(partition, watermark to tick it to) for each partition of `owned` with packets waiting that has received
        no packet, and been sent no release (`sent`), for the idle time: the watermark passes its newest event time
        (the newest waiting packet's, or the partition's watermark when higher) by the lateness."""
        if not self.on:
            return []
        now = self.clock()
        due: list[tuple[int, int]] = []
        for partition, wait in self.look(owned, positions).items():
            # after a release, another one only an idle time later (the tick may still be on its way)
            since = max(self.last.get(partition, self.taken[partition]), self.released.get(partition, -float("inf")))
            if wait.waiting == 0 or now - since < self.idle_seconds:
                continue
            newest = max(created for created, _ in positions(partition))
            watermark = watermark_of(partition)
            due.append((partition, releasing_watermark(newest if watermark is None else max(newest, watermark),
                                                       self.lateness_ms)))
        return due

    def sent(self, partition: int) -> None:
        """A release was sent to `partition` now: the next one an idle time later at the earliest, if packets still
        wait then (the tick may still be on its way, or lost)."""
        self.released[partition] = self.clock()

    def totals(self, seen: dict[int, PartitionWait]) -> dict[str, Any]:
        """`/healthz`'s summary of `seen`: packets waiting over every owned partition, the longest wait, and each
        partition's figures."""
        waits = [w.oldest_wait_seconds for w in seen.values() if w.oldest_wait_seconds is not None]
        return {"idle_release_ms": round(self.idle_seconds * 1000) if self.on else 0,
                "waiting": sum(w.waiting for w in seen.values()),
                "oldest_wait_seconds": round(max(waits), 3) if waits else None,
                "partitions": {str(p): w.to_dict() for p, w in sorted(seen.items())}}


# ------------------------------------------------------------------------------------------ on a Faust worker
def owned(app: Any, packets_topic: str) -> list[int]:
    """The partitions of `packets_topic` (its physical name) the Faust `app` owns now."""
    return [tp.partition for tp in app.assignor.assigned_actives() if tp.topic == packets_topic]


def settling(app: Any) -> bool:
    """Whether a rebalance or a table recovery is under way (Faust sets `rebalancing` until recovery ends)."""
    return bool(getattr(app, "rebalancing", False) or app.tables.recovery.in_recovery)


def waiting(app: Any, packets_topic: str, steps: EpisodeSteps, idle: IdleRelease) -> dict[int, PartitionWait] | None:
    """What waits on each owned packets partition ({} without a lateness); None during a rebalance or a table
    recovery, when looking would index the waiting packets of a table not yet whole (stages/lateness.py)."""
    if steps.lateness_ms <= 0:
        return {}
    if settling(app):
        return None
    return idle.look(owned(app, packets_topic), steps.room.positions)


async def unread(app: Any, processed: Mapping[tuple[str, int], int], stored: Stored, topic: str,
                 partition: int) -> bool:
    """Whether records of the partition wait in the broker unread by the Faust `app` (a partition behind is not
    idle, however long since its last packet); a transactional producer's commit marker is no record."""
    tp = TP(topic, partition)
    end = int((await app.consumer.highwaters(tp)).get(tp) or 0)
    position = next_offsets(processed, app.consumer._committed_offset, [tp])[(topic, partition)]  # noqa: SLF001
    if position >= end:
        return False
    first = await stored(topic, partition, position, STORED_TIMEOUT_MS)
    return first is not None and first < end


def install(app: Any, packets_topic: str, steps: EpisodeSteps, idle: IdleRelease,
            send_tick: Callable[[int, int], Awaitable[None]], on_release: Callable[[int], None],
            processed: Mapping[tuple[str, int], int], stored: Stored) -> None:
    """The idle-release timer on the Faust `app`: `send_tick(partition, watermark)` to each owned packets partition
    due a release and with nothing unread (`processed`: the next offset per partition; `stored`: the broker's first
    record at or after an offset), which the validator agent then judges as any tick; `on_release(partition)`."""
    # a few looks per idle time, at most one a second: a release comes at most a fifth of it late
    every = min(1.0, max(0.1, idle.idle_seconds / 5))

    @app.timer(interval=every)  # type: ignore[untyped-decorator]  # faust is untyped
    async def idle_release() -> None:
        """Release the waiting packets of each owned packets partition that received nothing for the idle time."""
        if settling(app):
            return
        for partition, mark in idle.due(owned(app, packets_topic), steps.room.positions, steps.watermarks.get):
            try:
                if await unread(app, processed, stored, packets_topic, partition):
                    continue  # behind, not idle: what is unread comes first
            except Exception as exc:  # noqa: BLE001 - mid-rebalance or broker away: no release this round
                log.info("idle_release_skipped", partition=partition, error=error_text(exc))
                continue
            idle.sent(partition)
            steps.ticked[partition] = mark  # this tick is the partition's: the watermark timer need not repeat it
            on_release(partition)
            log.info("idle_release", partition=partition, watermark_ms=mark)
            await send_tick(partition, mark)
