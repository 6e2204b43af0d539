"""The field-spec vocabulary the structural rules (`omega.packets.schema_rules`) are written in: one node type
per JSON Schema construct they use, and the helpers that build fields and records from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TypeAlias


@dataclass(frozen=True, slots=True)
class Str:
    """A JSON string; `nullable` also admits null (JSON Schema `type: ["string", "null"]`)."""

    enum: tuple[str, ...] = ()
    pattern: str | None = None
    min_length: int = 0
    nullable: bool = False


@dataclass(frozen=True, slots=True)
class Int:
    """A JSON integer (a bool is not one; a float with an integral value, e.g. 3.0, is)."""

    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True, slots=True)
class Num:
    """A JSON number: an integer or a float, never a bool."""

    minimum: float | None = None
    maximum: float | None = None


@dataclass(frozen=True, slots=True)
class Bool:
    """A JSON boolean."""


@dataclass(frozen=True, slots=True)
class AnyValue:
    """Any JSON value, null included (a schema with no `type`)."""


@dataclass(frozen=True, slots=True)
class Arr:
    """A JSON array whose every item follows `items`."""

    items: Node
    min_items: int = 0
    max_items: int | None = None


@dataclass(frozen=True, slots=True)
class Field:
    """One named member of a record."""

    node: Node
    required: bool


@dataclass(frozen=True, slots=True)
class Obj:
    """A JSON object: declared fields in order; `closed` forbids others except keys starting with
    `meta_prefix` (PacketBase's `patternProperties: {"^_": {}}`)."""

    fields: Mapping[str, Field] = field(default_factory=lambda: MappingProxyType({}))
    closed: bool = False
    min_properties: int = 0
    meta_prefix: str | None = None


@dataclass(frozen=True, slots=True)
class OneOf:
    """Exactly one alternative must hold (JSON Schema `oneOf`); `expected` says what in words."""

    options: tuple[Node, ...]
    expected: str


Node: TypeAlias = Str | Int | Num | Bool | AnyValue | Arr | Obj | OneOf


def req(node: Node) -> Field:
    """A required field."""
    return Field(node, required=True)


def opt(node: Node) -> Field:
    """An optional field."""
    return Field(node, required=False)


def record(**fields: Field) -> Obj:
    """A closed object (`additionalProperties: false`)."""
    return Obj(MappingProxyType(fields), closed=True)


def open_record(*, min_properties: int = 0, **fields: Field) -> Obj:
    """An open object: declared fields are checked, other keys are accepted."""
    return Obj(MappingProxyType(fields), closed=False, min_properties=min_properties)


def choice(values: str) -> Str:
    """A string enum, its members written space-separated."""
    return Str(enum=tuple(values.split()))


def ident(prefix: str) -> Str:
    """An OMEN identifier such as `pkt_0123`: the prefix, then one or more of `[a-zA-Z0-9_-]`."""
    return Str(pattern=f"^{prefix}[a-zA-Z0-9_-]+$")
