"""Fact sourcing (RULE-PREC-004) and the two derivation rules the oracles allow, DERIV-CONJ-001 and
DERIV-CANON-001.

RULE-PREC-004 as published: a claim is sourced when its text is a substring of an input fact, or an input
fact is a substring of it (case-insensitive, whitespace-normalised, word boundaries; see `normalise`).

DERIV-CONJ-001, conjunction of input facts: a sentence is the conjunction of its clauses, split at a comma,
semicolon or colon (optionally followed by a connective; never a comma or colon between two digits, which is part
of a number such as "1,5" or a time such as "10:30": normalise's rule that a number's end must not touch a decimal
part, and `_NUMBER` reads "1,5" as one number) and at the connectives "and", "but", "while",
"whereas", "plus", "with", "as well as", "along with", "together with". The sentence is sourced when its
clauses can be grouped, in order, into runs each of which is sourced by one fact: the run is a substring
of the fact, or the run contains the fact and the fact reaches into its first and its last clause. So
"Humidity is 63% with dew point at 14C." is sourced by "Humidity is 63%." and "Dew point at 14C.", a
sentence equal to or inside a fact stays sourced, and a sentence that adds a clause beyond its facts
("... 350 degrees Celsius and radiation levels are critical") is not, although it contains a fact.

Polarity guard (part of both): a run that contains a fact must not add a negation word ("not 350 degrees"
adds "not"), and a run found inside a fact must not follow a negation word of that fact ("open" is not
sourced by "the valve is not open"). Without it a negated claim would be "sourced" by its own denial.

DERIV-CANON-001, canonical wording (`canonical_form`): when the match keys do not source a claim, the same
test (containment both ways, DERIV-CONJ-001, polarity guard) runs again on the canonical forms of the
claim and of every fact, which drop articles and forms of "be" and respell units through one table. It
only adds support, as a derivation rule does (seed, RULE-PREC-001 "Definition", item 2): a claim the
match keys source stays sourced, so no claim loses the support RULE-PREC-004 gives it as published. The
canonical form reads case (a capital "A" is kept as a label, a lower-case article "a" is dropped), so on
its own it would refuse a claim whose case differs from its fact's ("tank a" against "Tank A"), which the
case-insensitive match keys source. The price: a negation that only the canonical form brings next to a
claim is still missed, as before this rule ("centrifugal pump" is sourced by "the pump is not a
centrifugal pump", whose match key has "a" between the two). A claim sourced only on the canonical forms
is flagged (`Sourcing.canonical`), counted in RULE-PREC-004's metrics and traced with its canonical form
in the evidence, so the tolerance is never silent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from omega.oracle.canonical_form import canonical_form
from omega.oracle.normalise import Segment, has_negation, is_negation, match_key, normalise, term_pattern, words

DERIVATION_RULE = "DERIV-CONJ-001"
_CONNECTIVES = re.compile(
    r"\s*(?:;|(?<!\d)[,:]|[,:](?!\d))\s*(?:(?:and|but|while|whereas|plus|with)\s+)?"
    r"|\s+(?:and|but|while|whereas|plus|with|as well as|along with|together with)\s+"
)


@dataclass(frozen=True)
class Sourcing:
    """How one segment is sourced: by which facts (indices into the input facts), in how many runs."""

    segment: Segment
    sourced: bool
    facts: tuple[int, ...]
    runs: int
    literal: bool  # the seed's two-way substring test on the whole sentence, without the derivations
    canonical: bool  # sourced only on the canonical forms (DERIV-CANON-001): the match keys do not source it
    form: str  # the claim's canonical form

    @property
    def by_conjunction(self) -> bool:
        """Sourced only through DERIV-CONJ-001 (more than one run)."""
        return self.sourced and self.runs > 1


@dataclass(frozen=True)
class FactSet:
    """The input facts in the three forms sourcing reads, index-aligned (an empty fact sources nothing)."""

    texts: tuple[str, ...]  # normalised, case kept: what the canonical form is computed from
    keys: tuple[str, ...]  # match keys: RULE-PREC-004 as published
    forms: tuple[str, ...]  # canonical forms: DERIV-CANON-001


def fact_set(facts: Sequence[str]) -> FactSet:
    """The facts' normalised texts, match keys and canonical forms."""
    return FactSet(tuple(normalise(f) for f in facts), tuple(match_key(f) for f in facts),
                   tuple(canonical_form(f) for f in facts))


def clause_spans(key: str) -> list[tuple[int, int]]:
    """Character spans of the clauses of a match key (DERIV-CONJ-001)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for found in _CONNECTIVES.finditer(key):
        if found.start() > start:
            spans.append((start, found.start()))
        start = max(start, found.end())
    if start < len(key):
        spans.append((start, len(key)))
    return spans or [(0, len(key))]


@lru_cache(maxsize=8192)
def _term_key(term: str) -> str:
    return match_key(term)


def _pattern(term: str, haystack: str) -> re.Pattern[str] | None:
    """The term's word-boundary pattern (`term_pattern`), or None when it cannot occur in `haystack`: the
    term's match key is not even a plain substring of it. That condition is necessary for a match, and it is
    checked first because most runs tried are not sourced and compiling their patterns is the main cost."""
    return term_pattern(term) if _term_key(term) in haystack else None


def _inside(text: str, fact: str) -> bool:
    """`text` occurs in `fact`, not right after one of the fact's negation words."""
    pattern = _pattern(text, fact)
    if pattern is None:
        return False
    for found in pattern.finditer(fact):
        before = words(fact[:found.start()])
        if not (before and is_negation(before[-1])):
            return True
    return False


def _contains(key: str, fact: str, lo: int, first_end: int, last_start: int, hi: int) -> bool:
    """`fact` occurs in key[lo:hi], reaching into the first and the last clause, adding no negation."""
    pattern = _pattern(fact, key[lo:hi])
    if pattern is None:
        return False
    for found in pattern.finditer(key, lo, hi):
        if found.start() < first_end and found.end() > last_start:
            extra = key[lo:found.start()] + " " + key[found.end():hi]
            if not has_negation(extra):
                return True
    return False


def _run_source(key: str, spans: list[tuple[int, int]], i: int, j: int, facts: Sequence[str]) -> int | None:
    lo, hi = spans[i][0], spans[j][1]
    text = key[lo:hi]
    for index, fact in enumerate(facts):
        if fact and _inside(text, fact):
            return index
    for index, fact in enumerate(facts):
        if fact and _contains(key, fact, lo, spans[i][1], spans[j][0], hi):
            return index
    return None


def literal_prec_004(key: str, facts: Sequence[str]) -> bool:
    """The seed's test alone: the sentence is in a fact, or a fact is in the sentence."""
    return any(f and key and (_found(key, f) or _found(f, key)) for f in facts)


def _found(needle: str, haystack: str) -> bool:
    pattern = _pattern(needle, haystack)
    return pattern is not None and pattern.search(haystack) is not None


def _cover(key: str, facts: Sequence[str]) -> tuple[int, ...] | None:
    """The fewest runs (earliest facts first) sourcing the clauses of `key`, or None: two-way containment,
    DERIV-CONJ-001 and the polarity guard, on whichever form `key` and `facts` are both written in."""
    spans = clause_spans(key)
    best: list[tuple[int, ...] | None] = [None] * (len(spans) + 1)
    best[0] = ()
    for j in range(len(spans)):
        for i in range(j + 1):  # the longest run first: a sentence inside one fact is one run
            previous = best[i]
            if previous is None:
                continue
            found = _run_source(key, spans, i, j, facts)
            if found is not None:
                best[j + 1] = (*previous, found)
                break
    return best[len(spans)]


def source_segment(segment: Segment, facts: FactSet) -> Sourcing:
    """Source one segment: on the match keys, else on the canonical forms (DERIV-CANON-001)."""
    key = segment.key
    form = canonical_form(segment.text)
    literal = literal_prec_004(key, facts.keys)
    cover = _cover(key, facts.keys)
    canonical = False
    if cover is None and (form != key or facts.forms != facts.keys):
        cover = _cover(form, facts.forms)
        canonical = cover is not None
    if cover is None:
        return Sourcing(segment, False, (), 0, literal, False, form)
    return Sourcing(segment, True, tuple(sorted(set(cover))), len(cover), literal, canonical, form)


def source_all(segments: Sequence[Segment], facts: FactSet) -> list[Sourcing]:
    """Source every segment of an output."""
    return [source_segment(s, facts) for s in segments]
