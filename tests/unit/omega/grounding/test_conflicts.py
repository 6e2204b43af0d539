"""§9: cited facts that conflict are never reconciled; the sentence is refused, the user asked to choose."""

from __future__ import annotations

from omega.grounding.conflicts import conflict
from omega.grounding.facts import AtomicFact, parse_fact
from omega.grounding.model import CONFLICTING_FACTS
from tests.unit.omega.grounding.support import DIZZY, DIZZY_PLACEBO, codes, fact, judge

OTHER_RATE = fact("F3b", "Dizziness was reported by 11.2% of participants receiving drug A.", source_type="MANUAL")


def test_the_same_measure_with_different_numbers_conflicts() -> None:
    assert conflict(DIZZY, OTHER_RATE) == "they report different numbers for the same measure"


def test_opposite_polarity_and_opposite_direction_conflict() -> None:
    yes = fact("P", "Drug A reduced the rate of stroke.")
    no = fact("N", "Drug A did not reduce the rate of stroke.")
    up = fact("U", "Serum sodium increased after treatment.")
    down = fact("D", "Serum sodium decreased after treatment.")
    assert conflict(yes, no) == "one affirms what the other negates"
    assert conflict(up, down) == "they report opposite directions"


def test_facts_about_different_things_do_not_conflict() -> None:
    assert conflict(DIZZY, DIZZY_PLACEBO) is None


def test_facts_measured_under_different_conditions_in_another_unit_do_not_conflict() -> None:
    # the % is the measure (`units`); "at 60 °C" / "at 80 °C" name two conditions, each with its own value
    cool = fact("T60", "Membranes tested at 60 °C kept 91% of their initial flux.", {"units": "%"})
    hot = fact("T80", "Membranes tested at 80 °C kept 74% of their initial flux.", {"units": "%"})
    rerun = fact("T60b", "Membranes tested at 60 °C kept 88% of their initial flux.", {"units": "%"})
    assert conflict(cool, hot) is None
    assert conflict(cool, rerun) == "they report different numbers for the same measure"


def test_facts_with_different_qualifiers_do_not_conflict() -> None:
    at12 = fact("W12", "Drug A lowered blood pressure by 8 mmHg.", {"timeframe": "12 weeks"})
    at24 = fact("W24", "Drug A lowered blood pressure by 12 mmHg.", {"timeframe": "24 weeks"})
    assert conflict(at12, at24) is None


def test_citing_conflicting_facts_refuses_the_sentence_and_asks_the_user_to_choose() -> None:
    verdict = judge("Dizziness was reported by 8.4% of participants receiving drug A. [F3][F3b]", DIZZY, OTHER_RATE)
    assert verdict.outcome == "FAIL"
    assert codes(verdict) == {CONFLICTING_FACTS}
    [failure] = verdict.failures
    assert failure.fact_ids == ("F3", "F3b")
    assert "authoritative" in failure.required_evidence


def test_a_manual_fact_is_judged_like_a_pdf_fact() -> None:
    manual = fact("M", DIZZY.content, source_type="MANUAL")
    sentence = "Dizziness was reported by 8.4% of participants receiving drug A."
    assert judge(f"{sentence} [M]", manual).outcome == judge(f"{sentence} [F3]", DIZZY).outcome == "PASS"
    assert judge("Dizziness was reported by 9% of participants receiving drug A. [M]", manual).outcome == "FAIL"


SODIUM_UP = fact("U", "Serum sodium increased after treatment.")
SODIUM_DOWN = fact("D", "Serum sodium decreased after treatment.")
SODIUM_UNSAID = fact("S", "Serum sodium after treatment.")  # the same thing, no direction stated


def test_opposite_directions_conflict_whichever_fact_comes_first() -> None:
    assert conflict(SODIUM_DOWN, SODIUM_UP) == "they report opposite directions"
    assert conflict(SODIUM_UP, SODIUM_DOWN) == "they report opposite directions"


def test_facts_reporting_the_same_direction_do_not_conflict() -> None:
    assert conflict(SODIUM_UP, fact("U2", "Serum sodium increased after treatment.")) is None
    assert conflict(SODIUM_DOWN, fact("D2", "Serum sodium decreased after treatment.")) is None


def test_a_fact_stating_no_direction_does_not_conflict_with_one_that_does() -> None:
    for directed in (SODIUM_UP, SODIUM_DOWN):
        assert conflict(SODIUM_UNSAID, directed) is None
        assert conflict(directed, SODIUM_UNSAID) is None


def test_different_counts_of_the_same_thing_conflict() -> None:
    nine = fact("N9", "Dizziness was reported by 9 participants.")
    many = fact("N84", "Dizziness was reported by 84 participants.")
    assert conflict(nine, many) == "they report different numbers for the same measure"
    assert conflict(many, nine) == "they report different numbers for the same measure"


def test_numbers_in_different_units_or_a_number_against_none_do_not_conflict() -> None:
    share = fact("P", "Dizziness was reported by 8.4% of participants.")
    count = fact("C", "Dizziness was reported by 84 participants.")
    unsaid = fact("X", "Dizziness was reported by participants.")
    for a, b in ((share, count), (count, share), (share, unsaid), (unsaid, share), (count, unsaid), (unsaid, count)):
        assert conflict(a, b) is None, (a.id, b.id)


MEDIAN_68 = fact("A9", "The median age of participants was 68 years.", {"population": "trial participants"})
MEDIAN_69 = fact("A10", "The median age of participants was 69 years.", {"population": "trial participants"},
                 source_type="MANUAL")


def test_adopting_one_of_two_allowed_conflicting_facts_is_refused_naming_both() -> None:
    verdict = judge("The median age of participants was 68 years. [A9]", MEDIAN_68, MEDIAN_69)
    assert codes(verdict) == {CONFLICTING_FACTS}
    [failure] = verdict.failures
    assert failure.fact_ids == ("A9", "A10")
    assert failure.reason.startswith("conflict:")


def test_the_conflict_matters_only_when_the_other_fact_is_allowed() -> None:
    assert judge("The median age of participants was 68 years. [A9]", MEDIAN_68, MEDIAN_69, allowed=["A9"]).passed


def test_both_values_presented_with_their_sources_pass() -> None:
    for text in ("The median age of participants is reported as 68 years in one source [A9] and as 69 years in "
                 "another [A10].",
                 "The median age of participants was 68 years according to one source and 69 years according to "
                 "another. [A9][A10]",
                 # no attribution phrase: each citation beside its own value is the attribution
                 "The median age of participants was 68 years [A9] or 69 years [A10]."):
        assert judge(text, MEDIAN_68, MEDIAN_69).passed, text


def test_both_values_without_attribution_or_one_value_citing_both_are_refused() -> None:
    # both values, both citations after them: which source gave which is not said (a marker's digits are no value)
    for text in ("The median age of participants was 68 years. [A9][A10]",
                 "The median age of participants was 68 years and 69 years. [A9][A10]"):
        assert codes(judge(text, MEDIAN_68, MEDIAN_69)) == {CONFLICTING_FACTS}, text


def test_a_number_that_names_a_version_or_a_year_makes_two_things_not_two_values() -> None:
    # "Orrery 5.0" and "Orrery 4.8", "in 2021" and "in 2022": the facts are about two things, each with its value
    new = fact("V1", "Median query latency on the read-heavy workload was 4.2 ms with Orrery 5.0.")
    old = fact("V2", "Median query latency on the read-heavy workload was 6.8 ms with Orrery 4.8.")
    assert conflict(new, old) is None
    first = fact("Y1", "The share of households with a smart meter was 23% in 2021.")
    second = fact("Y2", "The share of households with a smart meter was 31% in 2022.")
    assert conflict(first, second) is None
    same_year = fact("Y3", "The share of households with a smart meter was 27% in 2021.")
    assert conflict(first, same_year) is not None


def test_two_sources_reporting_one_measure_with_different_values_conflict() -> None:
    registry = fact("P1", "The national registry recorded 1,240 cases of measles in 2019.", {"timeframe": "2019"})
    report = fact("P2", "A surveillance report recorded 1,310 cases of measles in 2019.", {"timeframe": "2019"})
    assert conflict(registry, report) == "they report different numbers for the same measure"
    adopted = judge("There were 1,240 cases of measles in 2019. [P1]", registry, report)
    assert CONFLICTING_FACTS in codes(adopted)
    other_year = fact("P3", "A surveillance report recorded 1,310 cases of measles in 2020.", {"timeframe": "2020"})
    assert conflict(registry, other_year) is None


def _sourced(fact_id: str, content: str, document: str, **qualifiers: str) -> AtomicFact:
    return parse_fact({"id": fact_id, "content": content, "source_type": "PDF",
                       "source_span": {"document_id": document, "page": 2}, "qualifiers": qualifiers,
                       "confidence": 0.9})


ARTICLE = _sourced("R1", "Fitting a growth model to biomass at 12 °C and 18 °C gave a doubling time of 41 hours.",
                   "pdf:algae-growth-journal-article", units="hours")
ABSTRACT = _sourced("R2", "Fitting a growth model to biomass of the same cultures at 12 °C and 18 °C gave a doubling "
                          "time of 47 hours.", "pdf:phycology-conference-abstract", units="hours",
                    method="conference abstract")


def test_two_documents_wording_one_measure_differently_with_different_values_conflict() -> None:
    # the abstract adds "of the same cultures" and a method of its own: the strict reading saw two claims
    assert conflict(ARTICLE, ABSTRACT) == "two sources report different numbers for the same measure"
    adopted = judge("A growth model fitted to biomass at 12 °C and 18 °C gave a doubling time of 41 hours. [R1][R2]",
                    ARTICLE, ABSTRACT)
    assert "CONFLICTING_FACTS" in codes(adopted)
    silently = judge("A growth model fitted to biomass at 12 °C and 18 °C gave a doubling time of 41 hours. [R1]",
                     ARTICLE, ABSTRACT)
    assert "CONFLICTING_FACTS" in codes(silently)  # the other source is allowed in the paragraph
    both = judge("Fitting a growth model to biomass at 12 °C and 18 °C gave a doubling time of 41 hours [R1] in one "
                 "source and 47 hours [R2] in another.", ARTICLE, ABSTRACT)
    assert "CONFLICTING_FACTS" not in codes(both)


def test_reworded_facts_of_one_document_other_conditions_or_few_shared_words_do_not_conflict() -> None:
    same_document = _sourced("R3", ABSTRACT.content, ARTICLE.source_span.document_id, units="hours")
    assert conflict(ARTICLE, same_document) is None
    warmer = _sourced("R4", "Fitting a growth model to biomass of the same cultures at 12 °C and 24 °C gave a doubling "
                            "time of 47 hours.", "pdf:phycology-conference-abstract", units="hours")
    assert conflict(ARTICLE, warmer) is None  # a condition outside the unit differs: two measures
    other_words = _sourced("R5", "Under continuous light, nitrate-starved flask cultures of a second strain reached a "
                                 "doubling time of 47 hours at 12 °C and 18 °C.", "pdf:phycology-conference-abstract",
                           units="hours")
    assert conflict(ARTICLE, other_words) is None
    other_scope = _sourced("R6", ABSTRACT.content, "pdf:phycology-conference-abstract", units="hours",
                           population="marine cultures")
    assert conflict(ARTICLE, other_scope) is None
