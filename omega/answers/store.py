"""The fact store: an immutable, indexed set of facts, queryable by subject, predicate and version, and by
pattern with `?variables` (the spec's `matchSignature`). Adding returns a new store, so a Faust table entry
or a replay dict is always reassigned, never mutated.

Versions (§4.4 rule 1, §5.3 steps 1-2 "filter by version"): the asked version and a pattern's
`qualifiers.version` are compared with a fact's version in canonical form (`omega.answers.versions`), by plain
equality: `v2.0` finds `2.0`, but `2` never finds `2.0` (no numeric or duration reading, unlike objects).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from omega.answers.evaluators import duration_minutes, timestamp_ms
from omega.answers.model import Fact
from omega.answers.versions import canonical_version, version_key

Bindings = dict[str, Any]


def is_variable(value: object) -> bool:
    """`?x`-style pattern variable."""
    return isinstance(value, str) and len(value) > 1 and value.startswith("?")


def same_value(left: object, right: object) -> bool:
    """Equal objects, or equal once normalised: strings case-insensitively, durations, timestamps."""
    if left == right and type(left) is type(right):
        return True
    if isinstance(left, bool) or isinstance(right, bool):
        return False
    if isinstance(left, str) and isinstance(right, str) and left.strip().lower() == right.strip().lower():
        return True
    for parse in (duration_minutes, timestamp_ms):
        a, b = parse(left), parse(right)
        if a is not None and a == b:
            return True
    return False


def source_order(fact: Fact) -> tuple[str, str, int, str]:
    """Stable source ordering (§5.3 last tie-breaker): docId, chunkId, span start, fact id."""
    return (fact.doc_id, fact.chunk_id, fact.span_start, fact.fact_id)


def _bind(pattern: object, value: object, bindings: Bindings) -> bool:
    if pattern is None:
        return True
    if is_variable(pattern):
        name = str(pattern)
        if name in bindings:
            return same_value(bindings[name], value)
        bindings[name] = value
        return True
    return same_value(pattern, value)


def match_fact(pattern: Mapping[str, Any], fact: Fact, bindings: Bindings | None = None) -> Bindings | None:
    """Bindings that make `pattern` match `fact` (extending `bindings`), or None."""
    out: Bindings = dict(bindings or {})
    for role in ("subject", "predicate", "object"):
        if not _bind(pattern.get(role), getattr(fact, role), out):
            return None
    qualifiers = dict(fact.qualifiers)
    for key, wanted in (pattern.get("qualifiers") or {}).items():
        if key == "version":
            if not _bind_version(wanted, fact.version_key, out):
                return None
        elif key not in qualifiers or not _bind(wanted, qualifiers[key], out):
            return None
    return out


def _bind_version(pattern: object, version: str | None, bindings: Bindings) -> bool:
    """A pattern's `qualifiers.version` against a fact's canonical version: a constant matches its canonical
    form exactly, a variable binds the canonical form (so two facts agree on it whatever their spelling)."""
    if version is None:
        return False
    if pattern is None:
        return True
    if is_variable(pattern):
        name = str(pattern)
        bound = bindings.setdefault(name, version)
        return isinstance(bound, str) and canonical_version(bound) == version
    return isinstance(pattern, str) and canonical_version(pattern) == version


class FactStore:
    """Facts by id, indexed by subject and predicate; iteration and query results in source order."""

    def __init__(self, facts: Iterable[Fact] = ()) -> None:
        self._facts: dict[str, Fact] = {}
        for fact in facts:
            self._facts.setdefault(fact.fact_id, fact)
        ordered = sorted(self._facts.values(), key=source_order)
        self._by_subject: dict[str, list[Fact]] = {}
        self._by_predicate: dict[str, list[Fact]] = {}
        for fact in ordered:
            self._by_subject.setdefault(fact.subject, []).append(fact)
            self._by_predicate.setdefault(fact.predicate, []).append(fact)
        self._ordered = tuple(ordered)

    def __len__(self) -> int:
        return len(self._ordered)

    def __iter__(self) -> Any:
        return iter(self._ordered)

    def with_facts(self, facts: Iterable[Fact]) -> FactStore:
        """A new store with `facts` added (a fact id already present is kept once: ingestion is idempotent)."""
        return FactStore([*self._ordered, *facts])

    def get(self, fact_id: str) -> Fact | None:
        """The fact with this id, or None."""
        return self._facts.get(fact_id)

    def subjects(self) -> list[str]:
        """Every subject, sorted."""
        return sorted(self._by_subject)

    def query(self, subject: str | None = None, predicate: str | None = None,
              version: str | None = None) -> list[Fact]:
        """Facts with this subject, predicate and version (None: any; compared in canonical form), in source
        order."""
        wanted = version_key(version)
        if subject is not None:
            pool: Iterable[Fact] = self._by_subject.get(subject, [])
        elif predicate is not None:
            pool = self._by_predicate.get(predicate, [])
        else:
            pool = self._ordered
        return [f for f in pool if (predicate is None or f.predicate == predicate)
                and (wanted is None or f.version_key == wanted)]

    def match(self, pattern: Mapping[str, Any], version: str | None = None) -> list[tuple[Fact, Bindings]]:
        """Facts matching a pattern whose values are constants, `?variables` or absent, with the bindings."""
        subject, predicate = pattern.get("subject"), pattern.get("predicate")
        pool = self.query(None if subject is None or is_variable(subject) else str(subject),
                          None if predicate is None or is_variable(predicate) else str(predicate), version)
        out = []
        for fact in pool:
            bindings = match_fact(pattern, fact)
            if bindings is not None:
                out.append((fact, bindings))
        return out
