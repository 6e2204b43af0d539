"""Every `omega check` line a record caused names where that record is (issue 43, "file and line on every
verdict"): `source` {file, line}; {file, index} where the reader knows no line (an Avro record); {file, paragraph}
for grounding. The expected positions below are worked out by hand from the files each test writes."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import fastavro
import pytest
import yaml
from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_OK, EXIT_REJECTED
from streams.replay.inputs import read_inputs
from streams.replay.replayer import Replayer, output_line
from streams.stages.base import Outputs
from streams.wire.codec import SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from tests.factories import packet as factory_packet

REPO = Path(__file__).resolve().parents[4]
EXAMPLES = REPO / "examples"
DANGLING = EXAMPLES / "omen" / "dangling_directive.jsonl"  # 9 packets; directives pkt_dd_0004 and pkt_dd_0005
LATER = EXAMPLES / "omen" / "degraded_escalation.jsonl"  # an episode three days after DANGLING's
SESSION = REPO / "tests" / "data" / "omega57" / "clean_success.yaml"


def _invoke(*args: str, stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin, prog_name="omega", catch_exceptions=False)


def _lines(result: Result) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def _rejected() -> dict[str, Any]:
    broken = factory_packet(1, 1)
    del broken["mcp"]["budgets"]
    return broken


# ------------------------------------------------------------------------------------------ check packets
def test_a_rejected_second_line_says_line_2_in_its_verdict_and_in_the_summary(tmp_path: Path) -> None:
    path = tmp_path / "three.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in (factory_packet(0, 1), _rejected(), factory_packet(2, 1))),
                    encoding="utf-8")
    result = _invoke("check", "packets", str(path))
    assert result.exit_code == EXIT_REJECTED
    assert [(line["status"], line["source"]) for line in _lines(result)] == [
        ("ACCEPTED", {"file": str(path), "line": 1}), ("REJECTED", {"file": str(path), "line": 2}),
        ("ACCEPTED", {"file": str(path), "line": 3})]
    assert f"  rejected {path}:2: SCHEMA\n" in result.stderr


def test_blank_lines_count_and_a_dead_letter_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "gaps.jsonl"
    path.write_text(json.dumps(factory_packet(0, 1)) + "\n\n\nnot json\n\n" + json.dumps(factory_packet(1, 1)) + "\n",
                    encoding="utf-8")
    lines = _lines(_invoke("check", "packets", str(path)))
    assert [(line["kind"], line["source"]["line"]) for line in lines] == [
        ("verdict", 1), ("dead_letter", 4), ("verdict", 6)]


def test_a_json_array_names_the_line_each_item_starts_on(tmp_path: Path) -> None:
    first, second, third = (json.dumps(factory_packet(n, 1)) for n in range(3))
    path = tmp_path / "array.json"
    # line 1 "[", line 2 the first item, line 3 the second, then two blank lines, the third on line 6
    path.write_text(f"[\n{first},\n{second}\n,\n\n  {third}]\n", encoding="utf-8")
    lines = _lines(_invoke("check", "packets", str(path)))
    assert [(line["packet_id"], line["source"]) for line in lines] == [
        ("pkt_00001_000000", {"file": str(path), "line": 2}), ("pkt_00001_000001", {"file": str(path), "line": 3}),
        ("pkt_00001_000002", {"file": str(path), "line": 6})]


def test_one_pretty_printed_packet_names_the_line_its_object_opens_on(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text("\n\n" + json.dumps(factory_packet(0, 1), indent=2) + "\n", encoding="utf-8")
    [line] = _lines(_invoke("check", "packets", str(path)))
    assert line["source"] == {"file": str(path), "line": 3}
    piped = _lines(_invoke("check", "packets", "-", stdin=path.read_bytes()))
    assert [line["source"] for line in piped] == [{"file": "-", "line": 3}]


def test_an_avro_record_has_no_line_and_is_named_by_its_number(tmp_path: Path, registry: SchemaRegistry,
                                                               converter: PacketConverter) -> None:
    path = tmp_path / "packets.avro"
    with path.open("wb") as handle:
        fastavro.writer(handle, registry.get(PACKET_SCHEMA).parsed,
                        [converter.to_avro(factory_packet(n, 3)) for n in range(2)])
    lines = _lines(_invoke("check", "packets", str(path)))
    assert [line["source"] for line in lines] == [{"file": str(path), "index": 1}, {"file": str(path), "index": 2}]


def test_alerts_and_escalations_name_the_packet_line_that_raised_them() -> None:
    lines = _lines(_invoke("check", "packets", str(DANGLING)))
    # pkt_dd_0008 (line 8) passes directive pkt_dd_0004's deadline, pkt_dd_0009 (line 9) pkt_dd_0005's
    assert [(line["kind"], line.get("source_event_id"), line["source"]["line"]) for line in lines
            if line["kind"] != "verdict"] == [
        ("alert", "pkt_dd_0004", 8), ("alert", "pkt_dd_0005", 9), ("escalation", "pkt_dd_0005", 9)]
    assert [line["source"]["line"] for line in lines if line["kind"] == "verdict"] == list(range(1, 10))


def test_a_timeout_at_the_end_of_the_input_names_the_directive_it_closes(tmp_path: Path) -> None:
    path = tmp_path / "quiet.jsonl"
    # DANGLING's first five packets (directives on lines 4 and 5, never answered), then a packet of another
    # episode three days later: the end of the input times both directives out
    path.write_text("".join(DANGLING.read_text(encoding="utf-8").splitlines(keepends=True)[:5])
                    + LATER.read_text(encoding="utf-8").splitlines(keepends=True)[0], encoding="utf-8")
    lines = _lines(_invoke("check", "packets", str(path)))
    assert [line["source"]["line"] for line in lines if line["kind"] == "verdict"] == [1, 2, 3, 4, 5, 6]
    assert [(line["kind"], line["source_event_id"], line["source"]) for line in lines if line["kind"] != "verdict"] \
        == [("alert", "pkt_dd_0004", {"file": str(path), "line": 4}),
            ("alert", "pkt_dd_0005", {"file": str(path), "line": 5}),
            ("escalation", "pkt_dd_0005", {"file": str(path), "line": 5})]


# 5 s: a later packet's record releases the waiting ones (lines 1 and 2 come out in line 3's feed); 10 min: the end
# of the input releases them all
@pytest.mark.parametrize("lateness", ["5000", "600000"])
def test_under_a_lateness_a_released_verdict_names_its_own_packet_not_the_one_that_released_it(
        tmp_path: Path, lateness: str) -> None:
    packets = [json.loads(line) for line in DANGLING.read_text(encoding="utf-8").splitlines()]
    path = tmp_path / "shuffled.jsonl"
    order = [1, 0, 3, 2, 4, 5, 6, 7, 8]  # packets 1 and 3 (0-based) arrive early; the lateness reorders them
    path.write_text("".join(json.dumps(packets[n]) + "\n" for n in order), encoding="utf-8")
    lines = _lines(_invoke("check", "packets", "--max-lateness-ms", lateness, str(path)))
    line_of = {packets[n]["header"]["packet_id"]: at for at, n in enumerate(order, start=1)}
    verdicts = [line for line in lines if line["kind"] == "verdict"]
    assert len(verdicts) == 9
    assert all(v["source"] == {"file": str(path), "line": line_of[v["packet_id"]]} for v in verdicts), verdicts
    assert all("source" in line for line in lines)


@pytest.mark.parametrize("lateness", [0, 5000, 600_000])
def test_noting_origins_leaves_the_outputs_byte_equal(lateness: int) -> None:
    files = sorted((EXAMPLES / "omen").glob("*.jsonl"))
    written = []
    for origins in (False, True):
        out = io.StringIO()
        replayer = Replayer(Outputs(SchemaRegistry.from_directory()), lateness, 4, origins=origins)
        for record in read_inputs(files):
            emits = replayer.feed(record)
            out.write("".join(output_line(e) + "\n" for e in emits))
            assert replayer.origins is None or len(replayer.origins) == len(emits)
        out.write("".join(output_line(e) + "\n" for e in replayer.finish()))
        written.append(out.getvalue())
    assert written[0] == written[1] != ""


# ------------------------------------------------------------------------------------------ check messages
def test_each_message_names_the_line_its_document_starts_on_and_its_alerts_follow_it(tmp_path: Path) -> None:
    docs = [d for d in yaml.safe_load_all(SESSION.read_text(encoding="utf-8")) if d]
    docs[1]["message"]["header"]["agent_id"] = 58
    path = tmp_path / "bad.yaml"
    text = yaml.safe_dump_all(docs[:3], sort_keys=False, explicit_start=True)
    path.write_text(text, encoding="utf-8")
    starts = [n for n, line in enumerate(text.splitlines(), start=1) if line == "---"]
    assert (starts[0], len(starts)) == (1, 3)
    result = _invoke("check", "messages", str(path))
    lines = _lines(result)
    assert [(line["kind"], line.get("status"), line["source"]) for line in lines] == [
        ("message", "ACCEPTED", {"file": str(path), "line": starts[0]}),
        ("message", "REJECTED", {"file": str(path), "line": starts[1]}),
        ("message", "ACCEPTED", {"file": str(path), "line": starts[2]}),
        ("alert", None, {"file": str(path), "line": starts[1]})]  # AGENT_FAILURE: the rejected message's
    assert f"  rejected {path}:{starts[1]}: " in result.stderr


def test_the_items_of_a_json_array_of_messages_name_their_own_lines(tmp_path: Path) -> None:
    docs = [d for d in yaml.safe_load_all(SESSION.read_text(encoding="utf-8")) if d][:2]
    path = tmp_path / "two.json"
    path.write_text("[\n" + json.dumps(docs[0]) + ",\n\n" + json.dumps(docs[1]) + "\n]\n", encoding="utf-8")
    result = _invoke("check", "messages", str(path))
    assert result.exit_code == EXIT_OK
    assert [line["source"] for line in _lines(result)] == [{"file": str(path), "line": 2},
                                                           {"file": str(path), "line": 4}]


def test_the_items_of_a_yaml_list_document_name_its_line_and_their_number(tmp_path: Path) -> None:
    docs = [d for d in yaml.safe_load_all(SESSION.read_text(encoding="utf-8")) if d][:2]
    path = tmp_path / "list.yaml"
    path.write_text("# two messages in one document\n---\n" + yaml.safe_dump(docs, sort_keys=False),
                    encoding="utf-8")
    lines = _lines(_invoke("check", "messages", str(path)))
    assert [line["source"] for line in lines] == [{"file": str(path), "line": 2, "item": 1},
                                                  {"file": str(path), "line": 2, "item": 2}]


# ------------------------------------------------------------------------------------------ oracle, grounding
def test_each_case_names_its_file_and_line(tmp_path: Path) -> None:
    cases = [line for line in (EXAMPLES / "oracle" / "cases.ndjson").read_text(encoding="utf-8").splitlines()
             if line.strip()][:2]
    path = tmp_path / "two.ndjson"
    path.write_text(f"{cases[0]}\n\n{cases[1]}\n", encoding="utf-8")  # the second case on line 3
    lines = _lines(_invoke("check", "oracle", str(path)))
    assert [line["source"] for line in lines] == [{"file": str(path), "line": 1}, {"file": str(path), "line": 3}]
    piped = _lines(_invoke("check", "oracle", "-", stdin=path.read_bytes()))
    assert [line["source"] for line in piped] == [{"file": "-", "line": 1}, {"file": "-", "line": 3}]


def test_each_sentence_and_paragraph_names_its_file_and_paragraph(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMEGA_JUDGE_URL", raising=False)
    path = EXAMPLES / "grounding" / "paragraphs.json"
    lines = _lines(_invoke("check", "grounding", str(path)))
    order = [p["paragraph_id"] for p in json.loads(path.read_text(encoding="utf-8"))["paragraphs"]]
    assert lines
    assert all(line["source"] == {"file": str(path), "paragraph": order.index(line["paragraph_id"]) + 1}
               for line in lines)
    assert {line["source"]["paragraph"] for line in lines} == set(range(1, len(order) + 1))
