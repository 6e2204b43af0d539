"""Clause-local relation binding (issue 19, rule 1): words stated together, not only somewhere in the fact."""

from __future__ import annotations

from tests.unit.omega.grounding.support import codes, fact, judge

CREDITS = fact("C1", "Harbour Lights is a drama film directed by Anna Berg, written by Karl Olsen.")
BIO = fact("C2", "Vera Lind (born 3 March 1950) is a Swedish sculptor who opened her first studio in 1972.")
TOWN = fact("C3", "Ridgeford is a town in Marlow County, Vermont.")
STUDY = fact("C4", "Drug A lowered blood pressure in older adults; it raised heart rate in younger adults.")


def test_an_argument_of_another_relation_is_not_stated() -> None:
    verdict = judge("Harbour Lights was directed by Karl Olsen. [C1]", CREDITS)
    assert codes(verdict) == {"NOT_ENTAILED"}
    assert "bound to another relation" in verdict.failures[0].reason


def test_the_subject_may_match_anywhere_so_a_passive_swap_passes() -> None:
    assert judge("Anna Berg directed Harbour Lights. [C1]", CREDITS).passed
    assert judge("Harbour Lights was written by Karl Olsen. [C1]", CREDITS).passed


def test_a_number_is_bound_to_its_relation_too() -> None:
    assert judge("Vera Lind was born in 1950. [C2]", BIO).passed
    assert codes(judge("Vera Lind was born in 1972. [C2]", BIO)) == {"NOT_ENTAILED"}
    assert judge("Vera Lind opened her first studio in 1972. [C2]", BIO).passed


def test_words_from_two_clauses_joined_in_one_claim_are_refused() -> None:
    assert codes(judge("Drug A raised blood pressure in older adults. [C4]", STUDY)) == {"NOT_ENTAILED"}
    assert judge("Drug A lowered blood pressure in older adults. [C4]", STUDY).passed


def test_what_the_subject_is_comes_from_the_facts_copula_not_a_name() -> None:
    verdict = judge("Ridgeford is a county. [C3]", TOWN)
    assert codes(verdict) == {"NOT_ENTAILED"}
    assert "'county'" in verdict.failures[0].reason
    assert judge("Ridgeford is a town. [C3]", TOWN).passed


def test_two_cited_facts_may_each_lend_one_clause() -> None:
    other = fact("C5", "Harbour Lights premiered at the Bergen festival.")
    assert judge("Harbour Lights, directed by Anna Berg, premiered at the Bergen festival. [C1][C5]",
                 CREDITS, other).passed
