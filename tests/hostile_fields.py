"""Wrong-typed values for every field of an input: walked from the Avro schema for packets, from a valid example
for the other JSON inputs. Part of the hostile-input generator (`tests/hostile.py`)."""

from __future__ import annotations

import copy
from typing import Any

from streams.topics import (
    AGENT_MESSAGES_RAW,
    DOCUMENTS,
    GROUNDING_FACTS,
    GROUNDING_REQUESTS,
    ORACLE_REQUESTS,
    QUESTIONS,
    TopicSpec,
)
from streams.wire.codec import SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA
from tests.factories import packet as factory_packet

WRONG: dict[str, tuple[object, ...]] = {
    "null": (None,),
    "boolean": (None, 0, "true", [], {}),
    "int": (None, True, "1", 1.5, [], {}, 2**70),
    "long": (None, True, "1", 1.5, [], {}, 2**70),
    "float": (None, True, "1", [], {}),
    "double": (None, True, "1", [], {}),
    "string": (None, True, 0, 1.5, [], {}),
    "bytes": (None, True, 0, [], {}),
    "enum": (None, True, 0, [], {}, "NOT_A_SYMBOL"),
    "array": (None, True, 0, "x", {}),
    "map": (None, True, 0, "x", []),
    "record": (None, True, 0, "x", []),
}


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "record"


def set_path(obj: Any, path: tuple[str | int, ...], value: object) -> Any:
    out = copy.deepcopy(obj)
    target = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return out


def _avro_kind(schema: Any, named: dict[str, Any]) -> tuple[str, bool, Any]:
    """(kind, free-form JSON?, resolved schema) of a field type; unions other than ["null", T] are "union"."""
    if isinstance(schema, list):
        branches = [b for b in schema if b != "null"]
        return _avro_kind(branches[0], named) if len(branches) == 1 else ("union", False, schema)
    if isinstance(schema, str):
        return (schema, False, schema) if schema in WRONG else _avro_kind(named[schema], named)
    if schema.get("logicalType") == "omega.json":
        return "json", True, schema
    return schema["type"], False, schema


def packet_field_mutants(registry: SchemaRegistry) -> list[tuple[str, dict[str, Any]]]:
    """For every field of the header, the mcp and each payload a factory packet carries: the packet with a
    wrong-typed value there (free-form JSON fields and `extras` take any value and are skipped)."""
    parsed = registry.get(PACKET_SCHEMA).parsed
    named = parsed["__named_schemas"]
    out: list[tuple[str, dict[str, Any]]] = []

    def walk(example: dict[str, Any], record: Any, path: tuple[str | int, ...], base: dict[str, Any]) -> None:
        for field in record["fields"]:
            name = field["name"]
            if name == "extras":
                continue
            kind, free, resolved = _avro_kind(field["type"], named)
            if free:
                continue
            where = (*path, name)
            label = ".".join(map(str, where))
            wrong: tuple[object, ...] = WRONG.get(kind, (None, True, 0, "x", [], {}))
            if kind == "union":
                kinds = {_avro_kind(b, named)[0] for b in resolved if b != "null"}
                candidates: tuple[object, ...] = (None, True, "x", [], {}, 1.5)
                wrong = tuple(v for v in candidates if not any(_fits(v, k) for k in kinds))
            if kind in ("int", "long") and "double" in str(field["type"]):
                continue
            for value in wrong:
                out.append((f"wrong_type:{label}", set_path(base, where, value)))
            present = example.get(name) if isinstance(example, dict) else None
            if kind == "record" and isinstance(present, dict):
                walk(present, resolved, where, base)
            elif kind == "array" and isinstance(present, list) and present:
                items = _avro_kind(resolved["items"], named)
                if items[0] == "record" and isinstance(present[0], dict):
                    walk(present[0], items[2], (*where, 0), base)

    for packet_type in ("ObservationPacket", "BeliefUpdatePacket", "DecisionPacket"):
        base = factory_packet(1, 99999, packet_type)
        header, mcp = named["omega.omen.PacketHeader"], named["omega.omen.Mcp"]
        if packet_type == "ObservationPacket":
            walk(base["header"], header, ("header",), base)
            walk(base["mcp"], mcp, ("mcp",), base)
        stem = packet_type.removesuffix("Packet")
        walk(base["payload"], named[f"omega.omen.{stem}Payload"], ("payload",), base)
    return out


def _fits(value: object, kind: str) -> bool:
    if kind == "json":
        return True
    if kind in ("long", "int"):
        return isinstance(value, int) and not isinstance(value, bool)
    if kind in ("double", "float"):
        return isinstance(value, int | float) and not isinstance(value, bool)
    return {"string": str, "boolean": bool, "array": list, "record": dict, "map": dict, "enum": str,
            "null": type(None)}.get(kind, object) is type(value)


# Fields of the JSON inputs that take any JSON value by contract (free text, notes, arbitrary content): a
# different type there is not malformed.
FREE_FORM: dict[str, tuple[str, ...]] = {
    ORACLE_REQUESTS.logical: ("expected.notes",),
    AGENT_MESSAGES_RAW.logical: ("message.body",),
    GROUNDING_FACTS.logical: ("qualifiers",),  # §3.1 qualifiers: any JSON value, read as text
    GROUNDING_REQUESTS.logical: ("paragraph_spec",),
}
# Optional fields where an explicit null is the documented "absent" (a null there is not a wrong type).
NULL_IS_ABSENT: dict[str, tuple[str, ...]] = {
    ORACLE_REQUESTS.logical: ("expected", "expected.verdict", "expected.max_unsupported_claims", "expected.must_find",
                              "expected.must_not_find", "expected.contradiction_ids", "expected.expected_props"),
    DOCUMENTS.logical: ("version", "facts"),
    QUESTIONS.logical: ("id", "version", "plan"),
    GROUNDING_FACTS.logical: ("source_span.page", "source_span.start_char", "source_span.end_char",
                              "source_span.quote"),
    GROUNDING_REQUESTS.logical: ("expected_verified", "sentences.0.expected_supported"),  # labels, optional
}
# Fields of a union type: (path, JSON kinds it also takes).
ALSO_TAKES: dict[str, dict[str, tuple[str, ...]]] = {
    ORACLE_REQUESTS.logical: {"expected.max_unsupported_claims": ("long",)},  # a count, or "CONFIG:NAME"
}


def json_field_mutants(topic: TopicSpec, example: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The example with a wrong-typed value at every path (each leaf and container, first array item only)."""
    out: list[tuple[str, dict[str, Any]]] = []
    free = FREE_FORM.get(topic.logical, ())
    nullable = NULL_IS_ABSENT.get(topic.logical, ())
    also = ALSO_TAKES.get(topic.logical, {})

    def walk(value: Any, path: tuple[str | int, ...]) -> None:
        label = ".".join(map(str, path))
        if path and not any(label == f or label.startswith(f"{f}.") for f in free):
            kind = _json_kind(value)
            for wrong in WRONG[kind]:
                taken = (kind, *also.get(label, ()), *(("null",) if label in nullable else ()))
                if _json_kind(wrong) not in taken:
                    out.append((f"wrong_type:{label}", set_path(example, path, wrong)))
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, (*path, key))
        elif isinstance(value, list) and value:
            walk(value[0], (*path, 0))

    walk(example, ())
    return out
