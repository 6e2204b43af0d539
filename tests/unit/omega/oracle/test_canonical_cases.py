"""Issue 18 through the whole pipeline: cases of our own, in the test-set line format, whose output rewords
its facts the way LLMs do. A copula added or dropped and a unit spelled out or abbreviated must PASS (and
only DERIV-CANON-001 sources them: the literal matching refuses every claim); a changed negation, number,
unit or comparator must still FAIL, refused by RULE-PREC-004 itself. Verdicts are set by hand."""

from __future__ import annotations

from typing import Any

import pytest

from omega.oracle.case import parse_case
from omega.oracle.report import judge_case
from tests.unit.omega.oracle.support import CONFIG, line


def _case(case_id: str, output: str, facts: list[str], props: list[str], verdict: str) -> dict[str, Any]:
    out = line(output, facts, category="precision", expected_props=props, verdict=verdict)
    return {**out, "id": case_id}


REWORDED = [
    _case("Q-CANON-0001", "Fuel pressure 3.2 MPa.\nOxidizer flow rate 840 kg/s.",  # copula and article dropped
          ["The fuel pressure is 3.2 MPa.", "The oxidizer flow rate is 840 kg/s."], ["fuel pressure", "oxidizer"],
          "PASS"),
    _case("Q-CANON-0002", "The valve V2 is open during pressurization and valve V3 is closed during "  # added
          "depressurization.", ["Valve V2 open during pressurization.", "Valve V3 closed during depressurization."],
          ["v2", "v3"], "PASS"),
    _case("Q-CANON-0003", "Gyroscope drift is 0.003 degrees per hour.",  # unit spelled out
          ["Gyroscope drift is 0.003 deg/hr.", "Accelerometer bias is 0.01 mg."], ["gyroscope", "0.003"], "PASS"),
    _case("Q-CANON-0004", "API serves 100 req/s.\nThe session timeout is 5 min.",  # unit abbreviated
          ["The API serves 100 requests per second.", "Session timeout is 5 minutes."], ["api", "session"], "PASS"),
    _case("Q-CANON-0005", "CPU utilization is at 78 percent.\nSpecific impulse was 311 seconds.",
          ["CPU utilization at 78%.", "Specific impulse is 311s."], ["cpu", "impulse"], "PASS"),
]
CHANGED = [
    _case("Q-CANON-0101", "The valve isn't open during pressurization.",  # negation added
          ["The valve is open during pressurization."], ["valve"], "FAIL"),
    _case("Q-CANON-0102", "Valve V2 isn\u2019t open during pressurization.",  # typographic apostrophe
          ["Valve V2 is open during pressurization."], ["valve"], "FAIL"),
    _case("Q-CANON-0103", "Valve V2 open during pressurization.",  # negation dropped
          ["Valve V2 is not open during pressurization."], ["valve"], "FAIL"),
    _case("Q-CANON-0104", "The API serves 120 requests per second.",  # number changed, unit respelled
          ["The API serves 100 req/s."], ["api"], "FAIL"),
    _case("Q-CANON-0105", "Fuel pressure 3.3 MPa.",  # number changed, copula dropped
          ["The fuel pressure is 3.2 MPa."], ["fuel pressure"], "FAIL"),
    _case("Q-CANON-0106", "The session timeout is 5 hours.",  # unit changed, same number
          ["Session timeout is 5 minutes."], ["session"], "FAIL"),
    _case("Q-CANON-0107", "Load on beam C4 is above 5 kN.",  # comparator changed
          ["Load on beam C4 is below 5 kN."], ["load"], "FAIL"),
]


@pytest.mark.parametrize("case_line", REWORDED, ids=[c["id"] for c in REWORDED])
def test_reworded_facts_pass_and_only_the_canonical_form_sources_them(case_line: dict[str, Any]) -> None:
    judged = judge_case(parse_case(case_line), CONFIG)
    assert (judged.a.verdict, judged.b.verdict, judged.c.verdict, judged.verdict) == ("PASS",) * 4, judged.to_line()
    metrics = judged.a.metrics
    assert metrics["sourced_by_canonical_form"] == metrics["claims"]
    assert metrics["literal_unsourced"] == metrics["claims"]


@pytest.mark.parametrize("case_line", CHANGED, ids=[c["id"] for c in CHANGED])
def test_a_changed_negation_number_unit_or_comparator_still_fails_on_sourcing(case_line: dict[str, Any]) -> None:
    judged = judge_case(parse_case(case_line), CONFIG)
    assert judged.verdict == case_line["expected"]["verdict"] == "FAIL"
    assert {v.rule_id for v in judged.a.violations} >= {"RULE-PREC-001", "RULE-PREC-004"}, judged.to_line()
    assert judged.a.metrics["sourced_by_canonical_form"] == 0
