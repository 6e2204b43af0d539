"""Properties of every decoder and stage entry point over arbitrary and mutated input: each returns a value or
raises its one documented rejection type (DecodeError, InputRejected, ConversionError), never anything else; a
stage never raises and answers every record with at least one emit (an output or a dead letter)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omega.answers.store import FactStore
from streams.stages.answers import AnswersStage
from streams.stages.base import DEAD_LETTER_RAW_BYTES, InputRejected, Outputs, Source, parse_json_object
from streams.stages.grounding import GroundingStage, GroundingSteps
from streams.stages.messages import MonitorStage
from streams.stages.oracle import OracleStage
from streams.stages.packets import DecodedPacket, PacketStage, Undecodable, WatermarkTick
from streams.topics import (
    DEAD_LETTERS,
    DOCUMENTS,
    GROUNDING_FACTS,
    GROUNDING_REQUESTS,
    ORACLE_REQUESTS,
    PACKETS,
    QUESTIONS,
)
from streams.wire.avro_json import ConversionError
from streams.wire.codec import DecodeError, SchemaRegistry
from streams.wire.omen_avro import PacketConverter
from tests.hostile import valid, valid_json, wild_json
from tests.omen_strategies import valid_packets

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                             HealthCheck.function_scoped_fixture])
SOURCE = Source("hostile", 0, 1, b"default", 1_766_314_800_000)
REGISTRY = SchemaRegistry.from_directory()
PIPELINE = PacketStage(Outputs(REGISTRY))

json_values = wild_json()


@st.composite
def mutated(draw: st.DrawFn, encodings: list[bytes]) -> bytes:
    """A valid encoding, then damaged: bytes flipped, cut, inserted or deleted."""
    data = bytearray(draw(st.sampled_from(encodings)))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(("flip", "cut", "insert", "delete")))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        if kind == "flip" and data:
            data[at] ^= draw(st.integers(1, 255))
        elif kind == "cut":
            del data[at:]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif data:
            del data[at]
    return bytes(data)


AVRO = [value for _, value in valid(PACKETS, REGISTRY)]
JSON_INPUTS = [value for topic in (DOCUMENTS, QUESTIONS, ORACLE_REQUESTS, GROUNDING_FACTS, GROUNDING_REQUESTS)
               for _, value in valid(topic, REGISTRY)[:2]]


def _decode(raw: bytes) -> None:
    try:
        REGISTRY.decode(raw)
        return
    except DecodeError as exc:
        error = exc
    assert error.error_class in {"NOT_SINGLE_OBJECT", "UNKNOWN_FINGERPRINT", "AVRO_DECODE", "SCHEMA_RESOLUTION",
                                 "REGISTRY_FRAMED"}


@PROPERTY
@given(st.binary(max_size=300))
def test_the_codec_decodes_arbitrary_bytes_or_raises_decode_error(raw: bytes) -> None:
    _decode(raw)
    _decode(AVRO[0][:10] + raw)  # a known fingerprint, then anything


@PROPERTY
@given(mutated(AVRO))
def test_the_codec_decodes_a_damaged_packet_or_raises_decode_error(raw: bytes) -> None:
    _decode(raw)


@PROPERTY
@given(st.binary(max_size=300) | mutated(AVRO))
def test_decode_packet_returns_a_packet_or_raises_input_rejected(raw: bytes) -> None:
    try:
        packet = PIPELINE.decode_packet(raw)
    except InputRejected as exc:
        error = exc
    else:
        assert isinstance(packet, dict)
        assert "header" in packet
        return
    assert error.reason


@PROPERTY
@given(st.binary(max_size=300) | mutated(AVRO))
def test_reading_a_packets_topic_record_never_raises_and_gives_a_tick_a_packet_or_why_not(raw: bytes) -> None:
    read = PIPELINE.read(raw)
    assert isinstance(read, WatermarkTick | DecodedPacket | Undecodable)
    if isinstance(read, WatermarkTick):
        assert isinstance(read.partition, int)
    elif isinstance(read, DecodedPacket):
        assert "header" in read.packet
    else:
        assert read.reason


@PROPERTY
@given(st.binary(max_size=300) | mutated(JSON_INPUTS) | json_values.map(lambda v: json.dumps(v).encode()))
def test_parse_json_object_returns_an_encodable_object_or_raises_input_rejected(raw: bytes) -> None:
    try:
        value = parse_json_object(raw, 100_000)
    except InputRejected as exc:
        error = exc
    else:
        assert isinstance(value, dict)
        json.dumps(value, ensure_ascii=False).encode("utf-8")  # no lone surrogate got through
        return
    assert error.error_class
    assert error.reason


@PROPERTY
@given(json_values | st.dictionaries(st.sampled_from(("header", "mcp", "payload", "x")), json_values, max_size=4))
def test_the_packet_converter_converts_or_raises_conversion_error(value: Any) -> None:
    converter = PacketConverter(REGISTRY.get("omega.omen.Packet").parsed)
    try:
        converter.to_avro(value)
        return
    except ConversionError as exc:
        error = exc
    assert error.error_class


@PROPERTY
@given(valid_packets(), st.data())
def test_a_packet_with_a_wild_header_value_converts_or_raises_conversion_error(packet: Any, data: st.DataObject
                                                                               ) -> None:
    converter = PacketConverter(REGISTRY.get("omega.omen.Packet").parsed)
    field = data.draw(st.sampled_from(sorted(packet["header"])))
    packet["header"][field] = data.draw(json_values)
    try:
        datum = converter.to_avro(packet)
    except ConversionError:
        return
    REGISTRY.encode("omega.omen.Packet", datum)  # what converts is encodable


# ------------------------------------------------------------------------------------------- the stages
ANSWERS = AnswersStage(PIPELINE.outputs)
ORACLE = OracleStage.from_default_config(PIPELINE.outputs)
MONITOR = MonitorStage(PIPELINE.outputs)

STAGES = {
    "ingress": lambda raw: PIPELINE.ingress(raw, SOURCE),
    "packet": lambda raw: PIPELINE.packet(None, raw, SOURCE)[1],
    "document": lambda raw: ANSWERS.document(raw, SOURCE),
    "question": lambda raw: ANSWERS.question(raw, SOURCE, lambda _: FactStore([])),
    "oracle": lambda raw: ORACLE.request(raw, SOURCE),
    "monitor": lambda raw: MONITOR.messages(None, raw, SOURCE, "session").emits,
    "grounding_fact": lambda raw: GroundingSteps(GroundingStage(PIPELINE.outputs), {}, {}).fact(raw, SOURCE),
    "grounding_request": lambda raw: GroundingSteps(GroundingStage(PIPELINE.outputs), {}, {}).request(raw, SOURCE),
}


def _objects() -> list[dict[str, Any]]:
    return [obj for topic in (DOCUMENTS, QUESTIONS, ORACLE_REQUESTS, GROUNDING_FACTS, GROUNDING_REQUESTS)
            for _, obj in valid_json(topic)[:1]]


@st.composite
def wild_objects(draw: st.DrawFn) -> bytes:
    """A valid input object with one top-level field replaced by any JSON value (or a new field added)."""
    obj = dict(draw(st.sampled_from(_objects())))
    key = draw(st.sampled_from([*sorted(obj), "extra"]))
    obj[key] = draw(json_values)
    return json.dumps(obj).encode()


@pytest.mark.parametrize("stage", sorted(STAGES))
@PROPERTY
@given(raw=st.binary(max_size=200) | mutated(JSON_INPUTS) | mutated(AVRO) | wild_objects())
def test_no_stage_raises_and_every_record_is_answered(stage: str, raw: bytes) -> None:
    emits = STAGES[stage](raw)
    assert emits or stage == "grounding_fact"  # a stored fact emits nothing
    for emit in emits:
        if emit.topic is DEAD_LETTERS:
            assert emit.record["reason"]
            assert len(emit.record["raw"]) <= DEAD_LETTER_RAW_BYTES
