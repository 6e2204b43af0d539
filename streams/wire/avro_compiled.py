"""Straight-line field converters generated per Avro record: the fast path of `RecordNode.to_avro`.

`compile_fields(record)` writes the source of one Python function, `convert(value) -> datum`, that does what the
record's field loop does (streams/wire/avro_json.py `RecordNode._fields_to_avro` with no path named) for one record
type, unrolled: one `value.get` per field, the schema default for an absent optional field, and for a field whose
value is the plain JSON type it expects, the value itself, checked inline:

* a string: `type(v) is str` and ASCII (a non-ASCII string may hold a lone surrogate: the node checks it);
* an enum symbol: a `str` in the symbols' frozenset; a boolean: `type(v) is bool`;
* an integer: `type(v) is int` within the Avro bounds (a bool is not an int here: its type is bool);
* a double: `type(v) is float` and finite;
* an optional record: a `dict`, converted by that record's own converter, its union branch named.

Anything else (null, an int offered a double, a subclass, a wrong type, an array, a map, free-form JSON) goes to the
field's node exactly as the loop would send it, with no path: the node converts it or raises, and the record, when
it has a path, converts its fields again through the loop to name the failing one (avro_nodes module docstring).
So the function returns what the loop returns and raises where the loop raises; `unrolled == loop` is pinned on
every bundled example packet (examples/omen), the bench workloads, generated packets and packets with a wild value
anywhere (tests/unit/streams/wire/test_avro_compiled.py).
Extras are the record's own step after the fields, as before. About half the conversion time of a packet went to
the loop's calls per field (44 optional fields, 60 values in a typical packet).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Protocol

from streams.wire import avro_nodes as aj

Converter = Callable[[dict[str, Any]], dict[str, object]]


class Fields(Protocol):
    """What the generator reads of a record node (streams/wire/avro_json.py `RecordNode`)."""

    name: str
    fields: list[tuple[str, aj.Node, bool, object]]  # (name, node, may be absent, datum when absent)


def compile_fields(record: Fields) -> tuple[Converter, str]:
    """The generated field converter of `record` and its source."""
    env: dict[str, Any] = {"ABSENT": aj.ABSENT, "ConversionError": aj.ConversionError, "isfinite": math.isfinite}
    lines = ["def convert(value):", "    datum = {}"]
    for i, (name, node, optional, absent) in enumerate(record.fields):
        key = repr(name)
        env[f"node{i}"], env[f"absent{i}"] = node.to_avro, absent
        lines += [f"    v = value.get({key}, ABSENT)", "    if v is ABSENT:"]
        lines.append(f"        datum[{key}] = absent{i}" if optional else
                     f"        raise ConversionError('MISSING_FIELD', {key}, 'required field is missing')")
        fast = _fast_case(node, i, env)
        if fast is not None:
            condition, expression = fast
            lines += [f"    elif {condition}:", f"        datum[{key}] = {expression}"]
        lines += ["    else:", f"        datum[{key}] = node{i}(v, None)"]
    lines.append("    return datum")
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<avro fields of {record.name}>", "exec"), env)  # noqa: S102 - our own generated source
    return env["convert"], source


def _fast_case(node: aj.Node, i: int, env: dict[str, Any]) -> tuple[str, str] | None:
    """(condition on `v`, datum expression) for the plain value `node` expects, or None: always the node."""
    if isinstance(node, aj.OptionalNode):
        inner, branch = node.inner, node.inner.branch_name()
        if branch is not None:  # a record
            env[f"inner{i}"], env[f"branch{i}"] = inner.to_avro, branch
            return "type(v) is dict", f"(branch{i}, inner{i}(v, None))"
        node = inner
    if isinstance(node, aj.StringNode):
        return "type(v) is str and v.isascii()", "v"
    if isinstance(node, aj.EnumNode):
        env[f"symbols{i}"] = node.symbols
        return f"type(v) is str and v in symbols{i}", "v"
    if isinstance(node, aj.BooleanNode):
        return "type(v) is bool", "v"
    if isinstance(node, aj.IntegerNode):
        return f"type(v) is int and {node.low} <= v <= {node.high}", "v"
    if isinstance(node, aj.DoubleNode):
        return "type(v) is float and isfinite(v)", "v"
    return None
