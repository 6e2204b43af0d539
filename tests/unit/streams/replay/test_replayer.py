"""Embedded replay (streams/replay/replayer.py): every input format replayed, log order, byte-identical outputs, and
bad files as dead letters; how each file is read is tests/unit/streams/replay/test_inputs.py's."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import fastavro
import orjson
import pytest
from hypothesis import HealthCheck, given, settings

from omega.canonical import canonical_json
from streams.records import json_view
from streams.replay.inputs import InputRecord, read_inputs
from streams.replay.replayer import Replayer, output_line
from streams.stages.base import MAX_TABLE_ENTRY_BYTES, Emit, Outputs, Source
from streams.stages.packets import PacketStage
from streams.topics import DEAD_LETTERS, PACKETS, VERDICTS
from streams.wire.codec import SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from tests.factories import ledger_outgrowing_episode
from tests.factories import packet as factory_packet
from tests.omen_strategies import valid_packets

EXAMPLES = Path(__file__).parents[4] / "examples"

MALFORMED_LINE = b'{"header": {"packet_id": "pkt_broken"'


def _write_ocf(path: Path, schema: Any, records: list[dict[str, Any]]) -> Path:
    with path.open("wb") as handle:
        fastavro.writer(handle, schema, records)
    return path


@pytest.fixture
def log_files(tmp_path: Path, registry: SchemaRegistry, converter: PacketConverter) -> list[Path]:
    """Four files in all four formats, episodes interleaved, one malformed JSONL line."""
    array = tmp_path / "a.json"
    array.write_text(json.dumps([factory_packet(n, 1) for n in range(3)]), encoding="utf-8")
    single = tmp_path / "b.json"
    single.write_text(json.dumps(factory_packet(0, 2), indent=2), encoding="utf-8")
    lines = tmp_path / "c.jsonl"
    lines.write_bytes(b"\n".join([_line(factory_packet(3, 1)), b"", MALFORMED_LINE, _line(factory_packet(1, 2))])
                      + b"\n")
    ocf = _write_ocf(tmp_path / "d.avro", registry.get(PACKET_SCHEMA).parsed,
                     [converter.to_avro(factory_packet(n, 3)) for n in range(2)])
    return [array, single, lines, ocf]


def _line(packet: dict[str, Any]) -> bytes:
    return json.dumps(packet).encode("utf-8")


def _replay(pipeline: PacketStage, paths: list[Path]) -> tuple[str, Replayer]:
    replayer = Replayer(pipeline.outputs)
    out = io.StringIO()
    replayer.run(read_inputs(paths), out)
    return out.getvalue(), replayer


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def test_replaying_the_same_files_twice_gives_byte_identical_jsonl(registry: SchemaRegistry,
                                                                   log_files: list[Path]) -> None:
    first, _ = _replay(PacketStage(Outputs(registry)), log_files)
    second, _ = _replay(PacketStage(Outputs(SchemaRegistry.from_directory())), log_files)
    assert first == second
    assert first.endswith("\n")
    assert all(canonical_json(json.loads(line)) == line for line in first.splitlines())


def test_outputs_appear_in_log_order_across_all_four_formats(pipeline: PacketStage, log_files: list[Path]) -> None:
    text, replayer = _replay(pipeline, log_files)
    outputs = _lines(text)

    described = [(o["topic"], o["value"].get("packet_id") or o["value"]["error_class"]) for o in outputs]
    assert described == [
        (VERDICTS.name, "pkt_00001_000000"),  # a.json, an array, in array order
        (VERDICTS.name, "pkt_00001_000001"),
        (VERDICTS.name, "pkt_00001_000002"),
        (VERDICTS.name, "pkt_00002_000000"),  # b.json, one object
        (VERDICTS.name, "pkt_00001_000003"),  # c.jsonl, line 1
        (DEAD_LETTERS.name, "JSON_SYNTAX"),  # c.jsonl, line 3 (line 2 is blank)
        (VERDICTS.name, "pkt_00002_000001"),  # c.jsonl, line 4
        (VERDICTS.name, "pkt_00003_000000"),  # d.avro, records in order
        (VERDICTS.name, "pkt_00003_000001"),
    ]
    assert all(o["value"]["status"] == "ACCEPTED" for o in outputs if o["topic"] == VERDICTS.name)
    assert [o["key"] for o in outputs if o["topic"] == VERDICTS.name][:5] == [
        "corr_ep00001", "corr_ep00001", "corr_ep00001", "corr_ep00002", "corr_ep00001"]
    summary = replayer.summary
    assert summary.events_in == 9
    assert summary.verdicts == {"ACCEPTED": 8}
    assert summary.dead_letters == {"JSON_SYNTAX": 1}
    assert summary.episodes == 3


def test_a_malformed_jsonl_line_is_a_dead_letter_with_its_file_and_line_number(pipeline: PacketStage,
                                                                               log_files: list[Path]) -> None:
    text, _ = _replay(pipeline, log_files)
    [dead] = [o for o in _lines(text) if o["topic"] == DEAD_LETTERS.name]
    value = dead["value"]
    assert value["source_topic"] == f"file:{log_files[2]}"
    assert value["source_offset"] == 3
    assert value["raw"] == {"utf8": MALFORMED_LINE.decode()}
    assert dead["key"] == f"file:{log_files[2]}"


def test_replay_outputs_are_the_bytes_the_live_stages_produce(pipeline: PacketStage, log_files: list[Path]) -> None:
    replayer = Replayer(pipeline.outputs)
    replayed = [emit for record in read_inputs(log_files[:1]) for emit in replayer.feed(record)]
    ledger = None
    live = []
    for n in range(3):
        [ingress] = pipeline.ingress(_line(factory_packet(n, 1)), Source("omen.packets.json", 0, n))
        ledger, emits = pipeline.packet(ledger, ingress.value, Source("omen.packets", 0, n))
        live.extend(emits)
    assert [(e.topic, e.key, e.value, e.timestamp_ms) for e in replayed] == [
        (e.topic, e.key, e.value, e.timestamp_ms) for e in live]


def test_avro_container_files_are_read_as_packets(tmp_path: Path, registry: SchemaRegistry,
                                                  converter: PacketConverter, pipeline: PacketStage) -> None:
    packets = [factory_packet(n, 6, kind) for n, kind in
               enumerate(("ObservationPacket", "BeliefUpdatePacket", "DecisionPacket"))]
    path = _write_ocf(tmp_path / "packets.avro", registry.get(PACKET_SCHEMA).parsed,
                      [converter.to_avro(p) for p in packets])
    records = list(read_inputs([path]))
    assert [(r.stage, r.schema_name, r.source.offset) for r in records] == [
        ("avro", PACKET_SCHEMA, 0), ("avro", PACKET_SCHEMA, 1), ("avro", PACKET_SCHEMA, 2)]
    assert [converter.from_avro(r.datum) for r in records] == packets

    replayer = Replayer(pipeline.outputs)
    verdicts = [emit.record for record in records for emit in replayer.feed(record)]
    assert [(v["packet_type"], v["status"]) for v in verdicts] == [
        ("ObservationPacket", "ACCEPTED"), ("BeliefUpdatePacket", "ACCEPTED"), ("DecisionPacket", "ACCEPTED")]


def test_an_avro_container_of_another_schema_gives_wrong_schema_dead_letters(
    tmp_path: Path, registry: SchemaRegistry, pipeline: PacketStage
) -> None:
    violations = [{"rule": "SCHEMA", "severity": "ERROR", "message": f"m{n}", "field": None} for n in range(2)]
    path = _write_ocf(tmp_path / "violations.avro", registry.get("omega.events.Violation").parsed, violations)
    text, replayer = _replay(pipeline, [path])
    outputs = _lines(text)

    assert [o["topic"] for o in outputs] == [DEAD_LETTERS.name, DEAD_LETTERS.name]
    for n, output in enumerate(outputs):
        value = output["value"]
        assert value["error_class"] == "WRONG_SCHEMA"
        assert "omega.events.Violation" in value["reason"]
        assert value["source_offset"] == n
        assert json.loads(value["raw"]["utf8"]) == violations[n]
    assert replayer.summary.dead_letters == {"WRONG_SCHEMA": 2}
    assert replayer.summary.episodes == 0


def test_a_json_file_that_is_not_json_is_one_dead_letter(tmp_path: Path, pipeline: PacketStage) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(b'[{"header": ')
    text, _ = _replay(pipeline, [path])
    [dead] = _lines(text)
    assert dead["value"]["error_class"] == "JSON_SYNTAX"
    assert dead["value"]["raw"] == {"utf8": '[{"header": '}


@pytest.mark.parametrize(
    ("content", "error_class"),
    [
        (b'[{"header": {"packet_id": "p"}, "x": NaN}]', "JSON_SYNTAX"),
        (b'{"x": -Infinity}', "JSON_SYNTAX"),
        (b"[" * 50_000 + b"]" * 50_000, "TOO_DEEP"),
    ],
    ids=["nan", "infinity", "deep"],
)
def test_a_json_file_python_parses_but_json_forbids_is_a_dead_letter_not_a_crash(
    tmp_path: Path, pipeline: PacketStage, content: bytes, error_class: str
) -> None:
    path = tmp_path / "odd.json"
    path.write_bytes(content)
    text, replayer = _replay(pipeline, [path])
    [dead] = _lines(text)
    assert dead["topic"] == DEAD_LETTERS.name
    assert dead["value"]["error_class"] == error_class
    assert replayer.summary.dead_letters == {error_class: 1}


def test_an_avro_packet_holding_nan_is_a_dead_letter_not_a_crash(
    tmp_path: Path, registry: SchemaRegistry, converter: PacketConverter, pipeline: PacketStage
) -> None:
    datum: Any = converter.to_avro(factory_packet(0, 7))
    _, mcp = datum["mcp"]  # optional records carry their union branch name: (name, datum)
    mcp["epistemics"][1]["confidence"] = float("nan")  # Avro carries NaN; JSON does not
    path = _write_ocf(tmp_path / "nan.avro", registry.get(PACKET_SCHEMA).parsed,
                      [datum, converter.to_avro(factory_packet(1, 7))])
    text, _ = _replay(pipeline, [path])
    outputs = _lines(text)
    assert [o["topic"] for o in outputs] == [DEAD_LETTERS.name, VERDICTS.name]
    assert outputs[0]["value"]["source_offset"] == 0
    assert outputs[1]["value"]["packet_id"] == "pkt_00007_000001"


def test_the_internal_avro_hop_is_not_an_output(pipeline: PacketStage) -> None:
    record = InputRecord(Source("file:x", 0, 1), _line(factory_packet(0, 8)), "json")
    outputs = Replayer(pipeline.outputs).feed(record)
    assert [o.topic for o in outputs] == [VERDICTS]
    assert PACKETS not in {o.topic for o in outputs}


# ------------------------------------------------------------------ inputs replayed: gzip, containers, empty
def _packet_ids(text: str) -> list[str]:
    return [line["value"]["packet_id"] for line in _lines(text)]


def test_a_gzipped_jsonl_replays_as_the_plain_file_by_extension_or_by_magic(tmp_path: Path,
                                                                            pipeline: PacketStage) -> None:
    body = b"\n".join(_line(factory_packet(n, 4)) for n in range(2)) + b"\n"
    plain = tmp_path / "plain.jsonl"
    plain.write_bytes(body)
    by_extension = tmp_path / "packed.jsonl.gz"
    by_extension.write_bytes(gzip.compress(body))
    by_magic = tmp_path / "packed_no_gz_suffix.jsonl"  # gzipped, named as plain JSONL
    by_magic.write_bytes(gzip.compress(body))
    for path in (plain, by_extension, by_magic):
        text, replayer = _replay(pipeline, [path])
        assert _packet_ids(text) == ["pkt_00004_000000", "pkt_00004_000001"], path
        assert not replayer.summary.dead_letters


def test_the_extension_under_gz_decides_the_format(tmp_path: Path, pipeline: PacketStage, registry: SchemaRegistry,
                                                   converter: PacketConverter) -> None:
    array = tmp_path / "array.json.gz"
    array.write_bytes(gzip.compress(json.dumps([factory_packet(n, 5) for n in range(2)]).encode()))
    ocf = _write_ocf(tmp_path / "c.avro", registry.get(PACKET_SCHEMA).parsed, [converter.to_avro(factory_packet(0, 6))])
    packed_ocf = tmp_path / "c.avro.gz"
    packed_ocf.write_bytes(gzip.compress(ocf.read_bytes()))
    assert [r.stage for r in read_inputs([array])] == ["json", "json"]  # an array, not two broken JSONL lines
    text, _ = _replay(pipeline, [array, packed_ocf])
    assert _packet_ids(text) == ["pkt_00005_000000", "pkt_00005_000001", "pkt_00006_000000"]
    session = tmp_path / "sess_7.yaml.gz"
    session.write_bytes(gzip.compress(b"a: 1\n"))
    [record] = read_inputs([session])
    assert (record.stage, record.source.key, record.raw) == ("message", b"sess_7", b"a: 1\n")


@pytest.mark.parametrize(("name", "content"), [("empty.jsonl", b""), ("blank.jsonl", b"\n\n"), ("empty.avro", b""),
                                               ("empty.json.gz", gzip.compress(b"", mtime=0)), ("blank.json", b" \n"),
                                               ("empty.yaml", b"")])
def test_an_empty_input_has_no_records(tmp_path: Path, name: str, content: bytes, pipeline: PacketStage) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert list(read_inputs([path])) == []
    text, replayer = _replay(pipeline, [path])
    assert (text, replayer.summary.events_in) == ("", 0)


# ------------------------------------------------------------------------------------------ the output's views
def test_replay_output_shows_alert_details_as_objects(pipeline: PacketStage) -> None:
    out = io.StringIO()
    Replayer(pipeline.outputs).run(read_inputs([EXAMPLES / "omen" / "budget_overrun.jsonl"]), out)
    alerts = [json.loads(line)["value"] for line in out.getvalue().splitlines()
              if json.loads(line)["topic"] == "omega.alerts"]
    assert alerts
    assert all(isinstance(a["details"], dict) for a in alerts)


# ------------------------------------------------------------------ issue 24: the speed-ups keep the bytes
def _typed(value: Any) -> Any:
    """`value` with every number tagged by its type: 3 and 3.0 are equal in Python, not in JSON output."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


def _read_back(pipeline: PacketStage, packet: dict[str, Any]) -> tuple[Any, Any]:
    """(the packet the validator judges live: to Avro, encoded, decoded by fastavro, from Avro; the packet replay
    judges: from the datum the bytes were written from)."""
    datum = pipeline.packets.to_avro(packet)
    value = pipeline.outputs.registry.encode(PACKET_SCHEMA, datum)
    _, decoded = pipeline.outputs.registry.decode(value)
    return _typed(pipeline.packets.from_avro(decoded)), _typed(pipeline.packets.from_avro(datum))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_packets())
def test_replay_judges_the_packet_fastavro_reads_back(packet: dict[str, Any]) -> None:
    live, replayed = _read_back(PacketStage(Outputs(SchemaRegistry.from_directory())), packet)
    assert replayed == live


@pytest.mark.parametrize(("confidence", "max_loss", "budget"), [(1.0, 200.0, 900.0), (1, 200, 900), (0.5, "small", 3)])
def test_replay_judges_the_packet_fastavro_reads_back_for_numbers_of_either_kind(
        pipeline: PacketStage, confidence: Any, max_loss: Any, budget: Any) -> None:
    # long|double, string|long|double and long fields, given integral floats, ints and strings
    packet = factory_packet(1, 1)
    packet["mcp"]["epistemics"]["confidence"] = confidence
    packet["mcp"]["budgets"]["risk_budget"]["max_loss"] = max_loss
    packet["mcp"]["budgets"]["token_budget"] = budget
    packet["extra_top_level"] = {"n": 1.0, "m": [1, 2.5]}
    live, replayed = _read_back(pipeline, packet)
    assert replayed == live


def test_replay_outputs_are_the_emits_the_validator_step_makes_from_the_bytes(pipeline: PacketStage) -> None:
    """The Replayer judges the packet the ingress read from the datum it wrote; the validator's step decodes the
    bytes: the outputs (records and Avro values) are the same."""
    from streams.stages.episodes import EpisodeSteps

    records = list(read_inputs(sorted((EXAMPLES / "omen").glob("*.jsonl"))))
    replayer = Replayer(pipeline.outputs)
    steps = EpisodeSteps(pipeline, {})
    for n, record in enumerate(records):
        replayed = replayer.feed(record)
        plain = []
        for emit in pipeline.ingress(record.raw, record.source):
            if emit.topic is PACKETS:
                source = Source("replay:omen.packets", 0, n, emit.key.encode(), emit.timestamp_ms)
                plain.extend(steps.record(emit.value, source))
            else:
                plain.append(emit)
        assert [(e.topic.name, e.key, e.value) for e in replayed] == [(e.topic.name, e.key, e.value) for e in plain]
    assert pipeline.outputs.registry.__class__ is SchemaRegistry  # the caller's registry is left as it was


@pytest.mark.parametrize("record", [
    {"status": "ACCEPTED", "n": 1.5, "big": 10**20, "text": "é\u2028\t\n"},
    {"raw": b"plain text", "source_key": b"\xff\xfe", "nested": [b"a", (1, b"\x00\xff"), {"k": b"v"}]},
    {"details": '{"rule":"INV-011","task_id":"t1"}', "other": '{"x":1}'},
    {"details": "not json"},
    {"details": "[1, 2.0]"},
    {"details": '"a string"'},
    {"details": b"{}"},
])
def test_a_replay_line_is_the_canonical_json_of_the_records_json_view(record: dict[str, Any]) -> None:
    emit = Emit(VERDICTS, "corr_1", b"", None, record)
    expected = canonical_json({"topic": VERDICTS.name, "key": "corr_1", "value": json_view(record)})
    assert output_line(emit) == expected


def test_a_replay_line_of_a_record_with_nan_fails_as_canonical_json_does() -> None:
    with pytest.raises(ValueError, match=r"^Out of range float values are not JSON compliant$"):
        output_line(Emit(VERDICTS, "k", b"", None, {"x": float("nan")}))


def test_a_ledger_grown_past_its_changelog_record_by_small_packets_refuses_the_packets_that_would_grow_it(
        tmp_path: Path) -> None:
    # 500 packets of ~2.3 KB, each adding a 2,000-character evidence ref the ledger keeps: ~1 MB of refs by the end
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in ledger_outgrowing_episode(500, 2_000)), encoding="utf-8")
    replayer = Replayer(Outputs(SchemaRegistry.from_directory()))
    outputs = [(emit.topic, emit.record) for record in read_inputs([path]) for emit in replayer.feed(record)]

    statuses = [record["status"] if topic is VERDICTS else record["error_class"] for topic, record in outputs]
    accepted = statuses.count("ACCEPTED")
    # refs of 2,011 characters (+ quotes and a separator) past ~990,000 bytes: 490 +- a few fit, the rest do not
    assert 480 < accepted < 495
    assert statuses == ["ACCEPTED"] * accepted + ["STATE_TOO_LARGE"] * (500 - accepted)
    reason = outputs[accepted][1]["reason"]
    assert reason.startswith("the table entry it makes is ")
    assert reason.endswith(f"bytes, more than the limit of {MAX_TABLE_ENTRY_BYTES}")
    [ledger_key] = replayer.episode_order
    # as the changelog carries it (Faust's json codec: orjson, compact): the last ledger that fit is kept
    stored = len(orjson.dumps(ledger_key)) + len(orjson.dumps(replayer.episodes[ledger_key]))
    assert MAX_TABLE_ENTRY_BYTES - 2_100 < stored <= MAX_TABLE_ENTRY_BYTES


@pytest.mark.parametrize(("partitions", "late_episodes"), [
    (1, {"corr_budget_overrun_0001", "corr_escalation_0001"}),  # one watermark: both trail Dec 28 by hours
    (4, {"corr_escalation_0001"}),  # budget_overrun is alone on partition 2; escalation trails dangling on 0
])
def test_under_a_lateness_replay_keeps_one_watermark_per_packets_partition_as_the_worker_does(
        pipeline: PacketStage, partitions: int, late_episodes: set[str]) -> None:
    # dangling (Dec 28, partition 0 of 4), then budget_overrun (Dec 27, partition 2), then escalation (Dec 23, 0)
    files = [EXAMPLES / "omen" / f"{name}.jsonl" for name in ("dangling_directive", "budget_overrun", "escalation")]
    replayer = Replayer(pipeline.outputs, max_lateness_ms=60_000, partitions=partitions)
    verdicts = [dict(e.record) for r in read_inputs(files) for e in replayer.feed(r) if e.topic is VERDICTS]
    verdicts += [dict(e.record) for e in replayer.finish() if e.topic is VERDICTS]

    assert len(verdicts) == 9 + 9 + 5
    assert {v["correlation_id"] for v in verdicts if v["late"]} == late_episodes
    assert all(v["late"] for v in verdicts if v["correlation_id"] in late_episodes)
