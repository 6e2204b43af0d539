"""`omega check messages` and `omega plan` through click's CliRunner: output lines, exit codes 0/1/2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner, Result

from streams.cli.main import EXIT_OK, EXIT_REJECTED, EXIT_USAGE, main

SESSIONS = Path(__file__).resolve().parents[3] / "data" / "omega57"


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), prog_name="omega", catch_exceptions=False)


def _lines(result: Result) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


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


def test_plan_prints_batches_within_the_parallel_limit_with_the_mandatory_agents() -> None:
    result = _invoke("plan", "--type", "EMPIRICAL/CAUSAL", "--uncertainty", "HIGH", "--stakes", "HIGH")
    plan = json.loads(result.stdout)
    assert result.exit_code == EXIT_OK
    deployed = {a for batch in plan["batches"] for a in batch["agents"]} | set(plan["persistent"])
    assert {48, 52, 53} <= deployed
    assert all(len(batch["agents"]) + len(plan["persistent"]) <= 10 for batch in plan["batches"])
    assert set(range(35, 47)) <= deployed  # HIGH stakes: the full adversary battery


def test_plan_exits_2_with_a_readable_reason_on_a_subtype_of_another_type() -> None:
    result = CliRunner().invoke(main, ["plan", "--type", "EMPIRICAL/ETHICAL", "--uncertainty", "LOW",
                                       "--stakes", "LOW"])
    assert result.exit_code == EXIT_USAGE
    assert "ETHICAL" in result.stderr
