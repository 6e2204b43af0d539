"""The words of SCHEMA messages, and the JSON types they name as jsonschema has them (the contract of
`omega.packets.schema`): a bool is neither an integer nor a number, an integer is a number, and a float with
an integral value (`3.0`) is an integer.

Every message names the field path, what is accepted and what was found (`found_text`: the JSON type and the
value as JSON, cut to 80 characters), e.g. `header.layer_source must be an integer 1..6 or "Integrity", got a
string "5"`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal
from fractions import Fraction

from omega.packets.schema_vocabulary import AnyValue, Arr, Bool, Int, Node, Num, Obj, OneOf, Str

_SHOWN_MAX = 80

Real = int | float | Decimal | Fraction
"""The Python values jsonschema compares as numbers."""


# ------------------------------------------------------------------ JSON types, as jsonschema has them
def is_integer(value: object) -> bool:
    """An integer to jsonschema: an int or an integral float, never a bool."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def is_number(value: object) -> bool:
    """A number to jsonschema: any real, never a bool."""
    return isinstance(value, Real) and not isinstance(value, bool)


def admits(node: Node, value: object) -> bool:
    """Whether `value` has a JSON type `node` admits (for a OneOf: any alternative's type)."""
    if isinstance(node, Str):
        return isinstance(value, str) or (node.nullable and value is None)
    if isinstance(node, Int):
        return is_integer(value)
    if isinstance(node, Num):
        return is_number(value)
    if isinstance(node, Bool):
        return isinstance(value, bool)
    if isinstance(node, Arr):
        return isinstance(value, list)
    if isinstance(node, Obj):
        return isinstance(value, dict)
    if isinstance(node, OneOf):
        return any(admits(option, value) for option in node.options)
    assert isinstance(node, AnyValue)
    return True


def expected(node: Node) -> str:
    """What `node` accepts, in words."""
    if isinstance(node, Str):
        return _expected_str(node)
    if isinstance(node, OneOf):
        return node.expected
    if isinstance(node, Int | Num):
        return _expected_number(node)
    if isinstance(node, AnyValue):
        return "any JSON value"
    names: Mapping[type, str] = {Int: "an integer", Num: "a number", Bool: "a boolean", Arr: "an array"}
    return names.get(type(node), "an object")


def json_type(value: object) -> str:
    """The JSON type of `value`, in words ("an integer", "null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if is_integer(value):
        return "an integer"
    if is_number(value):
        return "a number"
    names: Mapping[type, str] = {str: "a string", list: "an array", dict: "an object"}
    return names.get(type(value), f"a Python {type(value).__name__}")


# --------------------------------------------------------------------------- message helpers
def _expected_str(node: Str) -> str:
    kind = "a string or null" if node.nullable else "a string"
    if node.enum:
        return f"one of: {', '.join(node.enum)}"
    if node.pattern is not None:
        return f"{kind} matching {node.pattern}"
    return f"a non-empty string{' or null' if node.nullable else ''}" if node.min_length == 1 else kind


def _expected_number(node: Int | Num) -> str:
    kind = "an integer" if isinstance(node, Int) else "a number"
    if node.minimum is not None and node.maximum is not None:
        return f"{kind} {node.minimum!r}..{node.maximum!r}"
    if node.minimum is not None:
        return f"{kind} >= {node.minimum!r}"
    return kind if node.maximum is None else f"{kind} <= {node.maximum!r}"


def child_path(path: str, name: str) -> str:
    """The dotted path of field `name` under `path`."""
    return f"{path}.{name}" if path else name


def path_label(path: str) -> str:
    """`path`, or "the packet" for the root."""
    return path or "the packet"


def count_of(n: int, noun: str) -> str:
    """`n` and `noun`, plural unless `n` is 1."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def found_text(value: object) -> str:
    """What was found: its JSON type and its value as JSON (`a string "5"`, `null`), cut to 80 characters."""
    return "null" if value is None else f"{json_type(value)} {_shown(value)}"


def _shown(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
    except (ValueError, TypeError, RecursionError):  # a cycle, keys of mixed types, nesting past the stack
        text = "[...]" if isinstance(value, list) else "{...}" if isinstance(value, dict) else repr(value)[:_SHOWN_MAX]
    return text if len(text) <= _SHOWN_MAX else f"{text[: _SHOWN_MAX - 3]}..."
