"""Memory documents: plain JSON objects, their canonical text, and copy-on-write editing.

A memory is a JSON object (`dict[str, Any]`) that the reducers never mutate: a reducer copies the top-level
object and each collection it changes (`Draft`), so the projector may keep the previous version and compare
by identity (`new is old` means nothing changed). Canonical text is orjson with sorted keys: the same bytes on
every backend, hashed for `content_hash` and stored as is.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import orjson

JSONObject = dict[str, Any]
"""A memory document or one of its entries."""

Item = TypeVar("Item", str, int)

KINDS = ("session", "pattern", "failure", "success")
"""The four memories (agents 53-56), the `kind` of a stored document."""


def canonical(doc: object) -> str:
    """Canonical JSON text of a document: sorted keys, compact, UTF-8 kept (orjson's number forms)."""
    try:
        return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS).decode("utf-8")
    except TypeError:
        # orjson refuses integers past 64 bits that an agent's content may carry; the stdlib text stands in.
        return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def parse(text: str | bytes) -> JSONObject:
    """A stored document back from its canonical text."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        value = json.loads(text)
    if not isinstance(value, dict):
        raise TypeError(f"a memory document is a JSON object, not {type(value).__name__}")
    return value


class Draft:
    """The next version of a document, built without touching the current one.

    The top-level object is copied at once; a collection is copied the first time it is written (`list`,
    `obj`), so an event that changes one list copies that list only.
    """

    def __init__(self, base: Mapping[str, Any]) -> None:
        self.doc: JSONObject = dict(base)
        self._copied: set[tuple[str, ...]] = set()

    def obj(self, *path: str) -> JSONObject:
        """The (copied) object at `path`, ready to be written."""
        if path in self._copied:
            return self._at(path)  # type: ignore[no-any-return]
        parent = self.obj(*path[:-1]) if len(path) > 1 else self.doc
        copy = dict(parent[path[-1]])
        parent[path[-1]] = copy
        self._copied.add(path)
        return copy

    def list(self, *path: str) -> list[Any]:
        """The (copied) list at `path`, ready to be written."""
        if path in self._copied:
            return self._at(path)  # type: ignore[no-any-return]
        parent = self.obj(*path[:-1]) if len(path) > 1 else self.doc
        copy = list(parent[path[-1]])
        parent[path[-1]] = copy
        self._copied.add(path)
        return copy

    def read(self, *path: str) -> Any:
        """The current value at `path` (copied or not); read-only use."""
        return self._at(path)

    def _at(self, path: tuple[str, ...]) -> Any:
        node: Any = self.doc
        for name in path:
            node = node[name]
        return node


SortKey = Callable[[Mapping[str, Any]], tuple[str, str]]


def find_sorted(entries: Sequence[Mapping[str, Any]], key: tuple[str, str], sort_key: SortKey) -> tuple[int, bool]:
    """Where an entry with `key` goes in `entries` (kept sorted by `sort_key`), and whether it is there."""
    # The fast path: events mostly arrive in time order, so the new entry belongs at the end.
    if not entries or sort_key(entries[-1]) < key:
        return len(entries), False
    index = bisect.bisect_left(entries, key, key=sort_key)
    return index, index < len(entries) and sort_key(entries[index]) == key


def insert_sorted(entries: Sequence[Mapping[str, Any]], entry: JSONObject,
                  sort_key: SortKey) -> list[Any] | None:
    """A new list with `entry` in sort order, or None when an entry with its key is already there."""
    key = sort_key(entry)
    index, present = find_sorted(entries, key, sort_key)
    if present:
        return None
    out = list(entries)
    out.insert(index, entry)
    return out


def union_sorted(items: Iterable[Item], *more: Item) -> list[Item]:
    """The sorted union of `items` and `more` (lists of ids or agent ids that must not depend on order)."""
    union: set[Item] = set(items)
    union.update(more)
    return sorted(union)
