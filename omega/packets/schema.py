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

The one deliberate departure, null on an optional field: JSON producers write `null` for "no value" (pydantic's
default dump, `"campaign_id": null`), where jsonschema would reject `null` against `type: string`. An explicit
`null` on a field the rules do not require, and whose type does not admit null, is read as absent: a WARNING
naming the field, never an ERROR, and the rest of validation sees the packet without it
(`read_nulls_as_absent`). `null` on a required field stays an ERROR. It rests on schema-index-v0.7.md, "Required vs
Optional Summary" ("All PacketHeader fields except campaign_id, previous_packet_id"; "Commonly Optional: ...
Optional metadata fields (reliability_score, execution_metadata, etc.)") and the "Optional Fields" lists of
§PacketHeader and the payloads: an optional field may be left out, and a null says it was left out. The raw
packet (its content hash, the verdict's identity) keeps the null; the WARNING says what was normalised. So
`check_schema(p)` has no ERROR exactly when jsonschema accepts `p` with those nulls removed.

Every message names the field path, what is accepted and what was found, in the words of
`omega.packets.schema_messages`.

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
from types import MappingProxyType

from omega.packets.schema_compile import CompiledRules, compile_rules
from omega.packets.schema_messages import (
    Real,
    admits,
    child_path,
    count_of,
    expected,
    found_text,
    json_type,
    path_label,
)
from omega.packets.schema_rules import FREE_OBJECT, HEADER, MCP, PACKET_TYPES, PAYLOADS
from omega.packets.schema_vocabulary import Arr, Int, Node, Num, Obj, OneOf, Str, req
from omega.violations import Severity, Violation

__all__ = ["COMPILED", "PACKET_RULES", "PACKET_TYPES", "RULE", "check_schema", "interpret_schema",
           "read_nulls_as_absent", "source_for"]

RULE = "SCHEMA"


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
    """Every structural violation of `packet` (a decoded JSON value), in a deterministic order: ERRORs, and a
    WARNING for each null read as absent."""
    if _is_valid(packet):  # the common case: a valid packet, decided by the compiled predicate
        return []
    return interpret_schema(packet)


def interpret_schema(packet: object) -> list[Violation]:
    """`check_schema` without the compiled fast path: the interpreter over the rule tables."""
    out: list[Violation] = []
    if not isinstance(packet, dict):
        out.append(_violation(None, f"a packet must be a JSON object, got {json_type(packet)}"))
        return out
    _check(_rules_of(packet), packet, "", out)
    return out


def read_nulls_as_absent(packet: object) -> object:
    """`packet` without the nulls `check_schema` reads as absent (a copy of what changes; `packet` itself when
    there are none): what FSM, invariants and ledger judge once the schema has warned about them."""
    if not isinstance(packet, dict):
        return packet
    return _without_nulls(_rules_of(packet), packet)


def _rules_of(packet: dict[object, object]) -> Obj:
    header = packet.get("header")
    packet_type = header.get("packet_type") if isinstance(header, dict) else None
    return PACKET_RULES.get(packet_type, UNTYPED_PACKET_RULES) if isinstance(packet_type, str) else \
        UNTYPED_PACKET_RULES


def _null_is_absent(spec_required: bool, node: Node, value: object) -> bool:
    """An explicit null on an optional field whose type does not admit null: read as absent."""
    return value is None and not spec_required and not admits(node, None)


_ABSENT = object()  # marks a field `_without_nulls` drops


def _without_nulls(node: Node, value: object) -> object:
    if isinstance(node, Obj) and type(value) is dict:
        out: dict[object, object] | None = None
        for name, spec in node.fields.items():
            if name not in value:
                continue
            item = value[name]
            new = _ABSENT if _null_is_absent(spec.required, spec.node, item) else _without_nulls(spec.node, item)
            if new is not item:
                out = dict(value) if out is None else out
                if new is _ABSENT:
                    del out[name]
                else:
                    out[name] = new
        return value if out is None else out
    if isinstance(node, Arr) and type(value) is list:
        items = [_without_nulls(node.items, item) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if isinstance(node, OneOf):
        typed = [option for option in node.options if admits(option, value)]
        return _without_nulls(typed[0], value) if len(typed) == 1 else value
    return value


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
    if not admits(node, value):
        out.append(_violation(path, f"{path_label(path)} must be {expected(node)}, got {found_text(value)}"))
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
    label, found = path_label(path), found_text(value)
    if len(value) < node.min_length:
        need = "must not be empty" if node.min_length == 1 else f"needs at least {node.min_length} characters"
        out.append(_violation(path, f"{label} {need}, got {found}"))
    if node.enum and value not in node.enum:
        out.append(_violation(path, f"{label} must be one of: {', '.join(node.enum)}; got {found}"))
    if node.pattern is not None and re.search(node.pattern, value) is None:
        out.append(_violation(path, f"{label} must match the pattern {node.pattern}, got {found}"))


def _check_range(node: Int | Num, value: object, path: str, out: list[Violation]) -> None:
    if not isinstance(value, Real):
        return
    if node.minimum is not None and value < node.minimum:
        out.append(_violation(path, f"{path_label(path)} must be at least {node.minimum!r}, got {found_text(value)}"))
    if node.maximum is not None and value > node.maximum:
        out.append(_violation(path, f"{path_label(path)} must be at most {node.maximum!r}, got {found_text(value)}"))


def _check_arr(node: Arr, value: object, path: str, out: list[Violation]) -> None:
    assert isinstance(value, list)
    label, size = path_label(path), len(value)
    if size < node.min_items:
        out.append(_violation(path, f"{label} needs at least {count_of(node.min_items, 'item')}, got {size}"))
    if node.max_items is not None and size > node.max_items:
        out.append(_violation(path, f"{label} allows at most {count_of(node.max_items, 'item')}, got {size}"))
    for index, item in enumerate(value):
        _check(node.items, item, f"{path}[{index}]", out)


def _check_obj(node: Obj, value: object, path: str, out: list[Violation]) -> None:
    assert isinstance(value, dict)
    prefix = f"{path}." if path else ""
    for name, spec in node.fields.items():
        if name in value:
            item = value[name]
            if _null_is_absent(spec.required, spec.node, item):
                out.append(_null_warning(prefix + name))
            else:
                _check(spec.node, item, prefix + name, out)
        elif spec.required:
            out.append(_violation(prefix + name, f"required field {prefix + name} is missing: expected "
                                                 f"{expected(spec.node)}"))
    if node.closed and not value.keys() <= node.fields.keys():
        allowed = ", ".join(node.fields)
        if node.meta_prefix is not None:
            allowed += f", or any key starting with {node.meta_prefix!r}"
        for key in sorted((k for k in value if not _declared(node, k)), key=str):
            child = child_path(path, str(key))
            out.append(_violation(child, f"{child} is not an allowed field of {path_label(path)}: "
                                         f"allowed are {allowed}"))
    if len(value) < node.min_properties:
        need = count_of(node.min_properties, "field")
        out.append(_violation(path, f"{path_label(path)} needs at least {need}, got {len(value)}"))


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
        out.append(_violation(path, f"{path_label(path)} matches more than one of: {node.expected}; "
                                    f"got {found_text(value)}"))
        return
    typed = [(option, found) for option, found in zip(node.options, results, strict=True) if admits(option, value)]
    if len(typed) == 1 and isinstance(typed[0][0], Obj | Arr):
        # a container of the right type: its own complaints (a field inside it) are the readable ones
        out.extend(typed[0][1])
    else:  # a scalar alternative's complaint would hide the others ('5' is not "Integrity", nor is it 1..6)
        out.append(_violation(path, f"{path_label(path)} must be {node.expected}, got {found_text(value)}"))


def _declared(node: Obj, key: object) -> bool:
    if key in node.fields:
        return True
    return node.meta_prefix is not None and isinstance(key, str) and key.startswith(node.meta_prefix)


# --------------------------------------------------------------------------- the violations
def _violation(path: str | None, message: str) -> Violation:
    return Violation(rule=RULE, severity=Severity.ERROR, message=message, field=path or None)


def _null_warning(path: str) -> Violation:
    return Violation(RULE, Severity.WARNING,
                     f"{path} is null: read as absent (optional field; omit it instead of writing null)", path)
