"""Lossless JSON <-> Avro datum conversion, driven by a parsed Avro schema and compiled once.

Why by hand: producers emit OMEN packets as JSON dicts; Avro alone would lose the difference between an
absent key and an explicit null, the int/float distinction in `number` fields, free-form objects and
unknown keys. The contract (`schemas_avro/`) keeps all four: every optional field is `["null", T]`
(absent == null), free-form values are strings with logicalType `omega.json` (explicit null is the text
`null`), numbers are `long | double`, and unknown keys go to a record's `extras` map.

A ConversionError names the path of the value it refuses (`payload.items[2].id`). Building every value's path up
front cost a tenth of a valid packet's conversion, so a container converts its children with path None (no path
tracked) and, only when one fails, converts them again naming each child's path, which then raises the same error
with its path; a container called with None passes the error up to the nearest one that has a path. A conversion
has no side effect, so the second pass fails where the first did, and it costs twice only on refused input.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from omega.canonical import canonical_json

JSON_LOGICAL_TYPE = "omega.json"
EXTRAS = "extras"
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


class ConversionError(ValueError):
    """A JSON value that the Avro contract cannot carry; `error_class` and `path` say which and where."""

    def __init__(self, error_class: str, path: str | None, message: str) -> None:
        super().__init__(f"{path or '<root>'}: {message}")
        self.error_class = error_class
        self.path = path or ""


def _type_name(value: object) -> str:
    names = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _check_text(value: str, path: str | None) -> str:
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ConversionError("INVALID_UNICODE", path, "string holds a lone surrogate") from exc
    return value


class Node:
    """One compiled schema node: converts a JSON value to its Avro datum and back."""

    def accepts(self, value: object) -> bool:
        """Whether `value` has a JSON type this node can carry (used to pick a union branch)."""
        raise NotImplementedError

    def to_avro(self, value: object, path: str | None) -> object:
        """JSON value -> Avro datum; raises ConversionError."""
        raise NotImplementedError

    def from_avro(self, datum: object) -> object:
        """Avro datum -> JSON value."""
        raise NotImplementedError


class StringNode(Node):
    def accepts(self, value: object) -> bool:
        return isinstance(value, str)

    def to_avro(self, value: object, path: str | None) -> object:
        if not isinstance(value, str):
            raise ConversionError("WRONG_TYPE", path, f"expected string, got {_type_name(value)}")
        return value if value.isascii() else _check_text(value, path)  # ASCII: no surrogate to look for

    def from_avro(self, datum: object) -> object:
        return datum


class BooleanNode(Node):
    def accepts(self, value: object) -> bool:
        return isinstance(value, bool)

    def to_avro(self, value: object, path: str | None) -> object:
        if not isinstance(value, bool):
            raise ConversionError("WRONG_TYPE", path, f"expected boolean, got {_type_name(value)}")
        return value

    def from_avro(self, datum: object) -> object:
        return datum


@dataclass(frozen=True)
class IntegerNode(Node):
    """Avro int or long. An integral float (3.0) is an integer in JSON Schema, so it is accepted."""

    low: int
    high: int

    def accepts(self, value: object) -> bool:
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())

    def to_avro(self, value: object, path: str | None) -> object:
        if not self.accepts(value):
            raise ConversionError("WRONG_TYPE", path, f"expected integer, got {_type_name(value)}")
        number = int(value)  # type: ignore[call-overload]
        if not self.low <= number <= self.high:
            raise ConversionError("OUT_OF_RANGE", path, "integer does not fit in 64 bits")
        return number

    def from_avro(self, datum: object) -> object:
        return datum


class DoubleNode(Node):
    def accepts(self, value: object) -> bool:
        return isinstance(value, float | int) and not isinstance(value, bool)

    def to_avro(self, value: object, path: str | None) -> object:
        if not self.accepts(value):
            raise ConversionError("WRONG_TYPE", path, f"expected number, got {_type_name(value)}")
        number = float(value)  # type: ignore[arg-type]
        if not math.isfinite(number):
            raise ConversionError("WRONG_TYPE", path, "number is not finite")
        return number

    def from_avro(self, datum: object) -> object:
        return datum


class BytesNode(Node):
    def accepts(self, value: object) -> bool:
        return isinstance(value, bytes)

    def to_avro(self, value: object, path: str | None) -> object:
        if not isinstance(value, bytes):
            raise ConversionError("WRONG_TYPE", path, f"expected bytes, got {_type_name(value)}")
        return value

    def from_avro(self, datum: object) -> object:
        return datum


class JsonNode(Node):
    """Any JSON value, carried as canonical JSON text; explicit null is the text `null`."""

    def accepts(self, value: object) -> bool:
        return True

    def to_avro(self, value: object, path: str | None) -> object:
        try:
            return _check_text(canonical_json(value), path)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, ConversionError):
                raise
            raise ConversionError("WRONG_TYPE", path, f"not a JSON value: {exc}") from exc

    def from_avro(self, datum: object) -> object:
        return json.loads(datum)  # type: ignore[arg-type]


@dataclass(frozen=True)
class EnumNode(Node):
    name: str
    symbols: frozenset[str]

    def accepts(self, value: object) -> bool:
        return isinstance(value, str)

    def to_avro(self, value: object, path: str | None) -> object:
        if not isinstance(value, str):
            raise ConversionError("WRONG_TYPE", path, f"expected string, got {_type_name(value)}")
        if value not in self.symbols:
            raise ConversionError(f"UNKNOWN_{_snake(self.name)}", path, f"unknown {self.name} {value!r}")
        return value

    def from_avro(self, datum: object) -> object:
        return datum


@dataclass(frozen=True)
class ArrayNode(Node):
    items: Node

    def accepts(self, value: object) -> bool:
        return isinstance(value, list)

    def to_avro(self, value: object, path: str | None) -> object:
        if not isinstance(value, list):
            raise ConversionError("WRONG_TYPE", path, f"expected array, got {_type_name(value)}")
        items = self.items.to_avro
        try:
            return [items(item, None) for item in value]
        except ConversionError:
            if path is None:
                raise
        # Again, naming each item's path for the error's (module docstring: paths are named on error only).
        return [items(item, f"{path}[{i}]") for i, item in enumerate(value)]

    def from_avro(self, datum: object) -> object:
        return [self.items.from_avro(item) for item in datum]  # type: ignore[attr-defined]


@dataclass(frozen=True)
class MapNode(Node):
    values: Node

    def accepts(self, value: object) -> bool:
        return isinstance(value, dict)

    def to_avro(self, value: object, path: str | None) -> object:
        if not isinstance(value, dict):
            raise ConversionError("WRONG_TYPE", path, f"expected object, got {_type_name(value)}")
        values = self.values.to_avro
        try:
            return {_check_text(k, path): values(v, None) for k, v in value.items()}
        except ConversionError:
            if path is None:
                raise
        return {_check_text(k, path): values(v, f"{path}.{k}") for k, v in value.items()}  # again, for the path

    def from_avro(self, datum: object) -> object:
        return {k: self.values.from_avro(v) for k, v in datum.items()}  # type: ignore[attr-defined]


@dataclass(frozen=True)
class ChoiceNode(Node):
    """A union without null: the first branch whose JSON type fits takes the value."""

    branches: tuple[Node, ...]
    _by_type: dict[type, Node] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Every branch accepts by JSON type alone but an integer branch offered a float (3.0 fits, 3.5 does not):
        # the branch of each type is picked once, a float's only when a double branch takes every float.
        samples: list[object] = [None, True, 1, "", [], {}, b""]
        if any(isinstance(b, DoubleNode) for b in self.branches):
            samples.append(0.5)
        by_type = {type(s): branch for s in samples if (branch := self._pick(s)) is not None}
        object.__setattr__(self, "_by_type", by_type)

    def accepts(self, value: object) -> bool:
        return any(b.accepts(value) for b in self.branches)

    def to_avro(self, value: object, path: str | None) -> object:
        branch = self._by_type.get(type(value)) or self._pick(value)
        if branch is None:
            raise ConversionError("WRONG_TYPE", path, f"{_type_name(value)} fits none of the allowed types")
        return branch.to_avro(value, path)

    def _pick(self, value: object) -> Node | None:
        # JSON text keeps 1.0 and 1 apart: a float takes a double branch, an int a long one, when there is one.
        exact = DoubleNode if isinstance(value, float) else IntegerNode if _type_name(value) == "integer" else None
        preferred = [b for b in self.branches if exact is not None and isinstance(b, exact)]
        return next((branch for branch in (*preferred, *self.branches) if branch.accepts(value)), None)

    def from_avro(self, datum: object) -> object:
        return datum


@dataclass(frozen=True)
class OptionalNode(Node):
    """`["null", T]`: absent is null. An explicit JSON null only fits where T is free-form JSON."""

    inner: Node
    _null_ok: bool = field(init=False, repr=False, compare=False)
    _branch: str | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_null_ok", isinstance(self.inner, JsonNode))  # asked once, not per call
        object.__setattr__(self, "_branch", self.inner.name if isinstance(self.inner, RecordNode) else None)

    def accepts(self, value: object) -> bool:
        return self.inner.accepts(value)

    def to_avro(self, value: object, path: str | None) -> object:
        if value is None and not self._null_ok:
            raise ConversionError("WRONG_TYPE", path, "null is not allowed here")
        datum = self.inner.to_avro(value, path)
        if self._branch is not None:
            # Naming the branch spares fastavro from validating the record against it at every level.
            return (self._branch, datum)
        return datum

    def from_avro(self, datum: object) -> object:
        if isinstance(datum, tuple):  # a datum straight from to_avro, branch still named
            datum = datum[1]
        return None if datum is None else self.inner.from_avro(datum)


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
            raise ConversionError("WRONG_TYPE", path, f"expected object, got {_type_name(value)}")
        try:
            datum = (self._unrolled or self.unrolled)(value)  # the field loop, generated (avro_compiled.py)
        except ConversionError:
            if path is None:
                raise
            datum = self._fields_to_avro(value, f"{path}." if path else "")  # again, naming each field's path
        known = self._names or self.field_names
        if known.issuperset(value):  # the usual packet: no key outside the contract
            if self.keeps_extras:
                datum[EXTRAS] = None
            return datum
        prefix = None if path is None else f"{path}." if path else ""
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
            from streams.wire.avro_compiled import compile_fields  # here: that module builds on this one

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
            self._readers = [(name, node, _plain(node)) for name, node, *_ in self.fields]
        return self._readers

    @property
    def field_names(self) -> frozenset[str]:
        """The keys the contract names (a key `extras` in the JSON is itself an unknown key)."""
        if self._names is None:
            self._names = frozenset(name for name, *_ in self.fields)
        return self._names


JSON_NODE = JsonNode()
ABSENT = object()
_PLAIN = (StringNode, BooleanNode, IntegerNode, DoubleNode, BytesNode, EnumNode, ChoiceNode)


def _plain(node: Node) -> bool:
    """Whether `node.from_avro` gives every datum back unchanged (a primitive, or an optional one: a None datum is
    never passed, and only a record branch is ever named by a tuple)."""
    if isinstance(node, OptionalNode):
        return isinstance(node.inner, _PLAIN)
    return isinstance(node, _PLAIN)


def _snake(name: str) -> str:
    short = name.rsplit(".", 1)[-1]
    return "".join(f"_{c}" if c.isupper() and i else c for i, c in enumerate(short)).upper()


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
