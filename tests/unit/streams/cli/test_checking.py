"""The `check` commands alike (issue 43, item 4): inputs, line shape, stderr summary, --format, --fail-on, empty
input, the YAML refusal, one session per file, and oracle's agreement exit."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_FAILED, EXIT_OK, EXIT_REJECTED, EXIT_USAGE

EXAMPLES = Path(__file__).resolve().parents[4] / "examples"
DANGLING = EXAMPLES / "omen" / "dangling_directive.jsonl"  # TASK_TIMEOUT alerts and a Layer-1 escalation
SESSIONS = sorted((EXAMPLES / "omega57").glob("*.yaml"))
CASES = EXAMPLES / "oracle" / "cases.ndjson"


def _invoke(*args: str, stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin, prog_name="omega", catch_exceptions=False)


def _lines(result: Result) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def _unsourced(result: Result) -> list[dict[str, Any]]:
    """The lines without their `source` {file, line}, which names the input they were read from."""
    return [{k: v for k, v in line.items() if k != "source"} for line in _lines(result)]


def test_check_packets_reads_a_directory_gzip_and_stdin_alike(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.jsonl").write_bytes(DANGLING.read_bytes())
    (tmp_path / "x.jsonl.gz").write_bytes(gzip.compress(DANGLING.read_bytes()))
    plain = _unsourced(_invoke("check", "packets", str(DANGLING)))
    for args, stdin, name in (((str(tmp_path / "d"),), None, str(tmp_path / "d" / "x.jsonl")),
                              ((str(tmp_path / "x.jsonl.gz"),), None, str(tmp_path / "x.jsonl.gz")),
                              (("-",), DANGLING.read_bytes(), "-")):
        result = _invoke("check", "packets", *args, stdin=stdin)
        assert _unsourced(result) == plain
        assert {line["source"]["file"] for line in _lines(result)} == {name}


def test_stdin_takes_a_pretty_printed_packet_and_a_bom() -> None:
    first = DANGLING.read_text(encoding="utf-8").splitlines()[0]
    pretty = json.dumps(json.loads(first), indent=2).encode("utf-8")
    lines = _lines(_invoke("check", "packets", "-", stdin=pretty))
    assert [line["kind"] for line in lines] == ["verdict"]  # one packet, not one dead letter per line
    with_bom = _unsourced(_invoke("check", "packets", "-", stdin=b"\xef\xbb\xbf" + DANGLING.read_bytes()))
    assert with_bom == _unsourced(_invoke("check", "packets", str(DANGLING)))


def test_every_line_has_a_kind_and_snake_case_keys() -> None:
    for result in (_invoke("check", "packets", str(DANGLING)), _invoke("check", "messages", *map(str, SESSIONS))):
        for line in _lines(result):
            assert "kind" in line
            assert all(key == key.lower() for key in line), line


def test_check_packets_summarises_on_stderr_with_the_first_rejection_and_its_rule(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"not": "a packet"}\n', encoding="utf-8")
    result = _invoke("check", "packets", str(path))
    assert result.exit_code == EXIT_REJECTED
    assert "1 packets judged" not in result.stderr  # a dead letter is counted by kind, not judged as a verdict
    assert "dead_letter 1" in result.stderr
    assert f"rejected {path}:1: " in result.stderr
    summary = _invoke("check", "packets", str(DANGLING)).stderr
    assert summary == "9 packets judged: ACCEPTED 8, ACCEPTED_WITH_WARNINGS 1, alert 2, escalation 1\n"


def test_format_table_prints_one_tab_separated_row_per_line() -> None:
    json_lines = _lines(_invoke("check", "packets", str(DANGLING)))
    rows = _invoke("check", "packets", "--format", "table", str(DANGLING)).stdout.splitlines()
    assert len(rows) == len(json_lines) == 12
    assert all("kind=verdict" in row.split("\t") or "kind=alert" in row.split("\t")
               or "kind=escalation" in row.split("\t") for row in rows)


def test_fail_on_makes_alerts_and_escalations_fail() -> None:
    assert _invoke("check", "packets", str(DANGLING)).exit_code == EXIT_OK
    for level in ("warning", "alert", "escalation"):
        assert _invoke("check", "packets", "--fail-on", level, str(DANGLING)).exit_code == EXIT_REJECTED, level
    clean = str(EXAMPLES / "omega57" / "clean_success.yaml")  # no alert, no escalation
    assert _invoke("check", "messages", "--fail-on", "alert", clean).exit_code == EXIT_OK
    stalled = str(EXAMPLES / "omega57" / "stalled_partial.yaml")  # alerts, no escalation
    assert _invoke("check", "messages", "--fail-on", "escalation", stalled).exit_code == EXIT_OK
    assert _invoke("check", "messages", "--fail-on", "alert", stalled).exit_code == EXIT_REJECTED


def test_an_empty_input_is_an_input_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    for command, what in (("packets", "packets"), ("messages", "messages")):
        result = _invoke("check", command, str(empty))
        assert (result.exit_code, result.stdout, result.stderr) == (
            EXIT_USAGE, "", f"omega: empty input: no {what} found\n")
    oracle = _invoke("check", "oracle", str(empty))
    assert (oracle.exit_code, oracle.stdout, oracle.stderr) == (EXIT_USAGE, "", "omega: empty input: no cases found\n")


def test_check_packets_refuses_a_yaml_session_naming_check_messages() -> None:
    for args, stdin in (((str(SESSIONS[0]),), None), (("-",), SESSIONS[0].read_bytes())):
        result = _invoke("check", "packets", *args, stdin=stdin)
        assert result.exit_code == EXIT_USAGE
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1
        assert "`omega check messages`" in result.stderr


def test_check_messages_judges_one_session_per_file_unless_one_session() -> None:
    files = list(map(str, SESSIONS))
    per_file = _lines(_invoke("check", "messages", *files))
    assert {line["session_id"] for line in per_file if line["kind"] == "message"} == {
        "clean_success", "contradiction_cascade_failure", "stalled_partial"}
    assert sum(line["kind"] == "alert" for line in per_file) == 11
    assert sum(line["kind"] == "escalation" for line in per_file) == 1
    named = _lines(_invoke("check", "messages", "--session-per-file", *files))
    assert named == per_file  # the default's name is still accepted
    merged = _lines(_invoke("check", "messages", "--one-session", *files))
    assert {line["session_id"] for line in merged if line["kind"] == "message"} == {"clean_success"}


def test_check_oracle_exits_on_disagreement_not_on_fail_verdicts(tmp_path: Path) -> None:
    cases = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert any(c["expected"]["verdict"] == "FAIL" for c in cases)  # FAIL verdicts expected and agreed: exit 0
    assert _invoke("check", "oracle", str(CASES)).exit_code == EXIT_OK
    flipped = [dict(c, expected={**c["expected"], "verdict": "PASS"}) for c in cases]
    path = tmp_path / "flipped.ndjson"
    path.write_text("".join(json.dumps(c) + "\n" for c in flipped), encoding="utf-8")
    assert _invoke("check", "oracle", str(path)).exit_code == EXIT_FAILED
    bare = [{k: v for k, v in c.items() if k != "expected"} for c in cases]  # no expectation: a FAIL fails
    path.write_text("".join(json.dumps(c) + "\n" for c in bare), encoding="utf-8")
    assert _invoke("check", "oracle", str(path)).exit_code == EXIT_FAILED
