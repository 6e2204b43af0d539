"""The `omega` command line as a whole: every command registered, its help, and the ways to start it."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_OK

REPO = Path(__file__).resolve().parents[4]

# Every command of docs/cli.md's command table, as `omega --help` and `omega check --help` must list them.
TOP_LEVEL = {"replay", "check", "plan", "worker", "publish", "tail", "project", "memory", "ingest", "ask", "sign",
             "watch", "schemas"}
CHECKS = {"packets", "messages", "memories", "oracle", "answers", "extraction", "grounding"}


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), prog_name="omega", catch_exceptions=False)


def _command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths: list[tuple[str, ...]] = []
    for name, command in sorted(group.commands.items()):
        paths.append((*prefix, name))
        if isinstance(command, click.Group):
            paths.extend(_command_paths(command, (*prefix, name)))
    return paths


COMMANDS = _command_paths(main)


def _listed(help_text: str) -> set[str]:
    """The command names of a click help page's `Commands:` section."""
    section = help_text.split("Commands:", 1)[1]
    return {line.split()[0] for line in section.splitlines() if line.startswith("  ") and line.split()}


def test_main_registers_exactly_the_documented_commands() -> None:
    assert set(main.commands) == TOP_LEVEL
    check = main.commands["check"]
    assert isinstance(check, click.Group)
    assert set(check.commands) == CHECKS
    assert ("memory", "show") in COMMANDS
    assert ("sign", "packets") in COMMANDS


def test_omega_help_exits_zero_and_lists_every_command() -> None:
    result = _invoke("--help")
    assert result.exit_code == EXIT_OK
    assert "OMEGA stream verifier" in result.output
    assert _listed(result.output) == TOP_LEVEL
    assert _listed(_invoke("check", "--help").output) == CHECKS


def test_the_benchmark_suite_is_not_a_command_of_the_installed_cli() -> None:
    assert "bench" not in main.commands
    assert _invoke("bench").exit_code == 2  # click: no such command


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_every_subcommand_help_exits_zero(command: tuple[str, ...], flag: str) -> None:
    result = _invoke(*command, flag)
    assert result.exit_code == EXIT_OK, result.output
    assert result.output.startswith(f"Usage: omega {' '.join(command)} ")


@pytest.mark.parametrize("module", ["streams.cli", "streams.cli.main"])
def test_python_dash_m_runs_the_cli(module: str) -> None:
    done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=REPO, capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == EXIT_OK, done.stderr
    assert done.stdout.startswith(f"Usage: python -m {module} [OPTIONS] COMMAND [ARGS]...")
    assert _listed(done.stdout) == TOP_LEVEL


def test_omega_version_prints_the_installed_package_version() -> None:
    result = _invoke("--version")
    assert result.exit_code == 0
    assert result.output == f"omega, version {version('omega-stream-verifier')}\n"
    assert result.output.startswith("omega, version 0.")  # pyproject's version, by hand: 0.1.0 today
