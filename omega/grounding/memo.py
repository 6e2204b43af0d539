"""Per-object memos: what a check derives from an immutable fact (its analysis, frames, lemmas, qualifier text) is
derived once while that fact object lives, since a paragraph cites its facts sentence after sentence."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

BOUND = 100_000  # a bound, not a policy: a forgotten entry is only derived again


class ByObject(Generic[K, V]):
    """`derive(obj)` memoised by the object's identity; each entry holds the object, so its id cannot be reused."""

    __slots__ = ("_derive", "_held")

    def __init__(self, derive: Callable[[K], V]) -> None:
        self._derive = derive
        self._held: dict[int, tuple[K, V]] = {}

    def __call__(self, obj: K) -> V:
        held = self._held.get(id(obj))
        if held is not None and held[0] is obj:
            return held[1]
        if len(self._held) > BOUND:
            self._held.clear()
        value = self._derive(obj)
        self._held[id(obj)] = (obj, value)
        return value

    def clear(self) -> None:
        """Forget every entry (a mutation run's session starts without what the unmutated code derived)."""
        self._held.clear()
