"""The generated Avro writers (streams/wire/avro_writer.py) against fastavro, byte for byte: on every bundled
example packet, the benchmark workloads, generated packets, every output a replay of the bundled examples makes, and
on hand-picked and generated datums of a schema holding every Avro type; a datum outside the fast path goes to
fastavro (the same bytes, or the same refusal). The zigzag vectors are the Avro specification's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastavro import parse_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streams.replay.inputs import directory_inputs, read_inputs
from streams.replay.replayer import Replayer
from streams.stages.base import Outputs
from streams.wire.avro_writer import Unsupported, Writer, compile_writer, put_long
from streams.wire.codec import EncodeError, SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from tests.bench.bench_pipeline import mixed_workload, workload
from tests.hostile import wild_json
from tests.omen_strategies import object_paths, valid_packets, value_at

REPO = Path(__file__).resolve().parents[4]
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REGISTRY = SchemaRegistry.from_directory()
CONVERTER = PacketConverter(REGISTRY.get(PACKET_SCHEMA).parsed)


_WRITERS: dict[str, Writer] = {}  # compiled once per schema (a packet's takes ~30 ms)


def _fast(name: str, datum: Any) -> bytes | None:
    """The generated writer's bytes for `datum` (no header), or None when it leaves the datum to fastavro."""
    writer = _WRITERS.get(name) or _WRITERS.setdefault(name, compile_writer(REGISTRY.get(name).parsed)[0])
    out = bytearray()
    try:
        writer(datum, out)
    except (Unsupported, KeyError, UnicodeEncodeError):
        return None
    return bytes(out)


def _outcome(registry: SchemaRegistry, name: str, datum: Any, fastavro_only: bool = False) -> str:
    try:
        encoded = registry.fastavro_encode(name, datum) if fastavro_only else registry.encode(name, datum)
        return encoded.hex()
    except EncodeError as exc:
        return f"refused: {exc}"


@pytest.mark.parametrize(("n", "expected"), [
    (0, "00"), (-1, "01"), (1, "02"), (-2, "03"), (2, "04"), (-64, "7f"), (64, "8001"),  # the spec's table
    (2**63 - 1, "feffffffffffffffff01"), (-(2**63), "ffffffffffffffffff01"),
])
def test_a_long_is_written_as_the_avro_zigzag_varint(n: int, expected: str) -> None:
    out = bytearray()
    put_long(out, n)
    assert out.hex() == expected


def _bundled_packets() -> list[Any]:
    packets = []
    for path in sorted((REPO / "examples" / "omen").glob("*.json*")):
        text = path.read_text(encoding="utf-8")
        for line in [text] if path.suffix == ".json" else text.splitlines():
            try:
                packets.append(json.loads(line))
            except ValueError:
                continue  # the malformed example's broken lines
    return packets


def test_every_bundled_and_workload_packet_is_written_by_the_fast_path_as_fastavro_writes_it() -> None:
    datums = []
    for packet in [*_bundled_packets(), *workload(300, 6), *mixed_workload(300, 6)]:
        try:
            datums.append(CONVERTER.to_avro(packet))
        except ValueError:
            continue  # a packet the schema refuses: never encoded
    assert len(datums) > 600
    body = [REGISTRY.fastavro_encode(PACKET_SCHEMA, d)[10:] for d in datums]
    assert [_fast(PACKET_SCHEMA, d) for d in datums] == body  # every one on the fast path, none to fastavro


def test_every_output_of_a_replay_of_the_bundled_examples_is_written_as_fastavro_writes_it() -> None:
    replayer = Replayer(Outputs(REGISTRY))
    paths = [*directory_inputs(REPO / "examples" / "omen"), *directory_inputs(REPO / "examples" / "omega57")]
    emits = [e for record in read_inputs(paths) for e in replayer.feed(record)] + replayer.finish()
    schemas = {e.topic.value_schema for e in emits}
    assert {"omega.events.PacketVerdict", "omega.events.Alert", "omega.events.Escalation",
            "omega.events.DeadLetter"} <= schemas
    differing = [e for e in emits if e.topic.value_schema is not None and
                 e.value != REGISTRY.fastavro_encode(e.topic.value_schema, e.record)]
    assert differing == []
    fast = [e for e in emits if e.topic.value_schema and _fast(e.topic.value_schema, e.record) is not None]
    assert len(fast) == len([e for e in emits if e.topic.value_schema])


@settings(PROPERTY)
@given(valid_packets())
def test_generated_packets_are_written_as_fastavro_writes_them(packet: Any) -> None:
    datum = CONVERTER.to_avro(packet)
    assert _fast(PACKET_SCHEMA, datum) == REGISTRY.fastavro_encode(PACKET_SCHEMA, datum)[10:]


@settings(PROPERTY)
@given(valid_packets(), st.data())
def test_a_converted_packet_with_a_wild_value_anywhere_is_written_or_refused_as_fastavro_does(
        packet: Any, data: st.DataObject) -> None:
    datum = CONVERTER.to_avro(packet)
    target = value_at(datum, data.draw(st.sampled_from(object_paths(datum)), label="object"))
    key = data.draw(st.sampled_from(sorted(target) or ["extra"]), label="key")
    target[key] = data.draw(wild_json() | st.tuples(st.sampled_from(["omega.omen.Intent", "string"]), wild_json()),
                            label="value")
    assert _outcome(REGISTRY, PACKET_SCHEMA, datum) == _outcome(REGISTRY, PACKET_SCHEMA, datum, fastavro_only=True)


EVERY_TYPE = {"type": "record", "name": "t.All", "fields": [
    {"name": "s", "type": ["null", "string"], "default": None},
    {"name": "n", "type": "long"},
    {"name": "small", "type": "int", "default": 0},
    {"name": "d", "type": "double", "default": 0.0},
    {"name": "od", "type": ["null", "double"], "default": None},
    {"name": "b", "type": "boolean", "default": False},
    {"name": "raw", "type": "bytes", "default": ""},
    {"name": "e", "type": {"type": "enum", "name": "t.E", "symbols": ["A", "B"]}, "default": "A"},
    {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "t.Item", "fields": [
        {"name": "x", "type": "string"}]}}, "default": []},
    {"name": "counts", "type": {"type": "map", "values": "long"}, "default": {}},
    {"name": "sub", "type": ["null", "t.Item"], "default": None},
    {"name": "num", "type": ["null", "long", "double"], "default": None},
    {"name": "word", "type": ["null", "string", "t.E"], "default": None},
    {"name": "either", "type": ["null", "t.Item", {"type": "record", "name": "t.Other", "fields": [
        {"name": "y", "type": "long"}]}], "default": None},
    {"name": "f", "type": "float", "default": 0.0},
    {"name": "fx", "type": {"type": "fixed", "name": "t.F", "size": 2}, "default": "ab"},
    {"name": "text", "type": {"type": "string", "logicalType": "omega.json"}, "default": "null"},
]}
PLAIN: dict[str, Any] = {
    "s": "née", "n": -70, "small": 5, "d": 1.5, "od": float("nan"), "b": True, "raw": b"\x00\xff", "e": "B",
    "items": [{"x": "a"}, {"x": ""}], "counts": {"k": 2**40, "": -1}, "sub": ("t.Item", {"x": "z"}), "num": 3,
    "word": ("t.E", "A"), "either": ("t.Other", {"y": 1}), "f": None, "fx": b"ab", "text": "{}"}


@pytest.fixture(scope="module")
def every_type() -> SchemaRegistry:
    registry = SchemaRegistry()
    registry.register(parse_schema(EVERY_TYPE))
    return registry


def test_a_schema_with_a_float_or_fixed_field_is_left_to_fastavro_whole(every_type: SchemaRegistry) -> None:
    with pytest.raises(Unsupported):  # fastavro narrows a double to a float field, checks a fixed's size
        compile_writer(every_type.get("t.All").parsed)
    datum = {**PLAIN, "f": 0.5}
    assert every_type.encode("t.All", datum) == every_type.fastavro_encode("t.All", datum)


def _without_float_and_fixed() -> dict[str, Any]:
    schema = {**EVERY_TYPE, "name": "t.Fast", "fields": [f for f in EVERY_TYPE["fields"] if f["name"] not in
                                                          ("f", "fx")]}
    return schema


@pytest.fixture(scope="module")
def fast_types() -> SchemaRegistry:
    registry = SchemaRegistry()
    registry.register(parse_schema(_without_float_and_fixed()))
    return registry


FAST_PLAIN = {k: v for k, v in PLAIN.items() if k not in ("f", "fx")}


def test_plain_values_of_every_type_take_the_fast_path_to_fastavro_s_bytes(fast_types: SchemaRegistry) -> None:
    writer, _ = compile_writer(fast_types.get("t.Fast").parsed)
    out = bytearray()
    writer(FAST_PLAIN, out)  # no Unsupported: every value is on the fast path
    assert bytes(out) == fast_types.fastavro_encode("t.Fast", FAST_PLAIN)[10:]
    assert fast_types.encode("t.Fast", FAST_PLAIN) == fast_types.fastavro_encode("t.Fast", FAST_PLAIN)


@pytest.mark.parametrize(("field", "value"), [
    ("n", True),                    # a bool offered a long (an int subclass)
    ("d", 2),                       # an int offered a double: fastavro writes float(2)
    ("n", 2**63),                   # past the long's bounds: fastavro refuses
    ("small", 2**31),               # past the int's bounds
    ("s", "\ud800"),                # a lone surrogate: fastavro refuses
    ("e", "C"),                     # not a symbol
    ("num", True),                  # a bool in a union with a long
    ("num", 2.5),                   # one numeric branch per Python type: the double
    ("word", "A"),                  # a str two branches (string, enum) could take
    ("either", {"x": "a"}),         # a dict two record branches could take
    ("either", ("t.Nope", {})),     # a tuple naming no branch: fastavro refuses
    ("sub", {"x": "a", "-type": "t.Other"}),  # fastavro's own branch-naming key, naming no branch: refused
    ("items", ({"x": "a"},)),       # a tuple for an array
    ("counts", {1: 2}),             # a key that is not a string
    ("raw", bytearray(b"x")),       # a bytearray for bytes
    ("sub", None),                  # (on the fast path: the null branch)
])
def test_a_value_outside_the_fast_path_is_written_or_refused_exactly_as_fastavro_does(
        fast_types: SchemaRegistry, field: str, value: Any) -> None:
    datum = {**FAST_PLAIN, field: value}
    assert _outcome(fast_types, "t.Fast", datum) == _outcome(fast_types, "t.Fast", datum, fastavro_only=True)


def test_a_missing_field_is_left_to_fastavro_which_writes_its_default(fast_types: SchemaRegistry) -> None:
    datum = {k: v for k, v in FAST_PLAIN.items() if k != "small"}
    writer, _ = compile_writer(fast_types.get("t.Fast").parsed)
    with pytest.raises(KeyError):
        writer(datum, bytearray())
    assert fast_types.encode("t.Fast", datum) == fast_types.fastavro_encode("t.Fast", {**datum, "small": 0})


def test_a_schema_with_a_logical_type_fastavro_converts_is_not_generated() -> None:
    schema = parse_schema({"type": "record", "name": "t.Time", "fields": [
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}}]})
    with pytest.raises(Unsupported):
        compile_writer(schema)
    registry = SchemaRegistry()
    registry.register(schema)
    assert registry.encode("t.Time", {"at": 5}) == registry.fastavro_encode("t.Time", {"at": 5})


def _every_type_values() -> st.SearchStrategy[dict[str, Any]]:
    plain = {name: st.just(value) for name, value in FAST_PLAIN.items()}
    odd = wild_json() | st.binary(max_size=4) | st.tuples(st.sampled_from(["t.Item", "t.Other", "t.E", "long"]),
                                                         wild_json())
    return st.fixed_dictionaries({name: strategy | odd for name, strategy in plain.items()})


@settings(PROPERTY)
@given(_every_type_values())
def test_any_datum_of_every_type_is_written_or_refused_as_fastavro_does(datum: dict[str, Any]) -> None:
    registry = SchemaRegistry()
    registry.register(parse_schema(_without_float_and_fixed()))
    assert _outcome(registry, "t.Fast", datum) == _outcome(registry, "t.Fast", datum, fastavro_only=True)


def test_a_schema_with_only_a_fixed_field_is_left_to_fastavro_not_refused_at_compile() -> None:
    schema = parse_schema({"type": "record", "name": "t.Id", "fields": [
        {"name": "id", "type": {"type": "fixed", "name": "t.Two", "size": 2}}]})
    with pytest.raises(Unsupported):
        compile_writer(schema)
    registry = SchemaRegistry()
    registry.register(schema)
    assert registry.encode("t.Id", {"id": b"ab"}) == registry.fastavro_encode("t.Id", {"id": b"ab"})
