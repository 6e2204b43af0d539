"""The pipeline stages: JSON ingress (packets or dead letters) and the packet stage around the pure validator."""

from __future__ import annotations

import copy
import hashlib
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from omega.eventtime import to_ms as event_time_ms
from omega.packets.ledger import EpisodeLedger
from omega.packets.validator import conflict_key
from streams.stages import packets as packets_module
from streams.stages.base import DEAD_LETTER_RAW_BYTES, MAX_JSON_DEPTH, Emit, Outputs, Source
from streams.stages.packets import IngressSteps, PacketStage
from streams.topics import DEAD_LETTERS, PACKETS, PACKETS_JSON, VERDICTS
from streams.wire.codec import SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from tests.factories import packet as factory_packet
from tests.unit.streams.log_capture import captured

SOURCE = Source(PACKETS_JSON.name, 3, 41, b"producer-key", 1_766_314_800_123)


def _json(value: object) -> bytes:
    return json.dumps(value).encode("utf-8")


def _with(path: str, value: object, *, delete: bool = False) -> bytes:
    """A factory packet with one field set (or deleted), as JSON bytes."""
    packet = factory_packet(0, 1)
    *head, last = path.split(".")
    node: Any = packet
    for step in head:
        node = node[step]
    if delete:
        del node[last]
    else:
        node[last] = value
    return _json(packet)


def _only(emits: list[Emit]) -> Emit:
    assert len(emits) == 1, emits
    return emits[0]


# ============================================================================ ingress: dead letters
BAD_INPUTS: list[tuple[str, bytes, str | None]] = [
    ("JSON_SYNTAX", b'{"header": {"packet_id": "pkt_1",', None),
    ("JSON_SYNTAX", b"", None),
    ("NOT_AN_OBJECT", b"[1, 2, 3]", "list"),
    ("NOT_AN_OBJECT", b'"an ObservationPacket"', "str"),
    ("NOT_AN_OBJECT", b"null", None),
    ("INVALID_UTF8", b'{"header": {"packet_id": "pkt_\xff\xfe"}}', "byte 30"),
    ("TOO_DEEP", b'{"a":' + b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1) + b"}", None),
    ("TOO_DEEP", b"[" * 100_000, None),  # refused before the parser can recurse
    ("MISSING_IDENTITY", _with("header.correlation_id", None, delete=True), "header.correlation_id"),
    ("MISSING_IDENTITY", _with("header.packet_id", 17), "header.packet_id"),
    ("MISSING_IDENTITY", _with("header", "not an object"), "header"),
    ("MISSING_IDENTITY", _with("header.packet_type", None), "header.packet_type"),
    ("MISSING_IDENTITY", b'{"mcp": {}, "payload": {}}', "header"),
    ("JSON_SYNTAX", _with("mcp.epistemics.confidence", float("nan")), "NaN"),
    ("JSON_SYNTAX", _with("mcp.epistemics.confidence", float("inf")), "Infinity"),
    ("JSON_SYNTAX", _with("mcp.epistemics.confidence", float("-inf")), "-Infinity"),
]


@pytest.mark.parametrize(
    ("error_class", "raw", "named_in_reason"),
    BAD_INPUTS,
    ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(BAD_INPUTS)],
)
def test_bad_input_gives_exactly_one_dead_letter_with_raw_bytes_and_position(
    pipeline: PacketStage, registry: SchemaRegistry, error_class: str, raw: bytes, named_in_reason: str | None
) -> None:
    emit = _only(pipeline.ingress(raw, SOURCE))

    assert emit.topic is DEAD_LETTERS
    assert emit.key == SOURCE.topic
    assert emit.timestamp_ms == SOURCE.timestamp_ms
    name, record = registry.decode(emit.value)  # what goes on the wire, not only the in-memory record
    assert name == DEAD_LETTERS.value_schema
    assert record == emit.record
    assert record["error_class"] == error_class
    if len(raw) <= DEAD_LETTER_RAW_BYTES:
        assert record["raw"] == raw  # verbatim, byte for byte
        assert (record["raw_size"], record["raw_sha256"]) == (None, None)
    else:  # a bounded excerpt, with the whole value's size and digest
        assert record["raw"] == raw[:DEAD_LETTER_RAW_BYTES]
        assert (record["raw_size"], record["raw_sha256"]) == (len(raw), hashlib.sha256(raw).hexdigest())
    assert (record["source_topic"], record["source_partition"], record["source_offset"], record["source_key"]) == (
        SOURCE.topic, SOURCE.partition, SOURCE.offset, SOURCE.key)
    assert record["event_time"] == "2025-12-21T11:00:00.123000+00:00"
    assert record["reason"]
    if named_in_reason is not None:
        assert named_in_reason in record["reason"]


def test_oversized_input_is_a_dead_letter_even_when_it_is_a_valid_packet(registry: SchemaRegistry) -> None:
    raw = _json(factory_packet(0, 1))
    small = PacketStage(Outputs(registry, max_event_bytes=len(raw) - 1))
    emit = _only(small.ingress(raw, SOURCE))
    assert emit.topic is DEAD_LETTERS
    assert emit.record["error_class"] == "OVERSIZED"
    assert emit.record["raw"] == raw
    assert str(len(raw)) in emit.record["reason"]
    assert _only(PacketStage(Outputs(registry, max_event_bytes=len(raw))).ingress(raw, SOURCE)).topic is PACKETS


def test_dead_letter_id_is_derived_from_the_source_position(pipeline: PacketStage) -> None:
    first = _only(pipeline.ingress(b"{", SOURCE)).record["dead_letter_id"]
    again = _only(pipeline.ingress(b"[]", SOURCE)).record["dead_letter_id"]
    moved = _only(pipeline.ingress(b"{", Source(SOURCE.topic, SOURCE.partition, SOURCE.offset + 1))).record
    assert first == again != moved["dead_letter_id"]
    assert moved["source_key"] is None
    assert moved["event_time"] is None


def test_a_dead_letter_without_a_kafka_timestamp_has_no_event_time(pipeline: PacketStage) -> None:
    emit = _only(pipeline.ingress(b"nope", Source("t", 0, 0)))
    assert emit.timestamp_ms is None
    assert emit.record["event_time"] is None


# ============================================================================ ingress: attributable, not carried
# A packet with a readable identity (issue 41) is never a dead letter: what the Packet record cannot carry travels
# as PacketAsSent (its JSON as sent), and the validator names every schema error in a REJECTED verdict.
NOT_CARRIED: list[tuple[bytes, str, str]] = [
    (_with("mcp.budgets.token_budget", "nine hundred"), "WRONG_TYPE", "mcp.budgets.token_budget"),
    (_with("header.created_at", 1766314800), "WRONG_TYPE", "header.created_at"),
    (_with("header.packet_type", "GossipPacket"), "UNKNOWN_PACKET_TYPE", "header.packet_type"),
    (_with("payload", "a flattened payload"), "WRONG_TYPE", "payload"),
]


@pytest.mark.parametrize(("raw", "error_class", "path"), NOT_CARRIED, ids=[p for _, _, p in NOT_CARRIED])
def test_an_attributable_packet_the_packet_record_cannot_carry_travels_as_sent_and_is_rejected_naming_the_field(
        pipeline: PacketStage, registry: SchemaRegistry, raw: bytes, error_class: str, path: str) -> None:
    emit = _only(pipeline.ingress(raw, SOURCE))
    assert emit.topic is PACKETS
    assert emit.key == "corr_ep00001"
    name, datum = registry.decode(emit.value)
    assert name == "omega.omen.PacketAsSent"
    assert datum["packet_json"].encode("utf-8") == raw  # byte for byte as the producer sent it
    assert datum["not_carried"].startswith(f"{error_class}: {path}")
    _, emits = pipeline.packet(None, emit.value, SOURCE)
    verdict = _verdict(emits)
    assert (verdict["status"], verdict["packet_id"], verdict["correlation_id"]) == ("REJECTED", "pkt_00001_000000",
                                                                                    "corr_ep00001")
    assert [(v["rule"], v["severity"], v["field"]) for v in verdict["violations"]] == [("SCHEMA", "ERROR", path)]


def test_every_schema_error_of_a_packet_as_sent_is_named_with_what_is_accepted_and_what_was_found(
        pipeline: PacketStage) -> None:
    packet = factory_packet(0, 1)
    packet["header"]["layer_source"] = "5"
    packet["header"]["campaign_id"] = None
    packet["mcp"]["quality"]["definition_of_done"]["checks"] = []
    emit = _only(pipeline.ingress(_json(packet), SOURCE))
    verdict = _verdict(pipeline.packet(None, emit.value, SOURCE)[1])
    assert verdict["status"] == "REJECTED"
    assert [(v["severity"], v["message"]) for v in verdict["violations"]] == [
        ("ERROR", 'header.layer_source must be an integer 1..6 or "Integrity", got a string "5"'),
        ("WARNING", "header.campaign_id is null: read as absent (optional field; omit it instead of writing null)"),
        ("ERROR", "mcp.quality.definition_of_done.checks needs at least 1 item, got 0"),
    ]


def test_a_null_on_an_optional_field_alone_is_accepted_with_a_warning_and_the_episode_moves(
        pipeline: PacketStage) -> None:
    packet = factory_packet(0, 1)
    packet["header"]["campaign_id"] = None
    emit = _only(pipeline.ingress(_json(packet), SOURCE))
    ledger, emits = pipeline.packet(None, emit.value, SOURCE)
    verdict = _verdict(emits)
    assert verdict["status"] == "ACCEPTED_WITH_WARNINGS"
    assert [v["field"] for v in verdict["violations"]] == ["header.campaign_id"]
    assert ledger is not None
    assert ledger.accepted == 1
    assert ledger.state == verdict["state_after"] != "S0_IDLE"


def test_a_packet_as_sent_whose_json_lost_its_identity_is_a_dead_letter(pipeline: PacketStage,
                                                                        registry: SchemaRegistry) -> None:
    value = registry.encode("omega.omen.PacketAsSent", {"packet_json": '{"header": {}}', "not_carried": "x"})
    emit = _only(pipeline.packet(None, value, SOURCE)[1])
    assert emit.topic is DEAD_LETTERS
    assert emit.record["error_class"] == "AVRO_CONTENT"
    assert emit.record["raw"] == value


# ============================================================================ ingress: valid packets
def test_valid_packet_gives_one_packets_emit_keyed_by_correlation_id_at_created_at(
    pipeline: PacketStage, registry: SchemaRegistry, converter: PacketConverter
) -> None:
    packet = factory_packet(5, 9)
    emit = _only(pipeline.ingress(_json(packet), SOURCE))

    assert emit.topic is PACKETS
    assert emit.key == "corr_ep00009"  # the episode, whatever key the producer chose
    assert emit.timestamp_ms == int(datetime(2025, 12, 21, 11, 0, 5, tzinfo=UTC).timestamp() * 1000)
    assert emit.record == packet
    name, datum = registry.decode(emit.value)
    assert name == PACKET_SCHEMA
    assert converter.from_avro(datum) == packet


@pytest.mark.parametrize(
    ("created_at", "expected_ms"),
    [
        ("2025-12-21T13:00:00+02:00", 1_766_314_800_000),
        ("2025-12-21T11:00:00.250Z", 1_766_314_800_250),
        ("2025-12-21T11:00:00", 1_766_314_800_000),  # naive means UTC
        ("yesterday afternoon", None),  # only "a string" to the JSON Schema: judged, no event time
    ],
)
def test_kafka_timestamp_follows_created_at(pipeline: PacketStage, created_at: str, expected_ms: int | None) -> None:
    emit = _only(pipeline.ingress(_with("header.created_at", created_at), SOURCE))
    assert emit.topic is PACKETS
    assert emit.timestamp_ms == expected_ms
    assert event_time_ms(created_at) == expected_ms


def test_brackets_inside_strings_do_not_count_as_nesting(pipeline: PacketStage) -> None:
    text = "[" * (MAX_JSON_DEPTH + 10) + "{" * 5
    emit = _only(pipeline.ingress(_with("mcp.epistemics.calibration_note", text), SOURCE))
    assert emit.topic is PACKETS, emit.record.get("reason")
    assert emit.record["mcp"]["epistemics"]["calibration_note"] == text


def test_escaped_quotes_do_not_end_a_string_for_the_nesting_bound(pipeline: PacketStage) -> None:
    text = '\\"' + "[" * (MAX_JSON_DEPTH + 10)
    emit = _only(pipeline.ingress(_with("mcp.intent.summary", text), SOURCE))
    assert emit.topic is PACKETS, emit.record.get("reason")


# ============================================================================ the packet stage
def _packet_bytes(pipeline: PacketStage, packet: dict[str, Any]) -> bytes:
    emit = _only(pipeline.ingress(_json(packet), SOURCE))
    assert emit.topic is PACKETS, emit.record
    return emit.value


def _verdict(emits: list[Emit]) -> dict[str, Any]:
    emit = _only(emits)
    assert emit.topic is VERDICTS
    return dict(emit.record)


def test_valid_packet_is_accepted_and_recorded_in_a_new_ledger(pipeline: PacketStage, registry: SchemaRegistry) -> None:
    raw = _packet_bytes(pipeline, factory_packet(0, 2))
    ledger, emits = pipeline.packet(None, raw, SOURCE)
    verdict = _verdict(emits)
    assert verdict["status"] == "ACCEPTED"
    assert verdict["violations"] == []
    assert emits[0].key == "corr_ep00002"
    assert emits[0].timestamp_ms == 1_766_314_800_000
    assert registry.decode(emits[0].value) == (VERDICTS.value_schema, verdict)
    assert ledger is not None
    assert ledger.correlation_id == "corr_ep00002"
    assert (ledger.accepted, ledger.rejected) == (1, 0)
    assert list(ledger.applied) == ["pkt_00002_000000"]


def test_the_same_packet_twice_gives_the_same_verdict_and_leaves_the_ledger_unchanged(pipeline: PacketStage) -> None:
    raw = _packet_bytes(pipeline, factory_packet(0, 2))
    first_ledger, first = pipeline.packet(None, raw, SOURCE)
    redelivered = Source(SOURCE.topic, SOURCE.partition, SOURCE.offset + 100, SOURCE.key, SOURCE.timestamp_ms)
    second_ledger, second = pipeline.packet(first_ledger, raw, redelivered)

    assert _verdict(second)["verdict_id"] == _verdict(first)["verdict_id"]
    assert second[0].value == first[0].value  # byte-identical re-emission
    assert first_ledger is not None
    assert second_ledger is not None
    assert second_ledger.to_dict() == first_ledger.to_dict()
    assert (second_ledger.accepted, second_ledger.rejected) == (1, 0)


def test_the_same_packet_through_a_ledger_restored_from_its_dict_is_still_idempotent(pipeline: PacketStage) -> None:
    raw = _packet_bytes(pipeline, factory_packet(1, 2))
    ledger, first = pipeline.packet(None, raw, SOURCE)
    assert ledger is not None
    restored = EpisodeLedger.from_dict(json.loads(json.dumps(ledger.to_dict())))  # as the Faust table keeps it
    again, second = pipeline.packet(restored, raw, SOURCE)
    assert second[0].value == first[0].value
    assert again is not None
    assert again.to_dict() == ledger.to_dict()


def test_a_different_packet_reusing_a_packet_id_is_rejected_as_duplicate(pipeline: PacketStage) -> None:
    original = factory_packet(0, 2)
    ledger, first = pipeline.packet(None, _packet_bytes(pipeline, original), SOURCE)
    impostor = copy.deepcopy(original)
    impostor["payload"]["data"]["price"] = 999.5
    after, emits = pipeline.packet(ledger, _packet_bytes(pipeline, impostor), SOURCE)

    verdict = _verdict(emits)
    assert verdict["status"] == "REJECTED"
    assert verdict["packet_id"] == original["header"]["packet_id"]
    assert verdict["verdict_id"] != _verdict(first)["verdict_id"]
    duplicates = [v for v in verdict["violations"] if v["rule"] == "DUPLICATE"]
    assert duplicates == [{"rule": "DUPLICATE", "severity": "ERROR", "field": "header.packet_id",
                           "message": duplicates[0]["message"]}]
    assert ledger is not None
    assert after is not None
    # what was judged first stays judged; the impostor's own judgement is kept beside it, for its redelivery
    pid = original["header"]["packet_id"]
    assert after.applied[pid] == ledger.applied[pid]
    assert {k: v for k, v in after.to_dict().items() if k != "applied"} == \
        {k: v for k, v in ledger.to_dict().items() if k != "applied"}
    assert set(after.applied) - set(ledger.applied) == {conflict_key(pid, verdict["content_hash"])}


@pytest.mark.parametrize(
    "field", ["intent", "stakes", "quality", "budgets", "epistemics", "evidence", "routing"]
)
def test_a_packet_missing_an_mcp_field_is_judged_and_rejected_with_a_schema_violation(
    pipeline: PacketStage, field: str
) -> None:
    ingress = _only(pipeline.ingress(_with(f"mcp.{field}", None, delete=True), SOURCE))
    assert ingress.topic is PACKETS  # not a dead letter: the validator names the problem

    ledger, emits = pipeline.packet(None, ingress.value, SOURCE)
    verdict = _verdict(emits)
    assert verdict["status"] == "REJECTED"
    schema = [v for v in verdict["violations"] if v["rule"] == "SCHEMA"]
    assert [v["field"] for v in schema] == [f"mcp.{field}"]
    assert all(v["severity"] == "ERROR" for v in schema)
    assert ledger is not None
    assert (ledger.accepted, ledger.rejected) == (0, 1)


def test_a_packet_missing_a_nested_mcp_field_is_rejected_naming_the_dotted_path(pipeline: PacketStage) -> None:
    ingress = _only(pipeline.ingress(_with("mcp.budgets.token_budget", None, delete=True), SOURCE))
    assert ingress.topic is PACKETS
    verdict = _verdict(pipeline.packet(None, ingress.value, SOURCE)[1])
    assert verdict["status"] == "REJECTED"
    assert "mcp.budgets.token_budget" in [v["field"] for v in verdict["violations"] if v["rule"] == "SCHEMA"]


@pytest.mark.parametrize(
    ("raw", "error_class"),
    [
        (b'{"not": "avro"}', "NOT_SINGLE_OBJECT"),
        (b"\xc3\x01" + b"\x00" * 8 + b"\x02", "UNKNOWN_FINGERPRINT"),
    ],
)
def test_undecodable_bytes_on_the_packets_topic_are_a_dead_letter_and_keep_the_ledger(
    pipeline: PacketStage, raw: bytes, error_class: str
) -> None:
    ledger = EpisodeLedger("corr_x")
    after, emits = pipeline.packet(ledger, raw, SOURCE)
    emit = _only(emits)
    assert emit.topic is DEAD_LETTERS
    assert (emit.record["error_class"], emit.record["raw"]) == (error_class, raw)
    assert after is ledger


def test_an_avro_record_of_another_schema_on_the_packets_topic_is_wrong_schema(
    pipeline: PacketStage, registry: SchemaRegistry
) -> None:
    raw = registry.encode("omega.events.Violation", {"rule": "X", "severity": "ERROR", "message": "m", "field": None})
    emit = _only(pipeline.packet(None, raw, SOURCE)[1])
    assert emit.topic is DEAD_LETTERS
    assert emit.record["error_class"] == "WRONG_SCHEMA"
    assert emit.record["raw"] == raw


def test_a_truncated_packet_is_a_dead_letter(pipeline: PacketStage) -> None:
    raw = _packet_bytes(pipeline, factory_packet(0, 2))[:-3]
    emit = _only(pipeline.packet(None, raw, SOURCE)[1])
    assert emit.topic is DEAD_LETTERS
    assert emit.record["error_class"] == "AVRO_DECODE"


# ------------------------------------------------------------------------------------------------ ingress keys
def test_the_ingress_counts_records_not_keyed_by_their_correlation_id_and_logs_the_1st_10th_100th() -> None:
    steps = IngressSteps(PacketStage(Outputs(SchemaRegistry.from_directory())))
    raw = json.dumps(factory_packet(0, 1)).encode()  # correlation_id corr_ep00001
    with captured(packets_module) as logs:
        steps.record(raw, Source("packets_json", 0, 0, b"corr_ep00001"))  # its natural key: not counted
        for n in range(1, 101):
            key = None if n % 2 else b"producer-chose-this"
            [emit] = steps.record(raw, Source("packets_json", 0, n, key))
            assert emit.key == "corr_ep00001"  # judged all the same, re-keyed
    assert steps.misskeyed == 100
    assert [e["records"] for e in logs] == [1, 10, 100]
    assert logs[0]["event"] == "ingress_key_not_correlation_id"
    assert (logs[0]["key"], logs[0]["correlation_id"], logs[0]["offset"]) == (None, "corr_ep00001", 1)
    assert logs[1]["key"] == "producer-chose-this"


def test_a_dead_lettered_record_is_not_counted_as_misskeyed() -> None:
    steps = IngressSteps(PacketStage(Outputs(SchemaRegistry.from_directory())))
    [letter] = steps.record(b"not json", Source("packets_json", 0, 0, None))
    assert letter.topic.logical == "dead_letters"
    assert steps.misskeyed == 0
