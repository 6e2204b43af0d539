"""The Phase Q thresholds at their boundaries: each one exactly at, just above and just below its value.

The values and which side is inclusive come from `phase-q-config.json` (`rule`) and the spec
(`seeds/phase-q-oracle-rules.md`, `phase-q-pipeline.md`), never from the code under test:

* NECESSITY_MIN_RATIO 0.85, Q-INV-02 "at least 85% segments must be necessary": a ratio of exactly 0.85
  passes, anything below fails (ORB-ABL-001 FAILs when necessary/segments < NECESSITY_MIN_RATIO). The ratio
  is reported rounded to RATIO_DIGITS = 6 decimals.
* UNSUPPORTED_MAX 0, Q-INV-01 "zero unsupported claims": a count equal to the threshold passes, one more
  fails (RULE-PREC-001 "the unsupported count exceeds the threshold").
* STABILITY_FACTOR 3, Q-INV-04 "delta_segments <= STABILITY_FACTOR * changed_fields": one changed fact may
  change 3 segments' judgements, not 4.

Every expected ratio below is counted by hand from the segments written in the test.
"""

from __future__ import annotations

import copy

import pytest

from omega.oracle.config import load_config
from omega.oracle.oracle_a import rule_prec_001, rule_prec_004
from omega.oracle.oracle_b import orb_abl_001, orb_stab_001
from tests.unit.omega.oracle.support import CONFIG, CONFIG_RAW, view

# Distinct words, none a whole word of another, so each "Unit X is ready." is sourced by its own fact only.
NAMES = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo",
         "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform")
FILLERS = ("Propulsion is fascinating.", "Engineers enjoy tea.", "History repeats itself.",
           "Weather varies daily.")


def padded(necessary: int, unnecessary: int) -> tuple[str, list[str]]:
    """An output of `necessary` segments each the only one sourced by its own fact, then `unnecessary`
    filler segments sourced by no fact (facts mode: removing one loses no fact), and the facts."""
    facts = [f"Unit {name} is ready." for name in NAMES[:necessary]]
    return " ".join([*facts, *FILLERS[:unnecessary]]), facts


def test_the_shared_config_holds_the_thresholds_these_tests_pin() -> None:
    assert CONFIG.necessity_min_ratio == 0.85
    assert CONFIG.unsupported_max == 0
    assert CONFIG.stability_factor == 3.0


# ------------------------------------------------------------------------------ NECESSITY_MIN_RATIO (Q-INV-02)
@pytest.mark.parametrize(("necessary", "unnecessary", "ratio", "verdict"), [
    (17, 3, 0.85, "PASS"),  # exactly at the threshold: "at least 85%"
    (6, 1, 0.857143, "PASS"),  # just above (6/7, reported to 6 decimals)
    (21, 4, 0.84, "FAIL"),  # just below
    (16, 4, 0.8, "FAIL"),  # below, but above a loosened 0.75
    (3, 1, 0.75, "FAIL"),  # 0.75 is not enough either
    (20, 0, 1.0, "PASS"),
])
def test_necessity_ratio_at_above_and_below_the_threshold(necessary: int, unnecessary: int, ratio: float,
                                                          verdict: str) -> None:
    output, facts = padded(necessary, unnecessary)
    result = orb_abl_001(view(output, facts))
    assert result.metrics["props_mode"] == "facts"
    assert (result.metrics["necessary_segments"], result.metrics["segments"]) == (necessary, necessary + unnecessary)
    assert (result.verdict, result.metrics["necessity_ratio"]) == (verdict, ratio)
    if verdict == "FAIL":
        [violation] = result.violations
        assert (violation.invariant_id, violation.rule_id) == ("Q-INV-02", "ORB-ABL-001")
        assert violation.details == " | ".join(FILLERS[:unnecessary])


def test_necessity_ratio_at_the_threshold_with_expected_props() -> None:
    # 20 segments, 17 of them the only one naming a required property, 3 naming none: ratio exactly 0.85
    output, facts = padded(17, 3)
    props = [f"unit {name}" for name in NAMES[:17]]
    at = orb_abl_001(view(output, facts, expected_props=props))
    assert (at.metrics["props_mode"], at.verdict, at.metrics["necessity_ratio"]) == ("expected_props", "PASS", 0.85)
    output, facts = padded(16, 4)
    below = orb_abl_001(view(output, facts, expected_props=props[:16]))
    assert (below.verdict, below.metrics["necessity_ratio"]) == ("FAIL", 0.8)


def test_a_config_threshold_of_0_75_lets_the_0_8_output_pass() -> None:
    # the same 0.8 output: the verdict is the config's, so 0.85 -> FAIL, 0.75 -> PASS, 0.8 itself -> PASS
    output, facts = padded(16, 4)
    for threshold, verdict in ((0.85, "FAIL"), (0.8, "PASS"), (0.75, "PASS"), (0.81, "FAIL")):
        raw = copy.deepcopy(CONFIG_RAW)
        raw["NECESSITY_MIN_RATIO"]["value"] = threshold
        assert orb_abl_001(view(output, facts, config=load_config(raw))).verdict == verdict, threshold


# ------------------------------------------------------------------------------ UNSUPPORTED_MAX (Q-INV-01)
@pytest.mark.parametrize(("fillers", "verdict"), [(0, "PASS"), (1, "FAIL"), (2, "FAIL")])
def test_unsupported_claims_at_and_above_the_zero_threshold(fillers: int, verdict: str) -> None:
    output, facts = padded(3, fillers)
    v = view(output, facts, max_unsupported_claims="CONFIG:UNSUPPORTED_MAX")
    prec_001, prec_004 = rule_prec_001(v), rule_prec_004(v)
    assert (prec_001.metrics["unsupported_count"], prec_001.metrics["unsupported_max"]) == (fillers, 0)
    assert (prec_001.verdict, prec_004.verdict) == (verdict, verdict)
    assert len(prec_004.violations) == fillers  # one per unsourced sentence when the count exceeds the threshold


@pytest.mark.parametrize(("fillers", "verdict"), [(1, "PASS"), (2, "PASS"), (3, "FAIL")])
def test_a_raised_unsupported_max_is_inclusive_too(fillers: int, verdict: str) -> None:
    raw = copy.deepcopy(CONFIG_RAW)
    raw["UNSUPPORTED_MAX"]["value"] = 2
    output, facts = padded(3, fillers)
    v = view(output, facts, config=load_config(raw), max_unsupported_claims="CONFIG:UNSUPPORTED_MAX")
    assert (rule_prec_001(v).verdict, rule_prec_004(v).verdict) == (verdict, verdict)


# ------------------------------------------------------------------------------ STABILITY_FACTOR (Q-INV-04)
@pytest.mark.parametrize(("copies", "verdict"), [(2, "PASS"), (3, "PASS"), (4, "FAIL")])
def test_segments_changed_by_one_fact_at_and_around_three(copies: int, verdict: str) -> None:
    # every copy is sourced by the one fact only; changing its value unsources all of them at once
    facts = ["The fuel pressure is 3.2 MPa.", "The oxidizer flow rate is 840 kg/s."]
    output = " ".join(["The fuel pressure is 3.2 MPa."] * copies)
    result = orb_stab_001(view(output, facts))
    assert (result.verdict, result.metrics["max_changed_segments_per_field"]) == (verdict, copies)
    if verdict == "FAIL":
        assert [v.invariant_id for v in result.violations] == ["Q-INV-04"]
