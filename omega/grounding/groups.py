"""Values bound to their groups (issue 42: "a value moved to another group"): a number keeps the arm, site, year
or material the fact states it for.

A fact that gives one measure for several groups ("12.4 g/dL in the intravenous arm and 11.5 g/dL in the oral
arm", "from 23% in 2021 to 9% in 2022") is read as value/group pairs: each measured number (in the unit of
the fact's `units` qualifier, or its clause's most frequent unit; a year, an age, a version or a count is a
group's name) with the words of its group, the words after it when the fact attaches groups after its numbers ("23% |
in 2021"), else the words before it back to the previous number ("for the control membrane | 98.2%"; an "of"
right before the number introduces the value, and with no preposition the subject before the verb names the
group: "Heron 1.5 | sustained a throughput of | 7,300"; a preposition before the verb is the subject's group, one
after it the predicate's: "respondents in Norway | rated trust in parliament at | 6.8"), or, with nothing before
it, the words after it ("compared with 46.1 minutes | among pupils in control schools"; a rate per a named thing,
"18 MB per | Linkerd proxy", and a share in words, "one in four | rural households", name their group after them
too); "of" after a unit other
than % opens the measure ("52.4 minutes per day | of physical activity"), not a group. The sentence's numbers are
read the same way. A sentence number fails when its group words are distinctive of
another value's group in the fact and of none of its own: "11.5 g/dL in the intravenous arm" moves the oral
arm's value (§5.2 "Numerical modification", G-4 "alter scope"). A fact whose clauses each give one value
("41% of nurses in rural hospitals reported burnout, compared with 33% of nurses in urban hospitals") is read
whole; a group named after its number ends where the predicate starts ("| reported burnout"), and a plain number
(a year) next to a moved value does not hold it in place. A decimal without a unit is a score of its group
("recall was 0.91 on the validation set and 0.84 on the test set"), except beside measured numbers, where it
names (Orrery 4.8). A fact whose clauses give one measure different values is read clause by clause too
(`omega.grounding.clause_values`). A sentence's number in another unit than the facts' measures ("with 5 mg", "at
60 °C") is part of its group's name (`omega.grounding.group_names`); a negation ("without caching") moved to another
group fails whatever else the sentence shares with its own, and so does a sentence that names another group's word
(a dose, a time point) and leaves out one of its own group's (a fact's second group elides what its first says:
"2.4 GB for the new allocator compared with 3.1 for the old one"); what follows a fact's last group past as many
phrases as its other groups have is the whole fact's context ("... 9,100 for Heron 2.0 | under the batch
workload"); a sentence that names no word of its value's group among others states the value without it (G-4),
and a word names a group also in the fact's form of it ("confidence interval" for the fact's "95% CI").

Two cited facts that each give one value in the same unit and differ only in a short group name (`across_facts`:
"12.4 g/dL in the intravenous arm" / "11.5 g/dL in the oral arm") are read as one measure for two groups too (§5.1
"Combining multiple Atomic Facts only if the resulting sentence is strictly entailed"): the comparison they decide
is entailed, and a value moved from one to the other fails. A number in another unit than the measured one names a
group there ("cells cycled at 25 °C | 86.2%" / "at 45 °C | 78.5%", blind half 7), and a sentence's numbers are read
in the units the facts' `units` qualifiers name, so "at 45 °C" is the name of its value's group. A comparison across
two facts stands only when each side names everything its fact says and the other does not ("systolic ... in arm A"
and "diastolic ... in arm B" are two measures, not one compared).

Values listed "respectively" are read one to one with the names listed before them (`group_names.respectively`:
"sensitivity and specificity were 92% and 81%, respectively" gives 92% to sensitivity): §5.2's moved value is the
same whether a fact names each group beside its value or lists them in order.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from decimal import Decimal
from functools import lru_cache
from itertools import combinations

from omega.grounding.facts import AtomicFact, qualifier_text
from omega.grounding.group_names import (
    ATTACHING,
    PLAIN_NUMBER,
    UNIT_WORDS,
    follows,
    from_last_preposition,
    fronted,
    group_tokens,
    quantity_name,
    respectively,
    set_side_by_side,
    up_to_verb,
)
from omega.grounding.memo import ByObject
from omega.grounding.model import NOT_ENTAILED, Failure, quoted
from omega.grounding.quantities import UNITS, Quantity, plain_year, quantity_spans, unit_named, without_intervals
from omega.grounding.tokens import marked_text
from omega.grounding.words import clauses, words

GROUP_WORDS = 3


_FROM_END = re.compile(r"\bfrom\s*$")


def value_groups(text: str, claim: bool = False, unit: str | None = None, measures: frozenset[str] = frozenset(),
                 only: frozenset[str] = frozenset()) -> list[list[tuple[Decimal, frozenset[str]]]]:
    """Per clause, each measured number with the tokens of the group it is stated for. A fact's measure is the
    unit its `units` qualifier names (`unit`, or a word of it the unit table does not know: `measures`, "6.1
    deaths per 1,000 person-years"), else its clause's most frequent unit, stated twice or more; a sentence's
    numbers with a unit are all read, or those in the units `only` names (the facts' measures: "9.4 mmHg with |
    5 mg": a dose, a time point or a temperature in another unit is part of a group's name)."""
    return [pairs for _measure, pairs in _read_groups(text, claim, unit, measures, only)]


def measures_read(text: str, unit: str | None, measures: frozenset[str]) -> frozenset[str]:
    """The measures a fact's clauses give two values or more of (`value_groups`)."""
    return frozenset(m for m, _pairs in _read_groups(text, False, unit, measures, frozenset()) if m is not None)


@lru_cache(maxsize=256)
def _read_groups(text: str, claim: bool, unit: str | None, measures: frozenset[str], only: frozenset[str]
                 ) -> tuple[tuple[str | None, list[tuple[Decimal, frozenset[str]]]], ...]:
    out: list[tuple[str | None, list[tuple[Decimal, frozenset[str]]]]] = []
    marked = without_intervals(marked_text(text))
    pieces = clauses(marked)
    for clause in pieces + ([marked] if not claim and len(pieces) > 1 else []):
        if clause is marked and out:
            break  # a fact's groups within one clause; across its clauses only when no clause has two
        lowered = clause.lower()
        spans = _elided_units([(start, end, _measure(q, lowered, end, measures))
                               for start, end, q in quantity_spans(lowered)], lowered)
        if any(m not in (None, "decimal") for _s, _e, (_q, m) in spans):  # beside measured numbers, a bare
            spans = [(a, b, (q, None if m == "decimal" else m)) for a, b, (q, m) in spans]  # decimal names (4.8)
        units = Counter(m for _s, _e, (_q, m) in spans if m is not None)
        measure = unit if unit is not None and units[unit] > 1 else (units.most_common(1)[0][0] if units else None)
        found = [(start, end, q) for start, end, (q, m) in spans if m is not None
                 and ((m in only or not only) if claim else (m == measure and units[m] > 1))]
        if len(found) < (1 if claim else 2):
            continue
        side_by_side = set_side_by_side(clause, found) or respectively(clause, found)
        if side_by_side is not None:
            out.append((measure, side_by_side))
            continue
        fact_follows = follows(clause, found[0][1], measures)
        opening = _opening_group(clause, found, claim)
        pairs: list[tuple[Decimal, frozenset[str]]] = []
        afters = [up_to_verb(clause[end:found[i + 1][0] if i + 1 < len(found) else len(clause)], after_number=True)
                  for i, (_start, end, _q) in enumerate(found)]
        if not claim and fact_follows:
            afters[-1] = _without_trailing_context(afters)
        for i, (start, end, quantity) in enumerate(found):
            # a fact names its groups one way throughout; a sentence's numbers are read one by one
            after = afters[i]
            if follows(clause, end, measures) if claim else fact_follows:
                group = group_tokens(after, measures)
                if claim and len(found) == 1:
                    # a sentence's one value: its subject names the group too ("Heron 2.0 reached 7,300 | under ...")
                    group |= group_tokens(from_last_preposition(clause[:start]), measures)
            else:
                # "A did 52.4, compared with 46.1 | among B": a number with nothing before it is named after it
                # a count before it names no group ("9 of 198 (4.5%) | in the vaccine arm")
                # "the rate fell | from 12.4% to 8.1%": what comes before a change names its measure, not a group
                segment = clause[found[i - 1][1] if i else 0:start]
                before = frozenset() if _FROM_END.search(segment) else group_tokens(from_last_preposition(segment),
                                                                                     measures)
                group = before if _names(before) or not follows(clause, end, measures) \
                    else before | group_tokens(after, measures)
            pairs.append((quantity.value, group))
        if opening and (claim or not _names(pairs[0][1]) & frozenset().union(*(g for _v, g in pairs[1:]))):
            # a fact's first group already named beside the others ("version 4 ... 2,400 in version 3") leaves the
            # fronted phrase ("In the benchmark,") the whole fact's context
            pairs[0] = (pairs[0][0], pairs[0][1] | opening)
        out.append((measure, pairs))
    return tuple(out)


# the phrases a group named after its number opens: its prepositions other than "of", and "without"
_PHRASE = re.compile(r"\b(?:" + "|".join(sorted((ATTACHING - {"of"}) | {"without"})) + r")\b", re.IGNORECASE)


def _without_trailing_context(afters: list[str]) -> str:
    """The last group named after its number, less the phrases past as many as the other groups have: what follows
    the last group ("... and 9,100 for Heron 2.0 | under the batch workload") is the whole fact's context."""
    most = max(len(_PHRASE.findall(a)) for a in afters[:-1])
    extra = list(_PHRASE.finditer(afters[-1]))
    return afters[-1] if len(extra) <= most or most == 0 else afters[-1][:extra[most].start()]


def _opening_group(clause: str, found: list[tuple[int, int, Quantity]], claim: bool) -> frozenset[str]:
    """The group a clause's fronted phrase names for its first number: a sentence's always ("With the old parser,
    the error rate was 1.9%"); a fact's, when no group follows the number, if a later group opens with the same
    preposition ("Among women, ... 31%, and among men it was 38%"): otherwise the phrase sets the whole fact's
    context."""
    opening = fronted(clause)
    if opening is None or found[0][0] < len(opening[1]):
        return frozenset()
    preposition, phrase = opening
    parallel = len(found) > 1 and re.search(rf"\b{preposition}\b", clause[found[0][1]:], re.IGNORECASE)
    return group_tokens(phrase) if claim or (parallel and not follows(clause, found[0][1], frozenset())) \
        else frozenset()


_ELIDED = re.compile(r"\b(?:from|against|versus|vs\.?|compared with)\s*$")


def _elided_units(spans: list[tuple[int, int, tuple[Quantity, str | None]]], lowered: str
                  ) -> list[tuple[int, int, tuple[Quantity, str | None]]]:
    """A number after "from", "against", "versus" or "compared with" without a unit of its own takes the measure of
    the measured number before it in its clause ("3,100 files per second, up from 2,400 in version 3"); a year
    ("up from 2019") stays a name."""
    out = []
    last: str | None = None
    for i, (start, end, (quantity, written)) in enumerate(spans):
        year = plain_year(quantity)
        # a count given with its own measured share ("compared with 9 of 198 (4.5%)") is no elided value
        counted = any(m not in (None, "decimal") and a - end < 24 for a, _b, (_q, m) in spans[i + 1:i + 3])
        elided = written in (None, "decimal") and last is not None and not year and not counted \
            and _ELIDED.search(lowered, 0, start)
        measure = last if elided else written
        out.append((start, end, (quantity, measure)))
        last = measure if measure not in (None, "decimal") else last
    return out


def _measure(quantity: Quantity, lowered: str, end: int, measures: frozenset[str]) -> tuple[Quantity, str | None]:
    """The quantity and what it measures: its unit, a measure word right after it ("deaths"), or, for a decimal
    without either, a score ("recall was 0.91 on the validation set and 0.84 on the test set")."""
    if quantity.unit is not None:
        return quantity, quantity.unit
    after = words(lowered[end:end + 40])
    # the measure word follows the number itself: "3.2 (39,500 transactions" names a version, not transactions
    word = after[0].lower.removesuffix("s") if after and not lowered[end:end + after[0].start].strip(" -") else ""
    if word and word in measures:
        return quantity, f"measure:{word}"
    return quantity, ("decimal" if quantity.places > 0 else None)


def _measure_words(fact: AtomicFact) -> frozenset[str]:
    text = next((qualifier_text(v) for k, v in fact.qualifiers.items() if k.lower() in ("units", "unit")), "")
    # the first word when the units open with it ("deaths per 1,000"), not the "of" of "% of households"
    return frozenset(w.lower.removesuffix("s") for w in words(text.strip())[:1] if w.lower not in UNITS and not w.start)


def _unit_of(fact: AtomicFact) -> str | None:
    """The unit a fact's `units` qualifier names, in the unit table's canonical form."""
    written = next((qualifier_text(v) for k, v in fact.qualifiers.items() if k.lower() in ("units", "unit")), None)
    return None if written is None else unit_named(written)


def values_in_their_groups(claim_text: str, facts: Sequence[AtomicFact],
                           partners: Mapping[str, frozenset[str]] | None = None) -> list[Failure]:
    """Each sentence number stated for the group a cited fact gives another value for; a word of the sentence names
    a group also through the fact's form of it (`names.name_partners`: "confidence interval" for "CI")."""
    measures = _measures(facts)
    fact_clauses = fact_value_groups(facts, measures)
    if not fact_clauses:
        return []
    failures: list[Failure] = []
    only = frozenset().union(*(measures_read(f.content, _unit_of(f), measures) for f in facts)) \
        | {u for f in facts if (u := _unit_of(f)) is not None}
    said: frozenset[str] | None = None  # the sentence's words, read once when a value's group is asked for
    for pairs in value_groups(claim_text, claim=True, measures=measures, only=only):
        for value, group in pairs:
            for fact_pairs in fact_clauses:
                own = [g for v, g in fact_pairs if v == value]
                others = [g for v, g in fact_pairs if v != value]
                if not own or not others:
                    continue
                mine = frozenset().union(*own) - frozenset().union(*others)
                theirs = frozenset().union(*others) - frozenset().union(*own)
                moved = group & theirs
                # a plain number (a year) the fact attaches to its last group is often the whole fact's context; a
                # negation names its group whatever else the sentence shares, and so does a word of its own group
                # the sentence leaves out for another's (what a fact's second group elides, "for the new allocator
                # ... for the old one", is shared)
                if moved and (not _names(group & mine) or _names(mine - group) or "not" in moved):
                    failures.append(Failure(
                        NOT_ENTAILED,
                        f"value moved to another group: {value} is stated for {_named(moved, theirs)}, but the cited "
                        f"facts give {value} for {_named(mine, theirs)}",
                        f"an Atomic Fact stating {value} for {_named(moved, theirs)}, cited inline",
                        tuple(f.id for f in facts)))
                    break
                named = frozenset(t for t in mine if not t[:1].isdigit()) or mine
                if not moved and named and said is None:
                    said = group_tokens(claim_text, measures)
                    said |= frozenset().union(*((partners or {}).get(t, frozenset()) for t in said))
                if not moved and named and said is not None and not named & said:
                    # the sentence names none of the words of the group its fact gives the value for, among others
                    # (G-4); a group named only by numbers ("in 2022", "at 6 months") by none of its numbers
                    failures.append(Failure(
                        NOT_ENTAILED,
                        f"value stated without its group: the cited facts give {value} for {_named(mine, theirs)} "
                        f"and other values for other groups", f"the sentence naming {_named(mine, theirs)} beside "
                        f"{value}, or an Atomic Fact stating {value} for every group", tuple(f.id for f in facts)))
                    break
    return failures


def _names(tokens: frozenset[str]) -> frozenset[str]:
    """The tokens that name a group on their own: words and numbers with a unit, not a plain number (a year)."""
    return frozenset(t for t in tokens if not t[:1].isdigit() or " " in t)


def _named(group: frozenset[str], theirs: frozenset[str]) -> str:
    """A group's distinctive words for a reason, its negation said in words."""
    named = quoted(sorted(group - {"not"}))
    if "not" in group:
        return f"{named}, negated" if group - {"not"} else "the negated group"
    return named if group else "the group without the negation" if "not" in theirs else "its own group"


def _measures(facts: Sequence[AtomicFact]) -> frozenset[str]:
    return frozenset().union(*(_measure_words(f) for f in facts))


def fact_value_groups(facts: Sequence[AtomicFact], measures: frozenset[str]
                      ) -> list[list[tuple[Decimal, frozenset[str]]]]:
    """The cited facts' clauses that give one measure for two groups or more, then the cited facts that each give
    one value of a shared measure (`across_facts`)."""
    return _within_facts(facts, measures) + across_facts(facts)


def _within_facts(facts: Sequence[AtomicFact], measures: frozenset[str]) -> list[list[tuple[Decimal, frozenset[str]]]]:
    return [pairs for f in facts for pairs in _fact_groups(f, measures) if len(pairs) > 1]


def _fact_groups(fact: AtomicFact, measures: frozenset[str]) -> list[list[tuple[Decimal, frozenset[str]]]]:
    """`value_groups` of a fact, once per fact and measures (those of the facts cited with it: one or two sets)."""
    by_measures = _groups_by_measures(fact)
    groups = by_measures.get(measures)
    if groups is None:
        groups = by_measures[measures] = value_groups(fact.content, unit=_unit_of(fact), measures=measures)
    return groups


# the text-keyed cache of value_groups holds about a paragraph: a fact read again after other sentences is not in it
_groups_by_measures: ByObject[AtomicFact, dict[frozenset[str], list[list[tuple[Decimal, frozenset[str]]]]]] = \
    ByObject(lambda _fact: {})


def across_facts(facts: Sequence[AtomicFact]) -> list[list[tuple[Decimal, frozenset[str]]]]:
    """Pairs of cited facts that each give one value in the same unit, the two values different, and say the same
    thing but for the group ("12.4 g/dL in the intravenous arm" / "11.5 g/dL in the oral arm"): one measure for two
    groups, each named by what its fact says and the other does not (qualifiers, unitless numbers, "Orrery 5.0", and
    numbers in other units, "at 45 °C", included). A group's name is short (`GROUP_WORDS` at most): facts that
    differ in more say different things ("pauses made up half of p99 latency" / "p99 latency fell by a quarter")."""
    singles: list[tuple[str, Decimal, frozenset[str]]] = []
    for fact in facts:
        units = Counter(q.unit for q in fact.analysis.quantities if q.unit is not None)
        singles += [(q.unit, q.value, _whole_fact(fact) | _other_units(fact, q.unit)) for q in fact.analysis.quantities
                    if q.unit is not None and units[q.unit] == 1]
    out = []
    for (unit, va, ga), (other, vb, gb) in combinations(singles, 2):
        if unit == other and va != vb and ga != gb and len(ga - gb) <= GROUP_WORDS and len(gb - ga) <= GROUP_WORDS \
                and (ga & gb) - UNIT_WORDS:
            out.append([(va, ga), (vb, gb)])
    return out


def _other_units(fact: AtomicFact, unit: str) -> frozenset[str]:
    """The fact's numbers in other units than `unit`, each a group's name ("cells cycled at 45 °C")."""
    return frozenset(name for other, name in _unit_names(fact) if other != unit)


_unit_names: ByObject[AtomicFact, tuple[tuple[str, str], ...]] = ByObject(
    lambda fact: tuple((q.unit, quantity_name(q)) for q in fact.analysis.quantities if q.unit is not None))


def _whole_fact_words(fact: AtomicFact) -> frozenset[str]:
    measured = {q.value for q in fact.analysis.quantities if q.unit is not None}
    plain = {raw for m in PLAIN_NUMBER.finditer(fact.content)
             if Decimal(raw := m.group(0).replace(",", "")) not in measured}
    return fact.analysis.tokens | fact.analysis.context | frozenset(plain)


# once per fact: every sentence citing it asks again (compared_values and values_in_their_groups both read them)
_whole_fact: ByObject[AtomicFact, frozenset[str]] = ByObject(_whole_fact_words)


def compared_values(first: frozenset[str], second: frozenset[str], facts: Sequence[AtomicFact]
                    ) -> tuple[Decimal, Decimal] | None:
    """The values the cited facts give the two sides of a comparison: each side must name words distinctive of one
    group of a fact clause (and no other group's), the two groups different. None when the facts do not say."""
    within = _within_facts(facts, _measures(facts))
    for pairs in within + across_facts(facts):
        own = [g - frozenset().union(*(h for j, (_v, h) in enumerate(pairs) if j != i))
               for i, (_v, g) in enumerate(pairs)]
        # words both sides share ("pupils in A" / "pupils in B") distinguish neither
        a, b = _named_by(first - second, own), _named_by(second - first, own)
        if len(a) == 1 and len(b) == 1 and a != b:
            (va, ga), (vb, gb) = pairs[a[0]], pairs[b[0]]
            # two facts compared: each side names all its fact says that the other does not ("systolic ... in arm
            # A" against "diastolic ... in arm B" is no comparison of one measure)
            if pairs not in within and not (ga - gb <= first and gb - ga <= second):
                continue
            return va, vb
    return None


def _named_by(side: frozenset[str], own: list[frozenset[str]]) -> list[int]:
    """The groups whose distinctive words the side names, when it names no other group's."""
    return [i for i, mine in enumerate(own) if mine & side and not any(o & side for j, o in enumerate(own) if j != i)]
