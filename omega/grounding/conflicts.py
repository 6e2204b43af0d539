"""§9 conflict policy and G-5: facts that conflict are never reconciled by the verifier.

- Citing two conflicting facts: refused, the user asked to choose an authoritative fact, unless the sentence
  presents both with explicit attribution (§9 "MAY present both with explicit attribution"): it states each
  fact's own value and says they come from different sources ("in one source ... in another", "according to",
  "estimates differ") or puts each fact's citation beside its value ("19 [A] and 17 [B]"), or names each fact's
  source by a word of its document id the other's lacks, in the order of their values ("85 L/s in the monitoring
  report and 112 L/s in the state hydrological yearbook" for `pdf:karst-spring-nitrate-monitoring-report` and
  `pdf:state-hydrological-yearbook-2021`; blind half 6): sources named the other way round are no attribution.
- Citing one of two conflicting facts that the paragraph allows, and stating its value: refused too (issue 42,
  item 2). G-5 "If required evidence is ... conflicting, the system SHALL refuse"; §9 "SHALL NOT resolve the
  conflict automatically": adopting one side silently resolves it. The failure names both facts.

Two facts conflict when they make the same claim about the same thing and disagree: identical qualifiers,
the same claim tokens (direction words aside; a short source phrase before a reporting verb aside: "the national
registry recorded 1,240 cases" and "a surveillance report recorded 1,310 cases" report one measure), and then
opposite polarity, opposite direction (increase vs decrease, higher vs lower) or different numbers with the same
units. Facts about different populations,
settings or timeframes (different qualifiers), or that differ in any other word ("silicon-graphite anode" vs
"graphite anode") or in a number that names rather than measures ("Orrery 5.0" / "Orrery 4.8", "in 2021" / "in
2022": two things, each with its value; beside a `units` qualifier, a number in another unit, "at 60 °C" / "at 80
°C": two conditions, as for differently worded sources below), do not conflict.
Two sources word one measure differently (blind half 7: "fitting an Arrhenius model to capacity fade | of the same
cells | at 25 °C and 45 °C gave ... 31 kJ/mol" in an article, 38 kJ/mol in a symposium abstract): facts from
different documents also conflict when their `units` qualifier is the same, their other qualifiers say the same
(function words aside; a `method` may differ or be missing: how each source obtained its value), at least
`REWORDED_SHARE` of their words are shared, every number outside that unit is the same in both (the conditions: "at
25 °C", "220 kg N/ha"; a condition that differs, "stress level 0.75" / 0.85, makes two measures) and their numbers in
that unit differ. Facts of one document are one source's account: they are left to the strict reading.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import Decimal
from itertools import combinations

from omega.canonical import canonical_json
from omega.grounding.citations import CITATION
from omega.grounding.facts import AtomicFact, qualifier_text
from omega.grounding.memo import ByObject
from omega.grounding.model import CONFLICTING_FACTS, Failure
from omega.grounding.quantities import quantity_spans, unit_named
from omega.grounding.tokens import Analysis, analyse, lexicon

DIRECTIONS = (lexicon("increase higher more greater rise"), lexicon("decrease lower less fewer fall"))
_DIRECTION_WORDS = DIRECTIONS[0] | DIRECTIONS[1]


def conflict(a: AtomicFact, b: AtomicFact) -> str | None:
    """Why two facts conflict, or None."""
    if _qualifiers(a) != _qualifiers(b):
        return _reworded(a, b)
    ta, tb = _reported(a) - _DIRECTION_WORDS, _reported(b) - _DIRECTION_WORDS
    if not ta or ta != tb:
        return _reworded(a, b)
    if a.analysis.negated != b.analysis.negated:
        return "one affirms what the other negates"
    up_a, down_a = bool(a.analysis.tokens & DIRECTIONS[0]), bool(a.analysis.tokens & DIRECTIONS[1])
    up_b, down_b = bool(b.analysis.tokens & DIRECTIONS[0]), bool(b.analysis.tokens & DIRECTIONS[1])
    if (up_a and not down_a and down_b and not up_b) or (down_a and not up_a and up_b and not down_b):
        return "they report opposite directions"
    if _identity_numbers(a) != _identity_numbers(b):
        return None  # "Orrery 5.0" and "Orrery 4.8", "in 2021" and "in 2022": two things, not two values of one
    written = _units(a)
    if written is not None and written == _units(b) and (unit := unit_named(written)) is not None \
            and all(any(q.unit == unit for q in f.analysis.quantities) for f in (a, b)) \
            and _conditions(a, unit) != _conditions(b, unit):
        return None  # "at 60 °C" / "at 80 °C" beside a % each: two conditions, each with its value
    qa, qb = a.analysis.quantities, b.analysis.quantities
    if qa and qb and sorted(q.unit or "" for q in qa) == sorted(q.unit or "" for q in qb) \
            and sorted(q.value for q in qa) != sorted(q.value for q in qb):
        return "they report different numbers for the same measure"
    return _reworded(a, b)


REWORDED_SHARE = 0.7


def _reworded(a: AtomicFact, b: AtomicFact) -> str | None:
    """Two documents' differently worded accounts of one measure with different values (see the module docstring)."""
    if a.source_span.document_id == b.source_span.document_id:
        return None
    written = _units(a)
    if written is None or written != _units(b) or _scope(a) != _scope(b):
        return None
    unit = unit_named(written)  # None for a unit the table does not know ("kJ/mol"): then the bare numbers
    words_a, words_b = _words(a), _words(b)
    if len(words_a & words_b) < REWORDED_SHARE * len(words_a | words_b):
        return None
    conditions_a, conditions_b = _conditions(a, unit), _conditions(b, unit)
    values_a = sorted(q.value for q in a.analysis.quantities if q.unit == unit)
    values_b = sorted(q.value for q in b.analysis.quantities if q.unit == unit)
    if conditions_a != conditions_b or not values_a or not values_b or values_a == values_b:
        return None
    return "two sources report different numbers for the same measure"


def _conditions(fact: AtomicFact, unit: str | None) -> list[tuple[str, Decimal]]:
    """The fact's numbers outside the unit it measures in: the conditions its value holds under."""
    return sorted((q.unit or "", q.value) for q in fact.analysis.quantities if q.unit != unit)


def _units_of(fact: AtomicFact) -> str | None:
    written = next((qualifier_text(v) for k, v in fact.qualifiers.items() if k.lower() in ("units", "unit")), None)
    return None if written is None else " ".join(written.casefold().split())


_BRACKETED = re.compile(r"\([^()]*\)")


def _scope_of(fact: AtomicFact) -> frozenset[tuple[str, frozenset[str]]]:
    """The qualifiers other than the method and the units, as words (function words aside)."""
    return frozenset((k.lower(), analyse(qualifier_text(v)).tokens) for k, v in fact.qualifiers.items()
                     if k.lower() not in ("method", "units", "unit"))


_units: ByObject[AtomicFact, str | None] = ByObject(_units_of)
_scope: ByObject[AtomicFact, frozenset[tuple[str, frozenset[str]]]] = ByObject(_scope_of)
_words: ByObject[AtomicFact, frozenset[str]] = ByObject(
    # a bracket defines or elaborates ("(crop N uptake in fertilised minus unfertilised plots ...)"): not the claim
    lambda fact: frozenset(t for t in analyse(_BRACKETED.sub(" ", fact.content)).tokens if not t[:1].isdigit()))


# "The national registry recorded 1,240 cases" and "a surveillance report recorded 1,310 cases": two sources of one
# measure. What a fact reports is what follows its reporting verb when a short source phrase opens it.
_REPORTING = re.compile(r"^\W*(?:[\w-]+\s+){1,4}?(?:recorded|reported|estimated|counted|documented|registered|"
                        r"logged|found|gave|put)\s+(?P<reported>.+)$", re.IGNORECASE | re.DOTALL)


def _reported_tokens(fact: AtomicFact) -> frozenset[str]:
    match = _REPORTING.match(fact.content)
    if match is None:
        return fact.analysis.tokens
    return analyse(match.group("reported"), [qualifier_text(v) for v in fact.qualifiers.values()]).tokens


_reported: ByObject[AtomicFact, frozenset[str]] = ByObject(_reported_tokens)


# A number that names rather than measures: after a name ("Orrery 5.0", "Phase 3") or a naming word, or a year
# after a preposition ("in 2021").
_IDENTITY = re.compile(r"(?:\b[A-Z][\w-]*|\b(?:version|release|v|phase|wave|round|cycle))\s+(\d+(?:\.\d+)*)\b"
                       r"|\b(?:in|since|during|until|by|from|to|of)\s+((?:18|19|20)\d\d)\b")


# once per fact: `conflict` compares every cited fact with every allowed one, sentence after sentence
_identity_numbers: ByObject[AtomicFact, frozenset[str]] = ByObject(
    lambda fact: frozenset(m.group(1) or m.group(2) for m in _IDENTITY.finditer(fact.content)))


# a fact's qualifiers as canonical JSON, once per fact: every sentence compares a cited fact with every allowed one
_qualifiers: ByObject[AtomicFact, str] = ByObject(lambda fact: canonical_json(dict(fact.qualifiers)))


# Attribution to sources: phrases removed from a sentence that presents both conflicting facts, and the words
# such a sentence may use of the sources without either fact stating them.
ATTRIBUTION = re.compile(
    r"\b(?:(?:in|by|from|according to)\s+)?(?:one|another|the other|a second|a different|the first|the second|"
    r"two|both|the two)\s+(?:source|report|study|estimate|analysis|document|record|dataset|survey|publication)s?\b"
    r"|\baccording to\b|\b(?:as )?reported by\b"
    r"|\b(?:in |with )?(?:one|the other|another)\b(?=\s+(?:giving|reporting|stating|putting|and|[.,;]|$))"
    r"|\b(?:in |with )?(?:one|the other|another)\s*(?=[.,;]|$)", re.IGNORECASE)
ATTRIBUTION_WORDS = lexicon("""source sources estimate estimates estimated differ differs differed disagree disagrees
    vary varies conflict conflicting inconsistent publish published give given giving put putting record recorded
    report reported reporting respectively different value values state stating paper papers notebook notes
    spreadsheet yearbook document dataset database register registry logbook article""")


def conflicting_facts(facts: Sequence[AtomicFact], presented: frozenset[tuple[str, str]] = frozenset()
                      ) -> list[Failure]:
    """§9 refusal: one CONFLICTING_FACTS failure per conflicting pair of cited facts, except the pairs the sentence
    presents with attribution (`presented`)."""
    failures: list[Failure] = []
    for a, b in combinations(facts, 2):
        why = conflict(a, b)
        if why is not None and (a.id, b.id) not in presented:
            failures.append(Failure(
                CONFLICTING_FACTS, f"conflict: {a.id} and {b.id} conflict ({why}); the verifier does not resolve "
                f"conflicts (§9)",
                f"the user choosing which of {a.id} and {b.id} is authoritative, then citing only that one; or the "
                f"sentence presenting both values, each attributed to its source", (a.id, b.id)))
    return failures


def presented_with_attribution(text: str, claim: Analysis, facts: Sequence[AtomicFact]) -> frozenset[tuple[str, str]]:
    """The conflicting pairs of cited facts the sentence presents both of, with attribution: each fact's own
    numbers (or, without numbers, both directions) stated, and an attribution phrase or a citation beside a value
    before the sentence ends."""
    out: set[tuple[str, str]] = set()
    for a, b in combinations(facts, 2):
        if conflict(a, b) is None or not (_own_values_stated(claim, a, b) and _own_values_stated(claim, b, a)):
            continue
        citations = [m.start() for i in (a.id, b.id) for m in re.finditer(re.escape(f"[{i}]"), text)]
        # a marker's own digits ("[A9]") are not values: only a citation before a value stated after it is beside one
        blanked = CITATION.sub(_blank, text)
        numbers = [m.start() for m in re.finditer(r"\d", blanked)]
        beside = bool(citations and numbers) and min(citations) < max(numbers)
        if beside or ATTRIBUTION.search(text) or _sources_named_in_order(blanked.lower(), a, b):
            out.add((a.id, b.id))
    return frozenset(out)


def source_words(fact: AtomicFact) -> frozenset[str]:
    """The words naming a fact's source document: its document id after the scheme, split at its separators
    ("pdf:state-hydrological-yearbook-2021" -> state, hydrological, yearbook); letters only, three or more."""
    name = fact.source_span.document_id.rpartition(":")[2].lower()
    return frozenset(w for w in re.split(r"[^a-z]+", name) if len(w) > 2)


def named_sources(facts: Sequence[AtomicFact]) -> frozenset[str]:
    """The tokens of the cited facts' source names: what names a source is attribution, not a claim."""
    return lexicon(" ".join(sorted(frozenset().union(*(source_words(f) for f in facts)))))


def _sources_named_in_order(lowered: str, a: AtomicFact, b: AtomicFact) -> bool:
    """Each fact's source named by a word the other's lacks (and neither fact states), the first-stated value's
    source first."""
    values = (_first_at(lowered, _own_values(a, b)), _first_at(lowered, _own_values(b, a)))
    # a document word the facts themselves say ("karst-spring-..." for a fact about Spring C) names no source
    said = frozenset(re.findall(r"[a-z]+", f"{a.statement} {b.statement}".lower()))
    names = (_first_word_at(lowered, source_words(a) - source_words(b) - said),
             _first_word_at(lowered, source_words(b) - source_words(a) - said))
    if values[0] is None or values[1] is None or names[0] is None or names[1] is None:
        return False
    return (values[0] < values[1]) == (names[0] < names[1])


def _first_at(lowered: str, values: set[Decimal]) -> int | None:
    """Where the first of `values` is written in the text (read as the facts' numbers are), None if none is."""
    return min((start for start, _end, q in quantity_spans(lowered) if q.value in values), default=None)


def _first_word_at(lowered: str, words: frozenset[str]) -> int | None:
    spots = [m.start() for w in words for m in re.finditer(rf"\b{re.escape(w)}\b", lowered)]
    return min(spots, default=None)


def _blank(marker: re.Match[str]) -> str:
    """A citation marker as spaces of its length (positions in the text kept)."""
    return " " * len(marker.group(0))


def _own_values(fact: AtomicFact, other: AtomicFact) -> set[Decimal]:
    """The numbers one of two conflicting facts states and the other does not."""
    return {q.value for q in fact.analysis.quantities} - {q.value for q in other.analysis.quantities}


def _own_values_stated(claim: Analysis, fact: AtomicFact, other: AtomicFact) -> bool:
    mine = _own_values(fact, other)
    if mine:
        return mine <= {q.value for q in claim.quantities}
    return bool(fact.analysis.tokens & _DIRECTION_WORDS & claim.tokens) or fact.analysis.negated == claim.negated


def adopted_conflicts(claim: Analysis, cited: Sequence[AtomicFact], allowed: Mapping[str, AtomicFact]
                      ) -> list[Failure]:
    """G-5 / §9: the sentence states the value of a cited fact that an allowed, uncited fact contradicts."""
    ids = {f.id for f in cited}
    failures: list[Failure] = []
    for fact in cited:
        for other_id in sorted(allowed):
            other = allowed[other_id]
            why = None if other_id in ids else conflict(fact, other)
            if why is None or not _adopts(claim, fact, other):
                continue
            failures.append(Failure(
                CONFLICTING_FACTS,
                f"conflict: the sentence adopts {fact.id}, but {other_id}, also allowed here, conflicts with it "
                f"({why}); the verifier does not resolve conflicts (§9, G-5)",
                f"the user choosing which of {fact.id} and {other_id} is authoritative, or the sentence presenting "
                f"both values with their sources, citing [{fact.id}][{other_id}]", (fact.id, other_id)))
    return failures


def _adopts(claim: Analysis, fact: AtomicFact, other: AtomicFact) -> bool:
    """The claim states what this fact says and the other does not: a value of its own, its direction, its
    polarity."""
    mine = _own_values(fact, other)
    if mine:
        return bool(mine & {q.value for q in claim.quantities})
    return True
