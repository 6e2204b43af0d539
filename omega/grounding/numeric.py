"""The §6.1 item "numerical accuracy" (§5.2 numerical modification): every number of the sentence is a number
of its cited facts, with the same unit, not rounded, not computed.

The one documented derivation: the absolute difference of two quantities of the cited facts with the same
unit (a fall from 148 to 136 mmHg may be stated as "12 mmHg"). A sentence that uses it may name it with the
neutral words of `DERIVATION_WORDS` ("the difference ... was 170 mAh/g"); a direction word ("higher") must
still be stated by the facts. Nothing else is computed: no ratios, no
percent changes, no sums, no rounding ("12.4" is not "12"; "about 12" is not "12.4" either).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from omega.grounding.facts import AtomicFact
from omega.grounding.model import NUMERIC_MISMATCH, Failure
from omega.grounding.quantities import Quantity, same_quantity
from omega.grounding.tokens import Analysis, lexicon

DERIVATION_WORDS = lexicon("difference differences differ differed differs gap")
# The nouns that name a stated number ("the number of ponds was 19", "the proportion was 25%"): owned by this check
# when the sentence states a number (issue 42, §5.1 restating in academic prose).
QUANTITY_NOUNS = lexicon("number count total proportion percentage share fraction value values figure figures")


@dataclass(frozen=True, slots=True)
class NumericResult:
    """Failures, the numbers no cited fact states, and the derivations used."""

    failures: tuple[Failure, ...]
    unmatched: tuple[Quantity, ...]
    derivations: tuple[str, ...]


def numerical_accuracy(claim: Analysis, facts: Sequence[AtomicFact]) -> NumericResult:
    """§6.1 numerical accuracy: each sentence number stated by a cited fact, or their documented difference."""
    stated = [q for f in facts for q in f.analysis.quantities]
    ids = tuple(f.id for f in facts)
    failures: list[Failure] = []
    unmatched: list[Quantity] = []
    derivations: list[str] = []
    for quantity in claim.quantities:
        if any(same_quantity(quantity, s) for s in stated):
            continue
        derived = _difference(quantity, stated)
        if derived is not None:
            derivations.append(derived)
            continue
        unmatched.append(quantity)
        failures.append(Failure(NUMERIC_MISMATCH, f"'{quantity.show()}' is {_how(quantity, stated)}",
                                f"a cited fact stating '{quantity.show()}' exactly", ids))
    return NumericResult(tuple(failures), tuple(unmatched), tuple(derivations))


def _difference(quantity: Quantity, stated: list[Quantity]) -> str | None:
    for a, b in combinations(stated, 2):
        if a.unit is not None and a.unit == b.unit and quantity.unit in (None, a.unit) \
                and abs(a.value - b.value) == quantity.value:
            return f"{quantity.show()} = |{a.show()} - {b.show()}|"
    return None


def _how(quantity: Quantity, stated: list[Quantity]) -> str:
    """Why a number does not match: unit changed, rounded, or not stated at all."""
    if any(s.value == quantity.value for s in stated):
        units = sorted({s.unit or "no unit" for s in stated if s.value == quantity.value})
        return f"stated by the cited facts with another unit ({', '.join(units)})"
    for s in stated:
        if s.places > quantity.places and round(s.value, quantity.places) == quantity.value:
            return f"a rounding of '{s.show()}'"
    return "not stated by the cited facts (changed or computed)"
