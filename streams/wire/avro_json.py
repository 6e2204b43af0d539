"""Lossless JSON <-> Avro datum conversion, driven by a parsed Avro schema and compiled once: `compile_schema` and
the record node; the other nodes are in streams/wire/avro_nodes.py, a record's generated field loop in
streams/wire/avro_compiled.py (re-exported here, the module its users import).

Why by hand: producers emit OMEN packets as JSON dicts; Avro alone would lose the difference between an
absent key and an explicit null, the int/float distinction in `number` fields, free-form objects and
unknown keys. The contract (`schemas_avro/`) keeps all four: every optional field is `["null", T]`
(absent == null), free-form values are strings with logicalType `omega.json` (explicit null is the text
`null`), numbers are `long | double`, and unknown keys go to a record's `extras` map.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from streams.wire.avro_compiled import compile_fields
from streams.wire.avro_nodes import (
    ABSENT,
    EXTRAS,
    JSON_LOGICAL_TYPE,
    JSON_NODE,
    ArrayNode,
    BooleanNode,
    BytesNode,
    ChoiceNode,
    ConversionError,
    DoubleNode,
    EnumNode,
    IntegerNode,
    JsonNode,
    MapNode,
    Node,
    OptionalNode,
    StringNode,
    is_plain,
    type_name,
)

__all__ = ["ABSENT", "EXTRAS", "JSON_NODE", "ArrayNode", "BooleanNode", "BytesNode", "ChoiceNode", "ConversionError",
           "DoubleNode", "EnumNode", "IntegerNode", "JsonNode", "MapNode", "Node", "OptionalNode", "RecordNode",
           "StringNode", "compile_schema"]

_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


@dataclass
class RecordNode(Node):
    """A record: named fields, plus `extras` for keys the schema does not name (when it has that field)."""

    name: str
    fields: list[tuple[str, Node, bool, object]]  # (name, node, may be absent, datum when absent)
    keeps_extras: bool
    _names: frozenset[str] | None = None
    _readers: list[tuple[str, Node, bool]] | None = None
    _unrolled: Callable[[dict[str, Any]], dict[str, object]] | None = None

    def accepts(self, value: object) -> bool:
        return isinstance(value, dict)

    def to_avro(self, value: object, path: str | None) -> object:
        if not isinstance(value, dict):
            raise ConversionError("WRONG_TYPE", path, f"expected object, got {type_name(value)}")
        prefix = None if path is None else f"{path}." if path else ""
        try:
            datum = (self._unrolled or self.unrolled)(value)  # the field loop, generated (avro_compiled.py)
        except ConversionError:
            if prefix is None:
                raise
            datum = self._fields_to_avro(value, prefix)  # again, naming each field's path
        known = self._names or self.field_names
        if known.issuperset(value):  # the usual packet: no key outside the contract
            if self.keeps_extras:
                datum[EXTRAS] = None
            return datum
        unknown = {k: v for k, v in value.items() if k not in known}
        if self.keeps_extras:
            datum[EXTRAS] = {k: JSON_NODE.to_avro(v, None if prefix is None else prefix + k)
                             for k, v in unknown.items()} or None
        else:
            raise ConversionError("UNKNOWN_FIELD", None if prefix is None else prefix + min(unknown),
                                  "field is not in the contract")
        return datum

    def _fields_to_avro(self, value: dict[str, object], prefix: str) -> dict[str, object]:
        """The named fields' data, each converted under its path (`prefix` + name)."""
        datum: dict[str, object] = {}
        for name, node, optional, absent in self.fields:
            item = value.get(name, ABSENT)
            if item is not ABSENT:
                datum[name] = node.to_avro(item, prefix + name)
            elif optional:
                datum[name] = absent
            else:
                raise ConversionError("MISSING_FIELD", prefix + name, "required field is missing")
        return datum

    @property
    def unrolled(self) -> Callable[[dict[str, Any]], dict[str, object]]:
        """`_fields_to_avro` naming no path, generated for this record on first use (streams/wire/avro_compiled.py)."""
        if self._unrolled is None:
            self._unrolled = compile_fields(self)[0]
        return self._unrolled

    def from_avro(self, datum: object) -> object:
        src: Mapping[str, Any] = datum  # type: ignore[assignment]
        out: dict[str, object] = {}
        for name, node, plain in self.readers:
            item = src.get(name)
            if item is not None:
                out[name] = item if plain else node.from_avro(item)
        extras = src.get(EXTRAS) if self.keeps_extras else None
        if extras:
            out.update((k, json.loads(v)) for k, v in extras.items())
        return out

    @property
    def readers(self) -> list[tuple[str, Node, bool]]:
        """(name, node, whether the node gives its datum back as is) per field, for `from_avro`."""
        if self._readers is None:
            self._readers = [(name, node, is_plain(node)) for name, node, *_ in self.fields]
        return self._readers

    @property
    def field_names(self) -> frozenset[str]:
        """The keys the contract names (a key `extras` in the JSON is itself an unknown key)."""
        if self._names is None:
            self._names = frozenset(name for name, *_ in self.fields)
        return self._names

    def branch_name(self) -> str | None:
        return self.name


def compile_schema(schema: Mapping[str, Any] | str | list[Any]) -> Node:
    """Compile a fastavro-parsed schema (with `__named_schemas`) into a converter tree."""
    named: dict[str, Any] = dict(schema.get("__named_schemas", {})) if isinstance(schema, Mapping) else {}
    cache: dict[str, Node] = {}
    return _compile(schema, named, cache)


def _compile(schema: Any, named: dict[str, Any], cache: dict[str, Node]) -> Node:
    if isinstance(schema, list):
        branches = [b for b in schema if b != "null"]
        inner = _compile(branches[0], named, cache) if len(branches) == 1 else ChoiceNode(
            tuple(_compile(b, named, cache) for b in branches)
        )
        return OptionalNode(inner) if "null" in schema else inner
    if isinstance(schema, str):
        primitive = _PRIMITIVES.get(schema)
        if primitive is not None:
            return primitive()
        if schema in cache:
            return cache[schema]
        return _compile(named[schema], named, cache)
    kind = schema["type"]
    if schema.get("logicalType") == JSON_LOGICAL_TYPE:
        return JSON_NODE
    if kind == "record":
        node = RecordNode(schema["name"], [], keeps_extras=False)
        cache[schema["name"]] = node  # before the fields: records may refer to themselves
        for f in schema["fields"]:
            if f["name"] == EXTRAS:
                node.keeps_extras = True
                continue
            child = _compile(f["type"], named, cache)
            # An absent key takes the schema default (null for `["null", T]`), never a bare None.
            node.fields.append((f["name"], child, "default" in f or isinstance(child, OptionalNode), f.get("default")))
        return node
    if kind == "enum":
        return cache.setdefault(schema["name"], EnumNode(schema["name"], frozenset(schema["symbols"])))
    if kind == "array":
        return ArrayNode(_compile(schema["items"], named, cache))
    if kind == "map":
        return MapNode(_compile(schema["values"], named, cache))
    return _compile(kind, named, cache)


_PRIMITIVES: dict[str, Callable[[], Node]] = {
    "string": StringNode,
    "boolean": BooleanNode,
    "long": lambda: IntegerNode(_LONG_MIN, _LONG_MAX),
    "int": lambda: IntegerNode(_INT_MIN, _INT_MAX),
    "double": DoubleNode,
    "float": DoubleNode,
    "bytes": BytesNode,
}
