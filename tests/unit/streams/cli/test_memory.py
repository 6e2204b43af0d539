"""`omega project --from`, `omega memory show|hash` and `omega check memories` over a replay of the bundled
OMEGA-57 example, with no broker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from streams.cli.main import main

REPO = Path(__file__).resolve().parents[4]
EXAMPLE = REPO / "examples" / "omega57" / "clean_success.yaml"


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("replay") / "replay.jsonl"
    result = CliRunner().invoke(main, ["replay", str(EXAMPLE), "--out", str(out), "--no-summary"])
    assert result.exit_code in (0, 1), result.output
    return out


def _project(replay_file: Path, store: str, *extra: str) -> dict[str, object]:
    result = CliRunner().invoke(main, ["project", "--from", str(replay_file), "--store", store, *extra])
    assert result.exit_code == 0, result.output
    stats: dict[str, object] = json.loads(result.output.strip().splitlines()[-1])
    return stats


def test_project_from_a_replay_file_then_show_check_and_hash(replay_file: Path, tmp_path: Path) -> None:
    store = f"sqlite:{tmp_path / 'm.sqlite'}"
    stats = _project(replay_file, store, "--rebuild")
    assert stats["applied"] == len(replay_file.read_text().splitlines())
    assert stats["undecodable"] == 0
    shown = CliRunner().invoke(main, ["memory", "show", "clean_success", "--store", store])
    assert shown.exit_code == 0
    assert "Session Memory of clean_success" in shown.output
    only = CliRunner().invoke(main, ["memory", "show", "clean_success", "--kind", "failure", "--store", store])
    assert "Failure Memory" in only.output
    assert "Session Memory" not in only.output
    checked = CliRunner().invoke(main, ["check", "memories", "--store", store])
    assert checked.exit_code == 0
    assert checked.stdout == ""
    first = CliRunner().invoke(main, ["memory", "hash", "--store", store]).output.strip()
    assert _project(replay_file, store)["applied"] == 0  # resumed after the last line: nothing new
    _project(replay_file, store, "--rebuild")
    assert CliRunner().invoke(main, ["memory", "hash", "--store", store]).output.strip() == first
    assert len(first) == 64


def test_the_read_model_comes_from_omega_read_model(replay_file: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMEGA_READ_MODEL", f"sqlite:{tmp_path / 'env.sqlite'}")
    _project(replay_file, f"sqlite:{tmp_path / 'env.sqlite'}")
    assert CliRunner().invoke(main, ["memory", "show", "clean_success"]).exit_code == 0


def test_an_unknown_session_exits_1(replay_file: Path, tmp_path: Path) -> None:
    store = f"sqlite:{tmp_path / 'm.sqlite'}"
    _project(replay_file, store)
    result = CliRunner().invoke(main, ["memory", "show", "nobody", "--store", store])
    assert result.exit_code == 1
    assert "unknown session" in result.output


@pytest.mark.parametrize("command", [["memory", "show", "clean_success"], ["memory", "hash"], ["check", "memories"],
                                     ["memory", "serve", "--port", "0"]])
def test_a_read_command_on_a_store_that_does_not_exist_exits_2_and_creates_nothing(tmp_path: Path,
                                                                                  command: list[str]) -> None:
    missing = tmp_path / "typo" / "memories.sqlite"
    result = CliRunner().invoke(main, [*command, "--store", f"sqlite:{missing}"])
    assert result.exit_code == 2
    assert result.output == (f"omega: no read model at {missing}: project into it first "
                             f"(omega project ... --store sqlite:{missing})\n")
    assert not missing.parent.exists()


def test_undecodable_lines_exit_1_and_bad_stores_or_files_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text("{not json\n")
    result = CliRunner().invoke(main, ["project", "--from", str(broken), "--store", f"sqlite:{tmp_path / 'm'}"])
    assert result.exit_code == 1
    assert json.loads(result.stdout.strip())["undecodable"] == 1
    assert CliRunner().invoke(main, ["project", "--from", str(broken), "--store", "mysql://x"]).exit_code == 2
    assert CliRunner().invoke(main, ["project", "--from", str(tmp_path / "missing.jsonl")]).exit_code == 2


def test_check_memories_prints_violations_as_json_lines(replay_file: Path, tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "m.sqlite"
    _project(replay_file, f"sqlite:{path}")
    with sqlite3.connect(path) as conn:  # drop the timeline the other memories refer to
        conn.execute("DELETE FROM memory_documents WHERE kind = 'session'")
    result = CliRunner().invoke(main, ["check", "memories", "--store", f"sqlite:{path}"])
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.exit_code == 1
    assert lines
    assert all(line["session_id"] == "clean_success" for line in lines)
    assert any("rule 3" in line["violation"] for line in lines)
