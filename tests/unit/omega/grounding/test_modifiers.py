"""Rank, order, frequency and proportion modifiers are content (issue 19, rule 3)."""

from __future__ import annotations

from omega.grounding.facts import AtomicFact
from tests.unit.omega.grounding.support import codes, fact, judge

RANKED = fact("M1", "Brenton is the second-largest city in Calvia.")
MOSTLY = fact("M2", "Marta Quill mostly paints landscapes in oil, and she teaches in Lyon.")


def test_a_rank_before_a_superlative_may_not_be_dropped() -> None:
    verdict = judge("Brenton is the largest city in Calvia. [M1]", RANKED)
    assert codes(verdict) == {"NOT_ENTAILED"}
    assert "second" in verdict.failures[0].reason
    assert judge("Brenton is the second largest city in Calvia. [M1]", RANKED).passed


def test_a_rank_the_fact_does_not_state_is_an_unstated_word() -> None:
    largest = fact("M3", "Brenton is the largest city in Calvia.")
    assert codes(judge("Brenton is the second largest city in Calvia. [M3]", largest)) == {"NOT_ENTAILED"}


def test_a_unit_word_is_content_unless_it_follows_a_number() -> None:
    assert not judge("The trial lasted a second year. [M4]", fact("M4", "The trial lasted a year.")).passed
    assert judge("The trial lasted 2 years. [M5]", fact("M5", "The trial lasted 2 years.")).passed


def test_a_frequency_modifier_on_the_claimed_predicate_may_not_be_dropped() -> None:
    assert codes(judge("Marta Quill paints landscapes in oil. [M2]", MOSTLY)) == {"CLAIM_STRENGTHENED"}
    assert judge("Marta Quill mainly paints landscapes in oil. [M2]", MOSTLY).passed


def test_a_frequency_modifier_is_dropped_when_the_sentence_uses_any_part_of_its_scope() -> None:
    # issue 46 fault 3: "mostly | paints landscapes in oil"; the sentence claims part of it, without "mostly"
    assert codes(judge("Marta Quill paints landscapes. [M2]", MOSTLY)) == {"CLAIM_STRENGTHENED"}
    assert codes(judge("Marta Quill paints in oil. [M2]", MOSTLY)) == {"CLAIM_STRENGTHENED"}


def test_a_modifier_on_other_words_of_the_fact_is_not_dropped_by_leaving_them_out() -> None:
    assert judge("Marta Quill teaches in Lyon. [M2]", MOSTLY).passed


def _failures(text: str, *facts: AtomicFact) -> list[tuple[str, str, str, tuple[str, ...]]]:
    return [(f.code, f.reason, f.required_evidence, f.fact_ids) for f in judge(text, *facts).failures]


def test_a_dropped_rank_names_the_rank_and_what_would_fix_it() -> None:
    assert _failures("Brenton is the largest city in Calvia. [M1]", RANKED) == [(
        "NOT_ENTAILED", "rank dropped: M1 states 'second largest', the sentence 'largest' alone",
        "the sentence keeping the rank 'second', or a fact stating 'largest' alone", ("M1",))]


def test_a_dropped_frequency_names_the_modifier_and_what_would_fix_it() -> None:
    assert _failures("Marta Quill paints landscapes in oil. [M2]", MOSTLY) == [(
        "CLAIM_STRENGTHENED", "the frequency or proportion 'mostly' of M2 is dropped",
        "the sentence keeping 'mostly', or a fact stating the claim without it", ("M2",))]
