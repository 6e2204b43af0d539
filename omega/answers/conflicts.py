"""§4.4 answer-time conflict detection over the candidate facts of a query.

Conflict key: (subject, predicate, qualifiers.condition), plus the object for multi-valued (relational)
predicates. Two facts of one key conflict when their (normalised object, polarity) differ; with a query
version only that version's facts take part. Choice: the minimal artifact pairs the first fact (source
order) of the first answer with the first fact of each other distinct answer — n answers, n-1 pairs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from omega.answers.model import Fact
from omega.answers.store import source_order
from omega.answers.vocabulary import Vocabulary, is_multi_valued, normalised_object
from omega.canonical import canonical_json


def conflict_key(fact: Fact, vocabulary: Vocabulary) -> tuple[str, str, str, str]:
    """The key whose facts must agree (§4.4)."""
    obj = canonical_json(_normalised(fact, vocabulary)) if is_multi_valued(vocabulary, fact.predicate) else ""
    return (fact.subject, fact.predicate, canonical_json(fact.condition), obj)


def _normalised(fact: Fact, vocabulary: Vocabulary) -> Any:
    types = vocabulary.get(fact.predicate)
    return normalised_object(types[1], fact.object) if types else fact.object


def _reason(a: Fact, b: Fact, version: str | None) -> str:
    if a.polarity != b.polarity:
        return (f"POLARITY_MISMATCH: {a.subject} {a.predicate} {a.object!r} is {a.polarity} in "
                f"{a.chunk_id} and {b.polarity} in {b.chunk_id}")
    if version is None and a.version != b.version:
        return (f"VERSION_DISAGREEMENT: {a.subject} {a.predicate} is {a.object!r} in version {a.version} "
                f"and {b.object!r} in version {b.version}; no version was asked")
    return (f"VALUE_MISMATCH: {a.subject} {a.predicate} is {a.object!r} in {a.chunk_id} and {b.object!r} in "
            f"{b.chunk_id} (version {a.version})")


def detect_conflicts(facts: Iterable[Fact], vocabulary: Vocabulary,
                     version: str | None = None) -> list[tuple[Fact, Fact, str]]:
    """Minimal conflicting pairs (fact1, fact2, reason) among `facts` in the query context."""
    groups: dict[tuple[str, str, str, str], dict[str, list[Fact]]] = {}
    for fact in sorted({f.fact_id: f for f in facts}.values(), key=source_order):
        if version is not None and fact.version != version:
            continue
        answer = canonical_json([_normalised(fact, vocabulary), fact.polarity])
        groups.setdefault(conflict_key(fact, vocabulary), {}).setdefault(answer, []).append(fact)
    pairs: list[tuple[Fact, Fact, str]] = []
    for key in sorted(groups):
        answers = list(groups[key].values())
        first = answers[0][0]
        pairs.extend((first, other[0], _reason(first, other[0], version)) for other in answers[1:])
    return pairs
