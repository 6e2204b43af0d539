"""What a read-model store offers: the tracking positions, the batch it commits whole, and the reads.

Tracking-record pattern (docs/design.md, Idempotency): every batch writes its documents, their index rows AND the
new log positions in ONE transaction, so after a crash the read model and the position agree; on restart the
runner resumes after `position(source, partition)`, and the projector skips an event at or before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from omega.counts import summed
from projections.live.model import LiveDelta
from projections.memories.documents import JSONObject

Position = tuple[str, int]
"""(source, partition) of a log position."""
DocKey = tuple[str, str]
"""(session_id, kind) of a stored document."""
Row = tuple[Any, ...]
AuditRow = tuple[str, int, int, str]
"""(source, partition, offset, event_id) of one applied event."""


@dataclass(frozen=True, slots=True)
class BatchResult:
    """What a batch did: events applied, events skipped (at or before the stored position), documents
    written."""

    applied: int = 0
    skipped: int = 0
    documents: int = 0

    def __add__(self, other: BatchResult) -> BatchResult:
        return summed(BatchResult, (self, other))


@dataclass
class Batch:
    """One transaction's worth, already reduced: the documents changed, the live read models' changes, the
    positions that moved and the audit rows; a store commits all of it or none."""

    documents: dict[DocKey, JSONObject] = field(default_factory=dict)
    positions: dict[Position, int] = field(default_factory=dict)
    live: LiveDelta = field(default_factory=LiveDelta)
    audit: list[AuditRow] = field(default_factory=list)
    applied: int = 0
    skipped: int = 0

    def result(self) -> BatchResult:
        """The batch's figures."""
        return BatchResult(self.applied, self.skipped, len(self.documents))


class ReadModelStore(Protocol):
    """Where the memories live between runs. Implementations: `SqliteStore`, `PostgresStore`."""

    audit: bool
    """Whether `commit` also records the batch's audit rows (`memory_applied`)."""

    def open(self) -> None:
        """Connect and create the tables when missing (idempotent)."""

    def close(self) -> None:
        """Disconnect (idempotent)."""

    def commit(self, batch: Batch) -> None:
        """Store every document, live change, audit row and moved position of `batch` in one transaction; when
        the write fails nothing of it is stored and the exception propagates."""

    def position(self, source: str, partition: int) -> int | None:
        """The last applied offset of (source, partition); resume after it. None before the first."""

    def positions(self) -> dict[Position, int]:
        """Every tracking position."""

    def get(self, session_id: str, kind: str) -> JSONObject | None:
        """One memory document ("session", "pattern", "failure" or "success") of a session."""

    def session(self, session_id: str) -> dict[str, JSONObject]:
        """kind -> document for one session (the kinds it has)."""

    def sessions(self) -> list[str]:
        """Ids of the sessions (and OMEN episodes) with a document, sorted."""

    def failures(self, *, pattern: str | None = None, failure_type: str | None = None) -> list[JSONObject]:
        """Session failures across sessions (each with its `session_id`), by pattern name or id and/or type,
        in time order (untimed last), then by session id and entry id."""

    def successes(self, *, pattern: str | None = None, success_type: str | None = None) -> list[JSONObject]:
        """Session successes and brilliant ideas (type BRILLIANT_IDEA) across sessions, likewise."""

    def episode_document(self, episode_id: str) -> JSONObject | None:
        """The live episode document (projections.live.model), None when unknown."""

    def session_status_document(self, session_id: str) -> JSONObject | None:
        """The live OMEGA-57 session status document, None when unknown."""

    def content_hash(self) -> str:
        """SHA-256 over a canonical dump of the whole read model (the live tables included, their arrival
        `seq` not), tracking positions excluded: two stores holding the same memories give the same hash."""

    def reset(self) -> None:
        """Delete every document, index row and position (the first step of a rebuild)."""
