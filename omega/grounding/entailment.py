"""The §6.1 item "semantic entailment", decided deterministically.

A sentence is entailed by its cited facts when every claim-bearing token of its claim is covered by the
union of those facts' tokens (content and qualifier text, after `tokens.normal`), and its polarity matches:
a negation in the sentence needs a negated cited fact, and a cited fact whose content is negated needs a negated
sentence. A negation only in a fact's qualifiers ("hedge: authors 'associated' (no causal test)", "population:
baseline (no mesh)") says how the claim was obtained or what a group is called, not that the claim is denied: a
sentence need not repeat it (blind half 6), though a negated sentence may rest on it.

Function words bear no claim (`tokens.FUNCTION_WORDS`), among them the connectives "whereas", "however" and
"although": a contrast between two stated facts states no third one.

Tokens owned by another check (qualifier terms, scope and strength words, units, numbers) are left to that
check, so each defect is reported once, under its own code. A sentence whose only defect is one or two
uncovered tokens, with most of its tokens covered, is marked paraphrase-uncertain: the only case an optional
semantic judge may be asked about (see `judge`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from omega.grounding.facts import AtomicFact
from omega.grounding.model import NOT_ENTAILED, Failure, quoted
from omega.grounding.names import name_partners, stated_by_name
from omega.grounding.tokens import Analysis

UNCERTAIN_MAX_UNCOVERED = 2
UNCERTAIN_MIN_COVERED = 0.6


@dataclass(frozen=True, slots=True)
class Coverage:
    """What entailment found: uncovered tokens, polarity, and whether a judge may be consulted."""

    uncovered_failure: Failure | None
    polarity_failure: Failure | None
    uncovered: tuple[str, ...]
    checked: int
    paraphrase_uncertain: bool

    @property
    def failures(self) -> tuple[Failure, ...]:
        """Both kinds of entailment failure, tokens first."""
        return tuple(f for f in (self.uncovered_failure, self.polarity_failure) if f is not None)


def semantic_entailment(claim: Analysis, facts: Sequence[AtomicFact], owned: frozenset[str],
                        partners: dict[str, frozenset[str]] | None = None) -> Coverage:
    """§6.1 semantic entailment: every claim-bearing token covered by the cited facts (a name also through its
    partners, `names.name_partners`), polarity preserved."""
    ids = tuple(f.id for f in facts)
    stated = frozenset().union(*(f.analysis.tokens | f.analysis.places for f in facts)) if facts else frozenset()
    if partners is None:
        partners = name_partners(claim, facts)
    covered_by = stated | stated_by_name(partners, stated)
    checked = [t for t in dict.fromkeys(claim.content) if t not in owned]
    uncovered = tuple(t for t in checked if t not in covered_by)
    token_failure = None
    if uncovered:
        token_failure = Failure(
            NOT_ENTAILED, f"claim tokens not stated by the cited facts: {quoted(claim.spoken(uncovered))}",
            f"an Atomic Fact stating {quoted(claim.spoken(uncovered))} in this context, cited inline", ids)
    polarity_ok = any(f.analysis.negated for f in facts) if claim.negated \
        else not any(c.negated for f in facts for c in f.analysis.clauses)
    polarity_failure = None
    if facts and not polarity_ok:
        what = "negates a claim the cited facts affirm" if claim.negated else "drops the negation of a cited fact"
        polarity_failure = Failure(NOT_ENTAILED, f"polarity: the sentence {what}",
                                   "a fact with the sentence's polarity, or the sentence restating the fact's", ids)
    share = (len(checked) - len(uncovered)) / len(checked) if checked else 0.0
    uncertain = polarity_ok and 0 < len(uncovered) <= UNCERTAIN_MAX_UNCOVERED and share >= UNCERTAIN_MIN_COVERED
    return Coverage(token_failure, polarity_failure, uncovered, len(checked), uncertain)
