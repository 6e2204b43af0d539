"""§9 conflict policy: cited facts that conflict are never reconciled; the sentence is refused and the user
asked to choose an authoritative fact.

Two facts conflict when they make the same claim about the same thing and disagree: identical qualifiers,
the same claim tokens (direction words aside), and then opposite polarity, opposite direction (increase vs
decrease, higher vs lower) or different numbers with the same units. Facts about different populations,
settings or timeframes (different qualifiers), or that differ in any other word ("silicon-graphite anode" vs
"graphite anode"), do not conflict: the check is conservative, and a conflict worded differently by two
sources is not detected.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from omega.canonical import canonical_json
from omega.grounding.facts import AtomicFact
from omega.grounding.model import CONFLICTING_FACTS, Failure
from omega.grounding.tokens import lexicon

DIRECTIONS = (lexicon("increase higher more greater rise"), lexicon("decrease lower less fewer fall"))
_DIRECTION_WORDS = DIRECTIONS[0] | DIRECTIONS[1]


def conflict(a: AtomicFact, b: AtomicFact) -> str | None:
    """Why two facts conflict, or None."""
    if canonical_json(dict(a.qualifiers)) != canonical_json(dict(b.qualifiers)):
        return None
    ta, tb = a.analysis.tokens - _DIRECTION_WORDS, b.analysis.tokens - _DIRECTION_WORDS
    if not ta or ta != tb:
        return None
    if a.analysis.negated != b.analysis.negated:
        return "one affirms what the other negates"
    up_a, down_a = bool(a.analysis.tokens & DIRECTIONS[0]), bool(a.analysis.tokens & DIRECTIONS[1])
    up_b, down_b = bool(b.analysis.tokens & DIRECTIONS[0]), bool(b.analysis.tokens & DIRECTIONS[1])
    if (up_a and not down_a and down_b and not up_b) or (down_a and not up_a and up_b and not down_b):
        return "they report opposite directions"
    qa, qb = a.analysis.quantities, b.analysis.quantities
    if qa and qb and sorted(q.unit or "" for q in qa) == sorted(q.unit or "" for q in qb) \
            and sorted(q.value for q in qa) != sorted(q.value for q in qb):
        return "they report different numbers for the same measure"
    return None


def conflicting_facts(facts: Sequence[AtomicFact]) -> list[Failure]:
    """§9 refusal: one CONFLICTING_FACTS failure per conflicting pair of cited facts."""
    failures: list[Failure] = []
    for a, b in combinations(facts, 2):
        why = conflict(a, b)
        if why is not None:
            failures.append(Failure(
                CONFLICTING_FACTS, f"{a.id} and {b.id} conflict ({why}); the verifier does not resolve conflicts (§9)",
                f"the user choosing which of {a.id} and {b.id} is authoritative, then citing only that one",
                (a.id, b.id)))
    return failures
