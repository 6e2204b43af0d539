"""`omega replay`, `omega check packets` and `omega check messages` through click's CliRunner: output lines, the
replay file and its summary, exit codes 0/1/2."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_OK, EXIT_REJECTED, EXIT_USAGE
from streams.replay.inputs import read_inputs
from streams.replay.replayer import Replayer
from streams.stages.base import Outputs
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


def _unsourced(result: Result) -> list[dict[str, Any]]:
    """The lines without their `source`, which names the input they were read from."""
    return [{k: v for k, v in line.items() if k != "source"} for line in _lines(result)]


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
    Replayer(Outputs(SchemaRegistry.from_directory())).run(read_inputs([inputs]), expected)
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


def test_check_messages_one_session_merges_several_files_in_order(tmp_path: Path) -> None:
    docs = [d for d in yaml.safe_load_all((SESSIONS / "clean_success.yaml").read_text()) if d]
    paths = []
    for n, doc in enumerate(docs):
        path = tmp_path / f"m{n:03d}.json"
        path.write_text(json.dumps(doc))  # JSON is accepted as well as YAML
        paths.append(str(path))
    result = _invoke("check", "messages", "--one-session", *paths)
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


# ------------------------------------------------------------------ inputs: directories, gzip, stdin, binary, empty
def _invoke_with(stdin: bytes, *args: str) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin, prog_name="omega", catch_exceptions=False)


def _two_files(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A directory holding b.jsonl (episode 2) and a/first.jsonl (episode 1), plus a file it must skip."""
    folder = tmp_path / "logs"
    (folder / "a").mkdir(parents=True)
    second = _jsonl(folder / "b.jsonl", [factory_packet(0, 2)])
    first = _jsonl(folder / "a" / "first.jsonl", [factory_packet(0, 1), factory_packet(1, 1)])
    (folder / "notes.txt").write_text("not an input\n")
    return folder, first, second


def _check_ids(result: Result) -> list[str]:
    return [line["packet_id"] for line in _lines(result)]


def test_check_packets_reads_a_directory_recursively_in_name_order(tmp_path: Path) -> None:
    folder, first, second = _two_files(tmp_path)
    by_directory = _invoke("check", "packets", str(folder))
    by_files = _invoke("check", "packets", str(first), str(second))
    assert by_directory.exit_code == by_files.exit_code == EXIT_OK
    assert _check_ids(by_directory) == ["pkt_00001_000000", "pkt_00001_000001", "pkt_00002_000000"]
    assert by_directory.stdout == by_files.stdout


def test_replay_of_a_directory_writes_what_its_files_listed_write(tmp_path: Path) -> None:
    folder, first, second = _two_files(tmp_path)
    _invoke("replay", str(folder), "--out", str(tmp_path / "dir.jsonl"), "--no-summary")
    _invoke("replay", str(first), str(second), "--out", str(tmp_path / "files.jsonl"), "--no-summary")
    written = (tmp_path / "dir.jsonl").read_text(encoding="utf-8")
    assert [json.loads(line)["value"]["packet_id"] for line in written.splitlines()] == [
        "pkt_00001_000000", "pkt_00001_000001", "pkt_00002_000000"]
    assert written == (tmp_path / "files.jsonl").read_text(encoding="utf-8")


def test_a_directory_without_input_files_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "readme.txt").write_text("nothing to replay\n")
    for command in (["replay"], ["check", "packets"], ["check", "messages"]):
        result = _invoke(*command, str(tmp_path))
        assert result.exit_code == EXIT_USAGE
        [line] = result.stderr.splitlines()
        assert line.startswith(f"omega: {tmp_path}: no input files")
        assert result.stdout == ""


def test_check_packets_reads_a_gzipped_jsonl_as_the_plain_file(tmp_path: Path) -> None:
    plain = _jsonl(tmp_path / "ok.jsonl", [factory_packet(n, 3) for n in range(2)])
    packed = tmp_path / "ok.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    result = _invoke("check", "packets", str(packed))
    assert result.exit_code == EXIT_OK
    assert [(line["kind"], line["packet_id"], line["source"]) for line in _lines(result)] == [
        ("verdict", "pkt_00003_000000", {"file": str(packed), "line": 1}),
        ("verdict", "pkt_00003_000001", {"file": str(packed), "line": 2})]
    assert _unsourced(result) == _unsourced(_invoke("check", "packets", str(plain)))


def test_dash_reads_jsonl_from_stdin_for_check_packets_and_replay(tmp_path: Path) -> None:
    plain = _jsonl(tmp_path / "ok.jsonl", [factory_packet(n, 3) for n in range(2)])
    checked = _invoke_with(plain.read_bytes(), "check", "packets", "-")
    assert checked.exit_code == EXIT_OK
    assert _check_ids(checked) == ["pkt_00003_000000", "pkt_00003_000001"]
    assert [line["source"] for line in _lines(checked)] == [{"file": "-", "line": 1}, {"file": "-", "line": 2}]
    assert _unsourced(checked) == _unsourced(_invoke("check", "packets", str(plain)))
    replayed = _invoke_with(gzip.compress(plain.read_bytes()), "replay", "-", "--out", "-")  # gzip by magic
    assert [json.loads(line)["value"]["packet_id"] for line in replayed.stdout.splitlines()] == [
        "pkt_00003_000000", "pkt_00003_000001"]


def test_dash_reads_one_message_stream_from_stdin_named_stdin_or_by_option() -> None:
    stream = (SESSIONS / "clean_success.yaml").read_bytes()
    result = _invoke_with(stream, "check", "messages", "-")
    messages = [line for line in _lines(result) if line["kind"] == "message"]
    assert result.exit_code == EXIT_OK
    assert {(m["file"], m["session_id"], m["status"]) for m in messages} == {("-", "stdin", "ACCEPTED")}
    assert [line["status"] for line in _lines(result) if line["kind"] == "termination"] == ["SUCCESS"]
    named = _invoke_with(stream, "check", "messages", "--session-id", "s-42", "-")
    assert {line["session_id"] for line in _lines(named) if line["kind"] == "message"} == {"s-42"}


def test_dash_twice_is_a_usage_error() -> None:
    result = _invoke_with(b"", "check", "packets", "-", "-")
    assert result.exit_code == EXIT_USAGE
    assert result.stderr == "omega: - (stdin) given more than once\n"


def test_a_binary_input_is_refused_in_one_line_and_nothing_is_judged(tmp_path: Path) -> None:
    good = _jsonl(tmp_path / "good.jsonl", [factory_packet(0, 1)])
    binary = tmp_path / "image.jsonl"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\n")
    expected = f"omega: {binary}: binary file (not gzip, an Avro container or UTF-8 text)\n"
    for command in (["replay", "--out", str(tmp_path / "out.jsonl")], ["check", "packets"], ["check", "messages"]):
        result = _invoke(*command, str(good), str(binary))
        assert result.exit_code == EXIT_USAGE, command
        assert (result.stderr, result.stdout) == (expected, "")
    assert not (tmp_path / "out.jsonl").exists()
    piped = _invoke_with(b"\x00\x01binary", "check", "packets", "-")
    assert (piped.exit_code, piped.stderr, piped.stdout) == (
        EXIT_USAGE, "omega: -: binary file (not gzip, an Avro container or UTF-8 text)\n", "")


def test_an_empty_input_replays_0_events_and_is_an_input_error_to_check(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    checked = _invoke("check", "packets", str(empty))
    assert (checked.exit_code, checked.stdout, checked.stderr) == (
        EXIT_USAGE, "", "omega: empty input: no packets found\n")
    plain = _invoke("replay", str(empty), "--no-summary")
    assert (plain.exit_code, plain.stdout, plain.stderr) == (EXIT_OK, "", "0 events\n")
    summarised = _invoke("replay", str(empty), "--out", "-")
    assert (summarised.exit_code, summarised.stdout) == (EXIT_OK, "")
    assert ("events in", "", "0") in _summary_rows(summarised.stderr)
    assert summarised.stderr.endswith("\n0 events\n")
    table = _invoke("replay", str(empty))  # the table on stdout as today, the line on stderr
    assert ("events in", "", "0") in _summary_rows(table.stdout)
    assert (table.exit_code, table.stderr) == (EXIT_OK, "0 events\n")
    piped = _invoke_with(b"", "check", "messages", "-")
    assert (piped.exit_code, piped.stdout, piped.stderr) == (
        EXIT_USAGE, "", "omega: empty input: no messages found\n")
