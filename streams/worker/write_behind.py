"""A Faust table written once per key per batch (issue 24: agents in batches, OMEGA_BATCH_MAX > 1).

A ledger or a session is rewritten whole by every record of its episode or session, and Faust sends every
assignment to the table's changelog. In a batch, the steps (the same ones replay runs, over `KeyedTable`) write to
`WriteBehind` instead: reads see the batch's writes first, and `flush()`, after the batch's last record and before
its offsets are acknowledged, assigns each key written in the batch once, its last value, to the Faust table.

Each flushed assignment is made under the Faust event of the record that wrote the key last, so it goes to that
record's changelog partition as the record-by-record loop sends it; the keys are flushed in the order of their last
writes, so a ledger's changelog record still follows its judgements' (stages/episodes.py: a ledger is written after
the judgements it adds). A worker that dies before the flush has its batch's offsets uncommitted and none of its
state written: the batch is judged again from the state before it, as one record is now.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from faust.streams import _current_event as faust_current_event

from streams.stages.keyed import KeyedTable

_ABSENT: Any = object()


class WriteBehind:
    """A table seen through the current batch's writes (a `KeyedTable`); `flush` stores them."""

    def __init__(self, table: KeyedTable) -> None:
        self.table = table
        self._pending: dict[str, tuple[Any, Any]] = {}  # key -> (last value, the event that wrote it), in write order

    def get(self, key: str, /) -> Any:
        """The batch's last value of `key`, else the table's."""
        pending = self._pending.get(key, _ABSENT)
        return self.table.get(key) if pending is _ABSENT else pending[0]

    def __setitem__(self, key: str, value: Any, /) -> None:
        self._pending.pop(key, None)  # a rewritten key moves to the end: flushed after what it was written after
        self._pending[key] = (value, faust_current_event.get(None))

    def items(self) -> Iterable[tuple[Any, Any]]:
        """The table's entries with the batch's writes over them."""
        merged = dict(self.table.items())
        merged.update((key, value) for key, (value, _) in self._pending.items())
        return merged.items()

    def __len__(self) -> int:
        return len(self.table) + sum(1 for key in self._pending if self.table.get(key) is None)

    def flush(self) -> int:
        """Assign each key written since the last flush once (its last value, under its writer's event); returns
        how many keys were assigned."""
        pending, self._pending = self._pending, {}
        for key, (value, event) in pending.items():
            token = faust_current_event.set(event)
            try:
                self.table[key] = value
            finally:
                faust_current_event.reset(token)
        return len(pending)
