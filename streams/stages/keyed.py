"""The one keyed-state step every stateful stage shares: a table behind a small protocol, decoded values kept
beside their stored form, and `put_checked`, which stores a step's entries or yields its STATE_TOO_LARGE dead letter.

A Faust table and a plain dict both satisfy `KeyedTable`: the worker's agents pass Faust tables, embedded replay
passes dicts, and both call the same steps (stages/episodes.py, stages/messages.py, stages/answers.py,
stages/grounding.py), so a record whose state outgrows its changelog record is the same dead letter in replay as
live (docs/design.md, Determinism: "live processing gives what replay gives").
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, Protocol, TypeVar

from streams.stages.base import Emit, Outputs, Source, oversized_entry

T = TypeVar("T")


class KeyedTable(Protocol):
    """What a step needs of its state: get, set, items and size (a Faust table and a dict both fit)."""

    def get(self, key: str, /) -> Any: ...

    def __setitem__(self, key: str, value: Any, /) -> None: ...

    def items(self) -> Iterable[tuple[Any, Any]]: ...

    def __len__(self) -> int: ...


def put_checked(table: KeyedTable, entries: Sequence[tuple[str, object]], raw: bytes, source: Source,
                outputs: Outputs) -> Emit | None:
    """Assign every entry in order, or none: the STATE_TOO_LARGE dead letter of `raw` when one of them would not fit
    its changelog record.

    Every entry is measured (a dumps of its value). Records under 64 KB were not, for the cost: but an episode's
    ledger, a session or a waiting room grows by accumulation from small records, and one of 3,000 packets citing a
    new 400-byte evidence ref each was stored at 1.25 MB, past the limit, which the worker's changelog send would
    have failed on. A measure is an orjson dumps (stages/base.py `oversized_entry`): 1.4 µs for a ledger of ~870
    bytes and 0.5 µs for a judgement (under 1% of a replayed packet), 40 µs for an OMEGA-57 session of ~36 KB (~3% of
    a message); the json module's dumps took 8.2, 3.0 and 342 µs (`python -m tests.bench.bench_table_entries`)."""
    for key, value in entries:
        why = oversized_entry(key, value)
        if why is not None:
            return outputs.dead_letter(raw, source, "STATE_TOO_LARGE", why)
    for key, value in entries:  # in the given order: a ledger's changelog record must follow its judgements'
        table[key] = value  # assigned, never mutated: Faust logs only an assignment
    return None


class DecodedCache(Generic[T]):
    """Decoded table values by key, trusted only while the table still holds the very object they came from.

    The memory store (and a dict) returns the object we assigned, so a hit skips decoding (which grows with the
    episode or session); any other store, a recovery or a rebalance hands back a new object and the entry misses.
    """

    def __init__(self, decode: Callable[[str, Any], T], size: int = 10_000) -> None:
        self._decode = decode
        self._entries: OrderedDict[str, tuple[object, T]] = OrderedDict()
        self._size = size

    def get(self, key: str, stored: Any) -> T | None:
        """The decoded value of `stored` (the table's value for `key`), decoded only on a miss."""
        if not stored:
            return None
        entry = self._entries.get(key)
        if entry is not None and entry[0] is stored:
            self._entries.move_to_end(key)
            return entry[1]
        return self._decode(key, stored)

    def put(self, key: str, stored: object, value: T) -> None:
        """Remember that `stored` decodes to `value`."""
        self._entries[key] = (stored, value)
        self._entries.move_to_end(key)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
