"""The `omega` command line through click's CliRunner: help, exit codes 0/1/2, replay's JSONL and summary."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result
from rich.console import Console

from streams.cli.main import EXIT_OK, EXIT_REJECTED, EXIT_USAGE, main
from streams.cli.summary import render_summary
from streams.replay import Replayer, ReplaySummary, read_inputs
from streams.stages.packets import Pipeline
from streams.wire.codec import SchemaRegistry
from tests.factories import packet as factory_packet


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), prog_name="omega", catch_exceptions=False)


def _jsonl(path: Path, packets: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(p) + "\n" for p in packets), encoding="utf-8")
    return path


def _rejected_packet() -> dict[str, Any]:
    broken = factory_packet(1, 1)
    del broken["mcp"]["budgets"]
    return broken


def _command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths: list[tuple[str, ...]] = []
    for name, command in sorted(group.commands.items()):
        paths.append((*prefix, name))
        if isinstance(command, click.Group):
            paths.extend(_command_paths(command, (*prefix, name)))
    return paths


COMMANDS = _command_paths(main)


def test_the_cli_has_the_documented_commands() -> None:
    assert {"replay", "check", "worker", "publish", "tail"} <= {p[0] for p in COMMANDS}
    assert ("check", "packets") in COMMANDS


def test_omega_help_exits_zero_and_lists_every_command() -> None:
    result = _invoke("--help")
    assert result.exit_code == EXIT_OK
    assert "OMEGA stream verifier" in result.output
    for name in {p[0] for p in COMMANDS}:
        assert name in result.output


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_every_subcommand_help_exits_zero(command: tuple[str, ...], flag: str) -> None:
    result = _invoke(*command, flag)
    assert result.exit_code == EXIT_OK, result.output
    # `omega bench` hands its arguments to the suite's argparse parser, which spells it "usage:"
    assert result.output.lower().startswith(f"usage: omega {' '.join(command)} ")


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


@pytest.mark.parametrize("escalations", [0, 1, 2, 17])
def test_the_summary_table_prints_the_escalation_count_it_is_given(escalations: int) -> None:
    buffer = io.StringIO()
    render_summary(ReplaySummary(events_in=5, escalations=escalations), Console(file=buffer, width=100))
    rows = _summary_rows(buffer.getvalue())
    assert ("escalations", "", str(escalations)) in rows
    assert ("events in", "", "5") in rows


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
