"""§6.1 semantic entailment, decided deterministically: every claim-bearing token covered, polarity kept."""

from __future__ import annotations

from omega.grounding.entailment import semantic_entailment
from omega.grounding.model import NOT_ENTAILED
from omega.grounding.tokens import analyse
from tests.unit.omega.grounding.support import DIZZY, DIZZY_PLACEBO, NO_STROKE, TRIAL, codes, judge


def test_a_rephrasing_with_inflection_word_order_and_synonyms_is_entailed() -> None:
    verdict = judge("Over 24 weeks, systolic blood pressure of adults aged 65 or older was reduced by 12 mmHg with "
                    "drug A in a randomised controlled trial. [F1]", TRIAL)
    assert verdict.outcome == "PASS"
    assert verdict.rationale.startswith("entailed by F1")


def test_a_conjunction_of_two_facts_is_entailed_when_each_part_is() -> None:
    verdict = judge("Dizziness was reported by 8.4% of participants receiving drug A, compared with 3.1% of "
                    "participants receiving placebo. [F3][F4]", DIZZY, DIZZY_PLACEBO)
    assert verdict.outcome == "PASS"


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


def test_one_or_two_uncovered_tokens_make_a_sentence_paraphrase_uncertain_but_many_do_not() -> None:
    near = semantic_entailment(analyse("Drug A brought systolic blood pressure down by 12 mmHg in adults."),
                               [TRIAL], frozenset())
    far = semantic_entailment(analyse("Vitamin D supplements improved sleep quality in nurses."), [TRIAL], frozenset())
    assert near.paraphrase_uncertain
    assert not far.paraphrase_uncertain
