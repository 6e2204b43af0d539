"""The episode step: the validator's work per packets-topic record around the pure `evolve`, over a keyed table
(a Faust table live, a dict in replay) holding two kinds of entry.

Keyed by the episode (`correlation_id`), the ledger without its judgements, rewritten on every packet. Keyed
`correlation_id NUL packet_id`, one judgement per judged packet, written once: `[sequence number, judgement]`.
Kept inside the ledger, the judgements made the table quadratic in the episode length (an episode of 100
packets averaged 11 KB per changelog record, 90% of it judgements, and cost the worker a third of its time
in encoding, socket writes and standby decoding). Both kinds share one table so that they share the
changelog partition of their episode: a ledger stored after a judgement is never durable without it.

A stored ledger also names the input position (partition, offset) of the last packet it applied. Packets of one
episode are judged in offset order, so a packet at or before that position was judged already: finding no
judgement for it means the table lost one (a changelog record that never became durable while later ones did).
It is judged again against the later ledger, as before, but logged (`judgement_lost`) and counted, not silent.

With a maximum lateness (`lateness_ms` > 0) packets are not judged on arrival but wait in the episode's
waiting room (stages/lateness.py) until their partition's watermark releases them, in event-time order; a
watermark tick then releases first and times directives out at the watermark less the lateness (a directive's
answer may still be waiting); the end of a replayed log releases everything. Judgement order is then event
time, not offset order, so the lost-judgement check above is off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import structlog

from omega.packets.lateness import is_late, ripe
from omega.packets.ledger import EpisodeLedger, Judgement
from streams.records import key_text
from streams.stages.base import Emit, Source
from streams.stages.keyed import DecodedCache, KeyedTable, put_checked
from streams.stages.lateness import Waiting, WaitingRoom
from streams.stages.packets import PacketRead, PacketStage, Undecodable, WatermarkTick, power_of_ten

log = structlog.get_logger("omega.episodes")

TICK_KEY = "__watermark__"  # the key of a watermark tick on the packets topic (no episode has it: not a packet)
_END_OF_LOG = 2**62  # a watermark past every event time: the end of a replayed log releases every waiting packet


def judgement_key(episode: str, packet_id: str) -> str:
    """The table key of a judgement of episode `episode` (NUL cannot be confused with the ids' own text)."""
    return f"{episode}\x00{packet_id}"


def _one_partition(_key: str) -> int:
    return 0


class EpisodeSteps:
    """The validator's work per record, with its process-local state: the ledger cache, the partition watermarks
    (the largest event time seen per packets partition, and the last one ticked), and per partition the episodes
    with open directives (what a tick must advance). `partition_of` gives a key's packets partition (injected by
    the worker: this module imports no Kafka; replay reads one partition)."""

    def __init__(self, packet_stage: PacketStage, episodes: KeyedTable,
                 partition_of: Callable[[str], int] = _one_partition, lateness_ms: int = 0) -> None:
        self.packet_stage, self.episodes, self.partition_of = packet_stage, episodes, partition_of
        self.lateness_ms = lateness_ms
        self.room = WaitingRoom(episodes, partition_of)
        self.late = 0  # packets judged on arrival beyond the lateness (their verdicts say late: true)
        self.ledgers: DecodedCache[EpisodeLedger] = DecodedCache(self._decode)
        self.watermarks: dict[int, int] = {}
        self.ticked: dict[int, int] = {}
        self.open: dict[int, set[str]] = {}  # partition -> keys of episodes with open directives
        self.lost = 0  # packets judged anew although their ledger had applied them (module docstring)

    def record(self, raw: bytes, src: Source) -> list[Emit]:
        """One record of the packets topic, decoded once: a watermark tick, or a packet of the episode its key
        names."""
        read = self.packet_stage.read(raw)
        if isinstance(read, WatermarkTick):
            return self.tick(src, read)
        # A keyless record is judged under the key "None", as it always was (issue 22 keys records by episode).
        key = key_text(src.key, "None")
        return self.packet(src, raw, key, read)

    def packet(self, src: Source, raw: bytes, key: str, read: PacketRead) -> list[Emit]:
        """One packet of episode `key` (`read` from `raw`): judged now (no lateness set), or after the watermark
        releases it."""
        if self.lateness_ms <= 0:
            emits, stored = self._judge(src, raw, key, read)
            if stored:  # a packet refused for its state's size does not move the partition's event time
                self._see(src)
            return emits
        self._see(src)
        return self._arrive(src, raw, key, read) + self._release(src.partition, self.watermarks.get(src.partition))

    def judge(self, src: Source, raw: bytes, key: str, read: PacketRead, late: bool = False) -> list[Emit]:
        """Evolve episode `key`'s ledger with one packet, store what changed, return the outputs."""
        return self._judge(src, raw, key, read, late)[0]

    def _judge(self, src: Source, raw: bytes, key: str, read: PacketRead, late: bool = False
               ) -> tuple[list[Emit], bool]:
        stored = self.episodes.get(key)
        ledger = self.ledgers.get(key, stored)
        new_ledger, emits = self.packet_stage.judge(ledger, read, raw, src, late)
        if new_ledger is not None and new_ledger is not ledger:
            if self.lateness_ms <= 0:
                self._check_not_applied(key, stored, src)
            entries = self._entries(key, new_ledger, ledger, stored, at=[src.partition, src.offset])
            refused = put_checked(self.episodes, entries, raw, src, self.packet_stage.outputs)
            if refused is not None:
                return [refused], False
            self._stored(key, src.partition, new_ledger, entries)
        return emits, True

    def _see(self, src: Source) -> None:
        if src.timestamp_ms is not None:
            previous = self.watermarks.get(src.partition, src.timestamp_ms)
            self.watermarks[src.partition] = max(previous, src.timestamp_ms)

    def _arrive(self, src: Source, raw: bytes, key: str, read: PacketRead) -> list[Emit]:
        """A packet under a lateness: judged now when it cannot wait (undecodable, no time, judged already, late),
        else kept in its episode's waiting room."""
        if isinstance(read, Undecodable) or read.packet_id is None or read.created_ms is None:
            return self.judge(src, raw, key, read)  # a dead letter, or a packet no watermark can order: judged now
        packet_id, created_ms, digest = read.packet_id, read.created_ms, read.digest
        ledger = self.ledger(key)
        seen = None if ledger is None else ledger.applied.get(packet_id)
        if seen is not None and seen.content_hash == digest:
            return self.judge(src, raw, key, read)  # a redelivery of a judged packet: its verdict again
        # (an id re-used with other content waits like any packet: its DUPLICATE verdict names the state it meets)
        if is_late(created_ms, self.watermarks.get(src.partition), self.lateness_ms):
            self.late += 1
            if power_of_ten(self.late):
                log.warning("packet_late", episode=key, packet_id=packet_id, partition=src.partition,
                            offset=src.offset, lateness_ms=self.lateness_ms, late=self.late)
            return self.judge(src, raw, key, read, late=True)
        waiting = self.room.of(key)
        if any(w.packet_id == packet_id and w.raw == raw for w in waiting):
            return []  # a redelivery of a waiting packet
        waiting.append(Waiting(created_ms, packet_id, raw, src, digest))
        refused = put_checked(self.episodes, [self.room.entry(key, waiting)], raw, src, self.packet_stage.outputs)
        if refused is not None:
            return [refused]
        self.room.stored(key, src.partition, waiting)
        return []

    def _release(self, partition: int, watermark_ms: int | None) -> list[Emit]:
        """Judge every waiting packet of `partition` the watermark releases, in (created_at, packet id, content hash,
        episode) order, then store what still waits (a crash in between leaves judged packets waiting: judged again,
        they re-emit their verdicts)."""
        if watermark_ms is None:
            return []
        episodes = self.room.in_partition(partition)
        due = sorted(e for e, earliest in episodes.items() if is_late(earliest, watermark_ms, self.lateness_ms))
        ready: list[tuple[Waiting, str]] = []
        rest: dict[str, list[Waiting]] = {}
        for episode in due:
            released, rest[episode] = ripe(self.room.of(episode), watermark_ms, self.lateness_ms)
            ready.extend((w, episode) for w in released)
        ready.sort(key=lambda item: (item[0].created_ms, item[0].packet_id, item[0].digest, item[1]))
        # a waiting packet is read back from the bytes stored in the table
        emits = [emit for w, episode in ready
                 for emit in self.judge(w.source, w.raw, episode, self.packet_stage.read_packet(w.raw))]
        for episode, waiting in rest.items():
            entry_key, value = self.room.entry(episode, waiting)
            self.episodes[entry_key] = value  # smaller than what was stored: no size check
            self.room.stored(episode, partition, waiting)
        return emits

    def _check_not_applied(self, key: str, stored: Any, src: Source) -> None:
        at = stored.get("at") if isinstance(stored, dict) else None
        if isinstance(at, list) and len(at) == 2 and at[0] == src.partition and at[1] >= src.offset:
            self.lost += 1
            log.warning("judgement_lost", episode=key, partition=src.partition, offset=src.offset,
                        ledger_at=at[1], lost=self.lost)

    def tick(self, src: Source, tick: WatermarkTick) -> list[Emit]:
        """Advance every episode of the tick's partition with open directives to its watermark (INV-011); under
        a lateness, release what the watermark releases first, and time out at the watermark less the lateness."""
        partition, watermark = tick.partition, tick.watermark_ms
        emits: list[Emit] = []
        if self.lateness_ms > 0 and watermark is not None:
            # a tick carries its partition's watermark: a process that restarted learns it here
            self.watermarks[partition] = max(self.watermarks.get(partition, watermark), watermark)
            emits.extend(self._release(partition, self.watermarks[partition]))
            watermark -= self.lateness_ms
        for key in sorted(self._open_in(partition)):
            stored = self.episodes.get(key)
            ledger = self.ledgers.get(key, stored)
            if ledger is None or not ledger.open_directives:
                continue
            # A redelivered tick (not committed when its worker died) finds the ledger already advanced,
            # perhaps without its alerts ever sent: `again` raises them once more (at-least-once; ids dedupe).
            advanced, out = self.packet_stage.tick(ledger, watermark, again=True)
            if advanced is not ledger:
                self._store(key, partition, advanced, self._entries(key, advanced, ledger, stored))
            emits.extend(out)
        return emits

    def finish(self, watermark_ms: int | None) -> list[Emit]:
        """The end of a replayed log: every episode (in order of its first ledger) advances to the log's watermark,
        so quiet episodes' dangling directives time out as the live ticks make them (INV-011)."""
        emits: list[Emit] = []
        if self.lateness_ms > 0:
            for partition in sorted({self.partition_of(e) for e in self.room.everywhere()}):
                emits.extend(self._release(partition, _END_OF_LOG))
        for key, stored in list(self.episodes.items()):
            if not isinstance(stored, dict):  # a judgement entry, not a ledger
                continue
            ledger = self.ledgers.get(key, stored)
            if ledger is None:
                continue
            advanced, out = self.packet_stage.tick(ledger, watermark_ms)
            if advanced is not ledger:
                self._store(key, self.partition_of(key), advanced, self._entries(key, advanced, ledger, stored))
            emits.extend(out)
        return emits

    def ledger(self, key: str) -> EpisodeLedger | None:
        """The stored ledger of episode `key`, decoded (None when the episode has none)."""
        return self.ledgers.get(key, self.episodes.get(key))

    def due_ticks(self, owned: Iterable[int]) -> list[tuple[int, int]]:
        """(partition, watermark) of each owned partition whose watermark moved since its last tick."""
        due = [(p, mark) for p in owned
               if (mark := self.watermarks.get(p)) is not None and self.ticked.get(p) != mark]
        self.ticked.update(due)
        return due

    async def on_partitions_revoked(self, sender: Any, *args: Any, signal: Any = None, **kwargs: Any) -> None:
        """Faust's signal at every rebalance: the table may now hold other workers' ledgers, so each partition's
        open episodes and episodes with waiting packets are looked up again from the table."""
        self.open.clear()
        self.room.forget()

    def _open_in(self, partition: int) -> set[str]:
        keys = self.open.get(partition)
        if keys is None:  # first tick since start or a rebalance: one scan of the table
            keys = self.open[partition] = {
                k for k, v in list(self.episodes.items())
                if isinstance(v, dict) and v.get("open_directives") and self.partition_of(k) == partition}
        return keys

    def _decode(self, key: str, stored: Any) -> EpisodeLedger:
        return EpisodeLedger.from_dict(stored, self._finder(key))

    def _finder(self, key: str) -> Callable[[str], tuple[int, Judgement] | None]:
        def find(packet_id: str) -> tuple[int, Judgement] | None:
            entry = self.episodes.get(judgement_key(key, packet_id))
            return None if entry is None else (entry[0], Judgement.from_list(entry[1]))
        return find

    def _entries(self, key: str, ledger: EpisodeLedger, before: EpisodeLedger | None,
                 stored: Any, at: list[int] | None = None) -> list[tuple[str, Any]]:
        """The table entries storing `ledger`, grown from `before`: its new judgements, then the ledger itself
        with the input position of the last packet it applied, `at` or the stored one (a ledger stored before
        this layout holds its judgements inline: they move out, all of them)."""
        older = None if before is None or (stored and "applied" in stored) else before.applied
        entries: list[tuple[str, Any]] = [(judgement_key(key, packet_id), [seq, judgement.to_list()])
                                          for seq, packet_id, judgement in ledger.applied.added_since(older)]
        form = ledger.to_dict(judgements=False)
        position = at if at is not None else stored.get("at") if isinstance(stored, dict) else None
        if position is not None:
            form["at"] = position
        entries.append((key, form))
        return entries

    def _store(self, key: str, partition: int, ledger: EpisodeLedger, entries: list[tuple[str, Any]]) -> None:
        for entry_key, value in entries:  # the ledger last: its changelog record must follow its judgements'
            self.episodes[entry_key] = value  # assigned, never mutated: Faust logs only this
        self._stored(key, partition, ledger, entries)

    def _stored(self, key: str, partition: int, ledger: EpisodeLedger, entries: list[tuple[str, Any]]) -> None:
        self.ledgers.put(key, entries[-1][1], ledger)
        open_keys = self.open.get(partition)
        if open_keys is not None:
            if ledger.open_directives:
                open_keys.add(key)
            else:
                open_keys.discard(key)
