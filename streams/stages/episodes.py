"""The validator agent's work per record, around the pure `evolve`: the episodes table and its two kinds of entry.

Keyed by the episode (`correlation_id`), the ledger without its judgements, rewritten on every packet. Keyed
`correlation_id NUL packet_id`, one judgement per judged packet, written once: `[sequence number, judgement]`.
Kept inside the ledger, the judgements made the table quadratic in the episode length (an episode of 100
packets averaged 11 KB per changelog record, 90% of it judgements, and cost the worker a third of its time
in encoding, socket writes and standby decoding). Both kinds share one table so that they share the
changelog partition of their episode: a ledger stored after a judgement is never durable without it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from omega.packets.ledger import EpisodeLedger, Judgement
from streams.stages.base import Emit, Source
from streams.stages.keyed import DecodedCache, oversized_state, partition_of
from streams.stages.packets import Pipeline


def judgement_key(episode: str, packet_id: str) -> str:
    """The table key of a judgement of episode `episode` (NUL cannot be confused with the ids' own text)."""
    return f"{episode}\x00{packet_id}"


def _given(value: object) -> Callable[[], object]:
    return lambda: value


class ValidatorSteps:
    """The validator agent's work per record, with its process-local state: the ledger cache, the partition
    watermarks (the largest event time seen per packets partition, and the last one ticked), and per partition
    the episodes with open directives (what a tick must advance)."""

    def __init__(self, pipeline: Pipeline, episodes: Any, partitions: int) -> None:
        self.pipeline, self.episodes, self.partitions = pipeline, episodes, partitions
        self.ledgers: DecodedCache[EpisodeLedger] = DecodedCache(self._decode)
        self.watermarks: dict[int, int] = {}
        self.ticked: dict[int, int] = {}
        self.open: dict[int, set[str]] = {}  # partition -> keys of episodes with open directives

    def packet(self, src: Source, raw: bytes, key: str) -> list[Emit]:
        """One packet of episode `key`: evolve its ledger, store what changed, return the outputs."""
        stored = self.episodes.get(key)
        ledger = self.ledgers.get(key, stored)
        new_ledger, emits = self.pipeline.packet(ledger, raw, src)
        if new_ledger is not None and new_ledger is not ledger:
            entries = self._entries(key, new_ledger, ledger, stored)
            for entry_key, value in entries:
                why = oversized_state(entry_key, raw, _given(value))
                if why is not None:
                    return [self.pipeline.dead_letter(raw, src, "STATE_TOO_LARGE", why)]
            self._store(key, src.partition, new_ledger, entries)
        if src.timestamp_ms is not None:
            previous = self.watermarks.get(src.partition, src.timestamp_ms)
            self.watermarks[src.partition] = max(previous, src.timestamp_ms)
        return emits

    def tick(self, src: Source, raw: bytes, partition: int) -> list[Emit]:
        """Advance every episode of this partition with open directives to the tick's watermark (INV-011)."""
        watermark = self.pipeline.tick_watermark(raw)
        emits: list[Emit] = []
        for key in sorted(self._open_in(partition)):
            stored = self.episodes.get(key)
            ledger = self.ledgers.get(key, stored)
            if ledger is None or not ledger.open_directives:
                continue
            # A redelivered tick (not committed when its worker died) finds the ledger already advanced,
            # perhaps without its alerts ever sent: `again` raises them once more (at-least-once; ids dedupe).
            advanced, out = self.pipeline.tick(ledger, watermark, again=True)
            if advanced is not ledger:
                self._store(key, partition, advanced, self._entries(key, advanced, ledger, stored))
            emits.extend(out)
        return emits

    def due_ticks(self, owned: Iterable[int]) -> list[tuple[int, int]]:
        """(partition, watermark) of each owned partition whose watermark moved since its last tick."""
        due = [(p, mark) for p in owned
               if (mark := self.watermarks.get(p)) is not None and self.ticked.get(p) != mark]
        self.ticked.update(due)
        return due

    async def on_partitions_revoked(self, sender: Any, *args: Any, signal: Any = None, **kwargs: Any) -> None:
        """Faust's signal at every rebalance: the table may now hold other workers' ledgers, so each partition's
        open episodes are looked up again from the table at its next tick."""
        self.open.clear()

    def _open_in(self, partition: int) -> set[str]:
        keys = self.open.get(partition)
        if keys is None:  # first tick since start or a rebalance: one scan of the table
            keys = self.open[partition] = {
                k for k, v in list(self.episodes.items())
                if isinstance(v, dict) and v.get("open_directives") and partition_of(k, self.partitions) == partition}
        return keys

    def _decode(self, key: str, stored: Any) -> EpisodeLedger:
        return EpisodeLedger.from_dict(stored, self._finder(key))

    def _finder(self, key: str) -> Callable[[str], tuple[int, Judgement] | None]:
        def find(packet_id: str) -> tuple[int, Judgement] | None:
            entry = self.episodes.get(judgement_key(key, packet_id))
            return None if entry is None else (entry[0], Judgement.from_list(entry[1]))
        return find

    def _entries(self, key: str, ledger: EpisodeLedger, before: EpisodeLedger | None,
                 stored: Any) -> list[tuple[str, Any]]:
        """The table entries storing `ledger`, grown from `before`: its new judgements, then the ledger itself
        (a ledger stored before this layout holds its judgements inline: they move out, all of them)."""
        older = None if before is None or (stored and "applied" in stored) else before.applied
        entries: list[tuple[str, Any]] = [(judgement_key(key, packet_id), [seq, judgement.to_list()])
                                          for seq, packet_id, judgement in ledger.applied.added_since(older)]
        entries.append((key, ledger.to_dict(judgements=False)))
        return entries

    def _store(self, key: str, partition: int, ledger: EpisodeLedger, entries: list[tuple[str, Any]]) -> None:
        for entry_key, value in entries:  # the ledger last: its changelog record must follow its judgements'
            self.episodes[entry_key] = value  # assigned, never mutated: Faust logs only this
        self.ledgers.put(key, entries[-1][1], ledger)
        open_keys = self.open.get(partition)
        if open_keys is not None:
            if ledger.open_directives:
                open_keys.add(key)
            else:
                open_keys.discard(key)
