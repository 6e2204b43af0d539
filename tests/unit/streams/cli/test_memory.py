"""`omega project --from`, `omega memory show|hash` and `omega check memories` over a replay of the bundled
OMEGA-57 example, with no broker."""

from __future__ import annotations

import gzip
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rich.console import Console

from streams.cli import progress
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
                                     ["memory", "serve", "--port", "18123"]])
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


# ------------------------------------------------------------------ the read commands open the store read-only
def _serve_once(monkeypatch: pytest.MonkeyPatch, seen: list[int]) -> None:
    """`memory serve` answers one request in-process instead of running uvicorn."""
    import uvicorn
    from fastapi.testclient import TestClient

    def run(app: Any, **_: Any) -> None:
        seen.append(TestClient(app).get("/sessions").status_code)

    monkeypatch.setattr(uvicorn, "run", run)


@pytest.mark.parametrize("journal", ["wal", "delete"])
@pytest.mark.parametrize("command", [["memory", "show", "clean_success"], ["memory", "hash"], ["check", "memories"],
                                     ["memory", "serve"]])
def test_a_read_command_leaves_the_store_file_byte_for_byte_and_its_mtime(
        replay_file: Path, tmp_path: Path, command: list[str], journal: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`project` leaves a WAL file; a store copied or converted to a rollback journal must not be turned back
    (writing its header), and then no -wal/-shm file appears either."""
    path = tmp_path / "m.sqlite"
    _project(replay_file, f"sqlite:{path}")
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA journal_mode={journal}")
    conn.close()
    before, mtime, files = path.read_bytes(), path.stat().st_mtime_ns, sorted(tmp_path.iterdir())
    seen: list[int] = []
    _serve_once(monkeypatch, seen)
    result = CliRunner().invoke(main, [*command, "--store", f"sqlite:{path}"])
    assert result.exit_code == 0, result.output
    assert seen == ([200] if command[-1] == "serve" else [])
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == mtime
    if journal == "delete":
        assert sorted(tmp_path.iterdir()) == files


def test_the_read_commands_open_the_store_read_only(replay_file: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from projections.store.sqlite import SqliteStore

    path = tmp_path / "m.sqlite"
    _project(replay_file, f"sqlite:{path}")
    opened: list[bool] = []
    original = SqliteStore._connect

    def spy(self: SqliteStore) -> None:
        opened.append(self.read_only)
        original(self)

    monkeypatch.setattr(SqliteStore, "_connect", spy)
    for command in (["memory", "show", "clean_success"], ["memory", "hash"], ["check", "memories"]):
        assert CliRunner().invoke(main, [*command, "--store", f"sqlite:{path}"]).exit_code == 0
    assert opened == [True, True, True]
    _project(replay_file, f"sqlite:{path}")
    assert opened[-1] is False  # project writes


# ------------------------------------------------------------------ project --from: stdin, gzip, directories
def _hash_of(store: str) -> str:
    return CliRunner().invoke(main, ["memory", "hash", "--store", store]).output.strip()


@pytest.fixture(scope="module")
def expected_hash(replay_file: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    store = f"sqlite:{tmp_path_factory.mktemp('expected') / 'm.sqlite'}"
    _project(replay_file, store)
    return _hash_of(store)


def test_project_reads_stdin_for_dash(replay_file: Path, tmp_path: Path, expected_hash: str) -> None:
    store = f"sqlite:{tmp_path / 'm.sqlite'}"
    result = CliRunner().invoke(main, ["project", "--from", "-", "--store", store], input=replay_file.read_bytes())
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["applied"] == len(replay_file.read_text().splitlines())
    assert _hash_of(store) == expected_hash


@pytest.mark.parametrize("name", ["replay.jsonl.gz", "replay.jsonl"])  # gzip by extension, and by magic bytes
def test_project_reads_gzipped_replay_files(replay_file: Path, tmp_path: Path, expected_hash: str,
                                            name: str) -> None:
    gz = tmp_path / name
    gz.write_bytes(gzip.compress(replay_file.read_bytes()))
    store = f"sqlite:{tmp_path / 'm.sqlite'}"
    stats = _project(gz, store)
    assert stats["applied"] == len(replay_file.read_text().splitlines())
    assert stats["undecodable"] == 0
    assert _hash_of(store) == expected_hash


def test_project_reads_a_directory_recursively_in_name_order(replay_file: Path, tmp_path: Path,
                                                             expected_hash: str) -> None:
    lines = replay_file.read_bytes().splitlines(keepends=True)
    third = len(lines) // 3
    directory = tmp_path / "log"
    (directory / "10").mkdir(parents=True)
    (directory / "01").mkdir()
    # written last-first, so the directory's own order is not the name order
    (directory / "10" / "c.jsonl").write_bytes(b"".join(lines[2 * third:]))
    (directory / "02.jsonl.gz").write_bytes(gzip.compress(b"".join(lines[third:2 * third])))
    (directory / "01" / "a.jsonl").write_bytes(b"".join(lines[:third]))
    (directory / "notes.txt").write_text("not a replay file\n")
    (directory / "packets.json").write_text("[]\n")
    store = f"sqlite:{tmp_path / 'm.sqlite'}"
    stats = _project(directory, store)
    assert (stats["applied"], stats["undecodable"]) == (len(lines), 0)
    assert _hash_of(store) == expected_hash
    with sqlite3.connect(tmp_path / "m.sqlite") as conn:
        sources = sorted(row[0] for row in conn.execute("SELECT source FROM memory_positions"))
    assert sources == [f"file:{directory / '01' / 'a.jsonl'}", f"file:{directory / '02.jsonl.gz'}",
                       f"file:{directory / '10' / 'c.jsonl'}"]


@pytest.mark.parametrize(("content", "why"), [
    (b"\x00\x01\x02binary\xff", "binary file (not gzip, an Avro container or UTF-8 text)"),
    (b"\x1f\x8b\x08\x00broken", "not a readable gzip file"),
])
def test_project_refuses_a_binary_or_broken_file_with_one_line_and_exit_2(tmp_path: Path, content: bytes,
                                                                          why: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(content)
    result = CliRunner().invoke(main, ["project", "--from", str(bad), "--store", f"sqlite:{tmp_path / 'm.sqlite'}"])
    assert result.exit_code == 2
    assert result.output.startswith(f"omega: {bad}: {why}")
    assert result.output.count("\n") == 1


def test_project_refuses_binary_stdin_with_one_line_and_exit_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["project", "--from", "-", "--store", f"sqlite:{tmp_path / 'm.sqlite'}"],
                                input=b"\x00\x01binary")
    assert result.exit_code == 2
    assert result.output == "omega: -: binary file (not gzip, an Avro container or UTF-8 text)\n"


def test_project_refuses_a_gzip_stream_that_breaks_off(replay_file: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(replay_file.read_bytes() * 50)[:-40])
    result = CliRunner().invoke(main, ["project", "--from", str(cut), "--store", f"sqlite:{tmp_path / 'm.sqlite'}"])
    assert result.exit_code == 2
    assert result.output.startswith(f"omega: {cut}: not a readable gzip file")
    assert result.output.count("\n") == 1


def test_project_refuses_an_avro_container_and_a_directory_without_replay_files(tmp_path: Path) -> None:
    avro = tmp_path / "events.avro"
    avro.write_bytes(b"Obj\x01" + b"\x00" * 16)
    result = CliRunner().invoke(main, ["project", "--from", str(avro), "--store", f"sqlite:{tmp_path / 'm'}"])
    assert (result.exit_code, result.output) == (
        2, f"omega: {avro}: an Avro container file, not the JSON lines `omega replay --out` writes\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "packets.json").write_text("[]\n")
    result = CliRunner().invoke(main, ["project", "--from", str(empty), "--store", f"sqlite:{tmp_path / 'm'}"])
    assert (result.exit_code, result.output) == (
        2, f"omega: {empty}: no replay files in this directory (.jsonl, .jsonl.gz)\n")


# ------------------------------------------------------------------ check memories: a progress bar on a terminal only
def test_check_memories_draws_no_bar_when_stderr_is_not_a_terminal(replay_file: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "CHECK_THRESHOLD", 1)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    store = f"sqlite:{tmp_path / 'm.sqlite'}"
    _project(replay_file, store)
    result = CliRunner().invoke(main, ["check", "memories", "--store", store])
    assert result.exit_code == 0
    assert result.stderr == "1 sessions judged: CONSISTENT 1\n"


def test_check_memories_draws_a_bar_on_a_terminal_stderr(replay_file: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    screen = io.StringIO()
    monkeypatch.setattr(progress, "CHECK_THRESHOLD", 1)
    monkeypatch.setattr(progress, "stderr_console", lambda: Console(file=screen, force_terminal=True))
    store = f"sqlite:{tmp_path / 'm.sqlite'}"
    _project(replay_file, store)
    result = CliRunner().invoke(main, ["check", "memories", "--store", store])
    assert result.exit_code == 0
    assert "checking sessions" in screen.getvalue()
    assert result.stdout == ""
