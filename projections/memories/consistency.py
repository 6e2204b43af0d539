"""§3.5.5 cross-memory consistency, checked over one session's four documents.

Rules (each violation is one readable line):
1. Failure patterns in Pattern Memory must exist in Failure Memory: every `failure_patterns` entry is the
   pattern of some session failure or active warning (`pattern_id`), and each failure it is derived from is
   one of them.
2. Success patterns in Pattern Memory must exist in Success Memory: the same for `solution_patterns` against
   session successes.
3. All events in specialised memories must appear in the Session Memory timeline: every `event_id` (and each
   of `event_ids`) anywhere in the Pattern, Failure or Success document is a timeline entry's id.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any


def _entries(doc: Mapping[str, Any] | None, *names: str) -> list[Mapping[str, Any]]:
    if doc is None:
        return []
    return [e for name in names for e in doc.get(name) or () if isinstance(e, Mapping)]


def _event_refs(node: Any, path: str) -> Iterator[tuple[str, str]]:
    """(path, event id) of every `event_id` / `event_ids` value in a document."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            where = f"{path}.{key}"
            if key == "event_id" and isinstance(value, str):
                yield where, value
            elif key == "event_ids" and isinstance(value, list):
                yield from ((where, v) for v in value if isinstance(v, str))
            else:
                yield from _event_refs(value, where)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _event_refs(value, f"{path}[{index}]")


def _patterns_backed(pattern: Mapping[str, Any] | None, collection: str, memory: str,
                     backing: list[Mapping[str, Any]]) -> list[str]:
    out: list[str] = []
    by_pattern = {e.get("pattern_id") for e in backing}
    ids = {e.get("id") for e in backing}
    for entry in _entries(pattern, collection):
        name = f"{collection} {entry.get('name')!r} ({entry.get('id')})"
        if entry.get("id") not in by_pattern:
            out.append(f"rule 1/2: {name} has no entry in {memory} Memory")
        missing = [i for i in entry.get("derived_from") or () if i not in ids]
        if missing:
            out.append(f"rule 1/2: {name} is derived from {', '.join(missing)}, absent from {memory} Memory")
    return out


def check_consistency(memories: Mapping[str, Mapping[str, Any] | None]) -> list[str]:
    """The §3.5.5 violations of one session's memories (kind -> document, as a store or `Memories.documents`
    gives them); empty when consistent. A missing document reads as an empty memory."""
    pattern, failure, success = memories.get("pattern"), memories.get("failure"), memories.get("success")
    violations = _patterns_backed(pattern, "failure_patterns", "Failure",
                                  _entries(failure, "session_failures", "active_warnings"))
    violations = [v.replace("rule 1/2", "rule 1") for v in violations]
    violations += [v.replace("rule 1/2", "rule 2") for v in
                   _patterns_backed(pattern, "solution_patterns", "Success", _entries(success, "session_successes"))]
    timeline = {e.get("id") for e in _entries(memories.get("session"), "timeline")}
    for kind in ("pattern", "failure", "success"):
        for where, event_id in _event_refs(memories.get(kind), kind):
            if event_id not in timeline:
                violations.append(f"rule 3: {where} = {event_id} is not in the Session Memory timeline")
    return violations
