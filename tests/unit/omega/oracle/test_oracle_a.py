"""Oracle-A: each of the seven rules, passing and failing, and the DERIV-CONJ-001 derivation."""

from __future__ import annotations

import pytest

from omega.oracle.model import RuleOutcome
from omega.oracle.oracle_a import (
    RULES,
    judge_a,
    resolve_pair,
    rule_cont_001,
    rule_cont_002,
    rule_cont_003,
    rule_prec_001,
    rule_prec_002,
    rule_prec_003,
    rule_prec_004,
)
from tests.unit.omega.oracle.support import expected_step, view, violation

FACTS = ["The reactor core temperature is 350 degrees Celsius.", "Cooling system is operational."]


def test_the_seven_rules_run_in_the_published_order_with_their_ids() -> None:
    result = judge_a(view(FACTS[0], FACTS))
    assert [s.rule_applied for s in result.evidence] == [
        "RULE-PREC-001", "RULE-PREC-002", "RULE-PREC-003", "RULE-PREC-004",
        "RULE-CONT-001", "RULE-CONT-002", "RULE-CONT-003"]
    assert [r.__name__ for r in RULES] == [s.rule_applied.lower().replace("-", "_") for s in result.evidence]
    assert result.verdict == "PASS"


def test_rule_prec_001_counts_unsupported_sentences_against_the_threshold() -> None:
    ok = rule_prec_001(view("The reactor core temperature is 350 degrees Celsius. Cooling system is operational.",
                            FACTS))
    assert (ok.verdict, ok.metrics["unsupported_count"]) == ("PASS", 0)
    bad = rule_prec_001(view("Cooling system is operational. Radiation levels are critical.", FACTS))
    assert bad.verdict == "FAIL"
    [violation] = bad.violations
    assert (violation.invariant_id, violation.severity, violation.details) == (
        "Q-INV-01", "CRITICAL", "Radiation levels are critical.")


def test_rule_prec_002_needs_every_must_find_pattern() -> None:
    assert rule_prec_002(view(FACTS[0], FACTS, must_find=["REACTOR core", "350 degrees"])).verdict == "PASS"
    bad = rule_prec_002(view(FACTS[0], FACTS, must_find=["reactor core", "351 degrees", "35"]))
    assert [v.details for v in bad.violations] == ["351 degrees", "35"]


def test_rule_prec_003_forbids_every_must_not_find_pattern_as_a_whole_word() -> None:
    assert rule_prec_003(view("The configuration is invalid.", [], must_not_find=["valid"])).verdict == "PASS"
    bad = rule_prec_003(view("Radiation levels are CRITICAL.", [], must_not_find=["radiation levels are critical"]))
    assert [v.details for v in bad.violations] == ["radiation levels are critical"]


def test_rule_prec_004_sources_claims_both_ways_and_by_conjunction_only() -> None:
    inside = rule_prec_004(view("reactor core temperature is 350", FACTS))
    contains = rule_prec_004(view("The cooling system is operational.", FACTS))
    merged = rule_prec_004(view("The reactor core temperature is 350 degrees Celsius and cooling system is "
                                "operational.", FACTS))
    assert [o.verdict for o in (inside, contains, merged)] == ["PASS", "PASS", "PASS"]
    assert merged.metrics["sourced_by_conjunction"] == 1
    added = rule_prec_004(view("The reactor core temperature is 350 degrees Celsius and radiation is high.", FACTS))
    assert added.verdict == "FAIL"
    assert added.metrics["literal_unsourced"] == 0  # the seed's literal test alone would have let it through


def test_rule_prec_004_keeps_the_polarity_of_the_fact() -> None:
    assert rule_prec_004(view("Cooling system is not operational.", FACTS)).verdict == "FAIL"
    assert rule_prec_004(view("It is not true that cooling system is operational.", FACTS)).verdict == "FAIL"
    assert rule_prec_004(view("It isn\u2019t true that cooling system is operational.", FACTS)).verdict == "FAIL"
    assert rule_prec_004(view("The valve is open.", ["The valve is not open."])).verdict == "FAIL"
    assert rule_prec_004(view("The valve is not open.", ["The valve is not open."])).verdict == "PASS"


@pytest.mark.parametrize("cid", ["always-never", "never-always", "ALWAYS-NEVER"])
def test_rule_cont_001_finds_both_terms_of_a_listed_pair(cid: str) -> None:
    bad = rule_cont_001(view("It is always open. It is never closed.", [], contradiction_ids=[cid]))
    assert bad.verdict == "FAIL"
    assert bad.violations[0].invariant_id == "Q-INV-03"


def test_rule_cont_001_checks_only_listed_pairs_and_whole_words() -> None:
    assert rule_cont_001(view("Module A is enabled. Module B is disabled.", [])).verdict == "PASS"
    assert rule_cont_001(view("The input is invalid.", [], contradiction_ids=["valid-invalid"])).verdict == "PASS"
    assert rule_cont_001(view("Valid here, invalid there.", [], contradiction_ids=["valid-invalid"])).verdict == "FAIL"


def test_rule_cont_001_derives_a_pair_from_an_unknown_id_with_inflections() -> None:
    pair = resolve_pair("pass-fail")
    assert pair is not None
    assert (pair.a, pair.b, pair.derived) == ("pass", "fail", True)
    bad = rule_cont_001(view("It passed. It failed.", [], contradiction_ids=["pass-fail"]))
    assert (bad.verdict, bad.metrics["contradiction_ids_derived"]) == ("FAIL", 1)
    assert rule_cont_001(view("The passenger failed.", [], contradiction_ids=["pass-fail"])).verdict == "PASS"


def test_rule_cont_001_fails_closed_on_an_id_that_names_no_pair() -> None:
    bad = rule_cont_001(view("Anything.", [], contradiction_ids=["weird"]))
    assert (bad.verdict, bad.metrics["contradiction_ids_unknown"]) == ("FAIL", 1)
    assert resolve_pair("a-b-c") is None
    assert resolve_pair("x1-y2") is None


def test_rule_cont_002_finds_inverted_comparisons() -> None:
    assert rule_cont_002(view("Load x > y at start. Later y > x.", [])).verdict == "FAIL"
    assert rule_cont_002(view("We need a > b and a < b.", [])).verdict == "FAIL"
    assert rule_cont_002(view("a >= b and b >= a.", [])).verdict == "PASS"  # equality, not a clash
    assert rule_cont_002(view("a > b and b > c.", [])).verdict == "PASS"


def test_rule_cont_003_finds_an_assertion_then_its_denial() -> None:
    by_pair = rule_cont_003(view("X is true. Y holds. X is false.", [], contradiction_ids=["true-false"]))
    assert by_pair.verdict == "FAIL"
    assert "sentence 3 denies sentence 1" in by_pair.violations[0].message
    by_negation = rule_cont_003(view("The valve is open. The valve is not open.", []))
    assert by_negation.verdict == "FAIL"
    assert rule_cont_003(view("X is true. Z is false.", [], contradiction_ids=["true-false"])).verdict == "PASS"


def test_rule_prec_004_sources_on_the_canonical_form_and_says_so_in_its_metrics() -> None:
    verbatim = rule_prec_004(view("The reactor core temperature is 350 degrees Celsius.", FACTS))
    assert (verbatim.metrics["sourced_by_canonical_form"], verbatim.metrics["literal_unsourced"]) == (0, 0)
    reworded = rule_prec_004(view("Reactor core temperature 350 degrees Celsius. The cooling system was operational.",
                                  FACTS))
    assert reworded.verdict == "PASS"
    assert (reworded.metrics["sourced_by_canonical_form"], reworded.metrics["literal_unsourced"]) == (2, 2)
    assert (reworded.metrics["canonical_form_rule"], reworded.metrics["derivation_rule"]) == (
        "DERIV-CANON-001", "DERIV-CONJ-001")
    assert reworded.step.output_hash != rule_prec_004(view(
        "Reactor core temperature is 350 degrees Celsius. Cooling system is operational.", FACTS)).step.output_hash


def test_rule_prec_004_names_the_canonical_form_of_an_unsourced_claim() -> None:
    bad = rule_prec_004(view("The cooling system isn't operational.", FACTS))
    [violation] = bad.violations
    assert violation.details == "The cooling system isn't operational."
    assert "'cooling system not operational'" in violation.message
    assert "DERIV-CANON-001" in violation.message


FACT_KEYS = ["the reactor core temperature is 350 degrees celsius", "cooling system is operational"]


def _whole(result: RuleOutcome) -> tuple[object, ...]:
    return (result.rule_id, result.verdict, [v.to_dict() for v in result.violations], result.step,
            dict(result.metrics))


def test_rule_prec_001_whole_outcome_lists_every_unsupported_sentence_and_hashes_claims_facts_and_max() -> None:
    output = "Radiation levels are critical. Cooling system is operational. Pumps are off."
    claims = ["radiation levels are critical", "cooling system is operational", "pumps are off"]
    unsupported = ["Radiation levels are critical.", "Pumps are off."]
    found = [violation("Q-INV-01", "RULE-PREC-001", "2 unsupported claim(s) > UNSUPPORTED_MAX=0",
                       "Radiation levels are critical. | Pumps are off.")]
    assert _whole(rule_prec_001(view(output, FACTS))) == (
        "RULE-PREC-001", "FAIL", found,
        expected_step("oracle_a", "RULE-PREC-001", {"claims": claims, "facts": FACT_KEYS, "max": 0}, unsupported,
                      found),
        {"claims": 3, "unsupported_count": 2, "unsupported_max": 0})
    ok = rule_prec_001(view("Cooling system is operational.", FACTS))
    assert _whole(ok) == ("RULE-PREC-001", "PASS", [], expected_step(
        "oracle_a", "RULE-PREC-001", {"claims": ["cooling system is operational"], "facts": FACT_KEYS, "max": 0},
        [], []), {"claims": 1, "unsupported_count": 0, "unsupported_max": 0})


def test_rule_prec_002_and_003_whole_outcomes_name_each_missing_or_forbidden_pattern() -> None:
    key = FACT_KEYS[0]
    missing = [violation("Q-INV-01", "RULE-PREC-002", "required pattern missing", "351 degrees")]
    assert _whole(rule_prec_002(view(FACTS[0], FACTS, must_find=["Reactor core", "351 degrees"]))) == (
        "RULE-PREC-002", "FAIL", missing,
        expected_step("oracle_a", "RULE-PREC-002", {"output": key, "must_find": ["Reactor core", "351 degrees"]},
                      ["351 degrees"], missing),
        {"must_find_missing": 1})
    present = [violation("Q-INV-01", "RULE-PREC-003", "forbidden pattern present", "350 DEGREES")]
    assert _whole(rule_prec_003(view(FACTS[0], FACTS, must_not_find=["350 DEGREES", "invalid"]))) == (
        "RULE-PREC-003", "FAIL", present,
        expected_step("oracle_a", "RULE-PREC-003", {"output": key, "must_not_find": ["350 DEGREES", "invalid"]},
                      ["350 DEGREES"], present),
        {"must_not_find_present": 1})


def test_rule_cont_001_whole_outcome_reports_an_unknown_id_then_each_pair_found() -> None:
    ids = ["valid-invalid", "weird", "pass-fail"]
    found = [violation("Q-INV-03", "RULE-CONT-001", "contradiction id 'weird' names no pair (TERM-TERM): it cannot be "
                       "checked", "weird"),
             violation("Q-INV-03", "RULE-CONT-001", "both terms of 'valid-invalid' (valid/invalid) appear",
                       "valid-invalid")]
    assert _whole(rule_cont_001(view("Valid here, invalid there.", [], contradiction_ids=ids))) == (
        "RULE-CONT-001", "FAIL", found,
        expected_step("oracle_a", "RULE-CONT-001", {"output": "valid here, invalid there", "ids": ids}, None, found),
        {"contradiction_ids": 3, "contradiction_ids_derived": 1, "contradiction_ids_unknown": 1})


def test_rule_cont_002_whole_outcome_names_the_clashing_pair_once() -> None:
    found = [violation("Q-INV-03", "RULE-CONT-002", "incompatible constraints", "a > b and b > a")]
    assert _whole(rule_cont_002(view("We need a > b and a < b.", []))) == (
        "RULE-CONT-002", "FAIL", found,
        expected_step("oracle_a", "RULE-CONT-002", {"output": "we need a > b and a < b"}, [["a", "b"]], found),
        {"comparisons": 2})
    ok = rule_cont_002(view("a > b and b > c.", []))
    assert _whole(ok) == ("RULE-CONT-002", "PASS", [], expected_step(
        "oracle_a", "RULE-CONT-002", {"output": "a > b and b > c"}, [], []), {"comparisons": 2})


def test_rule_cont_003_whole_outcome_says_which_sentence_denies_which_and_how() -> None:
    output = "X is true. Y holds. X is false. The valve is open. The valve is not open."
    claims = ["x is true", "y holds", "x is false", "the valve is open", "the valve is not open"]
    found = [violation("Q-INV-03", "RULE-CONT-003", "sentence 3 denies sentence 1 (true/false)",
                       "X is true. / X is false."),
             violation("Q-INV-03", "RULE-CONT-003", "sentence 5 denies sentence 4 (negation)",
                       "The valve is open. / The valve is not open.")]
    assert _whole(rule_cont_003(view(output, [], contradiction_ids=["true-false"]))) == (
        "RULE-CONT-003", "FAIL", found,
        expected_step("oracle_a", "RULE-CONT-003", {"claims": claims, "ids": ["true-false"]}, None, found), {})


def test_rule_cont_003_a_repeated_sentence_is_not_a_denial() -> None:
    repeated = rule_cont_003(view("The valve is open. The valve is open. It is not open. It is not open.", []))
    assert (repeated.verdict, repeated.violations) == ("PASS", ())
