"""`Judgements`: an episode's judged packets by id, an immutable mapping that grows in O(1).

Every packet adds one judgement, and copying an episode's every judgement per packet made validation
quadratic in the episode length. Versions of a `Judgements` share one append-only store: adding to the
newest version appends in place, adding to an older one (a step run again from the stored ledger, a test
holding an earlier ledger) copies only that version's entries. A version sees exactly the entries it was made with.

`missing` says where keys not held in memory are found: the live worker keeps judgements as records of
their own, one per packet, instead of inside the ledger it rewrites on every packet. Each is stored with its
sequence number in the episode; `base` is how many the stored ledger counts. A judgement stored at or past
`base` belongs to a ledger that never got stored (a crash between the two writes), so it is not one: the
packet is judged again, from the ledger that was stored, to the same verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Generic, TypeVar

V = TypeVar("V")


class Judgements(Mapping[str, V], Generic[V]):
    """Packet id -> judgement; `with_` returns a new version, the receiver never changes."""

    __slots__ = ("_base", "_entries", "_order", "_size", "missing")

    def __init__(self, entries: Mapping[str, V] | None = None,
                 missing: Callable[[str], tuple[int, V] | None] | None = None, base: int = 0) -> None:
        items = list((entries or {}).items())
        self._entries: dict[str, tuple[int, V]] = {k: (i, v) for i, (k, v) in enumerate(items)}
        self._order: list[str] = [k for k, _ in items]
        self._size = len(items)
        self._base = base
        self.missing = missing

    @property
    def count(self) -> int:
        """How many judgements the episode has: those behind `missing` (`base`) and those in memory."""
        return self._base + self._size

    def get(self, key: str, default: V | None = None) -> V | None:  # type: ignore[override]
        """The judgement under `key` (in memory, else from `missing`), or `default`."""
        entry = self._entries.get(key)
        if entry is not None and entry[0] < self._size:
            return entry[1]
        if self.missing is not None:
            found = self.missing(key)
            if found is not None and found[0] < self._base:
                return found[1]
        return default

    def sequence(self, key: str) -> int | None:
        """The sequence number of the judgement under `key` (its position in the episode), or None."""
        entry = self._entries.get(key)
        if entry is not None and entry[0] < self._size:
            return self._base + entry[0]
        if self.missing is not None:
            found = self.missing(key)
            if found is not None and found[0] < self._base:
                return found[0]
        return None

    def __getitem__(self, key: str) -> V:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __iter__(self) -> Iterator[str]:
        """The keys held in memory, in the order they were added (`missing`'s keys are not enumerable)."""
        return iter(self._order[:self._size])

    def __len__(self) -> int:
        return self._size

    def __repr__(self) -> str:
        return f"Judgements({dict(self.items())!r})"

    def with_(self, key: str, value: V) -> Judgements[V]:
        """A new version holding `value` under `key` as well; this one is unchanged."""
        if self._size == len(self._order) and key not in self._entries:  # the newest version: append in place
            entries, order = self._entries, self._order
        else:
            order = [k for k in self._order[:self._size] if k != key]
            entries = {k: (i, self._entries[k][1]) for i, k in enumerate(order)}
        entries[key] = (len(order), value)
        order.append(key)
        return self._version(entries, order, len(order))

    def added_since(self, older: Judgements[V] | None) -> list[tuple[int, str, V]]:
        """(sequence number, key, judgement) of each entry held in memory beyond `older`, an earlier version
        this one grew from (all of them, for None or an unrelated mapping)."""
        start = older._size if older is not None and older._order is self._order else 0  # noqa: SLF001 - own class
        return [(self._base + i, k, self._entries[k][1]) for i, k in enumerate(self._order[start:self._size], start)]

    def _version(self, entries: dict[str, tuple[int, V]], order: list[str], size: int) -> Judgements[V]:
        new: Judgements[V] = Judgements.__new__(Judgements)
        new._entries, new._order, new._size, new._base, new.missing = entries, order, size, self._base, self.missing
        return new
