"""§6.1 scope and strength fidelity: no causation from correlation, dropped hedge, intensifier, universal,
generic population or generalised sample."""

from __future__ import annotations

import pytest

from omega.grounding.facts import AtomicFact
from omega.grounding.model import CLAIM_STRENGTHENED, SCOPE_EXPANSION
from omega.grounding.scope import causal_cues, scope_and_strength_fidelity
from omega.grounding.tokens import analyse
from tests.unit.omega.grounding.support import DIZZY, HEDGED, TRIAL, codes, fact, judge

COHORT = fact("C", "In a prospective cohort of 25,310 women, coffee intake was associated with lower diabetes risk.")


def _codes(sentence: str, *facts: object) -> list[str]:
    return [f.code for f in scope_and_strength_fidelity(analyse(sentence), facts)]  # type: ignore[arg-type]


def test_a_faithful_hedged_correlational_sentence_passes() -> None:
    assert _codes("Greater reductions in blood pressure may be associated with higher adherence to drug A.",
                  HEDGED) == []


def test_adding_a_hedge_only_weakens_and_passes() -> None:
    assert _codes("Drug A may have lowered systolic blood pressure.", TRIAL) == []


def test_the_sample_is_kept_by_naming_it_or_stating_its_size() -> None:
    assert _codes("Among 25,310 women, coffee intake was associated with lower diabetes risk.", COHORT) == []
    assert _codes("In the cohort, coffee intake was associated with lower diabetes risk.", COHORT) == []


def test_correlation_stated_as_causation_is_strengthened() -> None:
    failures = scope_and_strength_fidelity(analyse("Higher adherence to drug A may cause greater reductions."),
                                           [HEDGED])
    assert [f.code for f in failures] == [CLAIM_STRENGTHENED]
    assert failures[0].reason.startswith("correlation stated as causation")


def test_a_causal_phrase_is_a_causal_cue() -> None:
    assert _codes("Higher adherence to drug A may lead to greater reductions.", HEDGED) == [CLAIM_STRENGTHENED]


def test_a_dropped_hedge_is_strengthened() -> None:
    assert _codes("Higher adherence to drug A is associated with greater reductions.", HEDGED) == [CLAIM_STRENGTHENED]


def test_an_intensifier_is_strengthened() -> None:
    assert _codes("Drug A dramatically lowered systolic blood pressure.", TRIAL) == [CLAIM_STRENGTHENED]


def test_a_universal_quantifier_is_scope_expansion() -> None:
    assert _codes("Drug A lowered systolic blood pressure in all adults.", TRIAL) == [SCOPE_EXPANSION]


SAMPLED = fact("K", "Three karst springs were sampled monthly from January 2019 to December 2021.")


@pytest.mark.parametrize("sentence", [
    "The three karst springs were sampled every month from January 2019 to December 2021.",
    "The springs were sampled every 4 weeks and every other day in winter.",
])
def test_every_before_a_time_unit_is_a_frequency_not_a_universal_quantifier(sentence: str) -> None:
    assert _codes(sentence, SAMPLED) == []


def test_every_before_anything_else_still_widens_the_scope() -> None:
    assert _codes("Every karst spring in Germany was sampled every month.", SAMPLED) == [SCOPE_EXPANSION]


def test_a_generic_population_is_scope_expansion() -> None:
    assert SCOPE_EXPANSION in _codes("Dizziness was reported by 8.4% of people receiving drug A.", DIZZY)


def test_a_sample_generalised_to_a_population_is_scope_expansion() -> None:
    assert _codes("In women, coffee intake was associated with lower diabetes risk.", COHORT) == [SCOPE_EXPANSION]


def test_a_count_other_than_the_sample_size_does_not_keep_the_sample() -> None:
    assert _codes("Among 2,000 women, coffee intake was associated with lower diabetes risk.", COHORT) == [
        SCOPE_EXPANSION]


def test_a_dropped_hedge_names_the_hedged_fact() -> None:
    [failure] = scope_and_strength_fidelity(
        analyse("Higher adherence to drug A is associated with greater reductions in blood pressure."), [HEDGED])
    assert (failure.code, failure.reason, failure.required_evidence, failure.fact_ids) == (
        CLAIM_STRENGTHENED, "the hedge of F6 is dropped",
        "the sentence keeping the facts' hedge, or a fact stating the claim without it", ("F6",))


@pytest.mark.parametrize(("text", "cue"), [
    ("Adherence led to lower pressure.", "lead to"), ("Adherence leads to lower pressure.", "lead to"),
    ("Adherence resulted in lower pressure.", "result in"), ("Adherence results in lower pressure.", "result in"),
    ("Adherence was responsible for lower pressure.", "responsible for"),
    ("Lower pressure was due to adherence.", "due to"),
])
def test_causal_phrases_are_one_cue_whatever_their_tense(text: str, cue: str) -> None:
    assert causal_cues(analyse(text)) == {cue}


@pytest.mark.parametrize(("sentence", "cited", "expected"), [
    ("Drug A dramatically lowered systolic blood pressure.", TRIAL, [
        (CLAIM_STRENGTHENED, "strengthened beyond the cited facts: 'dramatically'",
         "a cited fact stating the claim as 'dramatically'", ("F1",))]),
    ("Drug A lowered systolic blood pressure in all adults.", TRIAL, [
        (SCOPE_EXPANSION, "universal quantifier added: 'all'", "a cited fact stating the claim holds for 'all'",
         ("F1",))]),
    ("Only drug A lowered systolic blood pressure.", TRIAL, [
        (SCOPE_EXPANSION, "exclusive claim added: 'only'", "a cited fact stating that it holds 'only' for this",
         ("F1",))]),
    ("Dizziness was reported by 8.4% of people receiving drug A.", DIZZY, [
        (SCOPE_EXPANSION, "population generalised: 'people'",
         "a cited fact about 'people', not only the studied sample", ("F3",)),
        (SCOPE_EXPANSION, "the sample of F3 is generalised to a population",
         "the sentence naming the sample (participants, cohort, its size), or a fact about the population", ("F3",))]),
    ("Coffee intake caused lower diabetes risk in the cohort.", COHORT, [
        (CLAIM_STRENGTHENED, "correlation stated as causation: 'caused'",
         "a cited fact establishing the causal relation (e.g. from a randomised trial)", ("C",))]),
])
def test_each_scope_and_strength_failure_says_what_was_added_and_what_evidence_would_allow_it(
        sentence: str, cited: AtomicFact, expected: list[tuple[str, str, str, tuple[str, ...]]]) -> None:
    failures = scope_and_strength_fidelity(analyse(sentence), [cited])
    assert [(f.code, f.reason, f.required_evidence, f.fact_ids) for f in failures] == expected


def test_an_association_stated_as_an_effect_names_the_fact_and_what_would_let_it_pass() -> None:
    claim = analyse("Among 25,310 women, coffee intake lowered diabetes risk.")
    [failure] = scope_and_strength_fidelity(claim, [COHORT])
    assert failure.code == CLAIM_STRENGTHENED
    assert "the association of C is stated as an effect" in failure.reason
    assert failure.required_evidence == ("the sentence keeping the association ('was associated with'), or a fact "
                                         "stating the effect")
    assert failure.fact_ids == ("C",)


VAPING = fact("H1", "In the 2023 survey, 27.4% of respondents aged 18-24 reported daily vaping, and 9.1% reported "
                    "occasional vaping.", {"population": "respondents aged 18-24", "timeframe": "2023"})


def _scope_codes(text: str) -> list[str]:
    return [f.reason for f in scope_and_strength_fidelity(analyse(text, claim=True), [VAPING])
            if f.code == SCOPE_EXPANSION]


def test_a_number_stated_without_the_word_that_narrows_what_it_counts_widens_the_measure() -> None:
    # each clause narrows its own number: 27.4% is daily vaping's, 9.1% occasional vaping's
    [reason] = _scope_codes("In 2023, 27.4% of respondents aged 18-24 reported vaping.")
    assert reason.startswith("measure widened: H1 counts its number over what 'daily' narrows")
    [reason] = _scope_codes("In 2023, 9.1% of respondents aged 18-24 reported vaping.")
    assert "'occasional'" in reason
    assert _scope_codes("In 2023, 27.4% of respondents aged 18-24 reported daily vaping.") == []
    # without the number, dropping "daily" only generalises: the facts entail it
    assert _scope_codes("In 2023, respondents aged 18-24 reported vaping.") == []


def test_both_groups_where_the_fact_names_one_group_is_a_scope_expansion() -> None:
    within = fact("S40", "Within the tutored group, weekly reading time was correlated with the final test score "
                         "(r = 0.38).")
    widened = judge("Across both study groups, weekly reading time was correlated with the final test score "
                    "(r = 0.38). [S40]", within)
    assert codes(widened) == {SCOPE_EXPANSION}
    assert judge("Within the tutored group, weekly reading time was correlated with the final test score "
                 "(r = 0.38). [S40]", within).passed
    # a fact naming both arms may be summarised over both
    arms = fact("S41", "Headache was reported by 4% of the tutored group and 5% of the control group.")
    assert SCOPE_EXPANSION not in codes(judge("Headache was reported by 4% and 5% of the two groups, tutored and "
                                              "control, respectively. [S41]", arms))


def test_every_and_all_restate_a_facts_each() -> None:
    each = fact("S42", "Each pump failure was first flagged by the operator's monitoring team.")
    assert judge("Every pump failure was first flagged by the operator's monitoring team. [S42]", each).passed
    some = fact("S43", "Several pump failures were first flagged by the operator's monitoring team.")
    assert SCOPE_EXPANSION in codes(judge("Every pump failure was first flagged by the operator's monitoring team. "
                                          "[S43]", some))
