"""Values moved between a fact's clauses (issue 42: "a value moved to another group", §5.2 "Numerical
modification"): a fact whose clauses give one measure different values is read clause by clause. A value stated with
the name another clause gives its value ("emissions fell by 12% in the EU, while they rose by 5% in the US": "12% in
the US"), or with that clause's direction ("rose by 12%"), moved. `omega.grounding.groups` reads the groups within
one clause. A breakdown in brackets ("4,800 households (2,900 urban and 1,900 rural)") gives each count to the word
after it: a sentence giving one of its counts to another of its words moved it (`breakdown_moved`). So does a list
of numbers with or without units, each followed by what it is for ("164 were fitted with Norvik gearboxes and 144
with Teramec gearboxes", "61 on the ICU, 18 on the medical ward and 12 on the surgical ward"): a sentence that lists
two of them again, each with the words that follow the other and none of its own, exchanged them (`listed_moved`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from functools import lru_cache
from itertools import combinations

from omega.grounding.facts import AtomicFact
from omega.grounding.memo import ByObject
from omega.grounding.model import NOT_ENTAILED, Failure, quoted
from omega.grounding.numeric import DOWN, UP
from omega.grounding.quantities import plain_year, quantity_spans
from omega.grounding.tokens import FUNCTION_WORDS, marked_text, normal
from omega.grounding.words import clauses, words


@lru_cache(maxsize=512)
def _clause_profiles(text: str) -> tuple[tuple[frozenset[tuple[Decimal, str]], frozenset[str], str | None], ...]:
    """Per clause of a text: its measured values (value, unit; a decimal without a unit as "decimal"), its names
    (capitalised words past the first) and its direction (up, down or None)."""
    out = []
    for clause in clauses(marked_text(text)):
        lowered = clause.lower()
        values = frozenset((q.value, q.unit or "decimal") for _s, _e, q in quantity_spans(lowered)
                           if q.unit is not None or q.places > 0)
        named = frozenset(w.lower for w in words(clause)[1:] if w.capitalised)
        tokens = frozenset(normal(w.lower) for w in words(clause))
        up, down = bool(tokens & UP), bool(tokens & DOWN)
        out.append((values, named, "up" if up and not down else "down" if down and not up else None))
    return tuple(out)


def _profiles_of(fact: AtomicFact) -> tuple[tuple[frozenset[tuple[Decimal, str]], frozenset[str], str | None], ...]:
    return _clause_profiles(fact.content)


_fact_profiles = ByObject(_profiles_of)  # once per fact: the text-keyed cache holds about a paragraph


def moved_between_clauses(claim_text: str, facts: Sequence[AtomicFact]) -> list[Failure]:
    """A value one clause of a fact gives, stated with the name or the direction of another clause that gives the
    same measure another value ("emissions fell by 12% in the EU, while they rose by 5% in the US": "12% in the
    US", "rose by 12%")."""
    claim = _clause_profiles(claim_text)
    stated = [v for values, _n, _d in claim for v in values]
    names = frozenset().union(*(n for _v, n, _d in claim)) if claim else frozenset()
    directions = {d for _v, _n, d in claim if d is not None}
    if len(stated) != 1:
        return []  # one value, read with the whole sentence's names and direction
    value, unit = stated[0]
    for fact in facts:
        profiles = _fact_profiles(fact)
        own = [p for p in profiles if (value, unit) in p[0]]
        others = [p for p in profiles if any(u == unit and v != value for v, u in p[0]) and (value, unit) not in p[0]]
        if len(own) != 1 or not others:
            continue
        mine, theirs = own[0][1], frozenset().union(*(n for _v, n, _d in others))
        moved = names & (theirs - mine)
        why = None
        if moved and not names & (mine - theirs):
            why = f"{value} is stated for {quoted(sorted(moved))}, but {fact.id} gives {value} for " \
                  f"{quoted(sorted(mine - theirs))}"
        elif len(directions) == 1 and own[0][2] not in (None, *directions) \
                and any(d in directions for _v, _n, d in others):
            why = f"{value} goes {own[0][2]} in {fact.id}; the sentence gives it the direction of another value"
        if why is not None:
            return [Failure(NOT_ENTAILED, f"value moved to another group: {why}",
                            f"an Atomic Fact stating {value} as the sentence does, cited inline", (fact.id,))]
    return []


_BRACKETED = re.compile(r"\(([^()]*)\)")
_COUNT_LABEL = re.compile(r"(?<![\w.,])(\d[\d,]*(?:\.\d+)?%?)\s+([a-z][a-z-]+)")


def _pairs(text: str) -> list[tuple[Decimal, str]]:
    return [(Decimal(n.rstrip("%").replace(",", "")), normal(label)) for n, label in _COUNT_LABEL.findall(text)]


def _breakdowns_of(fact: AtomicFact) -> tuple[dict[str, Decimal], ...]:
    out = []
    for inner in _BRACKETED.findall(fact.content.lower()):
        pairs = {label: value for value, label in _pairs(inner)}
        if len(pairs) > 1 and len(set(pairs.values())) == len(pairs):
            out.append(pairs)
    return tuple(out)


_breakdowns = ByObject(_breakdowns_of)


def breakdown_moved(claim_text: str, facts: Sequence[AtomicFact]) -> list[Failure]:
    """A count of a fact's bracketed breakdown given to another of its words ("(2,900 rural and 1,900 urban)" where
    the fact has 2,900 urban and 1,900 rural)."""
    for value, label in _pairs(claim_text.lower()):
        for fact in facts:
            for breakdown in _breakdowns(fact):
                own = next((name for name, v in breakdown.items() if v == value), None)
                if label in breakdown and breakdown[label] != value and own is not None:
                    return [Failure(NOT_ENTAILED, f"value moved to another group: {value:,} is stated for '{label}', "
                                    f"but {fact.id} gives {value:,} for '{own}' and {breakdown[label]:,} for '{label}'",
                                    f"an Atomic Fact stating {value:,} for '{label}', cited inline", (fact.id,))]
    return []


def _listed(text: str) -> dict[Decimal, tuple[str, frozenset[str]]]:
    """Each number of a text (not a year, not in brackets, not part of a name such as "GX-3") with the word before it
    and the words after it up to the next number."""
    lowered = _BRACKETED.sub(lambda m: " " * len(m.group(0)), text.lower())
    spans = [(a, b, q.value) for a, b, q in quantity_spans(lowered)
             if (a == 0 or not (lowered[a - 1].isalnum() or lowered[a - 1] == "-"))
             and not plain_year(q)]
    out: dict[Decimal, tuple[str, frozenset[str]]] = {}
    for i, (a, b, value) in enumerate(spans):
        after = lowered[b:spans[i + 1][0] if i + 1 < len(spans) else len(lowered)]
        before = words(lowered[max(0, a - 30):a])
        out.setdefault(value, (before[-1].lower if before else "", frozenset(
            normal(w.lower) for w in words(after) if w.lower not in FUNCTION_WORDS)))
    return out


def _listed_of(fact: AtomicFact) -> dict[Decimal, tuple[str, frozenset[str]]]:
    return _listed(marked_text(fact.content))


_fact_lists = ByObject(_listed_of)


def listed_moved(claim_text: str, facts: Sequence[AtomicFact]) -> list[Failure]:
    """Two numbers of a fact's list restated each with the words that follow the other and none of its own (the
    values exchanged: one number read with the wrong words is often only another word order, two crossed are not)."""
    if len(quantity_spans(claim_text.lower())) < 2:
        return []
    said = _listed(marked_text(claim_text))
    claim = {v: words_after for v, (_before, words_after) in said.items()}
    for fact in facts:
        stated = _fact_lists(fact)
        listed = {v: words_after for v, (_before, words_after) in stated.items()}
        # a number after the same word in both ("release 4") is a name, which any word order keeps
        shared = [v for v in claim if v in listed and not (said[v][0] == stated[v][0] and said[v][0].isalpha()
                                                           and said[v][0] not in FUNCTION_WORDS)]
        for a, b in combinations(shared, 2):
            own_a, own_b = listed[a] - listed[b], listed[b] - listed[a]
            if claim[a] & own_b and claim[b] & own_a and not claim[a] & own_a and not claim[b] & own_b:
                return [Failure(NOT_ENTAILED, f"values exchanged: the sentence gives {a:,} for "
                                f"{quoted(sorted(claim[a] & own_b))} and {b:,} for {quoted(sorted(claim[b] & own_a))}; "
                                f"{fact.id} gives {b:,} and {a:,} for them",
                                f"an Atomic Fact stating {a:,} for {quoted(sorted(claim[a] & own_b))}, cited inline",
                                (fact.id,))]
    return []
