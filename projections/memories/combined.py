"""The four memories of one session together, and the one step that applies an event to all of them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from projections.memories import failure_memory, pattern_memory, session_memory, success_memory
from projections.memories.documents import JSONObject
from projections.memories.log_events import LogEvent

Reducer = Callable[[JSONObject | None, LogEvent], JSONObject]
REDUCERS: Mapping[str, tuple[Reducer, Callable[[str], JSONObject]]] = {
    "session": (session_memory.apply, session_memory.empty),
    "pattern": (pattern_memory.apply, pattern_memory.empty),
    "failure": (failure_memory.apply, failure_memory.empty),
    "success": (success_memory.apply, success_memory.empty),
}
"""kind -> (reducer, empty document); the order is the order in which they are applied and stored."""


@dataclass(frozen=True, slots=True)
class Memories:
    """Session, Pattern, Failure and Success Memory of one session; None where nothing was recorded yet."""

    session: JSONObject | None = None
    pattern: JSONObject | None = None
    failure: JSONObject | None = None
    success: JSONObject | None = None

    def get(self, kind: str) -> JSONObject | None:
        """The document of one kind ("session", "pattern", "failure", "success")."""
        value: JSONObject | None = getattr(self, kind)
        return value

    def documents(self) -> dict[str, JSONObject]:
        """kind -> document, for the kinds that have one."""
        return {kind: doc for kind in REDUCERS if (doc := self.get(kind)) is not None}

    @classmethod
    def from_documents(cls, documents: Mapping[str, Any]) -> Memories:
        """From kind -> document (what a store returns for a session)."""
        return cls(**{kind: documents.get(kind) for kind in REDUCERS})


EMPTY = Memories()


def apply_all(memories: Memories, event: LogEvent) -> Memories:
    """All four reducers applied to `event` (pure). A memory that is still empty stays None, so a session gets
    no document of a kind that never recorded anything; an unchanged memory keeps its identity."""
    if not event.relevant:
        return memories
    out: dict[str, JSONObject | None] = {}
    changed = False
    for kind, (reduce, empty) in REDUCERS.items():
        old = memories.get(kind)
        new: JSONObject | None = reduce(old, event)
        if old is None and new == empty(event.session_id):
            new = None
        changed |= new is not old
        out[kind] = new
    return Memories(**out) if changed else memories
