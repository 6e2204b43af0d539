"""The nodes of a compiled JSON <-> Avro datum converter (streams/wire/avro_json.py compiles a schema into them):
one per Avro type but records, which avro_json.py keeps with the compiler and whose docstring states the contract
(absent and null, integers and floats, free-form JSON, unknown keys) these nodes keep.

A ConversionError names the path of the value it refuses (`payload.items[2].id`). Building every value's path up
front cost a tenth of a valid packet's conversion, so a container converts its children with path None (no path
tracked) and, only when one fails, converts them again naming each child's path, which then raises the same error
with its path; a container called with None passes the error up to the nearest one that has a path. A conversion
has no side effect, so the second pass fails where the first did, and it costs twice only on refused input.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from omega.canonical import canonical_json

JSON_LOGICAL_TYPE = "omega.json"
EXTRAS = "extras"


class ConversionError(ValueError):
    """A JSON value that the Avro contract cannot carry; `error_class` and `path` say which and where."""

    def __init__(self, error_class: str, path: str | None, message: str) -> None:
        super().__init__(f"{path or '<root>'}: {message}")
        self.error_class = error_class
        self.path = path or ""


def type_name(value: object) -> str:
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

    def branch_name(self) -> str | None:
        """The full name a datum of this node is named by as a union branch (a record's), else None."""
        return None


class PlainNode(Node):
    """A node whose Avro datum is its JSON value as it is: `from_avro` gives every datum back unchanged."""

    def from_avro(self, datum: object) -> object:
        return datum


class StringNode(PlainNode):
    def accepts(self, value: object) -> bool:
        return isinstance(value, str)

    def to_avro(self, value: object, path: str | None) -> object:
        if not isinstance(value, str):
            raise ConversionError("WRONG_TYPE", path, f"expected string, got {type_name(value)}")
        return value if value.isascii() else _check_text(value, path)  # ASCII: no surrogate to look for


class BooleanNode(PlainNode):
    def accepts(self, value: object) -> bool:
        return isinstance(value, bool)

    def to_avro(self, value: object, path: str | None) -> object:
        if not isinstance(value, bool):
            raise ConversionError("WRONG_TYPE", path, f"expected boolean, got {type_name(value)}")
        return value


@dataclass(frozen=True)
class IntegerNode(PlainNode):
    """Avro int or long. An integral float (3.0) is an integer in JSON Schema, so it is accepted."""

    low: int
    high: int

    def accepts(self, value: object) -> bool:
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())

    def to_avro(self, value: object, path: str | None) -> object:
        if not self.accepts(value):
            raise ConversionError("WRONG_TYPE", path, f"expected integer, got {type_name(value)}")
        number = int(value)  # type: ignore[call-overload]
        if not self.low <= number <= self.high:
            raise ConversionError("OUT_OF_RANGE", path, "integer does not fit in 64 bits")
        return number


class DoubleNode(PlainNode):
    def accepts(self, value: object) -> bool:
        return isinstance(value, float | int) and not isinstance(value, bool)

    def to_avro(self, value: object, path: str | None) -> object:
        if not self.accepts(value):
            raise ConversionError("WRONG_TYPE", path, f"expected number, got {type_name(value)}")
        number = float(value)  # type: ignore[arg-type]
        if not math.isfinite(number):
            raise ConversionError("WRONG_TYPE", path, "number is not finite")
        return number


class BytesNode(PlainNode):
    def accepts(self, value: object) -> bool:
        return isinstance(value, bytes)

    def to_avro(self, value: object, path: str | None) -> object:
        if not isinstance(value, bytes):
            raise ConversionError("WRONG_TYPE", path, f"expected bytes, got {type_name(value)}")
        return value


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
class EnumNode(PlainNode):
    name: str
    symbols: frozenset[str]

    def accepts(self, value: object) -> bool:
        return isinstance(value, str)

    def to_avro(self, value: object, path: str | None) -> object:
        if not isinstance(value, str):
            raise ConversionError("WRONG_TYPE", path, f"expected string, got {type_name(value)}")
        if value not in self.symbols:
            raise ConversionError(f"UNKNOWN_{_snake(self.name)}", path, f"unknown {self.name} {value!r}")
        return value


@dataclass(frozen=True)
class ArrayNode(Node):
    items: Node

    def accepts(self, value: object) -> bool:
        return isinstance(value, list)

    def to_avro(self, value: object, path: str | None) -> object:
        if not isinstance(value, list):
            raise ConversionError("WRONG_TYPE", path, f"expected array, got {type_name(value)}")
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
            raise ConversionError("WRONG_TYPE", path, f"expected object, got {type_name(value)}")
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
class ChoiceNode(PlainNode):
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
            raise ConversionError("WRONG_TYPE", path, f"{type_name(value)} fits none of the allowed types")
        return branch.to_avro(value, path)

    def _pick(self, value: object) -> Node | None:
        # JSON text keeps 1.0 and 1 apart: a float takes a double branch, an int a long one, when there is one.
        exact = DoubleNode if isinstance(value, float) else IntegerNode if type_name(value) == "integer" else None
        preferred = [b for b in self.branches if exact is not None and isinstance(b, exact)]
        return next((branch for branch in (*preferred, *self.branches) if branch.accepts(value)), None)


@dataclass(frozen=True)
class OptionalNode(Node):
    """`["null", T]`: absent is null. An explicit JSON null only fits where T is free-form JSON."""

    inner: Node
    _null_ok: bool = field(init=False, repr=False, compare=False)
    _branch: str | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_null_ok", isinstance(self.inner, JsonNode))  # asked once, not per call
        object.__setattr__(self, "_branch", self.inner.branch_name())

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


JSON_NODE = JsonNode()
ABSENT = object()
def is_plain(node: Node) -> bool:
    """Whether `node.from_avro` gives every datum back unchanged (a primitive, or an optional one: a None datum is
    never passed, and only a record branch is ever named by a tuple)."""
    if isinstance(node, OptionalNode):
        return isinstance(node.inner, PlainNode)
    return isinstance(node, PlainNode)


def _snake(name: str) -> str:
    short = name.rsplit(".", 1)[-1]
    return "".join(f"_{c}" if c.isupper() and i else c for i, c in enumerate(short)).upper()
