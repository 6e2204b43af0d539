"""§3.3 inline attribution and §6.1 citation presence; §5.2 use of uncited facts."""

from __future__ import annotations

from omega.grounding.citations import citation_presence, split_citations
from omega.grounding.model import CITATION_NOT_ALLOWED, MISSING_CITATION, UNCITED_FACT_USED, UNKNOWN_FACT
from tests.unit.omega.grounding.support import DIZZY, DIZZY_PLACEBO, TRIAL, codes, fact, judge


def test_citations_are_read_anywhere_in_order_once_and_removed_from_the_claim() -> None:
    claim, ids = split_citations("Treatment X reduced severity [FACT_012] in older adults. [FACT_018][FACT_012]")
    assert ids == ("FACT_012", "FACT_018")
    assert claim == "Treatment X reduced severity in older adults."


def test_ids_may_hold_uuids_dots_and_colons_but_parentheses_are_no_citation() -> None:
    assert split_citations("A claim. [3f2a-11:b.c]")[1] == ("3f2a-11:b.c",)
    assert split_citations("A claim (FACT_1).")[1] == ()


def test_a_list_of_ids_in_one_bracket_cites_each_of_them() -> None:
    claim, ids = split_citations("A median below the limit, though 7 of 36 exceeded it. [KSN_03, KSN_04; KSN_09]")
    assert ids == ("KSN_03", "KSN_04", "KSN_09")
    assert claim == "A median below the limit, though 7 of 36 exceeded it."
    assert split_citations("The ratio was 2 [a ratio, not a rate]. [F1]")[1] == ("F1",)


def test_citation_presence_passes_an_allowed_known_fact() -> None:
    assert citation_presence(("F1",), {"F1"}, {"F1": TRIAL}) == []
    assert citation_presence(("F1", "F3"), {"F1", "F3"}, {"F1": TRIAL, "F3": DIZZY}) == []


def test_a_sentence_without_citation_fails_with_missing_citation() -> None:
    [failure] = citation_presence((), {"F1"}, {"F1": TRIAL})
    assert failure.code == MISSING_CITATION
    assert "[FACT_ID]" in failure.required_evidence


def test_a_citation_outside_the_allowed_facts_or_without_content_fails() -> None:
    failures = citation_presence(("F9", "F2"), {"F1", "F2"}, {"F1": TRIAL})
    assert [(f.code, f.fact_ids) for f in failures] == [(CITATION_NOT_ALLOWED, ("F9",)), (UNKNOWN_FACT, ("F2",))]


def test_a_disallowed_citation_fails_the_sentence_even_if_the_content_would_be_entailed() -> None:
    verdict = judge("Dizziness was reported by 8.4% of participants receiving drug A. [F3]", DIZZY, allowed=["F1"])
    assert verdict.outcome == "FAIL"
    assert codes(verdict) == {CITATION_NOT_ALLOWED}


def test_a_claim_resting_on_an_allowed_uncited_fact_names_that_fact_as_the_evidence() -> None:
    verdict = judge("Dizziness was reported by 8.4% of participants receiving drug A and 3.1% of participants "
                    "receiving placebo. [F3]", DIZZY, DIZZY_PLACEBO)
    uncited = [f for f in verdict.failures if f.code == UNCITED_FACT_USED]
    assert [f.fact_ids for f in uncited] == [("F4",)]
    assert "[F4]" in uncited[0].required_evidence


def test_a_claim_relying_on_every_word_of_an_uncited_fact_names_that_fact() -> None:
    lowered = fact("F1", "Drug A lowered blood pressure.")
    dizziness = fact("F2", "Dizziness.")
    [failure] = judge("Drug A lowered blood pressure with dizziness. [F1]", lowered, dizziness).failures
    assert (failure.code, failure.reason, failure.required_evidence, failure.fact_ids) == (
        UNCITED_FACT_USED, "the claim relies on F2, which the sentence does not cite",
        "an inline citation [F2] beside the others", ("F2",))


def test_a_sentence_without_a_citation_is_told_what_it_needs() -> None:
    [failure] = citation_presence((), {"F1"}, {"F1": TRIAL})
    assert failure.code == MISSING_CITATION
    assert failure.required_evidence == "an inline citation [FACT_ID] of an allowed Atomic Fact that states this claim"
