"""The generated Avro readers (streams/wire/avro_reader.py) against fastavro: the same datum (by repr, so types and
key order show) on every bundled example packet, the workloads, generated packets and every output of a replay of
the bundled examples; and on bytes mutated anywhere, the same datum or the same refusal. A record whose writer is
another version of its schema is read by fastavro (schema resolution)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import fastavro
import pytest
from fastavro import parse_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streams.replay.inputs import directory_inputs, read_inputs
from streams.replay.replayer import Replayer
from streams.stages.base import Outputs
from streams.wire.avro_reader import Reader, Unreadable, compile_reader, long_rest
from streams.wire.codec import HEADER_SIZE, DecodeError, SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from tests.bench.bench_pipeline import mixed_workload, workload
from tests.omen_strategies import valid_packets

REPO = Path(__file__).resolve().parents[4]
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REGISTRY = SchemaRegistry.from_directory()
CONVERTER = PacketConverter(REGISTRY.get(PACKET_SCHEMA).parsed)


def _fastavro(registry: SchemaRegistry, data: bytes) -> Any:
    writer = registry.writer_of(data)
    return fastavro.schemaless_reader(io.BytesIO(data[HEADER_SIZE:]), writer.parsed, writer.parsed)


_READERS: dict[tuple[int, str], Reader] = {}  # compiled once per registry and schema (a packet's takes ~30 ms)


def _generated(registry: SchemaRegistry, data: bytes) -> Any:
    """The generated reader's datum, or None when it leaves the bytes to fastavro."""
    writer = registry.writer_of(data)
    read = _READERS.get((id(registry), writer.name)) or \
        _READERS.setdefault((id(registry), writer.name), compile_reader(writer.parsed)[0])
    try:
        datum, end = read(data, HEADER_SIZE)
    except (Unreadable, IndexError, UnicodeDecodeError):
        return None
    return datum if end == len(data) else None


def _outcome(data: bytes) -> str:
    """`decode` (generated, or fastavro when it declines) as repr, or the refusal."""
    try:
        return repr(REGISTRY.decode(data))
    except DecodeError as exc:
        return f"refused {exc.error_class}: {exc}"


def _fastavro_outcome(data: bytes) -> str:
    """What `decode` answered when fastavro read everything (the reference)."""
    try:
        datum = _fastavro(REGISTRY, data)
    except Exception as exc:  # noqa: BLE001 - any refusal: decode wraps them all as DecodeError
        return f"refused {type(exc).__name__}"
    return repr(datum)


def _packet_bytes() -> list[bytes]:
    packets: list[Any] = [*workload(300, 6), *mixed_workload(300, 6)]
    for path in sorted((REPO / "examples" / "omen").glob("*.json*")):
        text = path.read_text(encoding="utf-8")
        for line in [text] if path.suffix == ".json" else text.splitlines():
            try:
                packets.append(json.loads(line))
            except ValueError:
                continue
    encoded = []
    for packet in packets:
        try:
            encoded.append(REGISTRY.encode(PACKET_SCHEMA, CONVERTER.to_avro(packet)))
        except ValueError:
            continue  # refused by the schema: never on the topic
    return encoded


@pytest.mark.parametrize(("data", "value"), [
    (b"\x80\x01", 128), (b"\xff\x7f", 16383), (b"\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01", 2**64 - 2)])
def test_a_varint_continued_past_its_first_byte_is_read_whole(data: bytes, value: int) -> None:
    assert long_rest(data, 1, data[0]) == (value, len(data))


def test_a_varint_past_64_bits_is_left_to_fastavro() -> None:
    with pytest.raises(Unreadable):
        long_rest(b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 1, 0xFF)


def test_every_bundled_and_workload_packet_is_read_by_the_generated_reader_as_fastavro_reads_it() -> None:
    encoded = _packet_bytes()
    assert len(encoded) > 600
    assert [repr(_generated(REGISTRY, e)) for e in encoded] == [repr(_fastavro(REGISTRY, e)) for e in encoded]


def test_every_output_of_a_replay_of_the_bundled_examples_is_read_as_fastavro_reads_it() -> None:
    replayer = Replayer(Outputs(REGISTRY))
    paths = [*directory_inputs(REPO / "examples" / "omen"), *directory_inputs(REPO / "examples" / "omega57")]
    values = [e.value for record in read_inputs(paths) for e in replayer.feed(record) if e.topic.value_schema]
    assert len(values) > 50
    assert [repr(_generated(REGISTRY, v)) for v in values] == [repr(_fastavro(REGISTRY, v)) for v in values]


@settings(PROPERTY)
@given(valid_packets())
def test_generated_packets_are_read_as_fastavro_reads_them(packet: Any) -> None:
    data = REGISTRY.encode(PACKET_SCHEMA, CONVERTER.to_avro(packet))
    assert repr(_generated(REGISTRY, data)) == repr(_fastavro(REGISTRY, data))


@settings(PROPERTY)
@given(valid_packets(), st.data())
def test_packet_bytes_mutated_anywhere_are_read_or_refused_as_fastavro_reads_them(
        packet: Any, data: st.DataObject) -> None:
    body = bytearray(REGISTRY.encode(PACKET_SCHEMA, CONVERTER.to_avro(packet)))
    at = data.draw(st.integers(HEADER_SIZE, len(body) - 1), label="at")
    how = data.draw(st.sampled_from(["set", "cut", "insert"]), label="how")
    byte = data.draw(st.integers(0, 255), label="byte")
    if how == "set":
        body[at] = byte
    elif how == "cut":
        del body[at:]
    else:
        body.insert(at, byte)
    outcome, reference = _outcome(bytes(body)), _fastavro_outcome(bytes(body))
    if reference.startswith("refused"):
        assert outcome.startswith("refused")
    else:
        assert outcome == repr((PACKET_SCHEMA, _fastavro(REGISTRY, bytes(body))))


EVERY_TYPE = parse_schema({"type": "record", "name": "t.All", "fields": [
    {"name": "s", "type": ["null", "string"]}, {"name": "n", "type": "long"}, {"name": "small", "type": "int"},
    {"name": "d", "type": "double"}, {"name": "f", "type": "float"}, {"name": "b", "type": "boolean"},
    {"name": "raw", "type": "bytes"}, {"name": "fx", "type": {"type": "fixed", "name": "t.F", "size": 2}},
    {"name": "e", "type": {"type": "enum", "name": "t.E", "symbols": ["A", "B"]}},
    {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "t.Item", "fields": [
        {"name": "x", "type": "string"}]}}},
    {"name": "counts", "type": {"type": "map", "values": "long"}},
    {"name": "either", "type": ["null", "t.Item", "long"]},
]})
DATUM = {"s": "née", "n": -(2**63), "small": -5, "d": 2.5, "f": 0.5, "b": True, "raw": b"\x00", "fx": b"ab", "e": "B",
         "items": [{"x": "a"}, {"x": ""}], "counts": {"k": 2**40}, "either": 7}


def test_a_datum_of_every_type_reads_back_as_written() -> None:
    registry = SchemaRegistry()
    registry.register(EVERY_TYPE)
    data = registry.encode("t.All", DATUM)
    assert _generated(registry, data) == DATUM
    assert registry.decode(data) == ("t.All", DATUM)


def test_blocks_with_a_byte_size_and_several_blocks_are_read_as_fastavro_reads_them() -> None:
    schema = parse_schema({"type": "record", "name": "t.Blocks", "fields": [
        {"name": "xs", "type": {"type": "array", "items": "long"}}]})
    registry = SchemaRegistry()
    entry = registry.register(schema)
    # two blocks: a count of -2 with a byte size of 2 (items 1, 2), then a count of 1 (item 3), then the end
    data = b"\xc3\x01" + entry.fingerprint + b"\x03\x04\x02\x04\x02\x06\x00"
    assert _generated(registry, data) == {"xs": [1, 2, 3]} == _fastavro(registry, data)


@pytest.mark.parametrize("byte", [b"\x02", b"\xff"])
def test_a_boolean_byte_other_than_0_or_1_is_left_to_fastavro(byte: bytes) -> None:
    schema = parse_schema({"type": "record", "name": "t.Flag", "fields": [{"name": "b", "type": "boolean"}]})
    registry = SchemaRegistry()
    entry = registry.register(schema)
    data = b"\xc3\x01" + entry.fingerprint + byte
    assert _generated(registry, data) is None
    assert registry.decode(data) == ("t.Flag", _fastavro(registry, data))


def _enum_record(body: bytes) -> tuple[SchemaRegistry, bytes]:
    schema = parse_schema({"type": "record", "name": "t.Sym", "fields": [
        {"name": "e", "type": {"type": "enum", "name": "t.S", "symbols": ["A", "B"]}}]})
    registry = SchemaRegistry()
    entry = registry.register(schema)
    return registry, b"\xc3\x01" + entry.fingerprint + body


def test_an_enum_index_past_the_symbols_is_refused_as_fastavro_refuses_it() -> None:
    registry, data = _enum_record(b"\x04")  # index 2 of two symbols
    assert _generated(registry, data) is None
    with pytest.raises(DecodeError):
        registry.decode(data)


def test_a_negative_enum_index_is_left_to_fastavro_which_reads_it_as_python_indexing_does() -> None:
    registry, data = _enum_record(b"\x01")  # index -1
    assert _generated(registry, data) is None
    assert registry.decode(data) == ("t.Sym", {"e": "B"})  # fastavro's answer, kept: the reference decides


def test_a_record_written_with_another_version_of_its_schema_is_resolved_by_fastavro() -> None:
    old = parse_schema({"type": "record", "name": "t.V", "fields": [{"name": "a", "type": "long"}]})
    new = parse_schema({"type": "record", "name": "t.V", "fields": [
        {"name": "a", "type": "long"}, {"name": "b", "type": "string", "default": "x"}]})
    registry = SchemaRegistry()
    old_entry = registry.register(old)
    registry.register(new)
    data = b"\xc3\x01" + old_entry.fingerprint + b"\x06"
    assert registry.decode(data) == ("t.V", {"a": 3, "b": "x"})  # the default filled in by resolution


def test_a_schema_with_a_logical_type_fastavro_converts_is_not_generated() -> None:
    schema = parse_schema({"type": "record", "name": "t.Day", "fields": [
        {"name": "on", "type": {"type": "int", "logicalType": "date"}}]})
    with pytest.raises(Unreadable):
        compile_reader(schema)
    registry = SchemaRegistry()
    registry.register(schema)
    name, datum = registry.decode(registry.encode("t.Day", {"on": 3}))
    assert (name, str(datum["on"])) == ("t.Day", "1970-01-04")


def test_a_negative_length_is_left_to_fastavro() -> None:
    schema = parse_schema({"type": "record", "name": "t.Back", "fields": [
        {"name": "a", "type": "string"}, {"name": "b", "type": "long"}]})
    registry = SchemaRegistry()
    entry = registry.register(schema)
    data = b"\xc3\x01" + entry.fingerprint + b"\x01"  # a's length -1 would step back onto itself, read again as b
    assert _generated(registry, data) is None
    try:
        reference = repr(("t.Back", _fastavro(registry, data)))
    except Exception:  # noqa: BLE001 - any refusal of fastavro's is a DecodeError of ours
        reference = "refused"
    try:
        outcome = repr(registry.decode(data))
    except DecodeError:
        outcome = "refused"
    assert outcome == reference
