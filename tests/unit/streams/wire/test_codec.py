"""The single-object Avro codec: header bytes against the Avro spec, decode failures, evolution, lossless packets.

The CRC-64-AVRO fingerprint and the Parsing Canonical Form are re-implemented here from the Avro
specification ("Schema Fingerprints", "Parsing Canonical Form for Schemas"), independently of fastavro,
and pinned to the spec's own test vectors (share/test/data/schema-tests.txt of apache/avro).
"""

from __future__ import annotations

import copy
import io
import json
import struct
from pathlib import Path
from typing import Any

import fastavro
import pytest
from fastavro.schema import load_schema, to_parsing_canonical_form
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omega.canonical import canonical_json
from streams.wire.codec import (
    HEADER_SIZE,
    MARKER,
    DecodeError,
    SchemaRegistry,
    crc64_avro_fingerprint,
    default_schemas_dir,
)
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from tests.factories import packet as factory_packet
from tests.omen_strategies import object_paths, valid_packets, value_at

SCHEMAS = default_schemas_dir()
VIOLATION = "omega.events.Violation"
ALERT = "omega.events.Alert"

# --------------------------------------------------------------------------- CRC-64-AVRO, from the spec
EMPTY = 0xC15D213AA4D7A795


def _fp_table() -> list[int]:
    table = []
    for i in range(256):
        fp = i
        for _ in range(8):
            fp = (fp >> 1) ^ (EMPTY & -(fp & 1))
        table.append(fp)
    return table


FP_TABLE = _fp_table()


def spec_crc64(data: bytes) -> int:
    """The spec's reference `fingerprint64`: the unsigned 64-bit Rabin fingerprint of `data`."""
    fp = EMPTY
    for b in data:
        fp = (fp >> 8) ^ FP_TABLE[(fp ^ b) & 0xFF]
    return fp


# --------------------------------------------------------------- Parsing Canonical Form, from the spec
PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})


def _raw_schema(fullname: str) -> dict[str, Any]:
    """The .avsc text of one named type, as written (one named type per file, named after it)."""
    loaded: dict[str, Any] = json.loads((SCHEMAS / f"{fullname}.avsc").read_text(encoding="utf-8"))
    return loaded


def _fullname(name: str, namespace: str) -> str:
    return name if "." in name or not namespace else f"{namespace}.{name}"


def _text(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))  # [STRINGS] [WHITESPACE]


def spec_canonical_form(schema: Any, namespace: str = "", seen: set[str] | None = None) -> str:
    """[PRIMITIVES] [FULLNAMES] [STRIP] [ORDER] [STRINGS] [INTEGERS] [WHITESPACE]; a named type is
    written in full where it first occurs and by its full name afterwards. References to types of
    other files are resolved from schemas_avro/ (as fastavro's load_schema does)."""
    seen = set() if seen is None else seen
    if isinstance(schema, list):
        return "[" + ",".join(spec_canonical_form(branch, namespace, seen) for branch in schema) + "]"
    if isinstance(schema, str):
        if schema in PRIMITIVES:
            return _text(schema)
        full = _fullname(schema, namespace)
        return _text(full) if full in seen else spec_canonical_form(_raw_schema(full), namespace, seen)
    kind = schema["type"]
    if not isinstance(kind, str) or kind not in {"record", "error", "enum", "fixed", "array", "map"}:
        return spec_canonical_form(kind, namespace, seen)  # {"type": "int", "logicalType": ...} -> "int"
    if kind == "array":
        return '{"type":"array","items":' + spec_canonical_form(schema["items"], namespace, seen) + "}"
    if kind == "map":
        return '{"type":"map","values":' + spec_canonical_form(schema["values"], namespace, seen) + "}"
    full = _fullname(schema["name"], schema.get("namespace", namespace))
    seen.add(full)
    inner = full.rpartition(".")[0]
    parts = [f'"name":{_text(full)}', f'"type":{_text("record" if kind == "error" else kind)}']
    if kind in {"record", "error"}:
        fields = [f'{{"name":{_text(f["name"])},"type":{spec_canonical_form(f["type"], inner, seen)}}}'
                  for f in schema["fields"]]
        parts.append('"fields":[' + ",".join(fields) + "]")
    elif kind == "enum":
        parts.append(f'"symbols":{_text(schema["symbols"])}')
    else:
        parts.append(f'"size":{int(schema["size"])}')
    return "{" + ",".join(parts) + "}"


VIOLATION_CANONICAL_FORM = (
    '{"name":"omega.events.Violation","type":"record","fields":['
    '{"name":"rule","type":"string"},'
    '{"name":"severity","type":{"name":"omega.events.Severity","type":"enum","symbols":["ERROR","WARNING"]}},'
    '{"name":"message","type":"string"},'
    '{"name":"field","type":["null","string"]}]}'
)


# --------------------------------------------------------------------------- Avro binary, from the spec
def _zigzag_varint(n: int) -> bytes:
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while z > 0x7F:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def _avro_string(text: str) -> bytes:
    data = text.encode("utf-8")
    return _zigzag_varint(len(data)) + data


def _violation(**overrides: object) -> dict[str, object]:
    base: dict[str, object] = {"rule": "SCHEMA", "severity": "WARNING", "message": "champ manquant: é",
                               "field": "mcp.budgets"}
    return {**base, **overrides}


# ============================================================================ fingerprint and header
@pytest.mark.parametrize(
    ("canonical_form", "signed_fingerprint"),
    [
        ('"null"', 7195948357588979594),
        ('"int"', 8247732601305521295),
        ('"string"', -8142146995180207161),
        ('{"name":"foo","type":"record","fields":[]}', -4824392279771201922),
    ],
)
def test_independent_crc64_reproduces_the_avro_spec_test_vectors(canonical_form: str, signed_fingerprint: int) -> None:
    assert spec_crc64(canonical_form.encode("utf-8")) == signed_fingerprint % 2**64


def test_codec_fingerprint_of_int_equals_the_independent_crc64_little_endian() -> None:
    expected = struct.pack("<Q", spec_crc64(b'"int"'))
    assert expected == bytes.fromhex("8f5c393f1ad57572")  # 0x7275d51a3f395c8f, least significant byte first
    assert crc64_avro_fingerprint('"int"') == expected


def test_violation_canonical_form_follows_the_spec_rules(registry: SchemaRegistry) -> None:
    assert spec_canonical_form(_raw_schema(VIOLATION)) == VIOLATION_CANONICAL_FORM
    assert to_parsing_canonical_form(registry.get(VIOLATION).parsed) == VIOLATION_CANONICAL_FORM


def test_encode_writes_marker_then_spec_fingerprint_then_the_schemaless_body(registry: SchemaRegistry) -> None:
    datum = _violation()
    encoded = registry.encode(VIOLATION, datum)

    assert encoded[:2] == b"\xc3\x01"
    assert encoded[2:10] == struct.pack("<Q", spec_crc64(VIOLATION_CANONICAL_FORM.encode("utf-8")))
    assert HEADER_SIZE == 10
    body = io.BytesIO()
    fastavro.schemaless_writer(body, load_schema(str(SCHEMAS / f"{VIOLATION}.avsc")), datum)
    assert encoded[10:] == body.getvalue()
    # and the body is the spec's binary encoding: string, enum index, string, union branch 1 + string
    assert encoded[10:] == (_avro_string("SCHEMA") + _zigzag_varint(1) + _avro_string("champ manquant: é")
                            + _zigzag_varint(1) + _avro_string("mcp.budgets"))


def test_encode_of_a_null_union_writes_branch_zero_and_nothing_else(registry: SchemaRegistry) -> None:
    encoded = registry.encode(VIOLATION, _violation(severity="ERROR", field=None, message=""))
    assert encoded[10:] == _avro_string("SCHEMA") + _zigzag_varint(0) + _avro_string("") + _zigzag_varint(0)


def test_every_registered_fingerprint_is_the_spec_crc64_of_the_spec_canonical_form(registry: SchemaRegistry) -> None:
    for path in sorted(SCHEMAS.glob("*.avsc")):
        expected = struct.pack("<Q", spec_crc64(spec_canonical_form(_raw_schema(path.stem)).encode("utf-8")))
        assert registry.get(path.stem).fingerprint == expected, path.name


# ============================================================================ decode failures
def test_decode_round_trips_the_datum(registry: SchemaRegistry) -> None:
    datum = _violation()
    assert registry.decode(registry.encode(VIOLATION, datum)) == (VIOLATION, datum)


def test_unknown_fingerprint_is_a_decode_error_of_class_unknown_fingerprint(registry: SchemaRegistry) -> None:
    encoded = registry.encode(VIOLATION, _violation())
    forged = MARKER + struct.pack("<Q", spec_crc64(b'"int"')) + encoded[HEADER_SIZE:]
    with pytest.raises(DecodeError) as info:
        registry.decode(forged)
    assert info.value.error_class == "UNKNOWN_FINGERPRINT"
    assert forged[2:10].hex() in str(info.value)  # the message shows the fingerprint as on the wire


@pytest.mark.parametrize(
    "data",
    [
        b'{"rule": "SCHEMA"}',  # JSON on an Avro topic
        b"\xc3\x02" + b"\x00" * 20,  # wrong version byte
        b"\x01\xc3" + b"\x00" * 20,  # marker bytes swapped
        b"",
        b"\xc3\x01\x00\x00",  # marker, but shorter than a header
    ],
    ids=["json", "wrong-version", "swapped-marker", "empty", "short-header"],
)
def test_missing_marker_is_a_decode_error_of_class_not_single_object(registry: SchemaRegistry, data: bytes) -> None:
    with pytest.raises(DecodeError) as info:
        registry.decode(data)
    assert info.value.error_class == "NOT_SINGLE_OBJECT"


def test_a_body_without_its_header_is_not_single_object(registry: SchemaRegistry) -> None:
    encoded = registry.encode(VIOLATION, _violation())
    with pytest.raises(DecodeError) as info:
        registry.decode(encoded[HEADER_SIZE:])
    assert info.value.error_class == "NOT_SINGLE_OBJECT"


def test_every_truncation_of_the_body_is_a_decode_error_of_class_avro_decode(registry: SchemaRegistry) -> None:
    encoded = registry.encode(VIOLATION, _violation())
    for cut in range(HEADER_SIZE, len(encoded)):
        with pytest.raises(DecodeError) as info:
            registry.decode(encoded[:cut])
        assert info.value.error_class == "AVRO_DECODE", cut


def test_truncated_packet_is_a_decode_error(registry: SchemaRegistry, converter: PacketConverter) -> None:
    encoded = registry.encode(PACKET_SCHEMA, converter.to_avro(factory_packet(3, 7)))
    for cut in (HEADER_SIZE, HEADER_SIZE + 1, len(encoded) // 2, len(encoded) - 1):
        with pytest.raises(DecodeError) as info:
            registry.decode(encoded[:cut])
        assert info.value.error_class == "AVRO_DECODE", cut


@pytest.mark.parametrize("tail", [b"\x00", b"\x02\x02", b"garbage"])
def test_trailing_bytes_are_a_decode_error_of_class_avro_decode(registry: SchemaRegistry, tail: bytes) -> None:
    with pytest.raises(DecodeError) as info:
        registry.decode(registry.encode(VIOLATION, _violation()) + tail)
    assert info.value.error_class == "AVRO_DECODE"
    assert f"{len(tail)} trailing bytes" in str(info.value)


def test_decode_error_is_a_value_error() -> None:
    assert issubclass(DecodeError, ValueError)


# ============================================================================ schema evolution
READING_V1: dict[str, Any] = {
    "type": "record",
    "name": "Reading",
    "namespace": "test.evolution",
    "fields": [{"name": "reading_id", "type": "string"}, {"name": "value", "type": "double"},
               {"name": "tags", "type": {"type": "array", "items": "string"}}],
}
READING_V2: dict[str, Any] = {
    **READING_V1,
    "fields": [*READING_V1["fields"], {"name": "unit", "type": ["null", "string"], "default": None}],
}
READING = "test.evolution.Reading"


def _registry_of(current: dict[str, Any], *older: dict[str, Any]) -> SchemaRegistry:
    registry = SchemaRegistry()
    registry.register(current)
    for schema in older:
        registry.register(schema, current=False)
    return registry


def test_old_reader_reads_new_writer_and_drops_the_added_optional_field() -> None:
    writer = _registry_of(READING_V2)
    reader = _registry_of(READING_V1, READING_V2)
    data = writer.encode(READING, {"reading_id": "r1", "value": 2.5, "tags": ["a"], "unit": "kg"})

    assert reader.writer_of(data).fingerprint == writer.get(READING).fingerprint != reader.get(READING).fingerprint
    assert reader.decode(data) == (READING, {"reading_id": "r1", "value": 2.5, "tags": ["a"]})


def test_new_reader_reads_old_writer_and_fills_the_added_field_with_its_default() -> None:
    writer = _registry_of(READING_V1)
    reader = _registry_of(READING_V2, READING_V1)
    data = writer.encode(READING, {"reading_id": "r1", "value": 2.5, "tags": []})

    assert reader.decode(data) == (READING, {"reading_id": "r1", "value": 2.5, "tags": [], "unit": None})


def test_an_older_version_registered_not_current_is_read_but_never_written() -> None:
    registry = _registry_of(READING_V2, READING_V1)
    written = registry.encode(READING, {"reading_id": "r", "value": 1.0, "tags": [], "unit": None})
    v1 = SchemaRegistry().register(READING_V1)

    assert written[2:10] == registry.get(READING).fingerprint != v1.fingerprint
    assert registry.writer_of(MARKER + v1.fingerprint + b"\x00").name == READING


def test_a_reader_without_a_default_for_a_new_field_fails_with_schema_resolution() -> None:
    required = {**READING_V1, "fields": [*READING_V1["fields"], {"name": "unit", "type": "string"}]}
    writer = _registry_of(READING_V1)
    reader = _registry_of(required, READING_V1)
    with pytest.raises(DecodeError) as info:
        reader.decode(writer.encode(READING, {"reading_id": "r1", "value": 2.5, "tags": []}))
    assert info.value.error_class == "SCHEMA_RESOLUTION"


def _alert_v2() -> dict[str, Any]:
    schema = _raw_schema(ALERT)
    schema["fields"].append({"name": "runbook_url", "type": ["null", "string"], "default": None})
    return schema


ALERT_DATUM: dict[str, Any] = {
    "alert_id": "alr_1", "kind": "SAFE_MODE_ENTERED", "severity": "CRITICAL", "spec_severity": "CRITICAL",
    "subject_id": "corr_1",
    "message": "safe mode", "event_time": "2025-12-21T11:00:00Z", "source_event_id": "pkt_1",
    "details": '{"tools_state":"tools_down"}',
}


def test_real_alert_old_reader_reads_a_writer_with_an_added_optional_field() -> None:
    writer = SchemaRegistry.from_directory()
    writer.register(_alert_v2())
    reader = SchemaRegistry.from_directory()
    reader.register(_alert_v2(), current=False)

    data = writer.encode(ALERT, {**ALERT_DATUM, "runbook_url": "https://runbooks.example/safe-mode"})
    assert reader.decode(data) == (ALERT, ALERT_DATUM)


def test_real_alert_new_reader_reads_the_current_writer_with_the_default() -> None:
    writer = SchemaRegistry.from_directory()
    reader = SchemaRegistry.from_directory()
    reader.register(_alert_v2())

    assert reader.decode(writer.encode(ALERT, ALERT_DATUM)) == (ALERT, {**ALERT_DATUM, "runbook_url": None})


# ============================================================================ lossless OMEN packets
def _round_trip(registry: SchemaRegistry, converter: PacketConverter, packet: dict[str, Any]) -> dict[str, object]:
    encoded = registry.encode(PACKET_SCHEMA, converter.to_avro(packet))
    assert encoded[2:10] == registry.get(PACKET_SCHEMA).fingerprint
    name, datum = registry.decode(encoded)
    assert name == PACKET_SCHEMA
    return converter.from_avro(datum)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(packet=valid_packets())
def test_every_valid_packet_round_trips_to_an_equal_dict_and_identical_json(
    registry: SchemaRegistry, converter: PacketConverter, packet: dict[str, Any]
) -> None:
    original = copy.deepcopy(packet)
    back = _round_trip(registry, converter, packet)
    assert packet == original  # conversion does not mutate its input
    assert back == packet
    # == treats 1 and 1.0 alike; the canonical text does not
    assert canonical_json(back) == canonical_json(packet)
    assert json.dumps(back, sort_keys=True) == json.dumps(packet, sort_keys=True)


def test_integral_floats_stay_floats_and_ints_stay_ints(registry: SchemaRegistry, converter: PacketConverter) -> None:
    packet = factory_packet(1, 1)
    packet["mcp"]["epistemics"]["confidence"] = 1.0  # a JSON number that happens to be integral
    packet["mcp"]["evidence"]["evidence_refs"][0]["reliability_score"] = 1  # an integer in a number field
    packet["mcp"]["budgets"]["risk_budget"]["max_loss"] = 0.0
    back = _round_trip(registry, converter, packet)
    assert type(back["mcp"]["epistemics"]["confidence"]) is float  # type: ignore[index]
    assert type(back["mcp"]["evidence"]["evidence_refs"][0]["reliability_score"]) is int  # type: ignore[index]
    assert canonical_json(back) == canonical_json(packet)
    assert '"confidence":1.0' in canonical_json(back)


JSON_SCALARS = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8))
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
UNKNOWN_KEYS = st.sampled_from(["extras", "zz_unknown", "x-vendor", "ümlaut_key", "_private", ""]) | st.text(
    min_size=1, max_size=6).map(lambda s: f"zz_{s}")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(packet=valid_packets(), data=st.data())
def test_unknown_keys_at_any_level_survive_the_round_trip(
    registry: SchemaRegistry, converter: PacketConverter, packet: dict[str, Any], data: st.DataObject
) -> None:
    paths = object_paths(packet)
    for _ in range(data.draw(st.integers(1, 3), label="how many objects")):
        path = data.draw(st.sampled_from(paths), label="object")
        target = value_at(packet, path)
        key = data.draw(UNKNOWN_KEYS, label="key")
        if key not in target:
            target[key] = data.draw(JSON_VALUES, label="value")
    back = _round_trip(registry, converter, packet)
    assert back == packet
    assert canonical_json(back) == canonical_json(packet)


def test_unknown_keys_in_header_mcp_and_payload_come_back(registry: SchemaRegistry, converter: PacketConverter) -> None:
    packet = factory_packet(2, 3)
    packet["header"]["x_trace"] = {"span": [1, 2.5, None]}
    packet["mcp"]["routing"]["extras"] = "a key named like the Avro extras field"
    packet["payload"]["vendor_note"] = None
    packet["_validation_notes"] = ["kept"]
    packet["extras"] = 7
    back = _round_trip(registry, converter, packet)
    assert back == packet
    assert canonical_json(back) == canonical_json(packet)


# ============================================================================ the schema directory
def _declared_fullname(path: Path) -> str:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return _fullname(raw["name"], raw.get("namespace", ""))


def test_every_avsc_file_loads_into_the_registry_under_its_own_name(registry: SchemaRegistry) -> None:
    files = sorted(SCHEMAS.glob("*.avsc"))
    assert files
    assert sorted(registry.names()) == sorted(_declared_fullname(p) for p in files)
    assert all(_declared_fullname(p) == p.stem for p in files)


def test_fingerprints_are_unique_and_resolve_back_to_their_schema(registry: SchemaRegistry) -> None:
    names = sorted(registry.names())
    fingerprints = {registry.get(name).fingerprint: name for name in names}
    assert len(fingerprints) == len(names)
    for fingerprint, name in fingerprints.items():
        assert registry.writer_of(MARKER + fingerprint).name == name


def test_an_empty_schema_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        SchemaRegistry.from_directory(tmp_path)


# ============================================================================ many records at once
def _outcome(registry: SchemaRegistry, data: bytes) -> object:
    try:
        return registry.decode(data)
    except DecodeError as exc:
        return ("error", exc.error_class, str(exc))


def test_decode_batch_gives_what_decode_gives_record_by_record(registry: SchemaRegistry) -> None:
    good = registry.encode(VIOLATION, _violation())
    other = registry.encode(VIOLATION, _violation(field=None, message="x" * 300))
    forged = MARKER + struct.pack("<Q", spec_crc64(b'"int"')) + good[HEADER_SIZE:]
    values = [good, other, good[:-1], good + b"\x00", forged, b'{"rule": 1}', b"", b"\x00\x00\x00\x00\x07rest",
              b"\xc3\x01\x00", good[HEADER_SIZE:], bytes(bytearray(other)), good]
    answers = registry.decode_batch(values)
    assert len(answers) == len(values)
    for data, answer in zip(values, answers, strict=True):
        expected = _outcome(registry, data)
        got = answer if isinstance(answer, tuple) else ("error", answer.error_class, str(answer))
        assert got == expected, data
    assert answers[0] == answers[-1] == (VIOLATION, _violation())


def test_decode_batch_resolves_an_older_writer_as_decode_does() -> None:
    writer = _registry_of(READING_V1)
    reader = _registry_of(READING_V2, READING_V1)
    old = writer.encode(READING, {"reading_id": "r1", "value": 2.5, "tags": []})
    new = reader.encode(READING, {"reading_id": "r2", "value": 1.0, "tags": ["t"], "unit": "kg"})
    assert reader.decode_batch([old, new, old]) == [reader.decode(old), reader.decode(new), reader.decode(old)]
    assert reader.decode_batch([old])[0] == (READING, {"reading_id": "r1", "value": 2.5, "tags": [], "unit": None})
