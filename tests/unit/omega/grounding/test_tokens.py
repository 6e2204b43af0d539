"""Allowed rephrasing: inflection, word order, function words and the documented synonym table; nothing else."""

from __future__ import annotations

import pytest

from omega.grounding.tokens import SYNONYM_GROUPS, analyse, lemma, normal
from tests.unit.omega.grounding.support import fact, judge


@pytest.mark.parametrize(("a", "b"), [("reduced", "reduces"), ("reduce", "reducing"), ("studies", "study"),
                                      ("bumblebees", "bumblebee"), ("classes", "class"), ("stopped", "stop"),
                                      ("children", "child"), ("fell", "fall")])
def test_inflected_forms_share_a_lemma(a: str, b: str) -> None:
    assert lemma(a) == lemma(b)


@pytest.mark.parametrize(("a", "b"), [("increase", "decrease"), ("higher", "lower"), ("diastolic", "systolic")])
def test_different_words_keep_different_lemmas(a: str, b: str) -> None:
    assert normal(a) != normal(b)


def test_every_word_of_a_synonym_group_normalises_to_its_first_word() -> None:
    for group in SYNONYM_GROUPS:
        assert {normal(w) for w in group} == {normal(group[0])}, group
    assert normal("lowered") == normal("reduced") == normal("decreased")
    assert normal("correlated") == normal("associated")


def test_non_synonyms_stay_apart() -> None:
    assert normal("caused") != normal("associated")
    assert normal("participants") != normal("patients")


def test_function_words_and_reporting_verbs_carry_no_claim_and_word_order_does_not_matter() -> None:
    a = analyse("The study found that drug A lowered blood pressure.")
    b = analyse("Blood pressure was lowered by drug A.")
    assert a.tokens == b.tokens


def test_a_capital_letter_after_a_word_is_an_entity_not_the_article() -> None:
    assert analyse("drug A").tokens != analyse("drug B").tokens
    assert "a" not in analyse("A trial of drug B.").tokens


def test_negations_are_polarity_not_tokens() -> None:
    assert analyse("Drug A did not reduce stroke.").negated
    assert analyse("Drug A didn't reduce stroke.").negated
    assert not analyse("Drug A reduced stroke.").negated


@pytest.mark.parametrize("text", ["Lena Park has yet to win a medal.", "The council failed to approve it.",
                                  "She was unable to attend.", "He refused to be a model.", "It lacks a licence.",
                                  "He never won.", "She no longer works there.", "He turned down the offer.",
                                  "She declined to model for them."])
def test_negation_by_idiom_and_predicate_is_polarity(text: str) -> None:
    analysis = analyse(text)
    assert analysis.negated
    assert not analysis.tokens & {"fail", "unabl", "refus", "lack", "yet", "turn", "declin"}


def test_may_the_month_and_appeared_in_are_no_hedges_a_modal_under_negation_is_none_either() -> None:
    from omega.grounding.scope import HEDGES
    assert not analyse("She was born in May 1970.").tokens & HEDGES
    assert not analyse("Kutcher appeared in two films.").tokens & HEDGES
    assert not analyse("The drug could not lower it.").tokens & HEDGES
    assert analyse("The drug may lower it.").tokens & HEDGES
    assert analyse("The drug appears to lower it.").tokens & HEDGES


def test_a_fact_frequency_modifier_reaches_up_to_the_next_comma_only() -> None:
    assert analyse("He often uses humour, satire, and irony.").modified == (("often", frozenset({"use", "humour"})),)
    assert analyse("They often met in London, Paris, or Rome.").modified == (("often", frozenset({"meet", "london"})),)
    assert analyse("He often uses humour.").modified == (("often", frozenset({"use", "humour"})),)


@pytest.mark.parametrize(("text", "ranks"), [
    ("Paris is the second most visited city.", {("second", "visit")}),
    ("Lyon is the third least visited city.", {("third", "visit")}),
    ("Lyon is the second largest city.", {("second", "largest")}),
    ("Lyon is the second largest.", {("second", "largest")}),  # the superlative may end the sentence
    ("Lyon was the second most.", set()),  # "most" with nothing after it ranks nothing
    ("Lyon is the most visited city.", set()),  # a superlative without an ordinal is no rank
    ("Lyon hosted the second trial of the drug.", set()),  # an ordinal without a superlative is no rank
])
def test_a_fact_rank_is_an_ordinal_before_a_superlative(text: str, ranks: set[tuple[str, str]]) -> None:
    assert analyse(text).ranks == ranks


def test_may_next_to_a_number_is_the_month_even_opening_the_sentence_or_in_lower_case() -> None:
    from omega.grounding.scope import HEDGES
    assert not analyse("May 1970 was a cold month.").tokens & HEDGES
    assert not analyse("The trial ended on 5 may 2001.").tokens & HEDGES
    assert analyse("May lower blood pressure.").tokens & HEDGES


def test_an_irregular_form_is_cut_like_the_regular_forms_of_its_verb() -> None:
    assert normal("given") == normal("gives") == normal("give")
    assert normal("took") == normal("takes")


def test_phrasal_and_light_verbs_read_as_their_one_word_verb_or_as_nothing() -> None:
    assert normal("participate") in analyse("Forty schools took part in the trial.").tokens
    assert normal("decrease") in analyse("Median latency went down.").tokens
    assert not {"occur", "occurred", "plac", "place"} & analyse("The survey took place in 2023.").tokens


def test_a_verb_that_only_reports_a_measurement_carries_no_claim_when_a_number_follows() -> None:
    measured = fact("M1", "Atomic force microscopy measured a surface roughness of 61 nm for the control membrane.")
    assert judge("Atomic force microscopy gave a surface roughness of 61 nm for the control membrane. [M1]",
                 measured).passed
    # without a number after it, "gave" is a claim of its own
    assert "'gave'" in judge("Atomic force microscopy gave the control membrane a rough surface. [M1]",
                             measured).rationale
    assert "gave" not in analyse("The membrane gave a flux of 4.8 L/m2/h.").content
    assert "exhibit" not in analyse("The membrane exhibited a flux of 4.8 L/m2/h.").content


def test_losing_is_decreasing_and_a_loss_is_a_decrease() -> None:
    flux = fact("W1", "In 24-hour fouling tests, water flux fell by 50% for the control membrane.")
    assert judge("In 24-hour fouling tests, the control membrane lost half of its water flux. [W1]", flux).passed
    assert not judge("In 24-hour fouling tests, the control membrane gained half of its water flux. [W1]",
                     flux).passed
    follow_up = fact("C7", "Over the follow-up period, 842 participants (6.7%) were lost to follow-up.",
                     {"timeframe": "follow-up period"})
    assert judge("Loss to follow-up over the follow-up period amounted to 842 participants, or 6.7%. [C7]",
                 follow_up).passed


def test_a_phrasal_verb_split_by_its_object_is_its_one_word_verb_and_keeps_the_object() -> None:
    assert analyse("Drug A brought systolic blood pressure down by 12 mmHg.").content \
        == ("drug", "entitya", "systolic", "blood", "pressur", "mmhg", normal("reduce"))
    assert normal("conduct") in analyse("The team carried the survey out in 2022.").content
    assert "survey" in analyse("The team carried the survey out in 2022.").content


def test_an_age_in_years_old_is_its_number_and_unit() -> None:
    # "8-year-old children" says what "children aged 8 years" says: "old" is no claim of its own
    assert "old" not in analyse("Among 8-year-old children, sleep was shorter.", claim=True).tokens
    assert "old" in analyse("The old bridge was closed.", claim=True).tokens


def test_according_to_attributes_and_its_source_must_still_be_stated() -> None:
    dft = fact("A1", "Density functional theory calculations indicated that PEAI binding may suppress iodide "
                     "vacancies.")
    assert judge("According to density functional theory calculations, PEAI binding may suppress iodide "
                 "vacancies. [A1]", dft).passed
    assert not judge("According to X-ray diffraction, PEAI binding may suppress iodide vacancies. [A1]", dft).passed


def test_levelled_off_is_plateaued() -> None:
    plateaued = fact("P1", "KestrelDB 3.2 throughput plateaued above 128 concurrent clients.")
    assert judge("KestrelDB 3.2 throughput levelled off above 128 concurrent clients. [P1]", plateaued).passed
    assert not judge("KestrelDB 3.2 throughput levelled above 128 concurrent clients. [P1]", plateaued).passed


def test_varied_between_two_limits_is_ranged_from_them() -> None:
    ranged = fact("R1", "Water pH ranged from 6.1 to 8.3 across the surveyed ponds.")
    assert judge("Across the surveyed ponds, water pH varied between 6.1 and 8.3. [R1]", ranged).passed
    # without its limits "varied" is not "ranged"
    assert not judge("Water pH varied across the surveyed ponds. [R1]", ranged).passed


def test_drawn_from_says_only_from() -> None:
    batches = fact("B1", "Across 24 devices from three fabrication batches, the mean efficiency was 23.5%.")
    assert judge("The 24 devices, drawn from three fabrication batches, had a mean efficiency of 23.5%. [B1]",
                 batches).passed
    assert not judge("The 24 devices, drawn from three fabrication batches, had a mean efficiency of 24.5%. [B1]",
                     batches).passed


def test_a_method_used_to_do_what_the_fact_says_is_the_facts_method() -> None:
    # "X was used to analyse Y" says "Y was analysed by X"; "used" alone keeps its claim ("used more memory")
    samples = fact("M2", "Water samples were analysed by ion chromatography.", {"method": "ion chromatography"})
    assert judge("Ion chromatography was used to analyse the water samples. [M2]", samples).passed
    assert "used" not in analyse("Ion chromatography was used to analyse the water samples.").tokens
    assert "used" in analyse("The release used more memory.").tokens
