"""§4.4 answer-time conflict detection over the candidate facts of a query.

Conflict key: (subject, predicate, qualifiers.condition), plus the object for multi-valued (relational)
predicates. Two facts of one key conflict when their (normalised object, polarity) differ; with a query
version only that version's facts take part. Choice: the minimal artifact pairs the first fact (source
order) of the first answer with the first fact of each other distinct answer — n answers, n-1 pairs.

Versions are compared in canonical form (`omega.answers.versions`): the query-version filter (§4.4 rule 1), and
whether a disagreement is across versions (rule 2, VERSION_DISAGREEMENT) or within one (VALUE_MISMATCH). Two
facts whose versions differ only in spelling are one version: the spelling alone never makes a conflict, and
never hides one (`v2.0` and `2.0` saying 15 and 30 minutes conflict when `2.0` is asked). Reasons show the
canonical version and, when it differs, the spelling as written.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from omega.answers.model import Fact
from omega.answers.store import source_order
from omega.answers.versions import shown_version, version_key
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
    if version is None and a.version_key != b.version_key:
        return (f"VERSION_DISAGREEMENT: {a.subject} {a.predicate} is {a.object!r} in version "
                f"{shown_version(a.version)} and {b.object!r} in version {shown_version(b.version)}; "
                "no version was asked")
    return (f"VALUE_MISMATCH: {a.subject} {a.predicate} is {a.object!r} in {a.chunk_id} and {b.object!r} in "
            f"{b.chunk_id} (version {_shared_version(a, b)})")


def _shared_version(a: Fact, b: Fact) -> str:
    """The one (canonical) version two facts share, with both spellings when they differ."""
    if a.version == b.version or a.version is None or b.version is None:
        return shown_version(a.version)
    return f"{a.version_key} (written {a.version!r} and {b.version!r})"


def detect_conflicts(facts: Iterable[Fact], vocabulary: Vocabulary,
                     version: str | None = None) -> list[tuple[Fact, Fact, str]]:
    """Minimal conflicting pairs (fact1, fact2, reason) among `facts` in the query context (`version` in
    any spelling; None: every version takes part)."""
    wanted = version_key(version)
    groups: dict[tuple[str, str, str, str], dict[str, list[Fact]]] = {}
    for fact in sorted({f.fact_id: f for f in facts}.values(), key=source_order):
        if wanted is not None and fact.version_key != wanted:
            continue
        answer = canonical_json([_normalised(fact, vocabulary), fact.polarity])
        groups.setdefault(conflict_key(fact, vocabulary), {}).setdefault(answer, []).append(fact)
    pairs: list[tuple[Fact, Fact, str]] = []
    for key in sorted(groups):
        answers = list(groups[key].values())
        first = answers[0][0]
        pairs.extend((first, other[0], _reason(first, other[0], version)) for other in answers[1:])
    return pairs
