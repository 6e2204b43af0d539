"""`omega replay`, `omega check packets` and `omega check messages` through click's CliRunner: output lines, the
replay file and its summary, exit codes 0/1/2."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_OK, EXIT_REJECTED, EXIT_USAGE
from streams.replay import Replayer, read_inputs
from streams.stages.packets import Pipeline
from streams.wire.codec import SchemaRegistry
from tests.factories import packet as factory_packet

SESSIONS = Path(__file__).resolve().parents[3] / "data" / "omega57"


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), prog_name="omega", catch_exceptions=False)


def _jsonl(path: Path, packets: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(p) + "\n" for p in packets), encoding="utf-8")
    return path


def _rejected_packet() -> dict[str, Any]:
    broken = factory_packet(1, 1)
    del broken["mcp"]["budgets"]
    return broken


def _lines(result: Result) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def test_check_packets_exits_zero_on_valid_packets(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "ok.jsonl", [factory_packet(n, 1) for n in range(3)])
    result = _invoke("check", "packets", str(path))
    assert result.exit_code == EXIT_OK, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(line["kind"], line["status"]) for line in lines] == [("verdict", "ACCEPTED")] * 3
    assert [line["packet_id"] for line in lines] == [f"pkt_00001_00000{n}" for n in range(3)]
    assert [line["fsm"] for line in lines] == [{"from": "S0_IDLE", "to": "S1_SENSE"}] + [
        {"from": "S1_SENSE", "to": "S1_SENSE"}] * 2


def test_check_packets_exits_one_on_a_rejected_packet(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "mixed.jsonl", [factory_packet(0, 1), _rejected_packet()])
    result = _invoke("check", "packets", str(path))
    assert result.exit_code == EXIT_REJECTED
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["status"] for line in lines] == ["ACCEPTED", "REJECTED"]
    assert {"rule": "SCHEMA", "field": "mcp.budgets"}.items() <= lines[1]["violations"][0].items()


def test_check_packets_exits_one_on_a_dead_letter(tmp_path: Path) -> None:
    path = tmp_path / "junk.jsonl"
    path.write_bytes(b"not json at all\n")
    result = _invoke("check", "packets", str(path))
    assert result.exit_code == EXIT_REJECTED
    [line] = [json.loads(line) for line in result.stdout.splitlines()]
    assert (line["kind"], line["error_class"]) == ("dead_letter", "JSON_SYNTAX")


def test_check_packets_exits_two_on_a_missing_file(tmp_path: Path) -> None:
    present = _jsonl(tmp_path / "ok.jsonl", [factory_packet(0, 1)])
    missing = tmp_path / "nowhere.jsonl"
    result = _invoke("check", "packets", str(present), str(missing))
    assert result.exit_code == EXIT_USAGE
    assert str(missing) in result.stderr
    assert result.stdout == ""  # nothing is judged when an input is missing


def test_replay_out_writes_the_jsonl_and_prints_the_summary_table(tmp_path: Path) -> None:
    inputs = _jsonl(tmp_path / "episode.jsonl", [factory_packet(n, 2) for n in range(3)])
    out = tmp_path / "out" / "replay.jsonl"
    result = _invoke("replay", str(inputs), "--out", str(out))

    assert result.exit_code == EXIT_OK, result.output
    expected = io.StringIO()
    Replayer(Pipeline(SchemaRegistry.from_directory())).run(read_inputs([inputs]), expected)
    assert out.read_text(encoding="utf-8") == expected.getvalue()
    assert [json.loads(line)["topic"] for line in expected.getvalue().splitlines()] == ["omen.verdicts"] * 3
    assert "Replay of 1 file(s)" in result.stdout
    rows = {tuple(cell.strip() for cell in line.strip("│").split("│"))
            for line in result.stdout.splitlines() if line.startswith("│")}
    assert {("events in", "", "3"), ("episodes", "", "1"), ("verdicts", "ACCEPTED", "3"),
            ("alerts", "-", "0"), ("dead letters", "-", "0"), ("escalations", "", "0")} == rows


EXAMPLES = Path(__file__).resolve().parents[4] / "examples" / "omen"
# each of these hand-written episodes raises exactly one escalation (as tests/unit/omega/packets/test_episodes.py pins)
ONE_ESCALATION_EACH = ("budget_overrun.jsonl", "dangling_directive.jsonl", "degraded_escalation.jsonl")


def _summary_rows(text: str) -> set[tuple[str, ...]]:
    return {tuple(cell.strip() for cell in line.strip("│").split("│")) for line in text.splitlines()
            if line.startswith("│")}


def test_replay_summary_counts_the_escalations_it_wrote(tmp_path: Path) -> None:
    out = tmp_path / "replay.jsonl"
    result = _invoke("replay", *(str(EXAMPLES / name) for name in ONE_ESCALATION_EACH), "--out", str(out))
    written = [json.loads(line)["topic"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert written.count("omega.escalations") == 3
    rows = _summary_rows(result.stdout)
    assert ("escalations", "", "3") in rows, result.stdout
    assert ("episodes", "", "3") in rows


def test_replay_twice_writes_identical_files(tmp_path: Path) -> None:
    inputs = _jsonl(tmp_path / "episode.jsonl", [factory_packet(n, 2) for n in range(4)] + [_rejected_packet()])
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    _invoke("replay", str(inputs), "--out", str(first), "--no-summary")
    _invoke("replay", str(inputs), "--out", str(second), "--no-summary")
    assert first.read_bytes() == second.read_bytes() != b""


def test_replay_exits_one_when_something_was_rejected(tmp_path: Path) -> None:
    inputs = _jsonl(tmp_path / "episode.jsonl", [factory_packet(0, 1), _rejected_packet()])
    result = _invoke("replay", str(inputs), "--out", str(tmp_path / "out.jsonl"))
    assert result.exit_code == EXIT_REJECTED
    assert "REJECTED" in result.stdout


def test_replay_exits_one_when_only_dead_letters_were_produced(tmp_path: Path) -> None:
    inputs = tmp_path / "junk.jsonl"
    inputs.write_bytes(b"[1, 2]\n")
    result = _invoke("replay", str(inputs), "--no-summary")
    assert result.exit_code == EXIT_REJECTED
    assert result.stdout == ""  # no --out, no summary: nothing printed


def test_replay_exits_two_on_a_missing_file(tmp_path: Path) -> None:
    result = _invoke("replay", str(tmp_path / "absent.jsonl"))
    assert result.exit_code == EXIT_USAGE
    assert "no such file" in result.stderr


def test_replay_out_dash_writes_jsonl_to_stdout_and_the_summary_to_stderr(tmp_path: Path) -> None:
    inputs = _jsonl(tmp_path / "episode.jsonl", [factory_packet(0, 3)])
    result = _invoke("replay", str(inputs), "--out", "-")
    assert result.exit_code == EXIT_OK
    [line] = result.stdout.splitlines()
    assert json.loads(line)["value"]["packet_id"] == "pkt_00003_000000"
    assert "events in" in result.stderr


def test_a_command_without_files_is_a_usage_error() -> None:
    assert _invoke("replay").exit_code == EXIT_USAGE
    assert _invoke("check", "packets").exit_code == EXIT_USAGE


def test_check_messages_accepts_a_clean_session_and_prints_its_success_report() -> None:
    result = _invoke("check", "messages", str(SESSIONS / "clean_success.yaml"))
    lines = _lines(result)
    messages = [line for line in lines if line["kind"] == "message"]
    assert result.exit_code == EXIT_OK
    assert len(messages) >= 40
    assert {m["status"] for m in messages} == {"ACCEPTED"}
    assert all(m["file"].endswith("clean_success.yaml") and m["reasons"] == [] for m in messages)
    assert [line["status"] for line in lines if line["kind"] == "termination"] == ["SUCCESS"]
    assert not [line for line in lines if line["kind"] == "alert"]


def test_check_messages_accepts_a_batch_reference_and_prints_what_it_normalised() -> None:
    result = _invoke("check", "messages", str(SESSIONS / "real_shapes" / "batch_split_spaced.yaml"))
    [message] = [line for line in _lines(result) if line["kind"] == "message"]
    assert result.exit_code == EXIT_OK
    assert (message["status"], message["reasons"]) == ("ACCEPTED", [])
    assert message["notes"] == ["header.responding_to: 'Batch 4 - 2' read as 'BATCH_4_2' (a §1.3.3 batch)"]


def test_check_messages_exits_1_and_names_the_reasons_when_a_message_is_rejected(tmp_path: Path) -> None:
    docs = [d for d in yaml.safe_load_all((SESSIONS / "clean_success.yaml").read_text()) if d]
    docs[1]["message"]["header"]["agent_id"] = 58
    docs[2]["message"]["summary"]["confidence"] = -0.2
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump_all(docs[:4], sort_keys=False))
    result = _invoke("check", "messages", str(bad))
    messages = [line for line in _lines(result) if line["kind"] == "message"]
    assert result.exit_code == EXIT_REJECTED
    assert [m["status"] for m in messages] == ["ACCEPTED", "REJECTED", "REJECTED", "ACCEPTED"]
    assert any("agent_id" in r and "58" in r for r in messages[1]["reasons"])
    assert any("confidence" in r for r in messages[2]["reasons"])
    alerts = [line for line in _lines(result) if line["kind"] == "alert"]
    assert {a["alert_kind"] for a in alerts} == {"AGENT_FAILURE"}


def test_check_messages_treats_several_files_as_one_session_in_order(tmp_path: Path) -> None:
    docs = [d for d in yaml.safe_load_all((SESSIONS / "clean_success.yaml").read_text()) if d]
    paths = []
    for n, doc in enumerate(docs):
        path = tmp_path / f"m{n:03d}.json"
        path.write_text(json.dumps(doc))  # JSON is accepted as well as YAML
        paths.append(str(path))
    result = _invoke("check", "messages", *paths)
    lines = _lines(result)
    assert result.exit_code == EXIT_OK
    assert {line["session_id"] for line in lines if line["kind"] == "message"} == {"m000"}
    assert [line["status"] for line in lines if line["kind"] == "termination"] == ["SUCCESS"]


def test_check_messages_per_file_sessions_judge_each_file_alone() -> None:
    files = [str(SESSIONS / "clean_success.yaml"), str(SESSIONS / "quality_gate_partial.yaml")]
    result = _invoke("check", "messages", "--session-per-file", *files)
    reports = {line["session_id"]: line["status"] for line in _lines(result) if line["kind"] == "termination"}
    assert reports == {"clean_success": "SUCCESS", "quality_gate_partial": "PARTIAL"}


def test_check_messages_exits_2_on_a_missing_file() -> None:
    result = CliRunner().invoke(main, ["check", "messages", "no/such/file.yaml"])
    assert result.exit_code == EXIT_USAGE
    assert "no such file" in result.stderr
