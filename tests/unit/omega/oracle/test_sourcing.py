"""Sourcing on the canonical forms (DERIV-CANON-001): it only adds support, it is flagged, and two-way
containment, DERIV-CONJ-001 and the polarity guard run on the forms as they do on the match keys."""

from __future__ import annotations

import pytest

from omega.oracle.normalise import segments
from omega.oracle.sourcing import Sourcing, fact_set, source_segment

FACTS = ["The fuel pressure is 3.2 MPa.", "The API serves 100 requests per second.", "Humidity 63%.",
         "Dew point at 14C.", "The valve is open during pressurization."]


def _source(claim: str, facts: list[str] = FACTS) -> Sourcing:
    [segment] = segments(claim)
    return source_segment(segment, fact_set(facts))


def test_the_fact_set_holds_texts_keys_and_forms_index_aligned() -> None:
    facts = fact_set(["The valve is  open.", ""])
    assert facts.texts == ("The valve is open.", "")
    assert facts.keys == ("the valve is open", "")
    assert facts.forms == ("valve open", "")


def test_a_claim_the_match_keys_source_is_not_flagged() -> None:
    sourced = _source("The fuel pressure is 3.2 MPa.")
    assert (sourced.sourced, sourced.canonical, sourced.facts, sourced.literal) == (True, False, (0,), True)
    assert sourced.form == "fuel pressure 3.2 mpa"


@pytest.mark.parametrize(("claim", "fact"), [
    ("Fuel pressure 3.2 MPa.", 0),  # copula and article dropped
    ("The fuel pressure was 3.2 MPa.", 0),  # another form of "be"
    ("The API serves 100 req/s.", 1),  # unit abbreviated
    ("API serves 100 requests/sec.", 1),
    ("The humidity is 63 percent.", 2),  # unit spelled out, copula added
    ("Valve open during pressurization.", 4),
])
def test_a_claim_only_the_canonical_forms_source_is_sourced_and_flagged(claim: str, fact: int) -> None:
    sourced = _source(claim)
    assert (sourced.sourced, sourced.canonical, sourced.facts, sourced.literal) == (True, True, (fact,), False)


def test_a_shorter_claim_is_sourced_inside_its_fact_on_the_canonical_forms() -> None:
    assert (_source("Fuel pressure is 3.2").canonical, _source("Fuel pressure 3.2").canonical) == (False, True)
    assert _source("Fuel pressure 3.2").sourced


def test_deriv_conj_001_runs_on_the_canonical_forms() -> None:
    merged = _source("The humidity is 63 percent with the dew point at 14C.")
    assert (merged.sourced, merged.canonical, merged.facts, merged.runs) == (True, True, (2, 3), 2)
    added = _source("The humidity is 63 percent with the dew point at 14C and rain is expected.")
    assert not added.sourced


@pytest.mark.parametrize("claim", [
    "The valve isn't open during pressurization.",  # negation added
    "The valve isn\u2019t open during pressurization.",
    "Valve is not open during pressurization.",
    "It is not true that the fuel pressure is 3.2 MPa.",
    "The fuel pressure is 3.3 MPa.",  # number changed
    "The fuel pressure is 32 MPa.",
    "The API serves 100 requests per minute.",  # unit changed
    "The API serves 1000 requests per second.",
    "The humidity is 63 degrees.",
    "The fuel pressure is above 3.2 MPa.",  # comparator added
    "The oxidizer pressure is 3.2 MPa.",  # content word changed
])
def test_a_changed_negation_number_unit_comparator_or_content_word_stays_unsourced(claim: str) -> None:
    assert not _source(claim).sourced


def test_the_polarity_guard_runs_on_the_canonical_forms() -> None:
    facts = ["The valve is not open."]
    assert not _source("Open.", facts).sourced  # inside the fact, right after its negation
    assert _source("Valve not open.", facts).sourced
    assert not _source("The valve is open.", facts).sourced


def test_a_capital_a_is_a_label_so_tank_a_is_not_sourced_by_tank_b() -> None:
    facts = ["Pressure in tank B is 3.1 bar."]
    assert not _source("Pressure in tank A is 3.1 bar.", facts).sourced
    assert _source("Pressure in tank B was 3.1 bar.", facts).sourced
    # read as an article, the label would go and the claim about A would sit inside the fact about B
    assert not _source("A failed stress testing.", ["Component B failed stress testing."]).sourced


def test_a_fact_that_only_reaches_the_separator_does_not_source_the_first_clause() -> None:
    # DERIV-CONJ-001: a run containing a fact is sourced only when the fact reaches into its first and last clause.
    alone = _source("Valve open; pump on.", ["; pump on"])
    assert (alone.sourced, alone.facts, alone.runs, alone.literal, alone.canonical) == (False, (), 0, True, False)
    both = _source("Valve open; pump on.", ["valve open", "; pump on"])
    assert (both.sourced, both.facts, both.runs, both.canonical) == (True, (0, 1), 2, False)


@pytest.mark.parametrize("claim", ["The pressure is 1,5 bar.", "Pressure is 1,5 bar."])
def test_a_comma_decimal_is_one_number_not_two_clauses(claim: str) -> None:
    # "1,5" is one number (normalise: a number's end never touches a decimal part), so facts stating "1" and
    # "5 bar" apart do not source it by DERIV-CONJ-001.
    found = _source(claim, ["Pressure is 1.", "5 bar."])
    assert (found.sourced, found.facts) == (False, ())


def test_a_comma_followed_by_a_space_between_numbers_still_separates_clauses() -> None:
    found = _source("Humidity 63%, 5 bar.", ["Humidity 63%.", "5 bar."])
    assert (found.sourced, found.facts) == (True, (0, 1))
