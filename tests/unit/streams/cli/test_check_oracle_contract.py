"""`omega check oracle` on the contract every `omega check` shares (streams/cli/checking.py): `kind: "case"` lines
with a status (AGREE/DISAGREE against `expected.verdict`, else the verdict PASS/FAIL), `--format table`,
`--fail-on`, the stderr summary after the agreement lines, and several files, directories and stdin as inputs.
The bundled examples (examples/oracle/cases.ndjson: 0001 PASS, 0002-0004 FAIL, each expected as judged; the
failing oracles' first rules: 0002 A RULE-PREC-001; 0003 A RULE-PREC-001 and B ORB-ABL-001; 0004 C ORC-FMT-001;
without `expected`, Oracle-B ablates 0002 against its facts, not the expected props, and fails it too with
ORB-ABL-001); every expected summary below is worked by hand from them."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_OK, EXIT_REJECTED, EXIT_USAGE

CASES = Path(__file__).resolve().parents[4] / "examples" / "oracle" / "cases.ndjson"
RAW = [line for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
IDS = ["Q-EXAMPLE-0001", "Q-EXAMPLE-0002", "Q-EXAMPLE-0003", "Q-EXAMPLE-0004"]


def _invoke(*args: str, stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(main, ["check", "oracle", *args], input=stdin, prog_name="omega",
                              catch_exceptions=False)


def _lines(result: Result) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def _cases(tmp_path: Path, name: str, cases: list[dict[str, Any]]) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return path


def _loaded() -> list[dict[str, Any]]:
    return [json.loads(line) for line in RAW]


def test_agreeing_cases_are_kind_case_lines_with_status_agree_and_a_summary_after_the_agreement() -> None:
    result = _invoke(str(CASES))
    assert result.exit_code == EXIT_OK
    lines = _lines(result)
    assert [(line["kind"], line["id"], line["verdict"], line["status"]) for line in lines] == [
        ("case", IDS[0], "PASS", "AGREE"), ("case", IDS[1], "FAIL", "AGREE"), ("case", IDS[2], "FAIL", "AGREE"),
        ("case", IDS[3], "FAIL", "AGREE")]
    assert all(set(line) == {"kind", "id", "verdict", "oracles", "status", "source"} for line in lines)
    numbered = enumerate(CASES.read_text(encoding="utf-8").splitlines(), start=1)
    assert [line["source"] for line in lines] == [{"file": str(CASES), "line": n} for n, raw in numbered if raw.strip()]
    assert result.stderr == "agreement with expected.verdict: 4/4\n4 cases judged: AGREE 4\n"


def test_a_disagreement_is_a_rejection_named_with_its_file_line_and_the_rules_that_failed(tmp_path: Path) -> None:
    cases = _loaded()
    cases[1]["expected"]["verdict"] = "PASS"  # judged FAIL (Oracle-A, RULE-PREC-001 first)
    cases[0]["expected"]["verdict"] = "FAIL"  # judged PASS: no rule failed it
    path = _cases(tmp_path, "flipped.ndjson", cases)
    result = _invoke(str(path))
    assert result.exit_code == EXIT_REJECTED
    assert [line["status"] for line in _lines(result)] == ["DISAGREE", "DISAGREE", "AGREE", "AGREE"]
    assert result.stderr == (
        "agreement with expected.verdict: 2/4\n"
        f"  {IDS[0]}: expected FAIL, got PASS\n"
        f"  {IDS[1]}: expected PASS, got FAIL\n"
        "4 cases judged: AGREE 2, DISAGREE 2\n"
        f"  rejected {path}:1 {IDS[0]}: expected FAIL, got PASS\n"
        f"  rejected {path}:2 {IDS[1]}: expected PASS, got FAIL (RULE-PREC-001)\n")


def test_without_expected_verdicts_the_status_is_the_verdict_and_a_fail_is_a_rejection(tmp_path: Path) -> None:
    bare = [{k: v for k, v in case.items() if k != "expected"} for case in _loaded()]
    path = _cases(tmp_path, "bare.ndjson", bare)
    result = _invoke(str(path))
    assert result.exit_code == EXIT_REJECTED
    assert [line["status"] for line in _lines(result)] == ["PASS", "FAIL", "FAIL", "FAIL"]
    assert result.stderr == (  # no agreement line: no case gives an expected verdict
        "4 cases judged: FAIL 3, PASS 1\n"
        f"  rejected {path}:2 {IDS[1]}: RULE-PREC-001, ORB-ABL-001\n"  # Oracle-B: no expected props, the facts
        f"  rejected {path}:3 {IDS[2]}: RULE-PREC-001, ORB-ABL-001\n"
        f"  rejected {path}:4 {IDS[3]}: ORC-FMT-001\n")
    passing = _cases(tmp_path, "pass.ndjson", bare[:1])
    assert (_invoke(str(passing)).exit_code, _invoke(str(passing)).stderr) == (EXIT_OK, "1 cases judged: PASS 1\n")


def test_several_files_a_directory_and_stdin_are_judged_in_the_order_given(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    (folder / "sub").mkdir(parents=True)
    (folder / "b.ndjson").write_text(RAW[2] + "\n", encoding="utf-8")
    (folder / "a.jsonl.gz").write_bytes(gzip.compress((RAW[1] + "\n").encode("utf-8")))
    (folder / "sub" / "c.ndjson").write_text(RAW[3] + "\n", encoding="utf-8")
    (folder / "notes.txt").write_text(RAW[0] + "\n", encoding="utf-8")  # not a case file: not read
    first = _cases(tmp_path, "first.ndjson", [json.loads(RAW[3])])
    result = _invoke(str(first), str(folder), "-", stdin=(RAW[0] + "\n").encode("utf-8"))
    assert result.exit_code == EXIT_OK
    # first.ndjson, then the directory by name (a.jsonl.gz, b.ndjson, sub/c.ndjson), then stdin
    assert [line["id"] for line in _lines(result)] == [IDS[3], IDS[1], IDS[2], IDS[3], IDS[0]]
    assert result.stderr == "agreement with expected.verdict: 5/5\n5 cases judged: AGREE 5\n"


def test_the_report_of_several_files_is_the_report_of_their_concatenation(tmp_path: Path) -> None:
    one, two = _cases(tmp_path, "one.ndjson", _loaded()[:2]), _cases(tmp_path, "two.ndjson", _loaded()[2:])
    split, whole = tmp_path / "split.json", tmp_path / "whole.json"
    assert _invoke(str(one), str(two), "--report", str(split)).exit_code == EXIT_OK
    assert _invoke(str(CASES), "--report", str(whole)).exit_code == EXIT_OK
    assert split.read_bytes() == whole.read_bytes()
    assert len(json.loads(whole.read_text(encoding="utf-8"))["case_results"]) == 4


def test_a_malformed_line_names_its_file_and_line_and_exits_2(tmp_path: Path) -> None:
    good = _cases(tmp_path, "good.ndjson", _loaded()[:1])
    mixed = tmp_path / "mixed.ndjson"
    mixed.write_text(RAW[1] + "\n{not json\n", encoding="utf-8")
    result = _invoke(str(good), str(mixed))
    assert result.exit_code == EXIT_USAGE
    assert [line["id"] for line in _lines(result)] == IDS[:2]
    assert result.stderr.startswith(f"omega: {mixed}:2: malformed line, not judged: JSON_SYNTAX")
    assert result.stderr.endswith("agreement with expected.verdict: 2/2\n")
    stdin = _invoke("-", stdin=b"[1]\n")
    assert stdin.exit_code == EXIT_USAGE
    assert stdin.stderr.startswith("omega: stdin:1: malformed line, not judged: NOT_AN_OBJECT")


def test_format_table_and_fail_on(tmp_path: Path) -> None:
    json_run, table = _invoke(str(CASES)), _invoke("--format", "table", str(CASES))
    rows = table.stdout.splitlines()
    assert len(rows) == 4
    assert all(row.startswith("kind=case\t") and "\tstatus=AGREE" in row for row in rows)
    assert (table.exit_code, table.stderr) == (json_run.exit_code, json_run.stderr)
    for level in ("warning", "alert", "escalation"):  # an oracle finds nothing below a rejection
        assert _invoke("--fail-on", level, str(CASES)).exit_code == EXIT_OK, level


def test_an_empty_directory_a_missing_file_and_an_empty_file_exit_2_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("x\n", encoding="utf-8")
    result = _invoke(str(tmp_path / "empty"))
    assert (result.exit_code, result.stderr) == (
        EXIT_USAGE, f"omega: {tmp_path / 'empty'}: no case files in this directory (.ndjson, .jsonl, gzipped or not)\n")
    missing = _invoke(str(CASES), str(tmp_path / "nope.ndjson"))
    assert (missing.exit_code, missing.stdout, missing.stderr) == (
        EXIT_USAGE, "", f"omega: no such file: {tmp_path / 'nope.ndjson'}\n")
    blank = tmp_path / "blank.ndjson"
    blank.write_text("\n\n", encoding="utf-8")
    assert (_invoke(str(blank)).exit_code, _invoke(str(blank)).stderr) == (
        EXIT_USAGE, "omega: empty input: no cases found\n")
