"""Memory documents: plain JSON objects, their canonical text, copy-on-write editing, and sorted entry lists.

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

from projections.memories.log_events import time_key

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
        return self._writable(path, dict)  # type: ignore[no-any-return]

    def list(self, *path: str) -> list[Any]:
        """The (copied) list at `path`, ready to be written."""
        return self._writable(path, list)  # type: ignore[no-any-return]

    def insert(self, name: str, entry: JSONObject, sort_key: SortKey) -> bool:
        """Puts `entry` in the list `name` (kept sorted by `sort_key`); False when an entry with its key is there."""
        grown = insert_sorted(self.read(name), entry, sort_key)
        if grown is None:
            return False
        self.doc[name] = grown
        return True

    def read(self, *path: str) -> Any:
        """The current value at `path` (copied or not); read-only use."""
        return self._at(path)

    def _writable(self, path: tuple[str, ...], copy_of: Callable[[Any], Any]) -> Any:
        if path in self._copied:
            return self._at(path)
        parent = self.obj(*path[:-1]) if len(path) > 1 else self.doc
        copy = copy_of(parent[path[-1]])
        parent[path[-1]] = copy
        self._copied.add(path)
        return copy

    def _at(self, path: tuple[str, ...]) -> Any:
        node: Any = self.doc
        for name in path:
            node = node[name]
        return node


SortKey = Callable[[Mapping[str, Any]], tuple[str, str]]


def by_id(entry: Mapping[str, Any]) -> tuple[str, str]:
    """The sort key of a list ordered by id."""
    return entry["id"], ""


def by_time(name: str) -> SortKey:
    """The sort key of a list ordered by (the entry's time `name`, id); untimed entries last."""
    def key(entry: Mapping[str, Any]) -> tuple[str, str]:
        return time_key(entry[name]), entry["id"]
    return key


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


def derive(draft: Draft, name: str, entry: JSONObject, source_id: str, counted: str, uncounted: int) -> None:
    """Records that `entry` (a rule drawn from entries) follows from `source_id`, in the id-sorted list `name`.

    A new entry starts `derived_from` [source_id]; one already there gains `source_id`. Its `counted` field is
    how many entries it is derived from, less `uncounted`.
    """
    entries = draft.list(name)
    index, present = find_sorted(entries, (entry["id"], ""), by_id)
    if present:
        derived = union_sorted(entries[index]["derived_from"], source_id)
        entries[index] = {**entries[index], "derived_from": derived, counted: len(derived) - uncounted}
    else:
        entries.insert(index, {**entry, "derived_from": [source_id], counted: 1 - uncounted})



Edit = tuple[Callable[[Draft, Any], bool], Sequence[Any]]
"""An edit of a draft (True when it changed the document) and the signals it is applied to, one at a time."""


def edited(current: JSONObject, *edits: Edit) -> JSONObject:
    """`current` after each edit of each of its signals, in order; `current` itself when none changed it."""
    if not any(signals for _, signals in edits):
        return current
    draft = Draft(current)
    changed = False
    for edit, signals in edits:
        for signal in signals:
            changed |= edit(draft, signal)
    return draft.doc if changed else current
