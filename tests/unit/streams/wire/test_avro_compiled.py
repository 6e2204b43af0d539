"""The generated field converters (streams/wire/avro_compiled.py) against the field loop they unroll
(`RecordNode._fields_to_avro`): the same datum, to the type of every value and the order of every key, on every
bundled example packet, the benchmark workloads and generated packets; the same refusal (class and path) on
packets with a wild value anywhere; and the inline checks on values a plain type check would let through wrongly."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastavro import parse_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streams.wire import avro_json as aj
from streams.wire.avro_compiled import compile_fields
from streams.wire.codec import SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from tests.bench.bench_pipeline import mixed_workload, workload
from tests.hostile import wild_json
from tests.omen_strategies import object_paths, valid_packets, value_at

EXAMPLES = Path(__file__).resolve().parents[4] / "examples" / "omen"
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PARSED = SchemaRegistry.from_directory().get(PACKET_SCHEMA).parsed


def _records(node: aj.Node, seen: dict[int, aj.RecordNode]) -> dict[int, aj.RecordNode]:
    if isinstance(node, aj.RecordNode):
        if id(node) in seen:
            return seen
        seen[id(node)] = node
        for _, child, *_ in node.fields:
            _records(child, seen)
    elif isinstance(node, aj.OptionalNode):
        _records(node.inner, seen)
    elif isinstance(node, aj.ArrayNode):
        _records(node.items, seen)
    elif isinstance(node, aj.MapNode):
        _records(node.values, seen)
    elif isinstance(node, aj.ChoiceNode):
        for branch in node.branches:
            _records(branch, seen)
    return seen


def _looping() -> PacketConverter:
    """A converter whose every record runs the field loop instead of its generated function."""
    converter = PacketConverter(PARSED)
    roots = [converter._header, converter._mcp, *converter._payloads.values()]
    found: dict[int, aj.RecordNode] = {}
    for root in roots:
        _records(root, found)
    for record in found.values():
        record._unrolled = lambda value, record=record: record._fields_to_avro(value, "")
    return converter


UNROLLED, LOOPING = PacketConverter(PARSED), _looping()


def _outcome(converter: PacketConverter, packet: Any) -> str:
    """The datum as repr (types and key order show), or the refusal's class and path."""
    try:
        return repr(converter.to_avro(copy.deepcopy(packet)))
    except aj.ConversionError as exc:
        return f"refused {exc.error_class} at {exc.path}: {exc}"


def _bundled_packets() -> Iterator[Any]:
    for path in sorted(EXAMPLES.glob("*.json*")):
        text = path.read_text(encoding="utf-8")
        lines = [text] if path.suffix == ".json" else [line for line in text.splitlines() if line.strip()]
        for line in lines:
            try:
                yield json.loads(line)
            except ValueError:
                continue  # the malformed example's broken lines: not a packet for either converter


def test_every_bundled_example_and_workload_packet_converts_alike() -> None:
    packets = [*_bundled_packets(), *workload(400, 8), *mixed_workload(400, 8)]
    assert len(packets) > 800
    differing = [p for p in packets if _outcome(UNROLLED, p) != _outcome(LOOPING, p)]
    assert differing == []


@settings(PROPERTY)
@given(valid_packets())
def test_generated_valid_packets_convert_alike(packet: Any) -> None:
    assert _outcome(UNROLLED, packet) == _outcome(LOOPING, packet)


@settings(PROPERTY)
@given(valid_packets(), st.data())
def test_a_wild_value_anywhere_is_converted_or_refused_alike(packet: Any, data: st.DataObject) -> None:
    target = value_at(packet, data.draw(st.sampled_from(object_paths(packet)), label="object"))
    key = data.draw(st.sampled_from(sorted(target) or ["extra"]) | st.just("extra"), label="key")
    target[key] = data.draw(wild_json(), label="value")
    assert _outcome(UNROLLED, packet) == _outcome(LOOPING, packet)


RECORD = {"type": "record", "name": "t.R", "fields": [
    {"name": "s", "type": ["null", "string"], "default": None},
    {"name": "n", "type": "long"},
    {"name": "small", "type": "int", "default": 0},
    {"name": "d", "type": ["null", "double"], "default": None},
    {"name": "e", "type": {"type": "enum", "name": "t.E", "symbols": ["A", "B"]}, "default": "A"},
    {"name": "b", "type": "boolean", "default": False},
    {"name": "sub", "type": ["null", {"type": "record", "name": "t.Sub", "fields": [{"name": "x", "type": "string"}]}],
     "default": None},
]}


@pytest.fixture(scope="module")
def record() -> aj.RecordNode:
    node = aj.compile_schema(parse_schema(RECORD))
    assert isinstance(node, aj.RecordNode)
    return node


def test_plain_values_pass_as_they_are_and_absent_fields_take_their_defaults(record: aj.RecordNode) -> None:
    convert, _ = compile_fields(record)
    assert convert({"s": "hi", "n": 5, "d": 1.5, "e": "B", "b": True, "sub": {"x": "y"}}) == {
        "s": "hi", "n": 5, "small": 0, "d": 1.5, "e": "B", "b": True, "sub": ("t.Sub", {"x": "y"})}
    assert convert({"n": 1}) == {"s": None, "n": 1, "small": 0, "d": None, "e": "A", "b": False, "sub": None}


@pytest.mark.parametrize(("value", "error_class"), [
    ({}, "MISSING_FIELD"),                                       # a required field absent
    ({"n": True}, "WRONG_TYPE"),                                 # a bool is not a long
    ({"n": 2**63}, "OUT_OF_RANGE"),                              # past the long's bounds
    ({"n": 1, "small": 2**31}, "OUT_OF_RANGE"),                  # past the int's bounds
    ({"n": 1, "d": float("inf")}, "WRONG_TYPE"),                 # not finite
    ({"n": 1, "e": "C"}, "UNKNOWN_E"),                           # not a symbol
    ({"n": 1, "s": "\ud800"}, "INVALID_UNICODE"),                # a lone surrogate: not ASCII, so the node looks
    ({"n": 1, "s": None}, "WRONG_TYPE"),                         # explicit null where only free-form JSON takes it
    ({"n": 1, "sub": {"x": 3}}, "WRONG_TYPE"),                   # inside the optional record
])
def test_values_the_inline_checks_do_not_pass_are_refused_as_the_node_refuses_them(
        record: aj.RecordNode, value: dict[str, Any], error_class: str) -> None:
    convert, _ = compile_fields(record)
    with pytest.raises(aj.ConversionError) as info:
        convert(value)
    assert info.value.error_class == error_class


def test_values_the_inline_checks_leave_to_the_node_convert_as_the_node_converts(record: aj.RecordNode) -> None:
    convert, _ = compile_fields(record)
    datum = convert({"n": 4.0, "d": 2, "s": "née"})  # integral float to long, int to double, non-ASCII text
    assert (datum["n"], type(datum["n"]), datum["d"], type(datum["d"]), datum["s"]) == (4, int, 2.0, float, "née")


def test_the_source_checks_exact_types_inline(record: aj.RecordNode) -> None:
    _, source = compile_fields(record)
    assert "type(v) is str and v.isascii()" in source
    assert "type(v) is int and -9223372036854775808 <= v <= 9223372036854775807" in source
    assert "type(v) is int and -2147483648 <= v <= 2147483647" in source
    assert "type(v) is float and isfinite(v)" in source
