"""The projector's side of the live read models: recently active episode and session documents kept in memory
(loaded lazily from the store, evicted least recently used), `projections.live.model` applied to each event,
and the batch's changes undone in the cache when the batch fails, so the cache never holds what the store does
not."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from projections.live.model import LiveDelta, reduce_live
from projections.memories.documents import JSONObject
from projections.memories.log_events import LogEvent

_ABSENT = object()
"""What a journal records for a key that was not cached before the batch."""


class _Cache:
    """Documents by id (None: known to have none), with a journal of the batch in progress."""

    def __init__(self, load: Callable[[str], JSONObject | None], max_cached: int) -> None:
        self._load = load
        self.max_cached = max_cached
        self._docs: OrderedDict[str, JSONObject | None] = OrderedDict()
        self._before: dict[str, object] = {}
        # After a reset the store holds only what this projection wrote: an id neither cached nor evicted has no
        # document, and is not looked up (what makes a rebuild cheap).
        self._mirrored = False
        self._evicted: set[str] = set()

    def get(self, key: str) -> JSONObject | None:
        if key in self._docs:
            self._docs.move_to_end(key)
            return self._docs[key]
        doc = None if self._mirrored and key not in self._evicted else self._load(key)
        self._before.setdefault(key, _ABSENT)
        self._docs[key] = doc
        return doc

    def put(self, key: str, doc: JSONObject) -> None:
        self._before.setdefault(key, self._docs.get(key, _ABSENT))
        self._docs[key] = doc

    def commit(self) -> None:
        self._before.clear()
        while len(self._docs) > self.max_cached:
            key, _ = self._docs.popitem(last=False)
            if self._mirrored:
                self._evicted.add(key)

    def rollback(self) -> None:
        for key, doc in self._before.items():
            if doc is _ABSENT:
                self._docs.pop(key, None)
            else:
                self._docs[key] = doc  # type: ignore[assignment]  # a document or None, as recorded
        self._before.clear()

    def reset(self) -> None:
        self._docs.clear()
        self._before.clear()
        self._evicted.clear()
        self._mirrored = True


class LiveProjection:
    """Applies events to the live read models of one store (see `Projector`)."""

    def __init__(self, episode: Callable[[str], JSONObject | None], session: Callable[[str], JSONObject | None],
                 *, max_cached: int = 100_000) -> None:
        self._episodes = _Cache(episode, max_cached)
        self._sessions = _Cache(session, max_cached)

    def apply(self, event: LogEvent) -> LiveDelta:
        """What `event` changes (the cache already holds the new documents)."""
        delta = reduce_live(event, self._episodes.get, self._sessions.get)
        for key, doc in delta.episodes.items():
            self._episodes.put(key, doc)
        for key, doc in delta.sessions.items():
            self._sessions.put(key, doc)
        return delta

    def commit(self) -> None:
        """The batch was stored: keep its documents (and evict past the cache size)."""
        self._episodes.commit()
        self._sessions.commit()

    def rollback(self) -> None:
        """The batch failed: the documents it touched go back to what they were."""
        self._episodes.rollback()
        self._sessions.rollback()

    def reset(self) -> None:
        """The store was emptied (a rebuild starts)."""
        self._episodes.reset()
        self._sessions.reset()
