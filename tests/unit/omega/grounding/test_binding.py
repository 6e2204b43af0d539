"""Clause-local relation binding (issue 19, rule 1): words stated together, not only somewhere in the fact."""

from __future__ import annotations

from omega.grounding.binding import clause_local_binding
from omega.grounding.facts import AtomicFact
from omega.grounding.model import NOT_ENTAILED
from omega.grounding.tokens import analyse
from omega.grounding.verdict import OWNED_ELSEWHERE
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


def _failure(text: str, *facts: AtomicFact) -> tuple[str, str, str, tuple[str, ...]]:
    [failure] = judge(text, *facts).failures
    return failure.code, failure.reason, failure.required_evidence, failure.fact_ids


def test_a_word_bound_to_another_relation_is_named_with_the_words_it_was_not_stated_with() -> None:
    assert _failure("Harbour Lights was directed by Karl Olsen. [C1]", CREDITS) == (
        NOT_ENTAILED,
        "bound to another relation: 'directed' stated by the cited facts, but not in the clause that states "
        "'karl', 'olsen'",
        "an Atomic Fact stating 'directed' in the same clause as the rest of the claim, cited inline", ("C1",))


def test_a_number_bound_to_another_relation_is_named_and_so_is_the_clause_it_misses() -> None:
    assert _failure("Vera Lind's first studio was opened in 1950. [C2]", BIO) == (
        NOT_ENTAILED, "bound to another relation: '1950' stated by the cited facts, but not in the clause that "
                      "states 'opened'",
        "an Atomic Fact stating '1950' in the same clause as the rest of the claim, cited inline", ("C2",))
    assert _failure("Vera Lind was born in 1972. [C2]", BIO)[1] == (
        "bound to another relation: 'born' stated by the cited facts, but not in the clause that states the rest "
        "of the sentence")


def test_numbers_alone_in_a_clause_must_be_stated_together_too() -> None:
    assert _failure("Vera Lind (1950, 1972). [C2]", BIO)[:2] == (
        NOT_ENTAILED, "bound to another relation: '1950' stated by the cited facts, but not in the clause that "
                      "states the rest of the sentence")
    assert judge("Vera Lind (1950). [C2]", BIO).passed


def test_the_copula_failure_names_what_the_facts_say_the_subject_is() -> None:
    assert _failure("Ridgeford is a county. [C3]", TOWN) == (
        NOT_ENTAILED, "bound to another relation: the sentence says its subject is 'county'; the cited facts state "
                      "'county' but say it is 'town'",
        "an Atomic Fact stating that the subject is 'county', cited inline", ("C3",))


def test_every_clause_of_the_fact_lends_its_subject_and_qualifiers() -> None:
    assert judge("Karl Olsen wrote Harbour Lights. [C1]", CREDITS).passed
    in_norway = fact("N1", CREDITS.content, {"setting": "Norway"})
    assert judge("Harbour Lights was written by Karl Olsen in Norway. [N1]", in_norway).passed


def test_binding_checks_every_clause_whose_words_are_stated_after_one_that_is_not() -> None:
    claim = analyse("Harbour Lights, shown in Oslo, was directed by Karl Olsen.", claim=True)
    failure = clause_local_binding(claim, [CREDITS], OWNED_ELSEWHERE)  # name partners worked out when not given
    assert failure is not None
    assert (failure.code, failure.reason) == (
        NOT_ENTAILED, "bound to another relation: 'directed' stated by the cited facts, but not in the clause that "
                      "states 'karl', 'olsen'")


def test_a_clause_using_every_word_of_the_fact_is_still_held_to_one_fact_clause() -> None:
    sculptor = fact("C6", "Vera Lind (born 3 March 1950) is a sculptor who opened her first studio in 1972.")
    claim = analyse("She opened the first studio of the sculptor Vera Lind born in March.", claim=True)
    failure = clause_local_binding(claim, [sculptor], OWNED_ELSEWHERE)
    assert failure is not None
    assert failure.reason == ("bound to another relation: 'born', 'march' stated by the cited facts, but not in the "
                              "clause that states 'first', 'lind', 'opened', 'sculptor', 'studio', 'vera'")


def test_a_method_clause_set_off_after_the_bare_subject_qualifies_every_clause_of_the_fact() -> None:
    thickness = fact("T5", "Polyamide layer thickness, measured by transmission electron microscopy, decreased from "
                           "180 nm in the control membrane to 90 nm in the interlayer membrane.")
    assert judge("Polyamide layer thickness measured by transmission electron microscopy was reduced from 180 nm in "
                 "the control membrane to 90 nm in the interlayer membrane. [T5]", thickness).passed
    # a participle in a list of relations is its own relation (issue 19): "written by" is not lent to "directed by"
    film = fact("G1", "Harbour Lights is a 2011 drama film directed by Anna Berg, written by Karl Olsen, and "
                      "produced by Studio Nord.")
    assert NOT_ENTAILED in codes(judge("Harbour Lights was directed by Karl Olsen. [G1]", film))
