"""Structural check of OMEN v0.7 packets: the first stage of validation (schema index, "Schema
Validation Order", step 1).

`check_schema(packet)` walks the field-spec tables of `omega.packets.schema_rules` with one small
interpreter and reports every structural violation (rule `SCHEMA`, severity ERROR), in a deterministic
order: a record's declared fields in table order (depth first), then its undeclared keys sorted.

Fast path: the same tables are also compiled, once at import, into one straight-line predicate per
packet type (`omega.packets.schema_compile`; `source_for(packet_type)` shows the code). When
the predicate holds, the packet is valid and `check_schema` answers `[]` without interpreting; otherwise
the interpreter (`interpret_schema`) runs and owns every message and their order. The predicate is sound
for any value and exact on decoded JSON, so the answer is the interpreter's either way.

Agreement with the published JSON Schemas is the contract: for the seven published packet types,
`check_schema(p) == []` exactly when `jsonschema.Draft202012Validator(<schema of p's type>).is_valid(p)`.
That means jsonschema's semantics, quirks included:

* `format: date-time` is an annotation only (the draft 2020-12 default), so `created_at`, evidence
  `timestamp` and token `expiry` are only required to be strings;
* a bool is neither an integer nor a number; an integer is a number; a float with an integral value
  (`3.0`) is an integer;
* patterns are applied with `re.search`, so `$` also matches before one trailing newline;
* `minLength` counts code points; `minimum`/`maximum` compare with `<`/`>` (a NaN passes).

The header's `packet_type` selects the payload rules; a missing or unknown type is reported on
`header.packet_type` and then only PacketBase is checked (the payload must be an object).
VerificationPlanPacket, IntegrityAlertPacket and QueueUpdatePacket follow docs/omen-extra-packets.md.

Not here: the *context-dependent* requirements of the schema index (`authorization_token_id` when
`tool_safety_class` is WRITE/MIXED, `error_details` when FAILURE, `contradiction_details` when
`contradiction_resolved`, `evidence_absent_reason` when `evidence_refs` is empty, `tool_id` when
`method = tool`, `code_ref` when `method = code`). The JSON Schemas do not encode them, so they live
with the invariant stage, which reports them under their own rule ids.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType

from omega.packets.schema_compile import CompiledRules, compile_rules
from omega.packets.schema_rules import (
    FREE_OBJECT,
    HEADER,
    MCP,
    PACKET_TYPES,
    PAYLOADS,
    AnyValue,
    Arr,
    Bool,
    Int,
    Node,
    Num,
    Obj,
    OneOf,
    Str,
    req,
)
from omega.violations import Severity, Violation

__all__ = ["COMPILED", "PACKET_RULES", "PACKET_TYPES", "RULE", "check_schema", "interpret_schema", "source_for"]

RULE = "SCHEMA"
_SHOWN_MAX = 48

_Real = int | float | Decimal | Fraction


def _packet_rules(payload: Obj) -> Obj:
    """PacketBase around one payload: header + mcp + payload, closed but for `_`-prefixed metadata."""
    fields = {"header": req(HEADER), "mcp": req(MCP), "payload": req(payload)}
    return Obj(MappingProxyType(fields), closed=True, meta_prefix="_")


PACKET_RULES: Mapping[str, Obj] = MappingProxyType({name: _packet_rules(p) for name, p in PAYLOADS.items()})
"""The whole-packet rules of each packet type."""

UNTYPED_PACKET_RULES = _packet_rules(FREE_OBJECT)
"""Rules for a packet whose type is missing or unknown: PacketBase only (the payload is any object)."""


COMPILED: CompiledRules = compile_rules(PACKET_RULES)
"""One generated predicate per packet type: True only when `interpret_schema` would report nothing."""

_is_valid = COMPILED.is_valid


def source_for(packet_type: str) -> str:
    """The generated source that `check_schema` runs for `packet_type` (KeyError for an unknown type)."""
    return COMPILED.source_for(packet_type)


def check_schema(packet: object) -> list[Violation]:
    """Every structural violation of `packet` (a decoded JSON value), in a deterministic order."""
    if _is_valid(packet):  # the common case: a valid packet, decided by the compiled predicate
        return []
    return interpret_schema(packet)


def interpret_schema(packet: object) -> list[Violation]:
    """`check_schema` without the compiled fast path: the interpreter over the rule tables."""
    out: list[Violation] = []
    if not isinstance(packet, dict):
        out.append(_violation(None, f"a packet must be a JSON object, got {_json_type(packet)}"))
        return out
    header = packet.get("header")
    packet_type = header.get("packet_type") if isinstance(header, dict) else None
    rules = PACKET_RULES.get(packet_type, UNTYPED_PACKET_RULES) if isinstance(packet_type, str) else None
    _check(UNTYPED_PACKET_RULES if rules is None else rules, packet, "", out)
    return out


# --------------------------------------------------------------------------- the interpreter
def _check(node: Node, value: object, path: str, out: list[Violation]) -> None:
    """Append the violations of `value` against `node`; `path` is the dotted path of `value`."""
    kind = type(node)
    # Fast paths for the common case (the right plain JSON type): most of a packet is strings and objects.
    if kind is Str and type(value) is str:
        node_str: Str = node  # type: ignore[assignment]
        if node_str.min_length or node_str.enum or node_str.pattern is not None:
            _check_str(node_str, value, path, out)
        return
    if kind is Obj and type(value) is dict:
        _check_obj(node, value, path, out)  # type: ignore[arg-type]
        return
    if not _type_ok(node, value):
        out.append(_violation(path, f"{_label(path)} must be {_expected(node)}, got {_json_type(value)}"))
        return
    if isinstance(node, Str):
        _check_str(node, value, path, out)
    elif isinstance(node, Int | Num):
        _check_range(node, value, path, out)
    elif isinstance(node, Arr):
        _check_arr(node, value, path, out)
    elif isinstance(node, Obj):
        _check_obj(node, value, path, out)
    elif isinstance(node, OneOf):
        _check_one_of(node, value, path, out)


def _check_str(node: Str, value: object, path: str, out: list[Violation]) -> None:
    if not isinstance(value, str):  # null admitted by a nullable string
        return
    if (len(value) >= node.min_length and (not node.enum or value in node.enum)
            and (node.pattern is None or re.search(node.pattern, value) is not None)):
        return
    label = _label(path)
    if len(value) < node.min_length:
        need = "must not be empty" if node.min_length == 1 else f"needs at least {node.min_length} characters"
        out.append(_violation(path, f"{label} {need}"))
    if node.enum and value not in node.enum:
        out.append(_violation(path, f"{label} {_shown(value)} is not one of: {', '.join(node.enum)}"))
    if node.pattern is not None and re.search(node.pattern, value) is None:
        out.append(_violation(path, f"{label} {_shown(value)} does not match the pattern {node.pattern}"))


def _check_range(node: Int | Num, value: object, path: str, out: list[Violation]) -> None:
    if not isinstance(value, _Real):
        return
    if node.minimum is not None and value < node.minimum:
        out.append(_violation(path, f"{_label(path)} {value!r} is below the minimum {node.minimum!r}"))
    if node.maximum is not None and value > node.maximum:
        out.append(_violation(path, f"{_label(path)} {value!r} is above the maximum {node.maximum!r}"))


def _check_arr(node: Arr, value: object, path: str, out: list[Violation]) -> None:
    assert isinstance(value, list)
    label, size = _label(path), len(value)
    if size < node.min_items:
        out.append(_violation(path, f"{label} needs at least {_count(node.min_items, 'item')}, has {size}"))
    if node.max_items is not None and size > node.max_items:
        out.append(_violation(path, f"{label} allows at most {_count(node.max_items, 'item')}, has {size}"))
    for index, item in enumerate(value):
        _check(node.items, item, f"{path}[{index}]", out)


def _check_obj(node: Obj, value: object, path: str, out: list[Violation]) -> None:
    assert isinstance(value, dict)
    prefix = f"{path}." if path else ""
    for name, spec in node.fields.items():
        if name in value:
            _check(spec.node, value[name], prefix + name, out)
        elif spec.required:
            out.append(_violation(prefix + name, f"required field {prefix + name} is missing"))
    if node.closed and not value.keys() <= node.fields.keys():
        for key in sorted((k for k in value if not _declared(node, k)), key=str):
            child = _join(path, str(key))
            out.append(_violation(child, f"{child} is not an allowed field of {_label(path)}"))
    if len(value) < node.min_properties:
        need = _count(node.min_properties, "field")
        out.append(_violation(path, f"{_label(path)} needs at least {need}, has {len(value)}"))


def _check_one_of(node: OneOf, value: object, path: str, out: list[Violation]) -> None:
    results: list[list[Violation]] = []
    for option in node.options:
        found: list[Violation] = []
        _check(option, value, path, found)
        results.append(found)
    passing = sum(1 for found in results if not found)
    if passing == 1:
        return
    if passing > 1:
        out.append(_violation(path, f"{_label(path)} matches more than one of: {node.expected}"))
        return
    typed = [found for option, found in zip(node.options, results, strict=True) if _type_ok(option, value)]
    if len(typed) == 1:  # one alternative has the right type: its complaint is the readable one
        out.extend(typed[0])
    else:
        out.append(_violation(path, f"{_label(path)} must be {node.expected}, got {_shown(value)}"))


def _declared(node: Obj, key: object) -> bool:
    if key in node.fields:
        return True
    return node.meta_prefix is not None and isinstance(key, str) and key.startswith(node.meta_prefix)


# ------------------------------------------------------------------ JSON types, as jsonschema has them
def _is_integer(value: object) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: object) -> bool:
    return isinstance(value, _Real) and not isinstance(value, bool)


def _type_ok(node: Node, value: object) -> bool:
    """Whether `value` has a JSON type `node` admits (for a OneOf: any alternative's type)."""
    if isinstance(node, Str):
        return isinstance(value, str) or (node.nullable and value is None)
    if isinstance(node, Int):
        return _is_integer(value)
    if isinstance(node, Num):
        return _is_number(value)
    if isinstance(node, Bool):
        return isinstance(value, bool)
    if isinstance(node, Arr):
        return isinstance(value, list)
    if isinstance(node, Obj):
        return isinstance(value, dict)
    if isinstance(node, OneOf):
        return any(_type_ok(option, value) for option in node.options)
    assert isinstance(node, AnyValue)
    return True


def _expected(node: Node) -> str:
    if isinstance(node, Str):
        return "a string or null" if node.nullable else "a string"
    if isinstance(node, OneOf):
        return node.expected
    names: Mapping[type, str] = {Int: "an integer", Num: "a number", Bool: "a boolean", Arr: "an array"}
    return names.get(type(node), "an object")


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if _is_integer(value):
        return "an integer"
    if _is_number(value):
        return "a number"
    names: Mapping[type, str] = {str: "a string", list: "an array", dict: "an object"}
    return names.get(type(value), f"a Python {type(value).__name__}")


# --------------------------------------------------------------------------- message helpers
def _violation(path: str | None, message: str) -> Violation:
    return Violation(rule=RULE, severity=Severity.ERROR, message=message, field=path or None)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _label(path: str) -> str:
    return path or "the packet"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN_MAX else f"{text[: _SHOWN_MAX - 3]}..."
