"""Final verdict, Q-INV-06 evidence chain, the report against the published schema, and determinism."""

from __future__ import annotations

import json
from dataclasses import replace

import jsonschema

from omega.canonical import content_hash
from omega.oracle.case import parse_case
from omega.oracle.evidence import verify_chain
from omega.oracle.model import worst
from omega.oracle.report import build_report, judge_case, report_text
from tests.external_data import PHASE_Q_DEV, PHASE_Q_REPORT_SCHEMA, needs, text_or_empty
from tests.unit.omega.oracle.support import CONFIG, case, dev_lines


def _report() -> dict[str, object]:
    return build_report([judge_case(parse_case(line), CONFIG) for line in dev_lines()], CONFIG)


def test_the_final_verdict_is_the_worst_of_the_three() -> None:
    assert worst(["PASS", "PASS", "PASS"]) == "PASS"
    assert worst(["PASS", "FAIL", "PASS"]) == "FAIL"
    assert worst([]) == "FAIL"  # fail-closed
    judged = judge_case(case("Fact one.\r\nFact two.", ["Fact one.", "Fact two."]), CONFIG)
    assert (judged.a.verdict, judged.b.verdict, judged.c.verdict, judged.verdict) == ("PASS", "PASS", "FAIL", "FAIL")


def test_the_evidence_chain_records_every_step_with_hashes_and_detects_tampering() -> None:
    judged = judge_case(case("Fact one.", ["Fact one."]), CONFIG)
    chain = judged.evidence_chain
    steps = chain["steps"]
    assert steps[0]["step"] == "normalise"
    assert steps[-1]["rule_applied"] == "FINAL-WORST-OF-THREE"
    assert len(steps) == 1 + 7 + 7 + 5 + 1
    assert all(set(s) == {"step", "input_hash", "output_hash", "rule_applied", "verdict",
                          "timestamp_deterministic"} for s in steps)
    assert verify_chain(chain)
    tampered = {**chain, "steps": [*steps[:3], {**steps[3], "verdict": "FAIL"}, *steps[4:]]}
    assert not verify_chain(tampered)
    assert not verify_chain({**chain, "steps": steps[::-1]})


@needs(PHASE_Q_DEV, PHASE_Q_REPORT_SCHEMA)
def test_the_report_validates_against_the_published_schema() -> None:
    report = _report()
    schema = json.loads(text_or_empty(PHASE_Q_REPORT_SCHEMA))
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()).validate(report)
    scores = report["scores"]
    assert isinstance(scores, dict)
    assert (scores["total_cases"], scores["passed"], scores["failed"]) == (34, 17, 17)


@needs(PHASE_Q_DEV)
def test_two_runs_give_byte_identical_reports_with_the_same_hash() -> None:
    first, second = _report(), _report()
    assert report_text(first) == report_text(second)
    assert first["report_hash"] == second["report_hash"]
    body = {k: v for k, v in first.items() if k != "report_hash"}
    assert first["report_hash"] == content_hash(body)
    text = report_text(first)
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def test_the_result_hash_and_verdict_id_change_with_the_case_and_the_config() -> None:
    one = judge_case(case("Fact one.", ["Fact one."]), CONFIG)
    again = judge_case(case("Fact one.", ["Fact one."]), CONFIG)
    other = judge_case(case("Fact one!", ["Fact one."]), CONFIG)
    assert (one.result_hash, one.verdict_id) == (again.result_hash, again.verdict_id)
    assert one.result_hash != other.result_hash
    assert one.verdict_id != other.verdict_id
    loose = replace(CONFIG, config_hash="f" * 64)
    assert judge_case(case("Fact one.", ["Fact one."]), loose).verdict_id != one.verdict_id


def test_the_cli_line_has_the_published_shape() -> None:
    line = judge_case(case("Fact one. Made up.", ["Fact one."], must_find=["fact"]), CONFIG).to_line()
    assert set(line) == {"id", "verdict", "oracles"}
    assert line["verdict"] == "FAIL"
    assert set(line["oracles"]) == {"A", "B", "C"}
    assert all(set(r) == {"verdict", "violations", "metrics"} for r in line["oracles"].values())
    violation = line["oracles"]["A"]["violations"][0]
    assert violation["rule_id"] == "RULE-PREC-001"
    assert violation["severity"] == "CRITICAL"


def test_the_chain_opens_with_the_normalise_step_and_closes_with_the_worst_of_three() -> None:
    raw = "Fact one.\r\nFact two."
    judged = judge_case(case(raw, ["Fact one.", "Fact two."]), CONFIG)
    steps = judged.evidence_chain["steps"]
    assert steps[0] == {"step": "normalise", "input_hash": content_hash(raw),
                        "output_hash": content_hash("Fact one. Fact two."), "rule_applied": "Q-INV-05/NORMALISE",
                        "verdict": "PASS", "timestamp_deterministic": "1970-01-01T00:00:00Z"}
    assert steps[-1] == {"step": "final", "input_hash": content_hash(["PASS", "PASS", "FAIL"]),
                         "output_hash": content_hash("FAIL"), "rule_applied": "FINAL-WORST-OF-THREE",
                         "verdict": "FAIL", "timestamp_deterministic": "1970-01-01T00:00:00Z"}


def test_the_scores_count_verdicts_per_category_and_violations_per_invariant() -> None:
    facts = ["Fact one.", "Fact two."]
    judged = [judge_case(case("Fact one.", facts), CONFIG),
              judge_case(case("Fact one.\r\nFact two.", facts), CONFIG),
              judge_case(case("Fact one.\r\nFact two.", facts, category="stability"), CONFIG)]
    assert [j.verdict for j in judged] == ["PASS", "FAIL", "FAIL"]
    empty = {"passed": 0, "failed": 0, "total": 0}
    assert build_report(judged, CONFIG)["scores"] == {
        "total_cases": 3, "passed": 1, "failed": 2, "pass_rate": 0.333333,
        "by_category": {"precision": {"passed": 1, "failed": 1, "total": 2}, "necessity": empty,
                        "contradiction": empty, "stability": {"passed": 0, "failed": 1, "total": 1},
                        "adversarial": empty, "cross-ref": empty},
        "by_invariant": {"Q-INV-01": {"violations": 0}, "Q-INV-02": {"violations": 0},
                         "Q-INV-03": {"violations": 0}, "Q-INV-04": {"violations": 0},
                         "Q-INV-05": {"violations": 2}, "Q-INV-06": {"violations": 0}}}
    assert build_report([], CONFIG)["scores"]["pass_rate"] == 0.0
