"""Generated Avro binary writers: the fast path of `SchemaRegistry.encode` (streams/wire/codec.py).

fastavro's `schemaless_writer` spent 83 µs on a 479-byte OMEN packet and 22 µs on a verdict on this machine (about
1 µs per value, a union's record branch validated before it is written): a fifth of a replayed packet, and the ingress
and every output of the live worker pay it too. `compile_writer(schema)` writes the source of one Python function per
named record, straight-line, one exact-type check and one append per value (2026-11-27 figures in BENCHMARKS.md).

It writes only what it is sure of and leaves the rest to fastavro, which stays the reference and the fallback: each
value must be of the exact Python type its schema type takes as it is (`str` for a string or an enum symbol, `int`
within the bounds for int and long, `float` for a double, `bool`, `bytes`, `None`, `list`, `dict` for a record or a
map), and a union's branch must be the one fastavro picks: named by tuple notation `(name, datum)` for a named type,
or the only branch that Python type can go to (None to "null", a str to the only string branch, ...). Anything else
(an int for a double, a float field, fixed, a logical type fastavro converts, a union two branches could take, a
missing field left to its default, a lone surrogate) raises `Unsupported` and the caller hands the whole datum to
fastavro, whose bytes or error are then the answer. So a datum is written to the same bytes as fastavro writes, or
by fastavro: pinned on every bundled example, the bench workloads, generated packets and every output kind
(tests/unit/streams/wire/test_avro_writer.py, byte for byte).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from fastavro.write import LOGICAL_WRITERS

from streams.wire.avro_codegen import SourceGenerator, generated

Writer = Callable[[Any, bytearray], None]

LONG_BOUNDS = (-(2**63), 2**63 - 1)
INT_BOUNDS = (-(2**31), 2**31 - 1)


class Unsupported(Exception):  # not an error: the datum goes to fastavro
    """A datum (or schema) outside the generated writer's fast path: fastavro writes it."""


def put_long(out: bytearray, n: int) -> None:
    """Append the zigzag varint of `n` (Avro int and long)."""
    n = (n << 1) ^ (n >> 63)
    while n > 127:
        out.append((n & 127) | 128)
        n >>= 7
    out.append(n)


def varint(n: int) -> bytes:
    """The zigzag varint of `n` as bytes (union and enum indexes are written from these, computed once)."""
    out = bytearray()
    put_long(out, n)
    return bytes(out)


def _unsupported() -> None:
    raise Unsupported


class _Generator(SourceGenerator):
    """Writes the source of every record writer reachable from one schema, each record once."""

    def __init__(self, named: dict[str, Any]) -> None:
        super().__init__(named, {"put_long": put_long, "Unsupported": Unsupported,
                                 "pack_double": struct.Struct("<d").pack}, "w")

    def record_lines(self, function: str, schema: dict[str, Any]) -> list[str]:
        """The writer `function` of record `schema`: `(record, bytearray)`, appending its bytes."""
        lines = [f"def {function}(d, out):", "    if type(d) is not dict:", "        raise Unsupported"]
        for field in schema["fields"]:
            lines.append(f"    v = d[{field['name']!r}]")  # absent: KeyError, fastavro applies the default
            self.value(field["type"], "v", lines, 1)
        return lines

    def value(self, schema: Any, var: str, lines: list[str], depth: int) -> None:
        """Append the statements writing the value in `var` of type `schema`, indented `depth` levels."""
        pad = "    " * depth
        schema, kind = self.definition(schema, LOGICAL_WRITERS, Unsupported)
        if kind == "union":
            self.union(schema, var, lines, depth)
            return
        if kind == "null":
            lines += [f"{pad}if {var} is not None:", f"{pad}    raise Unsupported"]
        elif kind == "boolean":
            lines += [f"{pad}if {var} is True:", f"{pad}    out.append(1)", f"{pad}elif {var} is False:",
                      f"{pad}    out.append(0)", f"{pad}else:", f"{pad}    raise Unsupported"]
        elif kind in ("int", "long"):
            low, high = INT_BOUNDS if kind == "int" else LONG_BOUNDS
            lines += [f"{pad}if type({var}) is not int or not {low} <= {var} <= {high}:", f"{pad}    raise Unsupported",
                      f"{pad}put_long(out, {var})"]
        elif kind == "double":
            lines += [f"{pad}if type({var}) is not float:", f"{pad}    raise Unsupported",
                      f"{pad}out += pack_double({var})"]
        elif kind in ("string", "bytes"):
            python = "str" if kind == "string" else "bytes"
            raw = f"{var}.encode()" if kind == "string" else var  # a lone surrogate: UnicodeEncodeError, fastavro's
            t = self.temp()
            lines += [f"{pad}if type({var}) is not {python}:", f"{pad}    raise Unsupported", f"{pad}{t} = {raw}",
                      f"{pad}put_long(out, len({t}))", f"{pad}out += {t}"]
        elif kind == "enum":
            table = self.temp()
            self.env[table] = {symbol: varint(i) for i, symbol in enumerate(schema["symbols"])}
            t = self.temp()
            lines += [f"{pad}{t} = {table}.get({var}) if type({var}) is str else None", f"{pad}if {t} is None:",
                      f"{pad}    raise Unsupported", f"{pad}out += {t}"]
        elif kind in ("array", "map"):
            self.container(schema, kind, var, lines, depth)
        elif kind in ("record", "error"):
            lines.append(f"{pad}{self.record(schema)}({var}, out)")
        else:  # float (fastavro narrows doubles to it), fixed
            raise Unsupported

    def container(self, schema: dict[str, Any], kind: str, var: str, lines: list[str], depth: int) -> None:
        """An array or a map: one block of all its items (as fastavro writes them), then the end block."""
        pad = "    " * depth
        item = self.temp()
        python, loop = ("list", f"for {item} in {var}:") if kind == "array" else \
            ("dict", f"for {item}_key, {item} in {var}.items():")
        lines += [f"{pad}if type({var}) is not {python}:", f"{pad}    raise Unsupported", f"{pad}if {var}:",
                  f"{pad}    put_long(out, len({var}))", f"{pad}    {loop}"]
        if kind == "map":
            self.value("string", f"{item}_key", lines, depth + 2)
        self.value(schema["items" if kind == "array" else "values"], item, lines, depth + 2)
        lines.append(f"{pad}out.append(0)")

    def union(self, branches: list[Any], var: str, lines: list[str], depth: int) -> None:
        """A union: None to "null", a `(name, datum)` tuple to the named branch, a value of another Python type to
        the only branch that type can go to; otherwise Unsupported."""
        pad = "    " * depth
        resolved = [self.definition(b, (), Unsupported) for b in branches]
        kinds = [kind for _, kind in resolved]
        cases: list[tuple[str, int]] = []  # (condition on var, branch index)
        if "null" in kinds:
            cases.append((f"{var} is None", kinds.index("null")))
        takers = {  # the Python type -> the branch kinds fastavro's union may pick for a value of it
            "str": {"string", "enum"}, "bool": {"boolean", "int", "long", "float", "double"},
            "int": {"int", "long", "float", "double"}, "float": {"float", "double"},
            "bytes": {"bytes", "fixed"}, "list": {"array"}, "dict": {"map", "record", "error"}}
        for python, may in takers.items():
            candidates = [i for i, k in enumerate(kinds) if k in may]
            if python == "int" and candidates and kinds[candidates[0]] in ("int", "long"):
                candidates = candidates[:1]  # fastavro takes the first branch an int fits: within its bounds, this
            if len(candidates) == 1 and kinds[candidates[0]] not in ("fixed", "float", "error"):
                condition = f"type({var}) is {python}" + (" and '-type' not in " + var if python == "dict" else "")
                cases.append((condition, candidates[0]))
        named = {b["name"]: i for i, (b, _) in enumerate(resolved) if isinstance(b, dict) and b.get("name")}
        opening = "if"
        for condition, index in cases:
            lines += [f"{pad}{opening} {condition}:", f"{pad}    out += {varint(index)!r}"]
            self.value(branches[index], var, lines, depth + 1)
            opening = "elif"
        for name, index in named.items():
            inner = self.temp()
            lines += [f"{pad}{opening} type({var}) is tuple and len({var}) == 2 and {var}[0] == {name!r}:",
                      f"{pad}    {inner} = {var}[1]", f"{pad}    out += {varint(index)!r}"]
            self.value(branches[index], inner, lines, depth + 1)
            opening = "elif"
        lines += [f"{pad}{'else' if opening == 'elif' else 'if True'}:", f"{pad}    raise Unsupported"]

def compile_writer(parsed: dict[str, Any]) -> tuple[Writer, str]:
    """The generated writer of a parsed record schema (fastavro's `parse_schema` form) and its source; raises
    Unsupported when the schema holds a type only fastavro writes (then every datum of it goes to fastavro)."""
    function, source = generated(parsed, _Generator, "writer", Unsupported)
    return function, source
