"""§5.1 honest rephrasing (issue 42, item 3): inflections, derived forms and WordNet synonyms of a fact's words
pass; a wider class, a name, and a word another check owns do not."""

from __future__ import annotations

from pathlib import Path

from omega.grounding.model import CLAIM_STRENGTHENED, NOT_ENTAILED
from omega.grounding.rephrasing import TABLE, antonyms, lemmas, related, said_as_function_words
from omega.grounding.tokens import analyse
from tests.unit.omega.grounding.support import codes, fact, judge

REDUCED = fact("D1", "Drug A reduced systolic blood pressure in adults aged 65 or older.")
ANALYSED = fact("D2", "Water samples from each pond were examined for environmental DNA.")
VACCINE = fact("D3", "The vaccine was given to 400 adults.")
LINKED = fact("D4", "Heavy rainfall was associated with flooding of the lower fields.")


def test_inflections_are_one_word() -> None:
    assert {"enroll", "fall", "titre"} <= lemmas("enrolled") | lemmas("fell") | lemmas("titres")


def test_a_nominalisation_states_its_verb() -> None:
    verdict = judge("Drug A produced a reduction in systolic blood pressure in adults aged 65 or older. [D1]", REDUCED)
    assert "reduce" in related("reduction")
    assert NOT_ENTAILED not in {f.code for f in verdict.failures if "reduction" in f.reason}


def test_a_wordnet_synonym_of_a_common_sense_passes_and_the_reading_is_named() -> None:
    verdict = judge("Water samples from each pond were analysed for environmental DNA. [D2]", ANALYSED)
    assert verdict.passed
    assert "analysed = examined" in verdict.rationale


def test_a_wider_class_is_not_a_synonym() -> None:
    verdict = judge("The drug was given to 400 adults. [D3]", VACCINE)
    assert NOT_ENTAILED in codes(verdict)
    assert "'drug'" in verdict.failures[0].reason


def test_a_word_another_check_owns_is_not_rephrased_into_the_fact() -> None:
    verdict = judge("Heavy rainfall caused flooding of the lower fields. [D4]", LINKED)
    assert CLAIM_STRENGTHENED in codes(verdict)


def test_the_table_is_generated_with_its_licence_and_holds_wordnet_relations() -> None:
    header = TABLE.read_text(encoding="utf-8").splitlines()[0]
    assert "scripts/wordnet_table.py" in header
    assert "WordNet 3.0" in header
    assert "Princeton University" in (Path(TABLE).parent / "wordnet-3.0.LICENSE").read_text(encoding="utf-8")
    assert "low" in antonyms("higher")
    assert "high" in antonyms("lower")
    assert "musician" not in related("music")  # a person who holds a role is not the role (noun.person)


def test_the_capitalised_first_word_of_a_sentence_is_read_as_a_word_not_a_name() -> None:
    lonely = fact("L1", "In the 2023 survey, 25% of respondents living alone reported feeling lonely most of the time.")
    assert judge("Loneliness most of the time was reported by 25% of respondents living alone in the 2023 survey. [L1]",
                 lonely).passed
    # a name is still a name: a capitalised word inside the sentence is not translated
    assert not judge("In the 2023 survey, 25% of respondents living alone reported Loneliness most of the time. [L1]",
                     lonely).passed


EXCLUDED = fact("X1", "The report's labour market statistics exclude self-employed workers.")
NOT_INCLUDED = fact("X2", "The report's labour market statistics do not include self-employed workers.")


def test_a_negated_word_is_entailed_by_its_antonym_affirmed() -> None:
    verdict = judge("Self-employed workers are not included in the report's labour market statistics. [X1]", EXCLUDED)
    assert verdict.passed, verdict.rationale
    assert "not included = exclude, its antonym affirmed" in verdict.rationale


def test_an_antonym_is_not_read_from_a_negated_fact() -> None:
    # "did not include" may be the contrary, not the antonym: the converse reading is never made
    verdict = judge("The report's labour market statistics exclude self-employed workers. [X2]", NOT_INCLUDED)
    assert not verdict.passed
    assert NOT_ENTAILED in codes(verdict)


def test_a_negation_elsewhere_in_the_sentence_is_not_spent_on_an_antonym() -> None:
    verdict = judge("No self-employed workers are included in the report's labour market statistics. [X1]",
                    EXCLUDED)
    assert not verdict.passed


def test_a_verb_said_by_a_fact_as_a_word_without_claim_of_its_own_is_stated() -> None:
    surveyed = fact("S1", "Each pond was surveyed by environmental DNA (eDNA) analysis of three water samples.")
    verdict = judge("Three water samples from each pond were analysed for environmental DNA. [S1]", surveyed)
    assert verdict.passed, verdict.rationale
    assert "analysed = analysis" in verdict.rationale
    collected = fact("S2", "Three water samples were collected from each pond.")
    assert not judge("Three water samples were collected from each pond and analysed. [S2]", collected).passed


def test_a_british_spelling_is_the_american_word_wordnet_keeps() -> None:
    assert "analyze" in lemmas("analysed")
    assert "analysis" in related("analysed")
    assert "randomize" in lemmas("randomise")


def test_a_synonym_of_a_fact_word_the_sentence_says_itself_is_another_claim() -> None:
    recruited = fact("M1", "The cohort recruited 2,784 mother-child pairs at delivery in three maternity hospitals.")
    # "pregnancy" = "maternity" in WordNet, but the sentence's own "maternity hospitals" takes the fact's word
    verdict = judge("The cohort enrolled 2,784 mother-child pairs during pregnancy in three maternity hospitals. [M1]",
                    recruited)
    assert not verdict.passed
    assert "'pregnancy'" in verdict.failures[0].reason


def test_another_form_of_a_fact_word_the_sentence_says_itself_is_still_that_word() -> None:
    delivered = fact("M2", "Intervention schools delivered a mean of 78% of scheduled sessions.")
    verdict = judge("On delivery, intervention schools delivered a mean of 78% of scheduled sessions. [M2]", delivered)
    assert verdict.passed, verdict.rationale


def test_a_word_said_as_a_function_word_is_read_once_and_not_when_an_anaphor_owns_it() -> None:
    analysis = fact("S1", "Analysis of the river samples showed lead contamination.")
    claim = analyse("The river samples were analysed.", claim=True)
    assert said_as_function_words(claim, [analysis], frozenset()) == (frozenset({"analys"}),
                                                                       ("analysed = analysis",))
    # the words an anaphor already owns ("these samples"' words) are not read again, owned either way
    assert said_as_function_words(claim, [analysis], frozenset(), frozenset({"analys"})) == (frozenset(), ())
    assert said_as_function_words(claim, [analysis], frozenset({"analys"})) == (frozenset(), ())


def test_randomly_assigned_is_randomly_allocated() -> None:
    # trial language: "allocated" and "assigned" name one act (the synonym table, beside "assign" = "receive")
    trial = fact("W30", "In this randomised trial, 248 adults were randomly allocated to circuit training (n = 124) or "
                        "usual care (n = 124).")
    assert judge("In this randomised trial, 248 adults were randomly assigned to circuit training (n = 124) or usual "
                 "care (n = 124). [W30]", trial).passed
