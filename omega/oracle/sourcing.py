"""Fact sourcing (RULE-PREC-004) and the one derivation rule the oracles allow, DERIV-CONJ-001.

RULE-PREC-004 as published: a claim is sourced when its text is a substring of an input fact, or an input
fact is a substring of it (case-insensitive, whitespace-normalised, word boundaries; see `normalise`).

DERIV-CONJ-001, conjunction of input facts: a sentence is the conjunction of its clauses, split at a comma,
semicolon or colon (optionally followed by a connective) and at the connectives "and", "but", "while",
"whereas", "plus", "with", "as well as", "along with", "together with". The sentence is sourced when its
clauses can be grouped, in order, into runs each of which is sourced by one fact: the run is a substring
of the fact, or the run contains the fact and the fact reaches into its first and its last clause. So
"Humidity is 63% with dew point at 14C." is sourced by "Humidity is 63%." and "Dew point at 14C.", a
sentence equal to or inside a fact stays sourced, and a sentence that adds a clause beyond its facts
("... 350 degrees Celsius and radiation levels are critical") is not, although it contains a fact.

Polarity guard (part of both): a run that contains a fact must not add a negation word ("not 350 degrees"
adds "not"), and a run found inside a fact must not follow a negation word of that fact ("open" is not
sourced by "the valve is not open"). Without it a negated claim would be "sourced" by its own denial.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from omega.oracle.normalise import Segment, has_negation, is_negation, match_key, term_pattern, words

DERIVATION_RULE = "DERIV-CONJ-001"
_CONNECTIVES = re.compile(
    r"\s*[,;:]\s*(?:(?:and|but|while|whereas|plus|with)\s+)?"
    r"|\s+(?:and|but|while|whereas|plus|with|as well as|along with|together with)\s+"
)


@dataclass(frozen=True)
class Sourcing:
    """How one segment is sourced: by which facts (indices into the input facts), in how many runs."""

    segment: Segment
    sourced: bool
    facts: tuple[int, ...]
    runs: int
    literal: bool  # the seed's two-way substring test on the whole sentence, without the derivation

    @property
    def by_conjunction(self) -> bool:
        """Sourced only through DERIV-CONJ-001 (more than one run)."""
        return self.sourced and self.runs > 1


def fact_keys(facts: Sequence[str]) -> tuple[str, ...]:
    """The facts' match keys, index-aligned with the input facts (an empty fact sources nothing)."""
    return tuple(match_key(f) for f in facts)


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


def _inside(text: str, fact: str) -> bool:
    """`text` occurs in `fact`, not right after one of the fact's negation words."""
    pattern = term_pattern(text)
    if pattern is None:
        return False
    for found in pattern.finditer(fact):
        before = words(fact[:found.start()])
        if not (before and is_negation(before[-1])):
            return True
    return False


def _contains(key: str, fact: str, lo: int, first_end: int, last_start: int, hi: int) -> bool:
    """`fact` occurs in key[lo:hi], reaching into the first and the last clause, adding no negation."""
    pattern = term_pattern(fact)
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
    pattern = term_pattern(needle)
    return pattern is not None and pattern.search(haystack) is not None


def source_segment(segment: Segment, facts: Sequence[str]) -> Sourcing:
    """Source one segment against the facts' match keys: the fewest runs, earliest facts first."""
    key = segment.key
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
    cover = best[len(spans)]
    literal = literal_prec_004(key, facts)
    if cover is None:
        return Sourcing(segment, False, (), 0, literal)
    return Sourcing(segment, True, tuple(sorted(set(cover))), len(cover), literal)


def source_all(segments: Sequence[Segment], facts: Sequence[str]) -> list[Sourcing]:
    """Source every segment of an output."""
    return [source_segment(s, facts) for s in segments]
