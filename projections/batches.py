"""A batch of log events reduced: the projector's side of a transaction. The reducers are called here, above the
store, which is then handed the whole `Batch` to commit (the store only stores).

An event at or before the stored position of its (source, partition) is skipped and counted: a redelivery, or a
replay from before the position, is already in the read model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from projections.live.model import LiveDelta
from projections.memories.documents import JSONObject
from projections.memories.log_events import LogEvent
from projections.store.protocol import Batch, BatchResult, DocKey, Position, ReadModelStore


class EventReducer(Protocol):
    """Applies one event and returns the documents it changed, by (session_id, kind)."""

    def __call__(self, event: LogEvent, /) -> Mapping[DocKey, JSONObject]: ...


class ViewReducer(Protocol):
    """Applies one event to the live read models and returns what it changed (projections.live.model)."""

    def __call__(self, event: LogEvent, /) -> LiveDelta: ...


def reduce_batch(events: Iterable[LogEvent], stored: Mapping[Position, int], reducer: EventReducer,
                 views: ViewReducer | None = None, *, audit: bool = False) -> Batch:
    """`events` in order through `reducer` (and `views`), those at or before the `stored` positions skipped;
    with `audit`, one audit row per applied event. A reducer's exception propagates."""
    batch = Batch()
    last_applied = dict(stored)
    for event in events:
        where = (event.position_source, event.partition)
        last = last_applied.get(where)
        if last is not None and event.offset <= last:
            batch.skipped += 1
            continue
        batch.documents.update(reducer(event))
        if views is not None:
            batch.live.update(views(event))
        last_applied[where] = event.offset
        batch.applied += 1
        if audit:
            batch.audit.append((where[0], where[1], event.offset, event.event_id))
    batch.positions = {p: o for p, o in last_applied.items() if stored.get(p) != o}
    return batch


def apply_batch(store: ReadModelStore, events: Iterable[LogEvent], reducer: EventReducer,
                views: ViewReducer | None = None) -> BatchResult:
    """Reduce `events` after the store's positions and have the store commit the batch in one transaction; if a
    reducer or the write fails, nothing of the batch is stored and the exception propagates."""
    batch = reduce_batch(events, store.positions(), reducer, views, audit=store.audit)
    store.commit(batch)
    return batch.result()
