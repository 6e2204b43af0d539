"""Rank, order, frequency and proportion modifiers are content (issue 19, rule 3).

Rests on the contract's §5.2 "Strengthening claims" and "Scope expansion": "usually" dropped states always,
"second-largest" dropped states largest.

- Rank: an ordinal the cited fact puts before a superlative ("the second-largest city", "its third most popular
  song") may not be dropped: "largest" is not "second-largest" (NOT_ENTAILED). An ordinal or rank word of the
  sentence is an ordinary claim token, so a rank the facts do not state is reported by `semantic_entailment`.
- Frequency and proportion: a modifier ("usually", "mostly", "partly", "rarely", ...) a cited fact puts on words
  the sentence uses (the words after it up to the next comma: "largely | in the United Kingdom") may not be
  dropped by the sentence, as a dropped hedge may not (CLAIM_STRENGTHENED). The majority words (mostly, mainly,
  largely, primarily, predominantly, chiefly) are one
  group in the synonym table, so "mainly" keeps "mostly".
"""

from __future__ import annotations

from collections.abc import Sequence

from omega.grounding.facts import AtomicFact
from omega.grounding.model import CLAIM_STRENGTHENED, NOT_ENTAILED, Failure, quoted
from omega.grounding.tokens import Analysis


def rank_and_frequency(claim: Analysis, facts: Sequence[AtomicFact]) -> list[Failure]:
    """Rule 3: the facts' rank before a superlative, and their frequency or proportion modifier, kept."""
    failures: list[Failure] = []
    predicate = claim.tokens - claim.subject
    for fact in facts:
        analysis = fact.analysis
        for ordinal, superlative in sorted(analysis.ranks):
            if superlative in claim.tokens and ordinal not in claim.tokens:
                failures.append(Failure(
                    NOT_ENTAILED, f"rank dropped: {fact.id} states '{ordinal} {superlative}', the sentence "
                                  f"'{superlative}' alone",
                    f"the sentence keeping the rank '{ordinal}', or a fact stating '{superlative}' alone", (fact.id,)))
        dropped = {modifier for modifier, scope in analysis.modified
                   if modifier not in claim.tokens and (scope - analysis.subject) & predicate}
        if dropped:
            words = quoted(sorted(dropped))
            failures.append(Failure(
                CLAIM_STRENGTHENED, f"the frequency or proportion {words} of {fact.id} is dropped",
                f"the sentence keeping {words}, or a fact stating the claim without it", (fact.id,)))
    return failures
