"""`omega check packets --report`: where each verdict and dead letter is placed (a packet held back by a maximum
lateness, a resent id, JSON arrays), the exit code, and the text and Markdown renderers of hand-made reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from streams.cli.conformance_report import _packet_id, place, render_markdown, render_text
from streams.cli.main import main
from streams.cli.options import EXIT_OK, EXIT_REJECTED
from streams.replay.inputs import InputRecord
from streams.stages.base import Source
from streams.wire.omen_avro import PACKET_AS_SENT_SCHEMA, PACKET_SCHEMA
from tests.factories import packet as factory_packet


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", "packets", *args], catch_exceptions=False)


def _jsonl(path: Path, lines: list[object]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(("topic", "offset", "where"), [
    ("file:logs/a.jsonl", 3, "logs/a.jsonl:3"),
    ("file:logs/a.JSONL.gz", 7, "logs/a.JSONL.gz:7"),
    ("file:batch.json", 2, "batch.json#2"),
    ("file:packets.avro", 0, "packets.avro#0"),
    ("stdin", 4, "-:4"),
    ("replay:omega.omen.packets", 1, None),
])
def test_place(topic: str, offset: int, where: str | None) -> None:
    assert place(Source(topic, 0, offset)) == where


def test_packet_id_of_each_kind_of_input() -> None:
    source = Source("file:x", 0, 1)
    packet = factory_packet(1, 1)
    assert _packet_id(InputRecord(source, json.dumps(packet).encode(), "json")) == "pkt_00001_000001"
    assert _packet_id(InputRecord(source, b"{}", "avro", packet, PACKET_SCHEMA)) == "pkt_00001_000001"
    as_sent = {"packet_json": json.dumps(packet), "not_carried": "x"}
    assert _packet_id(InputRecord(source, b"{}", "avro", as_sent, PACKET_AS_SENT_SCHEMA)) == "pkt_00001_000001"
    assert _packet_id(InputRecord(source, b"not json", "json")) is None
    assert _packet_id(InputRecord(source, b'{"header": {"packet_id": 7}}', "json")) is None
    assert _packet_id(InputRecord(source, b"agent: 1", "message")) is None


def test_a_packet_held_back_by_the_lateness_bound_is_placed_at_its_line(tmp_path: Path) -> None:
    early = factory_packet(1, 1)
    early["header"]["layer_source"] = "6"
    path = _jsonl(tmp_path / "late.jsonl", [factory_packet(5, 1), early, factory_packet(9, 1)])
    # ten minutes of lateness: every packet waits for the end of the log, then all are judged in event-time order
    result = _invoke(str(path), "--report", "--report-format", "json", "--max-lateness-ms", "600000")
    assert result.exit_code == EXIT_REJECTED
    [group] = json.loads(result.stdout)["fixes"]
    assert group["examples"] == [{"packet_id": "pkt_00001_000001", "at": f"{path}:2", "message":
                                  'header.layer_source must be an integer 1..6 or "Integrity", got a string "6"'}]


def test_an_id_sent_twice_is_placed_at_each_of_its_lines(tmp_path: Path) -> None:
    first, second = factory_packet(1, 1), factory_packet(2, 1)
    again = dict(second, header={**second["header"], "created_at": "2025-12-21T11:00:05Z"})
    path = _jsonl(tmp_path / "twice.jsonl", [first, second, "{not json", again])
    report = json.loads(_invoke(str(path), "--report", "--report-format", "json").stdout)
    [duplicate] = report["fixes"]
    assert (duplicate["rule"], duplicate["examples"][0]["at"]) == ("DUPLICATE", f"{path}:4")
    assert report["dead_letters"][0]["examples"] == [
        {"at": f"{path}:3", "reason": "invalid JSON at line 1 column 2: Expecting property name enclosed in "
                                      "double quotes"}]


def test_items_of_a_json_array_are_placed_by_index(tmp_path: Path) -> None:
    broken = factory_packet(2, 1)
    del broken["mcp"]
    path = tmp_path / "batch.json"
    path.write_text(json.dumps([factory_packet(1, 1), broken, 5]), encoding="utf-8")
    report = json.loads(_invoke(str(path), "--report", "--report-format", "json").stdout)
    assert report["fixes"][0]["examples"][0]["at"] == f"{path}#1"
    assert report["dead_letters"] == [{"error_class": "NOT_AN_OBJECT", "count": 1, "examples": [
        {"at": f"{path}#2", "reason": "expected a JSON object, got int"}]}]


def test_a_clean_corpus_exits_zero_and_says_so(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "ok.jsonl", [factory_packet(n, 1) for n in range(3)])
    result = _invoke(str(path), "--report")
    assert result.exit_code == EXIT_OK
    assert result.stdout.splitlines() == [
        "OMEN producer conformance report",
        "Packets: 3 (ACCEPTED 3, ACCEPTED_WITH_WARNINGS 0, REJECTED 0); dead letters: 0", "", "No ERRORs."]
    markdown = _invoke(str(path), "--report", "--report-format", "markdown").stdout
    assert "No ERRORs." in markdown
    assert markdown.count("None.") == 2


REPORT: dict[str, Any] = {
    "totals": {"packets": 2, "verdicts": {"ACCEPTED": 0, "ACCEPTED_WITH_WARNINGS": 1, "REJECTED": 1},
               "dead_letters": 1},
    "fixes": [{"rule": "INV-009", "field": "payload.top_options", "severity": "ERROR", "packets": 1, "violations": 2,
               "would_accept": 1, "fixes": ["give 2-3 | options"],
               "spec": [{"document": "omen-cross-policy-invariants-v0.7.md", "section": "INV-009: Escalation"}],
               "examples": [{"packet_id": "pkt_1", "at": "a.jsonl:1", "message": "INV-009: one option"}]}],
    "warnings": [{"rule": "FSM", "field": None, "severity": "WARNING", "packets": 1, "violations": 1,
                  "fixes": ["mind the table"], "spec": [{"document": "fsm-transitions-v0.7.md", "section": ""}],
                  "examples": [{"packet_id": "pkt_2", "at": None, "message": "not allowed"}]}],
    "dead_letters": [{"error_class": "JSON_SYNTAX", "count": 1,
                      "examples": [{"at": "a.jsonl:3", "reason": "invalid JSON"}]}],
}


def test_render_text() -> None:
    assert render_text(REPORT).splitlines() == [
        "OMEN producer conformance report",
        "Packets: 2 (ACCEPTED 0, ACCEPTED_WITH_WARNINGS 1, REJECTED 1); dead letters: 1",
        "",
        "Fix first (ERRORs; would accept: the packets this fix alone turns ACCEPTED):",
        "  1. INV-009 payload.top_options: 1 packet(s), would accept 1",
        "      fix: give 2-3 | options",
        '      spec: omen-cross-policy-invariants-v0.7.md "INV-009: Escalation"',
        "      e.g. pkt_1 at a.jsonl:1: INV-009: one option",
        "",
        "Warnings (they do not block acceptance):",
        "  - FSM (packet): 1 packet(s)",
        "      fix: mind the table",
        "      spec: fsm-transitions-v0.7.md",
        "      e.g. pkt_2 at ?: not allowed",
        "",
        "Dead letters (unattributable input: no verdict):",
        "  - JSON_SYNTAX: 1",
        "      at a.jsonl:3: invalid JSON",
    ]


def test_render_markdown() -> None:
    lines = render_markdown(REPORT).splitlines()
    assert lines[2] == ("**Packets:** 2 · **ACCEPTED:** 0 · **ACCEPTED_WITH_WARNINGS:** 1 · **REJECTED:** 1 · "
                        "**Dead letters:** 1")
    assert ("| 1 | INV-009 | `payload.top_options` | 1 | 1 | give 2-3 \\| options | "
            'omen-cross-policy-invariants-v0.7.md "INV-009: Escalation" | `pkt_1` at `a.jsonl:1` |') in lines
    assert '| FSM | (packet) | 1 | mind the table | fsm-transitions-v0.7.md | `pkt_2` at `?` |' in lines
    assert "| JSON_SYNTAX | 1 | `a.jsonl:3`: invalid JSON |" in lines


def test_a_dead_lettered_line_with_a_readable_id_does_not_take_its_ids_place(tmp_path: Path) -> None:
    clean = factory_packet(1, 1)
    clean["header"]["layer_source"] = "6"
    lone = json.dumps(clean).replace('"tritanium"', '"trit\\ud800"')  # a lone surrogate: INVALID_UNICODE
    path = _jsonl(tmp_path / "surrogate.jsonl", [lone, clean])
    report = json.loads(_invoke(str(path), "--report", "--report-format", "json").stdout)
    assert report["dead_letters"][0]["error_class"] == "INVALID_UNICODE"
    assert report["dead_letters"][0]["examples"][0]["at"] == f"{path}:1"
    assert report["fixes"][0]["examples"][0]["at"] == f"{path}:2"
