"""One case per row of the oracle's word tables, each asserting what the row makes the oracle do, so a deleted
row fails its case (the cases are written out by hand, never read from the tables):

* `canonical_form.UNIT_SPELLINGS` (DERIV-CANON-001): a claim spelling a unit one way is sourced by a fact
  spelling it the table's other way (each spelling of each group, both directions).
* `oracle_a.PAIRS` (RULE-CONT-001): a table id is resolved from the table (not derived from `term-term`,
  which would also accept inflections), in either order, and both terms in one output are a contradiction.
* `normalise.NEGATIONS` (polarity guard of RULE-PREC-004): a claim that adds a negation word to its fact is
  not sourced by it.
"""

from __future__ import annotations

import pytest

from omega.oracle.oracle_a import rule_cont_001, rule_cont_003, rule_prec_004
from tests.unit.omega.oracle.support import view

# ------------------------------------------------------------------------------------------- UNIT_SPELLINGS
# (spelling, abbreviation): issue 18's list plus milliseconds and degrees (canonical_form's docstring)
SPELLINGS = [
    ("percent", "%"), ("pct", "%"),
    ("second", "s"), ("seconds", "s"), ("sec", "s"), ("secs", "s"),
    ("millisecond", "ms"), ("milliseconds", "ms"), ("msec", "ms"), ("msecs", "ms"),
    ("minute", "min"), ("minutes", "min"), ("mins", "min"),
    ("hour", "h"), ("hours", "h"), ("hr", "h"), ("hrs", "h"),
    ("request", "req"), ("requests", "req"), ("reqs", "req"),
    ("degree", "deg"), ("degrees", "deg"),
]


@pytest.mark.parametrize(("spelling", "unit"), SPELLINGS)
def test_a_claim_spelling_the_unit_out_is_sourced_by_a_fact_abbreviating_it(spelling: str, unit: str) -> None:
    claim, fact = f"The reading is 40 {spelling}.", f"Reading 40 {unit}."
    result = rule_prec_004(view(claim, [fact]))
    assert result.verdict == "PASS", result.violations
    assert result.metrics["sourced_by_canonical_form"] == 1


@pytest.mark.parametrize(("spelling", "unit"), SPELLINGS)
def test_a_claim_abbreviating_the_unit_is_sourced_by_a_fact_spelling_it_out(spelling: str, unit: str) -> None:
    result = rule_prec_004(view(f"Reading 40 {unit}.", [f"The reading is 40 {spelling}."]))
    assert result.verdict == "PASS", result.violations


@pytest.mark.parametrize(("claim", "fact"), [
    ("The reading is 40 minutes.", "Reading 40 s."),  # another group's abbreviation
    ("The reading is 40 hours.", "Reading 40 min."),
    ("The reading is 40 percent.", "Reading 40 deg."),
    ("The reading is 40 milliseconds.", "Reading 40 s."),
])
def test_a_spelling_is_never_sourced_by_another_units_abbreviation(claim: str, fact: str) -> None:
    assert rule_prec_004(view(claim, [fact])).verdict == "FAIL"


# ------------------------------------------------------------------------------------------- PAIRS
# (id, a sentence with the first term, a sentence with the second): the ten pairs of the seed's table
PAIRS = [
    ("always-never", "The valve is always open.", "The pump is never on."),
    ("true-false", "The first claim is true.", "The second claim is false."),
    ("increase-decrease", "Expect an increase in load.", "Expect a decrease in cost."),
    ("positive-negative", "The first test is positive.", "The second test is negative."),
    ("valid-invalid", "The token is valid.", "The key is invalid."),
    ("correct-incorrect", "The sum is correct.", "The label is incorrect."),
    ("success-failure", "The launch was a success.", "The landing was a failure."),
    ("above-below", "Pressure is above the limit.", "Flow is below the limit."),
    ("present-absent", "Oxygen is present.", "Nitrogen is absent."),
    ("enabled-disabled", "Logging is enabled.", "Tracing is disabled."),
]


@pytest.mark.parametrize(("cid", "first", "second"), PAIRS)
def test_a_table_pair_is_a_contradiction_resolved_from_the_table_in_either_order(cid: str, first: str,
                                                                                 second: str) -> None:
    a, b = cid.split("-")
    for given in (cid, f"{b}-{a}"):
        result = rule_cont_001(view(f"{first} {second}", [], contradiction_ids=[given]))
        assert result.verdict == "FAIL", given
        assert (result.metrics["contradiction_ids_derived"], result.metrics["contradiction_ids_unknown"]) == (0, 0)
        assert [v.invariant_id for v in result.violations] == ["Q-INV-03"]
    assert rule_cont_001(view(first, [], contradiction_ids=[cid])).verdict == "PASS"


@pytest.mark.parametrize(("cid", "first", "second"), PAIRS)
def test_a_later_sentence_swapping_a_table_term_denies_the_earlier_one(cid: str, first: str, second: str) -> None:
    a, b = cid.split("-")
    denial = first.replace(a, b, 1)
    assert denial != first
    result = rule_cont_003(view(f"{first} {denial}", [], contradiction_ids=[cid]))
    assert result.verdict == "FAIL"
    assert f"({a}/{b})" in result.violations[0].message


def test_an_inflected_term_of_a_table_pair_is_not_the_term() -> None:
    # table pairs match their terms exactly; only ids outside the table are read as stems (`pass-fail`)
    assert rule_cont_001(view("Costs increased. Revenue will decrease.", [],
                              contradiction_ids=["increase-decrease"])).verdict == "PASS"
    assert rule_cont_001(view("It passed. It failed.", [], contradiction_ids=["pass-fail"])).verdict == "FAIL"


# ------------------------------------------------------------------------------------------- NEGATIONS
@pytest.mark.parametrize(("word", "claim"), [
    ("not", "It is not true that the pump failed."),
    ("no", "There is no sign the pump failed."),
    ("never", "It was never shown the pump failed."),
    ("none", "None of the logs say the pump failed."),
    ("nothing", "Nothing suggests the pump failed."),
    ("neither", "Neither log says the pump failed."),
    ("nor", "Nor is it likely the pump failed."),
    ("cannot", "One cannot say the pump failed."),
    ("without", "The run ended without proof the pump failed."),
])
def test_a_claim_adding_a_negation_word_to_its_fact_is_not_sourced(word: str, claim: str) -> None:
    assert word in claim.lower().split()
    assert rule_prec_004(view(claim, ["The pump failed."])).verdict == "FAIL"
    affirmed = claim.replace(word, "some", 1).replace(word.capitalize(), "Some", 1)
    assert rule_prec_004(view(affirmed, ["The pump failed."])).verdict == "PASS", affirmed
