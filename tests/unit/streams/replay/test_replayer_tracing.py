"""Trace context in embedded replay (issue 23): a recorded record's `traceparent` reaches its outputs' lines as the
worker's headers (span id: the first 16 hex digits of sha256(topic NUL value), trace id and flags the parent's),
records without one give lines without `headers`, and `omega tail --format replay` writes what replay reads back."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from streams.cli.main import main
from streams.cli.topic_codec import replay_line
from streams.kafka.clients import json_line
from streams.replay.inputs import read_inputs
from streams.replay.replayer import Replayer, output_line
from streams.stages.base import Emit, Outputs
from streams.topics import AGENT_MESSAGES_RAW, PACKETS, PACKETS_JSON, VERDICTS
from streams.wire.codec import SchemaRegistry

EXAMPLES = Path(__file__).parents[4] / "examples"
REGISTRY = SchemaRegistry.from_directory()
PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"


def _lines(path: Path) -> list[bytes]:
    return [line for line in path.read_bytes().splitlines() if line.strip()]


def _envelope(topic: str, value: Any, traceparent: str | None, key: str = "") -> str:
    line: dict[str, Any] = {"topic": topic, "key": key, "value": value}
    if traceparent is not None:
        line["headers"] = {"traceparent": traceparent}
    return json.dumps(line)


def _replayed(path: Path) -> list[Emit]:
    replayer = Replayer(Outputs(REGISTRY))
    return [e for record in read_inputs([path]) for e in replayer.feed(record)] + replayer.finish()


def _span(topic: str, value: bytes) -> str:
    return hashlib.sha256(topic.encode() + b"\x00" + value).hexdigest()[:16]


def test_outputs_of_a_traced_ingress_record_carry_child_spans_of_its_trace(tmp_path: Path) -> None:
    lines = _lines(EXAMPLES / "omen" / "budget_overrun.jsonl")
    recorded = tmp_path / "recorded.jsonl"
    recorded.write_text("".join(_envelope(PACKETS_JSON.name, {"utf8": line.decode()}, PARENT) + "\n"
                                for line in lines))
    emits = _replayed(recorded)
    assert {e.topic.logical for e in emits} >= {"verdicts", "alerts"}
    for emit in emits:
        assert emit.traceparent == f"00-{TRACE_ID}-{_span(emit.topic.name, emit.value)}-01"
        assert json.loads(output_line(emit))["headers"] == {"traceparent": emit.traceparent}


def test_the_header_changes_no_output_and_untraced_records_write_lines_without_headers(tmp_path: Path) -> None:
    source = EXAMPLES / "omen" / "safe_mode.jsonl"
    recorded = tmp_path / "recorded.jsonl"
    recorded.write_text("".join(_envelope(PACKETS_JSON.name, {"utf8": line.decode()}, PARENT) + "\n"
                                for line in _lines(source)))
    traced, plain = _replayed(recorded), _replayed(source)
    assert [(e.topic, e.key, e.value) for e in traced] == [(e.topic, e.key, e.value) for e in plain]
    assert all(e.traceparent is None and '"headers"' not in output_line(e) for e in plain)


def test_an_unsampled_trace_keeps_its_flags_and_an_invalid_traceparent_is_not_carried(tmp_path: Path) -> None:
    [first, *_] = _lines(EXAMPLES / "omen" / "write_act.jsonl")
    recorded = tmp_path / "recorded.jsonl"
    recorded.write_text(
        _envelope(PACKETS_JSON.name, {"utf8": first.decode()}, f"00-{TRACE_ID}-00f067aa0ba902b7-00") + "\n"
        + _envelope(PACKETS_JSON.name, {"utf8": first.decode()}, "00-" + "0" * 32 + "-00f067aa0ba902b7-01") + "\n")
    replayer = Replayer(Outputs(REGISTRY))
    unsampled, invalid = (replayer.feed(record) for record in read_inputs([recorded]))
    assert unsampled
    assert all(e.traceparent is not None and e.traceparent.endswith("-00") for e in unsampled)
    assert invalid
    assert all(e.traceparent is None for e in invalid)


def test_a_record_read_from_the_packets_topic_is_judged_as_the_same_packet_with_its_trace(tmp_path: Path) -> None:
    source = EXAMPLES / "omen" / "token_revoked.jsonl"
    recorded = tmp_path / "recorded.jsonl"
    recorded.write_text("".join(_envelope(PACKETS.name, json.loads(line), PARENT) + "\n" for line in _lines(source)))
    traced, plain = _replayed(recorded), _replayed(source)
    assert [(e.topic, e.value) for e in traced] == [(e.topic, e.value) for e in plain]
    assert all(e.traceparent is not None and e.traceparent.split("-")[1] == TRACE_ID for e in traced)


def test_a_recorded_output_record_is_a_dead_letter_naming_its_topic_never_a_packet(tmp_path: Path) -> None:
    line = _envelope(VERDICTS.name, {"verdict_id": "vrd_1"}, PARENT, key="corr_1")
    recorded = tmp_path / "recorded.jsonl"
    recorded.write_text(line + "\n")
    [letter] = _replayed(recorded)
    assert letter.topic.logical == "dead_letters"
    assert letter.record["error_class"] == "UNREPLAYABLE_RECORD"
    assert "omen.verdicts" in str(letter.record["reason"])
    assert "project --from" in str(letter.record["reason"])
    assert letter.record["raw"] == line.encode()  # the whole line kept
    assert letter.traceparent is not None


def test_a_packet_mentioning_topic_and_value_is_still_read_as_a_packet(tmp_path: Path) -> None:
    [first, *_] = _lines(EXAMPLES / "omen" / "write_act.jsonl")
    packet = json.loads(first)
    packet["mcp"]["intent"]["summary"] = 'the "topic" and "value" of it'
    path = tmp_path / "packets.jsonl"
    path.write_text(json.dumps({**packet, "topic": "omen.verdicts"}) + "\n")  # not an envelope: it has a header
    [record] = read_inputs([path])
    assert record.stage == "json"
    assert record.topic is None
    assert record.traceparent is None


def test_a_recorded_agent_message_record_enters_its_session_by_key_with_its_trace(tmp_path: Path) -> None:
    session = (EXAMPLES / "omega57" / "clean_success.yaml").read_text()
    recorded = tmp_path / "recorded.jsonl"
    recorded.write_text(_envelope(AGENT_MESSAGES_RAW.name, {"utf8": session}, PARENT, key="clean_success") + "\n")
    [record] = read_inputs([recorded])
    assert (record.stage, record.source.key, record.traceparent) == ("message", b"clean_success", PARENT)
    emits = _replayed(recorded)
    plain = _replayed(EXAMPLES / "omega57" / "clean_success.yaml")
    assert [(e.topic, e.value) for e in emits] == [(e.topic, e.value) for e in plain]
    assert emits
    assert all(e.traceparent is not None for e in emits)


def test_tail_replay_lines_keep_a_traceparent_as_an_envelope_replay_reads_back(tmp_path: Path) -> None:
    raw = _lines(EXAMPLES / "omen" / "budget_overrun.jsonl")[0]
    headers = [("traceparent", PARENT.encode()), ("other", b"x")]
    traced = replay_line(PACKETS_JSON, "p.omen.packets.json", 0, 5, b"corr", {"utf8": raw.decode()}, headers)
    plain = replay_line(PACKETS_JSON, "p.omen.packets.json", 0, 6, b"corr", {"utf8": raw.decode()}, ())
    assert plain == raw.decode()
    assert json.loads(traced) == {"topic": "omen.packets.json", "key": "corr", "value": {"utf8": raw.decode()},
                                  "headers": {"traceparent": PARENT}}
    path = tmp_path / "tailed.jsonl"
    path.write_text(traced + "\n" + plain + "\n")
    first, second = read_inputs([path])
    assert (first.raw, first.traceparent, first.topic) == (raw, PARENT, "omen.packets.json")
    assert (second.raw, second.traceparent) == (raw, None)


def test_tail_json_lines_show_a_records_headers_as_text() -> None:
    line = json.loads(json_line(1, 7, b"k", {"a": 1}, [("traceparent", PARENT.encode()), ("bin", b"\xff")]))
    assert line["headers"] == {"traceparent": PARENT, "bin": {"base64": "/w=="}}
    assert "headers" not in json.loads(json_line(1, 7, b"k", {"a": 1}, ()))


def test_jobs_2_write_the_same_headers_as_one_job(tmp_path: Path) -> None:
    recorded = tmp_path / "recorded.jsonl"
    parts = []
    for n, path in enumerate(sorted((EXAMPLES / "omen").glob("*.jsonl"))):
        trace = f"00-{n + 1:032x}-00f067aa0ba902b7-01" if n % 2 else None
        parts += [_envelope(PACKETS_JSON.name, {"utf8": line.decode()}, trace) for line in _lines(path)]
    recorded.write_text("\n".join(parts) + "\n")
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.jsonl"
        result = CliRunner().invoke(main, ["replay", str(recorded), "--jobs", jobs, "--out", str(out)])
        assert result.exit_code in (0, 1), result.output
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert outs[0].count(b'"headers"') > 0
