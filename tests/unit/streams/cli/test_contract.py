"""The CLI's one contract (issue 43, README "CLI"): every command given bad input, a bad setting or an unreachable
service exits 2 with exactly one line on stderr, never a traceback, and prints no URL password; a reader that
stops reading ends the command quietly. Every command of the click tree must have its case here: a new command
without one fails `test_every_command_has_a_bad_input_case`."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from streams.cli.main import main
from streams.cli.options import EXIT_OK, EXIT_USAGE

REPO = Path(__file__).resolve().parents[4]
NOWHERE = "/nonexistent-omega/input.jsonl"
DB_WITH_PASSWORD = "postgresql://reader:s3cr3t-pw@127.0.0.1:1/memories"
REGISTRY_WITH_PASSWORD = "http://reader:s3cr3t-pw@127.0.0.1:1"
DEAD_BROKER = "127.0.0.1:1"

# command path -> (arguments, environment): each a bad input, setting or service the command must refuse with exit 2
CASES: dict[str, list[tuple[list[str], dict[str, str]]]] = {
    "ask": [(["what", "--store", "BAD_FACTS"], {})],
    "check answers": [([NOWHERE], {})],
    "check extraction": [([NOWHERE], {})],
    "check grounding": [([NOWHERE], {}), (["EXAMPLE_GROUNDING"],
                                          {"OMEGA_JUDGE_URL": "http://127.0.0.1:1/v1", "OMEGA_JUDGE_TIMEOUT": "abc"})],
    "check memories": [(["--store", DB_WITH_PASSWORD], {})],
    "check messages": [([NOWHERE], {})],
    "check oracle": [([NOWHERE], {})],
    "check packets": [([NOWHERE], {}), (["EXAMPLE_PACKETS"], {"OMEGA_SCHEMAS_DIR": "/nonexistent-omega/schemas"}),
                      (["EXAMPLE_PACKETS", "--auth-policy", NOWHERE], {})],
    "ingest": [([NOWHERE, "--doc-id", "d"], {})],
    "memory hash": [([], {"OMEGA_READ_MODEL": DB_WITH_PASSWORD})],
    "memory serve": [(["--port", "99999"], {}), (["--store", DB_WITH_PASSWORD], {})],
    "memory show": [(["some_session", "--store", DB_WITH_PASSWORD], {})],
    "plan": [(["--type", "NOT_A_TYPE"], {})],
    "project": [(["--from", "EXAMPLE_PACKETS", "--store", DB_WITH_PASSWORD], {})],
    "publish": [([NOWHERE, "--topic", "omen.packets.json", "--bootstrap", DEAD_BROKER], {})],
    "replay": [([NOWHERE], {})],
    "schemas check": [(["--url", REGISTRY_WITH_PASSWORD], {})],
    "schemas export": [(["OUT_DIR", "--url", REGISTRY_WITH_PASSWORD], {})],
    "schemas register": [(["--url", REGISTRY_WITH_PASSWORD], {})],
    "sign packets": [([NOWHERE, "--key-id", "k", "--secret-env", "OMEGA_TEST_KEY"], {"OMEGA_TEST_KEY": "x" * 32})],
    "tail": [(["omen.verdicts", "--bootstrap", DEAD_BROKER], {})],
    "watch": [(["--store", DB_WITH_PASSWORD, "--once"], {})],
    "worker": [([], {"OMEGA_WEB_PORT": "not-a-port"})],
}


def _commands(command: click.Command, path: tuple[str, ...] = ()) -> Iterator[str]:
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            yield from _commands(sub, (*path, name))
    else:
        yield " ".join(path)


def _placeholders(args: list[str], tmp_path: Path) -> list[str]:
    bad_facts = tmp_path / "facts.jsonl"
    bad_facts.write_text("not json{\n", encoding="utf-8")
    real = {"BAD_FACTS": str(bad_facts), "OUT_DIR": str(tmp_path / "out"),
            "EXAMPLE_PACKETS": str(REPO / "examples" / "omen" / "verify_loop.jsonl"),
            "EXAMPLE_GROUNDING": str(REPO / "examples" / "grounding" / "paragraphs.json")}
    return [real.get(a, a) for a in args]


def test_every_command_has_a_bad_input_case() -> None:
    assert set(_commands(main)) == set(CASES)


@pytest.mark.parametrize(("path", "args", "env"), [(p, a, e) for p, cases in CASES.items() for a, e in cases],
                         ids=[f"{p}:{n}" for p, cases in CASES.items() for n in range(len(cases))])
def test_bad_input_exits_2_with_one_line_no_traceback_and_no_password(path: str, args: list[str],
                                                                      env: dict[str, str], tmp_path: Path) -> None:
    result = CliRunner().invoke(main, [*path.split(), *_placeholders(args, tmp_path)], prog_name="omega", env=env)
    stderr = result.stderr
    assert result.exit_code == EXIT_USAGE, (result.exit_code, stderr, result.exception)
    assert len(stderr.splitlines()) == 1, stderr
    assert stderr.startswith("omega: ")
    assert "Traceback" not in stderr
    assert "s3cr3t-pw" not in stderr + result.stdout


def test_a_busy_port_is_exit_2_in_one_line(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        store = tmp_path / "m.sqlite"
        CliRunner().invoke(main, ["project", "--from", str(REPO / "examples" / "omen" / "verify_loop.jsonl"),
                                  "--store", f"sqlite:{store}"])
        result = CliRunner().invoke(main, ["memory", "serve", "--store", f"sqlite:{store}", "--port", str(port)])
    assert result.exit_code == EXIT_USAGE
    assert result.stderr.startswith(f"omega: cannot serve on 127.0.0.1:{port}: ")
    assert len(result.stderr.splitlines()) == 1


def test_an_unexpected_error_names_its_type_in_one_line_and_debug_shows_the_traceback(tmp_path: Path) -> None:
    args = ["check", "packets", str(REPO / "examples" / "omen" / "verify_loop.jsonl")]
    plain = CliRunner().invoke(main, args, env={"OMEGA_SCHEMAS_DIR": str(tmp_path / "none")})
    assert plain.stderr == (f"omega: FileNotFoundError: no .avsc schemas in {tmp_path / 'none'} "
                            "(OMEGA_LOG_LEVEL=DEBUG shows the traceback)\n")
    debug = CliRunner().invoke(main, args, env={"OMEGA_SCHEMAS_DIR": str(tmp_path / "none"),
                                                "OMEGA_LOG_LEVEL": "DEBUG"})
    assert "Traceback" in debug.stderr
    assert debug.exit_code == EXIT_USAGE


@pytest.mark.parametrize("command", [["check", "packets"], ["replay", "--out", "-"]])
def test_a_reader_that_stops_reading_ends_the_command_quietly(command: list[str]) -> None:
    # a real pipe and a real process: `omega ... | head -1`
    files = sorted(str(p) for p in (REPO / "examples" / "omen").glob("*.jsonl"))
    done = subprocess.run(f"{sys.executable} -m streams.cli {' '.join(command)} {' '.join(files)} | head -1",
                          check=False, shell=True, cwd=REPO, capture_output=True, text=True, timeout=300,
                          executable="/bin/bash")
    status = subprocess.run(
        f"set -o pipefail; {sys.executable} -m streams.cli {' '.join(command)} {' '.join(files)} | head -1 "
        ">/dev/null", check=False, shell=True, cwd=REPO, capture_output=True, text=True, timeout=300,
        executable="/bin/bash")
    assert done.stdout.count("\n") == 1
    assert done.stderr == ""
    assert status.returncode == EXIT_OK, status.stderr


@pytest.mark.parametrize("command", [["schemas", "check"], ["schemas", "export", "OUT_DIR"]])
def test_an_unreachable_registry_is_named_as_such_not_as_an_unexpected_error(command: list[str],
                                                                            tmp_path: Path) -> None:
    # the client sends through httpx2, whose errors are not httpx's: they once escaped as "ConnectError: ..."
    result = CliRunner().invoke(main, [*_placeholders(command, tmp_path), "--url", REGISTRY_WITH_PASSWORD])
    assert result.exit_code == EXIT_USAGE
    assert result.stderr.startswith("omega: schema registry http://reader:***@127.0.0.1:1 unreachable: ")
    assert "OMEGA_LOG_LEVEL" not in result.stderr
