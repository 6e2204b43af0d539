"""The index tables' rows: each session failure, success and brilliant idea (type BRILLIANT_IDEA) repeated with the
columns the cross-session queries filter on, and what one batch changes in them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from projections.memories.documents import JSONObject, canonical
from projections.store.protocol import DocKey, Row

INDEX_TABLES = {"failure": ("memory_failures", "failure_type"), "success": ("memory_successes", "success_type")}
"""memory kind -> (its index table, that table's type column)."""


def indexed_entries(kind: str, doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """entry id -> entry of the failure or success entries a document indexes (none for other kinds)."""
    if kind == "failure":
        return {e["id"]: e for e in doc.get("session_failures") or ()}
    if kind == "success":
        found = {e["id"]: e for e in doc.get("session_successes") or ()}
        found.update((e["id"], e) for e in doc.get("brilliant_ideas") or ())
        return found
    return {}


def index_row(session_id: str, entry: Mapping[str, Any]) -> Row:
    """The index row of one failure, success or brilliant idea (an idea has `captured_at`, no type)."""
    if "captured_at" in entry:
        return session_id, entry["id"], "BRILLIANT_IDEA", None, None, entry.get("captured_at"), canonical(entry)
    return (session_id, entry["id"], entry.get("failure_type", entry.get("success_type")), entry.get("pattern"),
            entry.get("pattern_id"), entry.get("occurred_at"), canonical(entry))


@dataclass
class IndexChanges:
    """What one batch does to an index table: sessions rewritten whole, rows upserted, rows deleted."""

    rewrite: list[str]
    upsert: list[Row]
    delete: list[tuple[str, str]]


def index_changes(kind: str, documents: Mapping[DocKey, JSONObject],
                  remembered: Mapping[DocKey, Mapping[str, Any]]) -> IndexChanges:
    """The changes to `kind`'s index table that writing `documents` makes, diffed by entry identity against the
    versions `remembered` as last committed (the reducers keep an unchanged entry as the same object); a key not
    remembered has its session's rows rewritten whole."""
    changes = IndexChanges([], [], [])
    for key, doc in documents.items():
        if key[1] != kind:
            continue
        sid = key[0]
        entries = indexed_entries(kind, doc)
        before = remembered.get(key)
        if before is None:
            changes.rewrite.append(sid)
            changes.upsert += [index_row(sid, e) for e in entries.values()]
            continue
        old = indexed_entries(kind, before)
        changes.upsert += [index_row(sid, e) for i, e in entries.items() if old.get(i) is not e]
        changes.delete += [(sid, i) for i in old if i not in entries]
    return changes
