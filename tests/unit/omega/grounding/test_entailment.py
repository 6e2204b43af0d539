"""§6.1 semantic entailment, decided deterministically: every claim-bearing token covered, polarity kept."""

from __future__ import annotations

import pytest

from omega.grounding.entailment import semantic_entailment
from omega.grounding.facts import AtomicFact
from omega.grounding.model import NOT_ENTAILED
from omega.grounding.tokens import analyse
from tests.unit.omega.grounding.support import DIZZY, DIZZY_PLACEBO, NO_STROKE, TRIAL, codes, fact, judge


def test_a_rephrasing_with_inflection_word_order_and_synonyms_is_entailed() -> None:
    verdict = judge("Over 24 weeks, systolic blood pressure of adults aged 65 or older was reduced by 12 mmHg with "
                    "drug A in a randomised controlled trial. [F1]", TRIAL)
    assert verdict.outcome == "PASS"
    assert verdict.rationale.startswith("entailed by F1")


def test_a_conjunction_of_two_facts_is_entailed_when_each_part_is() -> None:
    verdict = judge("Dizziness was reported by 8.4% of participants receiving drug A, compared with 3.1% of "
                    "participants receiving placebo. [F3][F4]", DIZZY, DIZZY_PLACEBO)
    assert verdict.outcome == "PASS"


def test_a_concessive_although_joins_two_facts_as_whereas_and_but_do() -> None:
    # "although" is a connective like "whereas", "but" and "however": it states no fact of its own (§5.1)
    for joined in ("although", "though", "whereas"):
        verdict = judge(f"Dizziness was reported by 8.4% of participants receiving drug A, {joined} it was reported "
                        f"by 3.1% of participants receiving placebo. [F3][F4]", DIZZY, DIZZY_PLACEBO)
        assert verdict.outcome == "PASS", joined


def test_a_token_no_cited_fact_states_is_not_entailed() -> None:
    coverage = semantic_entailment(analyse("Drug A lowered diastolic blood pressure."), [TRIAL], frozenset())
    assert coverage.uncovered == ("diastolic",)
    assert coverage.uncovered_failure is not None
    assert coverage.uncovered_failure.code == NOT_ENTAILED


def test_an_entity_swap_is_not_entailed() -> None:
    verdict = judge("Dizziness was reported by 8.4% of participants receiving drug B. [F3]", DIZZY)
    assert codes(verdict) == {NOT_ENTAILED}


def test_dropping_or_adding_a_negation_is_not_entailed() -> None:
    dropped = semantic_entailment(analyse("Drug A reduced the rate of stroke."), [NO_STROKE], frozenset())
    added = semantic_entailment(analyse("Dizziness was not reported."), [DIZZY], frozenset())
    assert dropped.polarity_failure is not None
    assert "drops the negation" in dropped.polarity_failure.reason
    assert added.polarity_failure is not None
    assert "negates" in added.polarity_failure.reason


def test_a_negation_only_in_a_qualifier_need_not_be_repeated_but_may_be_rested_on() -> None:
    peaks = fact("K5", "At Spring A, nitrate peaked each year in February or March, and the authors associated the "
                       "peaks with winter recharge.", {"hedge": "authors 'associated' (no causal test)"})
    kept = semantic_entailment(analyse("At Spring A, nitrate peaked each year in February or March, and the authors "
                                       "associated the peaks with winter recharge.", claim=True), [peaks], frozenset())
    assert kept.polarity_failure is None
    denied = semantic_entailment(analyse("The authors ran no causal test of the peaks.", claim=True), [peaks],
                                 frozenset())
    assert denied.polarity_failure is None


def test_one_or_two_uncovered_tokens_make_a_sentence_paraphrase_uncertain_but_many_do_not() -> None:
    near = semantic_entailment(analyse("Drug A knocked systolic blood pressure back by 12 mmHg in adults."),
                               [TRIAL], frozenset())
    far = semantic_entailment(analyse("Vitamin D supplements improved sleep quality in nurses."), [TRIAL], frozenset())
    assert near.paraphrase_uncertain
    assert not far.paraphrase_uncertain


@pytest.mark.parametrize(("claim", "stated", "uncertain"), [
    ("alpha bravo charlie delta echo", "alpha bravo charlie", True),         # 3 of 5 covered: 0.6, at the bound
    ("alpha bravo charlie delta foxtrot golf", "alpha bravo charlie delta", True),  # 4 of 6: 0.67
    ("alpha bravo delta echo", "alpha bravo", False),                       # 2 of 4: 0.5, below
    ("alpha delta echo", "alpha", False),                                   # 1 of 3: 0.33
    ("alpha bravo charlie delta echo foxtrot golf", "alpha bravo charlie delta", False),  # 3 uncovered: too many
    ("alpha bravo charlie delta echo foxtrot golf hotel india", "alpha bravo charlie delta echo foxtrot", False),
])
def test_paraphrase_uncertain_needs_at_most_two_uncovered_and_at_least_sixty_percent_covered(
        claim: str, stated: str, uncertain: bool) -> None:
    coverage = semantic_entailment(analyse(claim, claim=True), [fact("P1", stated)], frozenset())
    assert coverage.paraphrase_uncertain is uncertain


@pytest.mark.parametrize(("sentence", "cited", "expected"), [
    ("Drug A reduced the rate of stroke during follow-up. [F5]", NO_STROKE,
     (NOT_ENTAILED, "polarity: the sentence drops the negation of a cited fact",
      "a fact with the sentence's polarity, or the sentence restating the fact's", ("F5",))),
    ("Dizziness was not reported by 8.4% of participants receiving drug A. [F3]", DIZZY,
     (NOT_ENTAILED, "polarity: the sentence negates a claim the cited facts affirm",
      "a fact with the sentence's polarity, or the sentence restating the fact's", ("F3",))),
    ("Dizziness was reported by 8.4% of participants receiving aspirin. [F3]", DIZZY,
     (NOT_ENTAILED, "claim tokens not stated by the cited facts: 'aspirin'",
      "an Atomic Fact stating 'aspirin' in this context, cited inline", ("F3",))),
    # the entity letter is named as written, not as the analysis marks it ("entityb"): §7.1, the user is told why
    ("Dizziness was reported by 8.4% of participants receiving drug B. [F3]", DIZZY,
     (NOT_ENTAILED, "claim tokens not stated by the cited facts: 'B'",
      "an Atomic Fact stating 'B' in this context, cited inline", ("F3",))),
])
def test_an_entailment_failure_says_what_is_not_stated_and_what_would_state_it(
        sentence: str, cited: AtomicFact, expected: tuple[str, str, str, tuple[str, ...]]) -> None:
    assert [(f.code, f.reason, f.required_evidence, f.fact_ids) for f in judge(sentence, cited).failures] == [expected]
