"""Event-time order within a bounded lateness: which waiting packets of a partition are ripe, and which arrival is late
(issue 22; OMEN itself says nothing about transport order, so this is our rule, not the spec's).

With a maximum lateness L > 0, a packet waits until its partition's watermark W (the largest `created_at` seen
there) passes its `created_at` + L, i.e. W > created_at + L; ripe packets are judged in (`created_at`, packet id,
content hash) order (the hash only breaks the tie of an id re-used with other content at the same time, so that
which of the two is the original does not depend on arrival order), so an episode whose layers publish from several
producers, or through a keyless producer over several partitions, is judged in event-time order as long as no packet
is more than L behind the newest one. A packet that arrives when W already passed its `created_at` + L could only be
judged out of order: it is judged on arrival and its verdict says `late: true`. Pure: no clock, the watermark comes
from the data.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar


class Timed(Protocol):
    """What ordering needs of a waiting packet."""

    @property
    def created_ms(self) -> int: ...

    @property
    def packet_id(self) -> str: ...

    @property
    def digest(self) -> str: ...


W = TypeVar("W", bound=Timed)


def is_late(created_ms: int, watermark_ms: int | None, lateness_ms: int) -> bool:
    """Whether a packet created at `created_ms` arrives after the watermark passed its time + the lateness."""
    return watermark_ms is not None and watermark_ms > created_ms + lateness_ms


def releasing_watermark(newest_ms: int, lateness_ms: int) -> int:
    """The lowest watermark that releases every packet created at or before `newest_ms` (an idle partition's
    release: afterwards a packet created at or before `newest_ms` is late)."""
    return newest_ms + lateness_ms + 1


def ripe(waiting: Iterable[W], watermark_ms: int | None, lateness_ms: int) -> tuple[list[W], list[W]]:
    """(the packets the watermark has released, in (created_at, packet id, content hash) order; the ones still
    waiting, in arrival order)."""
    ready: list[W] = []
    rest: list[W] = []
    for item in waiting:
        (ready if is_late(item.created_ms, watermark_ms, lateness_ms) else rest).append(item)
    ready.sort(key=lambda w: (w.created_ms, w.packet_id, w.digest))
    return ready, rest
