"""Allowed rephrasing: inflection, word order, function words and the documented synonym table; nothing else."""

from __future__ import annotations

import pytest

from omega.grounding.tokens import SYNONYM_GROUPS, analyse, lemma, normal


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
