"""The projector: log events in, the four memories of each session (and the live read models of
`projections.live.model`) out, in batches with their position.

It keeps the current memories of recently active sessions in memory (loaded lazily from the store, evicted
least recently used once past `max_cached_sessions`), applies all four reducers to each event (`batches`), and
hands each reduced batch to the store, which commits every changed document with the batch's tracking positions
in one transaction. When a batch fails, the sessions it touched are put back as they were before it, so the cache
never holds what the store does not.
"""

from __future__ import annotations

import gc
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import islice

from projections.batches import apply_batch
from projections.live.projection import LiveProjection
from projections.memories.combined import EMPTY, REDUCERS, Memories, apply_all
from projections.memories.documents import JSONObject
from projections.memories.log_events import LogEvent
from projections.store.protocol import BatchResult, DocKey, ReadModelStore

DEFAULT_BATCH = 1000
REBUILD_BATCH = 20_000


def _chunks(events: Iterable[LogEvent], size: int) -> Iterator[list[LogEvent]]:
    it = iter(events)
    while chunk := list(islice(it, size)):
        yield chunk


_pauses = 0  # collector_paused sections open now, in any thread
_paused_from_enabled = False  # whether the collector was enabled when the first of them opened
_pause_lock = threading.Lock()


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside a batch (it runs once when the batch ends).

    Why: the cached memories are millions of small containers that live long, and a batch allocates new ones
    at a high rate, so the collector keeps running full passes over the cache while finding nothing (memory
    documents are acyclic; reference counting frees old versions). Paused per batch it runs a few times per
    rebuild instead of dozens: about half the CPU time of a rebuild. The caller's setting is restored.

    Sections may overlap across threads (a runner decodes the next batch while a worker thread applies one): the
    collector resumes when the last open section closes, if it was enabled when the first one opened."""
    global _pauses, _paused_from_enabled  # noqa: PLW0603 - one collector per process, so one count
    with _pause_lock:
        if _pauses == 0:
            _paused_from_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0 and _paused_from_enabled:
                gc.enable()


class Projector:
    """Applies log events to a `ReadModelStore` through the four memory reducers."""

    def __init__(self, store: ReadModelStore, *, batch_size: int = DEFAULT_BATCH,
                 max_cached_sessions: int = 100_000) -> None:
        if batch_size < 1 or max_cached_sessions < 1:
            raise ValueError("batch_size and max_cached_sessions must be positive")
        self.store = store
        self.batch_size = batch_size
        self.max_cached_sessions = max_cached_sessions
        self._cache: OrderedDict[str, Memories] = OrderedDict()
        # After a reset the store holds only what this projector wrote, all of it cached unless evicted:
        # a session neither cached nor evicted has no documents, and is not looked up.
        self._store_mirrored = False
        self._evicted: set[str] = set()
        # The live read models (episodes, session status, the alert feed) are reduced in the same batches, so
        # one transaction and one tracking position cover them and the memories alike.
        self._live = LiveProjection(store.episode_document, store.session_status_document,
                                    max_cached=max_cached_sessions)

    # -------------------------------------------------------------- applying
    def process(self, events: Iterable[LogEvent], *, batch_size: int | None = None) -> BatchResult:
        """Apply `events` in order, one transaction per `batch_size` events (default: the projector's)."""
        total = BatchResult()
        for chunk in _chunks(events, batch_size or self.batch_size):
            total += self.process_batch(chunk)
        return total

    def process_batch(self, events: Sequence[LogEvent]) -> BatchResult:
        """Apply `events` as ONE transaction (a runner's poll); events at or before the stored position are
        skipped. On failure nothing of the batch is stored or cached, and the exception propagates."""
        before: dict[str, Memories | None] = {}

        def reduce(event: LogEvent) -> Mapping[DocKey, JSONObject]:
            sid = event.session_id
            if sid not in before:
                before[sid] = self._cache.get(sid)
            old = self._memories(sid)
            new = apply_all(old, event)
            if new is old:
                return {}
            self._cache[sid] = new
            return {(sid, kind): doc for kind in REDUCERS
                    if (doc := new.get(kind)) is not None and doc is not old.get(kind)}

        try:
            with collector_paused():
                result = apply_batch(self.store, events, reduce, self._live.apply)
        except BaseException:
            self._live.rollback()
            for sid, memories in before.items():
                if memories is None:
                    self._cache.pop(sid, None)
                else:
                    self._cache[sid] = memories
            raise
        self._live.commit()
        self._evict()
        return result

    def rebuild(self, events: Iterable[LogEvent], *, batch_size: int = REBUILD_BATCH) -> BatchResult:
        """Reset the store and apply every event from the start. Batches are larger than live ones: a rebuild
        has no reader waiting, and each batch rewrites the documents of every session it touched."""
        self.store.reset()
        self._cache.clear()
        self._evicted.clear()
        self._store_mirrored = True
        self._live.reset()
        return self.process(events, batch_size=batch_size)

    # -------------------------------------------------------------- reading
    def memories(self, session_id: str) -> Memories:
        """The current memories of a session (from the cache, else the store)."""
        return self._memories(session_id)

    def content_hash(self) -> str:
        """The store's content hash (see `ReadModelStore.content_hash`)."""
        return self.store.content_hash()

    def _memories(self, session_id: str) -> Memories:
        cached = self._cache.get(session_id)
        if cached is not None:
            self._cache.move_to_end(session_id)
            return cached
        if self._store_mirrored and session_id not in self._evicted:
            loaded = EMPTY
        else:
            loaded = Memories.from_documents(self.store.session(session_id))
        self._cache[session_id] = loaded
        return loaded

    def _evict(self) -> None:
        while len(self._cache) > self.max_cached_sessions:
            sid, _ = self._cache.popitem(last=False)
            if self._store_mirrored:
                self._evicted.add(sid)
