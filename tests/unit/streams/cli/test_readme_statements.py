"""What the README and docs/cli.md say the CLI does, run (issue 43): the memory block after README's `make run`, the
kinds of `check packets` lines and what `omega replay` prints with and without `--out` (docs/cli.md's table)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from streams.cli.main import main

REPO = Path(__file__).resolve().parents[4]
README = (REPO / "README.md").read_text(encoding="utf-8")
CLI_PAGE = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")  # the command table moved here (issue 44)
MAKE_RUN_STORE = "sqlite:out/memories.sqlite"


def _readme_row(command: str) -> str:
    """docs/cli.md's command-table row of `command` (e.g. "omega check packets FILE...")."""
    return next(line for line in CLI_PAGE.splitlines() if line.startswith(f"| `{command}"))


def _memory_block() -> list[str]:
    """The commands of the first bash block after the README's `make run` paragraph."""
    after = README.split("`make run` replays the OMEN episodes", 1)[1]
    block = after.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_the_memory_block_after_make_run_reads_the_store_make_run_fills(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    run_recipe = (REPO / "Makefile").read_text(encoding="utf-8").split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert f"project --from out/replay.jsonl --rebuild --store {MAKE_RUN_STORE}" in run_recipe
    assert "(`out/memories.sqlite`)" in README
    # make run's replay and projection, of the two sessions the block shows, in a directory of the test's own
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    sessions = [str(REPO / "examples" / "omega57" / f"{name}.yaml")
                for name in ("clean_success", "contradiction_cascade_failure")]
    assert runner.invoke(main, ["replay", *sessions, "--out", "out/replay.jsonl", "--no-summary"]).exit_code in (0, 1)
    projected = runner.invoke(main, ["project", "--from", "out/replay.jsonl", "--rebuild", "--store", MAKE_RUN_STORE])
    assert projected.exit_code == 0, projected.output
    commands = _memory_block()
    assert len(commands) == 2
    for command, title in zip(commands, ("Session Memory of clean_success",
                                         "Failure Memory of contradiction_cascade_failure"), strict=True):
        words = shlex.split(command)
        assert words[0] == ".venv/bin/omega"
        shown = runner.invoke(main, words[1:])
        assert shown.exit_code == 0, shown.output
        assert title in shown.output


def test_check_packets_prints_exactly_the_line_kinds_the_readme_names() -> None:
    row = _readme_row("omega check packets")
    named = set(re.findall(r'`"kind": "(\w+)"`|`"(\w+)"`', row.split("; exit")[0]))
    assert {a or b for a, b in named} == {"verdict", "alert", "escalation", "dead_letter"}
    result = CliRunner().invoke(main, ["check", "packets", *map(str, sorted((REPO / "examples" / "omen")
                                                                           .glob("*.jsonl")))])
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert {line["kind"] for line in lines} == {"verdict", "alert", "escalation", "dead_letter"}
    assert all("from" in line["fsm"] and "to" in line["fsm"] for line in lines if line["kind"] == "verdict")
    assert all(line["alert_kind"] for line in lines if line["kind"] == "alert")
    assert all(line["error_class"] for line in lines if line["kind"] == "dead_letter")


def test_replay_writes_its_outputs_only_where_out_says() -> None:
    row = _readme_row("omega replay")
    assert "without `--out` nothing but the summary table is printed" in row
    episode = str(REPO / "examples" / "omen" / "budget_overrun.jsonl")
    runner = CliRunner()
    alone = runner.invoke(main, ["replay", episode])
    assert alone.exit_code == 1  # budget_overrun has two REJECTED verdicts
    assert "Replay of 1 file(s)" in alone.stdout
    assert '"topic"' not in alone.stdout
    to_stdout = runner.invoke(main, ["replay", episode, "--out", "-"])
    outputs = [json.loads(line) for line in to_stdout.stdout.splitlines()]
    assert len(outputs) == 13  # 9 verdicts, 3 alerts, 1 escalation
    assert all(set(line) >= {"topic", "key", "value"} for line in outputs)
    assert "Replay of 1 file(s)" in to_stdout.stderr
    assert runner.invoke(main, ["replay", episode, "--no-summary"]).stdout == ""
