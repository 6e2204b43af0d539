"""The waiting room of the validator under a maximum lateness (`OMEGA_MAX_LATENESS_MS` > 0; the rule is
`omega.packets.lateness`): each episode's packets that wait for their partition's watermark, kept in the
episodes table itself, so they share the changelog partition of their episode and survive a crash.

One entry per episode, `correlation_id SOH waiting` (SOH, not the NUL of judgement keys, so that no packet id
can name it), a list of `[created_ms, packet_id, raw (base64), topic, partition, offset, timestamp_ms, content
hash]`: the
record as it arrived and where it came from, so that its verdict, once judged, carries the same timestamps and
a dead letter the same position as if it had been judged on arrival. The episodes with waiting packets are
indexed per partition in memory, looked up again from the table after a start or a rebalance.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from streams.stages.base import Source
from streams.stages.keyed import KeyedTable

WAITING_SUFFIX = "\x01waiting"


def waiting_key(episode: str) -> str:
    """The table key of episode `episode`'s waiting packets."""
    return episode + WAITING_SUFFIX


@dataclass(frozen=True)
class Waiting:
    """One packet waiting for the watermark, with the position it arrived at."""

    created_ms: int
    packet_id: str
    raw: bytes
    source: Source
    digest: str  # the packet's content hash: orders an id re-used with other content at the same time

    def to_list(self) -> list[Any]:
        """The stored (JSON) form."""
        src = self.source
        return [self.created_ms, self.packet_id, base64.b64encode(self.raw).decode("ascii"),
                src.topic, src.partition, src.offset, src.timestamp_ms, self.digest]

    @classmethod
    def from_list(cls, data: list[Any], key: bytes) -> Waiting:
        """Inverse of `to_list`; `key` is the episode's record key."""
        created_ms, packet_id, raw, topic, partition, offset, timestamp_ms, digest = data
        return cls(created_ms, packet_id, base64.b64decode(raw), Source(topic, partition, offset, key, timestamp_ms),
                   digest)


class WaitingRoom:
    """The waiting packets of every episode over the episodes table, and per partition the episodes with any and
    the earliest `created_at` among theirs (so a watermark step decodes only the episodes it releases from)."""

    def __init__(self, episodes: KeyedTable, partition_of: Callable[[str], int]) -> None:
        self.episodes, self.partition_of = episodes, partition_of
        self.index: dict[int, dict[str, int]] = {}  # partition -> episode -> earliest created_ms waiting

    def of(self, episode: str) -> list[Waiting]:
        """The packets of `episode` waiting, in arrival order."""
        stored = self.episodes.get(waiting_key(episode)) or []
        key = episode.encode("utf-8")
        return [Waiting.from_list(item, key) for item in stored]

    def entry(self, episode: str, waiting: list[Waiting]) -> tuple[str, list[Any]]:
        """The table entry storing `waiting` as the episode's waiting packets."""
        return waiting_key(episode), [w.to_list() for w in waiting]

    def stored(self, episode: str, partition: int, waiting: list[Waiting]) -> None:
        """Note that `episode`'s waiting packets are now `waiting` (its entry was assigned by the caller)."""
        episodes = self.in_partition(partition)
        if waiting:
            episodes[episode] = min(w.created_ms for w in waiting)
        else:
            episodes.pop(episode, None)

    def in_partition(self, partition: int) -> dict[str, int]:
        """The episodes of `partition` with waiting packets, each with the earliest `created_at` waiting (one scan
        of the table after a start or a rebalance)."""
        episodes = self.index.get(partition)
        if episodes is None:
            episodes = self.index[partition] = {
                episode: min(item[0] for item in stored) for episode, stored in self._stored_lists()
                if self.partition_of(episode) == partition}
        return episodes

    def positions(self, partition: int) -> list[tuple[int, int]]:
        """(created_ms, input offset) of every packet of `partition` waiting, undecoded (what the worker's idle
        release and its metrics look at every second)."""
        return [(item[0], item[5]) for episode in self.in_partition(partition)
                for item in self.episodes.get(waiting_key(episode)) or []]

    def everywhere(self) -> list[str]:
        """Every episode with waiting packets in the table, in key order (the end of a replayed log)."""
        return sorted(episode for episode, _ in self._stored_lists())

    def _stored_lists(self) -> Iterator[tuple[str, list[Any]]]:
        """(episode, its stored waiting list) for every non-empty waiting entry of the table."""
        for key, value in list(self.episodes.items()):
            if isinstance(key, str) and key.endswith(WAITING_SUFFIX) and value:
                yield key[:-len(WAITING_SUFFIX)], value

    def forget(self) -> None:
        """A rebalance: the table may now hold other partitions' episodes."""
        self.index.clear()
