"""Clause-local relation binding (issue 19, rule 1): the words must be stated together, not only somewhere.

A bag of tokens over a whole fact lets "directed by Q" pass against "directed by P, written by Q": every word
is there, bound to another relation. So each clause of the sentence (see `words.clauses`) must have its
predicate and arguments, words and numbers, stated inside one clause of a cited fact. What may come from
anywhere in the fact:
- the sentence's subject (the words before its first predicate word), so an active/passive swap ("P released X"
  / "X ... was released by P") still passes;
- the fact's own subject (and any fronted adverbial: "In 1986, O'Neal married ..."), which every clause of the
  sentence predicates of, and its qualifiers, which qualify every clause.
A sentence citing several facts may take one clause from each (a conjunction of two facts is allowed, §6.1);
within one fact, the clause must be one.

Rests on the contract's §5.1 "Combining multiple Atomic Facts only if the resulting sentence is strictly
entailed" and §5.2 "Hallucination or inference": words of two relations joined in one claim are an inference.
Reported once, as NOT_ENTAILED, and only when every word is stated somewhere (an unstated word is reported by
`semantic_entailment`, a changed number by `numerical_accuracy`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

from omega.grounding.facts import AtomicFact
from omega.grounding.model import NOT_ENTAILED, Failure, quoted
from omega.grounding.names import name_partners
from omega.grounding.quantities import Quantity, same_quantity
from omega.grounding.tokens import Analysis, Clause

MAX_COMBINATIONS = 4096  # clause choices across cited facts; beyond it the facts' union is used (lenient)


def clause_local_binding(claim: Analysis, facts: Sequence[AtomicFact], owned: frozenset[str],
                         partners: dict[str, frozenset[str]] | None = None) -> Failure | None:
    """Rule 1: every clause of the sentence stated inside one clause of each cited fact it draws on."""
    if not facts:
        return None
    if partners is None:
        partners = name_partners(claim, facts)
    options = [[_Option(f.analysis, c, partners) for c in f.analysis.clauses] or [_Option(f.analysis, None, partners)]
               for f in facts]
    for clause in claim.clauses:
        words = clause.tokens - claim.subject - owned
        if not words <= frozenset().union(*(o.tokens for fact in options for o in fact)):
            continue  # `semantic_entailment` reports the unstated word
        numbers = [q for q in clause.quantities if _stated(q, options)  # a derived number is not bound
                   and not any(same_quantity(q, s) for s in claim.subject_quantities)]
        if not words and not numbers:
            continue
        best = _bound(words, numbers, options)
        if best is not None:
            apart = sorted(words - best[0])
            numbers_apart = [q for q in numbers if not any(same_quantity(q, s) for s in best[1])]
            what = claim.spoken(apart) + [q.show() for q in numbers_apart]
            together = claim.spoken(sorted(words & best[0]))
            return Failure(
                NOT_ENTAILED,
                f"bound to another relation: {quoted(what)} stated by the cited facts, but not in the clause that "
                f"states {quoted(together) if together else 'the rest of the sentence'}",
                f"an Atomic Fact stating {quoted(what)} in the same clause as the rest of the claim, cited inline",
                tuple(f.id for f in facts))
    return None


class _Option:
    """One clause of a fact, with what the whole fact lends to every clause (subject, qualifiers)."""

    __slots__ = ("numbers", "tokens")

    def __init__(self, fact: Analysis, clause: Clause | None, partners: dict[str, frozenset[str]]) -> None:
        own = (clause.tokens | clause.places if clause is not None else fact.tokens | fact.places) \
            | fact.subject | fact.context
        self.tokens = own | {t for t, p in partners.items() if p <= own}
        self.numbers = (clause.quantities if clause is not None else fact.quantities) + fact.subject_quantities


def _stated(quantity: Quantity, options: list[list[_Option]]) -> bool:
    return any(same_quantity(quantity, s) for fact in options for o in fact for s in o.numbers)


def _bound(words: frozenset[str], numbers: list[Quantity],
           options: list[list[_Option]]) -> tuple[frozenset[str], tuple[Quantity, ...]] | None:
    """None when one clause per fact states them all; else the best single clause (most words stated)."""
    count = 1
    for fact in options:
        count *= len(fact)
    if count > MAX_COMBINATIONS:
        return None
    best: tuple[int, frozenset[str], tuple[Quantity, ...]] | None = None
    for choice in product(*options):
        tokens = frozenset().union(*(o.tokens for o in choice))
        stated = tuple(s for o in choice for s in o.numbers)
        missing = len(words - tokens) + sum(1 for q in numbers if not any(same_quantity(q, s) for s in stated))
        if missing == 0:
            return None
        if best is None or missing < best[0]:
            best = (missing, tokens, stated)
    assert best is not None
    return best[1], best[2]


def copula_binding(claim: Analysis, facts: Sequence[AtomicFact], owned: frozenset[str]) -> Failure | None:
    """Rule 1 for "S is a N": N must be what a cited fact says its subject is, not a word bound elsewhere ("a city
    in Yavapai County" does not state "is a county"). Only lower-case words are held to it (a name or demonym in
    the sentence's description is an argument, bound by `clause_local_binding`), and only against facts that
    say what something is."""
    said = frozenset().union(*(f.analysis.nominal for f in facts)) if facts else frozenset()
    if not said:
        return None
    apart = sorted(claim.nominal - owned - said)
    if not apart:
        return None
    what = quoted(claim.spoken(apart))
    return Failure(NOT_ENTAILED,
                   f"bound to another relation: the sentence says its subject is {what}; the cited facts state "
                   f"{what} but say it is {quoted(sorted(said))}",
                   f"an Atomic Fact stating that the subject is {what}, cited inline", tuple(f.id for f in facts))
