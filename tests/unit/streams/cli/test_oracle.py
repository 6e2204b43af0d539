"""`omega check oracle` through click's CliRunner: one line per case, agreement summary, report, exit 0/1/2."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from streams.stages.oracle import bundled_config_path
from tests.external_data import PHASE_Q_DEV, PHASE_Q_REPORT_SCHEMA, needs

DEV = PHASE_Q_DEV
CONFIG = bundled_config_path()
pytestmark = needs(PHASE_Q_DEV, PHASE_Q_REPORT_SCHEMA)  # the public cases and report schema: external data


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", "oracle", *args], prog_name="omega", catch_exceptions=False)


def _lines(result: Result) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def _dev(predicate: Any = None) -> list[str]:
    lines = [line for line in DEV.read_text(encoding="utf-8").split("\n") if line.strip()]
    return [line for line in lines if predicate is None or predicate(json.loads(line))]


def test_the_public_cases_give_one_line_each_full_agreement_and_exit_0(tmp_path: Path) -> None:
    report = tmp_path / "out" / "report.json"
    result = _invoke(str(DEV), "--config", str(CONFIG), "--report", str(report))
    lines = _lines(result)
    assert result.exit_code == EXIT_OK  # every verdict agrees with its expected one, FAILs included
    assert len(lines) == 34
    assert all(set(line) == {"kind", "id", "verdict", "oracles", "status", "source"} for line in lines)
    assert {(line["kind"], line["status"]) for line in lines} == {("case", "AGREE")}
    assert all(set(line["oracles"]) == {"A", "B", "C"} for line in lines)
    assert result.stderr == "agreement with expected.verdict: 34/34\n34 cases judged: AGREE 34\n"
    schema = json.loads(PHASE_Q_REPORT_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(schema).validate(json.loads(report.read_text(encoding="utf-8")))


def test_exit_0_when_every_case_passes_and_no_summary_without_expectations(tmp_path: Path) -> None:
    passing = [json.loads(line) for line in _dev(lambda c: c["expected"]["verdict"] == "PASS")]
    for case in passing[:3]:
        del case["expected"]
    path = tmp_path / "pass.ndjson"
    path.write_text("\n".join(json.dumps(c) for c in passing) + "\n", encoding="utf-8")
    result = _invoke(str(path), "--config", str(CONFIG))
    assert result.exit_code == EXIT_OK
    assert {line["verdict"] for line in _lines(result)} == {"PASS"}
    # 17 passing cases: 14 keep their expected PASS (AGREE), 3 have none (their verdict PASS is their status)
    assert result.stderr == "agreement with expected.verdict: 14/14\n17 cases judged: AGREE 14, PASS 3\n"


def test_a_malformed_line_is_reported_with_its_number_the_others_are_judged_and_exit_is_2(tmp_path: Path) -> None:
    good = _dev()[:2]
    path = tmp_path / "mixed.ndjson"
    bad_case = json.dumps({"id": "X", "category": "nonsense", "input": {}, "candidate_output": ""})
    path.write_text("\n".join([good[0], "{not json", "", good[1], bad_case, "[1, 2]"]) + "\n", encoding="utf-8")
    result = _invoke(str(path), "--config", str(CONFIG))
    assert result.exit_code == EXIT_USAGE
    assert [line["id"] for line in _lines(result)] == ["Q-CASE-0001", "Q-CASE-0002"]
    assert f"{path}:2: malformed line" in result.stderr
    assert "JSON_SYNTAX" in result.stderr
    assert f"{path}:5: malformed line" in result.stderr
    assert "category" in result.stderr
    assert f"{path}:6: malformed line" in result.stderr
    assert "NOT_AN_OBJECT" in result.stderr


def test_an_unknown_config_reference_in_a_case_is_a_malformed_line(tmp_path: Path) -> None:
    case = json.loads(_dev()[0])
    case["expected"]["max_unsupported_claims"] = "CONFIG:NOPE"
    path = tmp_path / "ref.ndjson"
    path.write_text(json.dumps(case) + "\n", encoding="utf-8")
    result = _invoke(str(path), "--config", str(CONFIG))
    assert result.exit_code == EXIT_USAGE
    assert "NOPE" in result.stderr


def test_a_different_config_file_changes_the_thresholds(tmp_path: Path) -> None:
    padded = _dev(lambda c: c["category"] == "necessity" and c["expected"]["verdict"] == "FAIL")[0]
    case = json.loads(padded)
    case["input"]["facts"].append(case["candidate_output"].split("\n\n")[1])  # the filler becomes a fact
    path = tmp_path / "one.ndjson"
    path.write_text(json.dumps(case) + "\n", encoding="utf-8")
    # expected FAIL: the default config agrees (exit 0), the loose one passes it and so disagrees (exit 1)
    assert _invoke(str(path), "--config", str(CONFIG)).exit_code == EXIT_OK  # still unnecessary
    raw = json.loads(CONFIG.read_text(encoding="utf-8"))
    loose = copy.deepcopy(raw)
    loose["NECESSITY_MIN_RATIO"]["value"] = 0.5
    config = tmp_path / "loose.json"
    config.write_text(json.dumps(loose), encoding="utf-8")
    assert _invoke(str(path), "--config", str(config)).exit_code == EXIT_FAILED


def test_missing_file_or_bad_config_is_exit_2(tmp_path: Path) -> None:
    assert _invoke(str(tmp_path / "nope.ndjson"), "--config", str(CONFIG)).exit_code == EXIT_USAGE
    bad = tmp_path / "bad.json"
    bad.write_text('{"UNSUPPORTED_MAX": {"value": 0}}', encoding="utf-8")
    result = _invoke(str(DEV), "--config", str(bad))
    assert result.exit_code == EXIT_USAGE
    assert "NECESSITY_MIN_RATIO" in result.stderr


def test_two_runs_write_byte_identical_reports(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    _invoke(str(DEV), "--config", str(CONFIG), "--report", str(first))
    _invoke(str(DEV), "--config", str(CONFIG), "--report", str(second))
    assert first.read_bytes() == second.read_bytes()
