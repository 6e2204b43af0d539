"""Generated Avro binary readers: the fast path of `SchemaRegistry.decode` (streams/wire/codec.py) when the writer
schema is the reader's own (no schema resolution).

fastavro's `schemaless_reader` took 64 µs to read a 479-byte OMEN packet on this machine, which every packet pays in
the validator agent and every output in the projector. `compile_reader(schema)` writes one Python function per named
record that reads its fields straight through, each value by its type (zigzag varints, length-prefixed UTF-8,
little-endian doubles), into the datum fastavro returns (records as dicts in field order, enums as symbols, unions
as the bare value).

It reads only what it is sure of and leaves the rest to fastavro, which stays the reference: a byte it does not
expect (a boolean other than 0 or 1, an enum or union index out of range, a negative length, a varint past 64 bits,
a long past an int's bounds, text that is not UTF-8) raises `Unreadable` (or IndexError past the end; a length past
the end leaves the position past it, which the caller checks), and the caller reads
the whole record again with fastavro, whose datum or error is the answer. A schema holding a logical type that
fastavro converts (timestamps, decimals, UUIDs, dates) is not generated at all. Pinned on every bundled example,
generated packets, every output kind and on mutated bytes (tests/unit/streams/wire/test_avro_reader.py).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from fastavro.read import LOGICAL_READERS

from streams.wire.avro_codegen import SourceGenerator, generated
from streams.wire.avro_writer import INT_BOUNDS

Reader = Callable[[bytes, int], tuple[Any, int]]  # (data, position) -> (datum, position after)


class Unreadable(Exception):  # not an error: the bytes go to fastavro
    """Bytes (or a schema) outside the generated reader's path: fastavro reads them."""


def long_rest(data: bytes, i: int, first: int) -> tuple[int, int]:
    """The unsigned varint whose first byte `first` (>= 0x80) was read, continued at `i`: (value, position)."""
    n, shift = first & 127, 7
    while True:
        byte = data[i]
        i += 1
        n |= (byte & 127) << shift
        if byte < 128:
            if n >= 1 << 64:
                raise Unreadable  # past 64 bits: fastavro's C reader wraps it
            return n, i
        shift += 7
        if shift > 63:
            raise Unreadable


class _Generator(SourceGenerator):
    """Writes the source of every record reader reachable from one schema, each record once."""

    def __init__(self, named: dict[str, Any]) -> None:
        super().__init__(named, {"long_rest": long_rest, "Unreadable": Unreadable,
                                 "unpack_double": struct.Struct("<d").unpack_from,
                                 "unpack_float": struct.Struct("<f").unpack_from}, "r")

    def record_lines(self, function: str, schema: dict[str, Any]) -> list[str]:
        """The reader `function` of record `schema`: `(bytes, position) -> (record, next position)`."""
        lines = [f"def {function}(b, i):", "    d = {}"]
        for field in schema["fields"]:
            self.value(field["type"], f"d[{field['name']!r}]", lines, 1)
        lines.append("    return d, i")
        return lines

    def long(self, target: str, lines: list[str], pad: str) -> None:
        """Read a zigzag varint into `target`."""
        x = self.temp()
        lines += [f"{pad}{x} = b[i]", f"{pad}i += 1", f"{pad}if {x} > 127:", f"{pad}    {x}, i = long_rest(b, i, {x})",
                  f"{pad}{target} = ({x} >> 1) ^ -({x} & 1)"]

    def value(self, schema: Any, target: str, lines: list[str], depth: int) -> None:
        """Append the statements reading a value of type `schema` into `target`, indented `depth` levels."""
        pad = "    " * depth
        schema, kind = self.definition(schema, LOGICAL_READERS, Unreadable)
        if kind == "union":
            self.union(schema, target, lines, depth)
            return
        if kind == "null":
            lines.append(f"{pad}{target} = None")
        elif kind == "boolean":
            x = self.temp()
            lines += [f"{pad}{x} = b[i]", f"{pad}i += 1", f"{pad}if {x} > 1:", f"{pad}    raise Unreadable",
                      f"{pad}{target} = {x} == 1"]
        elif kind in ("int", "long"):
            if kind == "long":
                self.long(target, lines, pad)
            else:
                x = self.temp()
                self.long(x, lines, pad)
                low, high = INT_BOUNDS
                lines += [f"{pad}if not {low} <= {x} <= {high}:", f"{pad}    raise Unreadable", f"{pad}{target} = {x}"]
        elif kind in ("double", "float"):
            lines += [f"{pad}{target} = unpack_{kind}(b, i)[0]", f"{pad}i += {8 if kind == 'double' else 4}"]
        elif kind in ("string", "bytes", "fixed"):
            size, end = self.temp(), self.temp()
            if kind == "fixed":
                lines.append(f"{pad}{size} = {int(schema['size'])}")
            else:
                self.long(size, lines, pad)
            # a length past the end cuts the slice short but moves `i` past the end: the caller checks the end
            lines += [f"{pad}{end} = i + {size}", f"{pad}if {size} < 0:", f"{pad}    raise Unreadable",
                      f"{pad}{target} = b[i:{end}]{'.decode()' if kind == 'string' else ''}", f"{pad}i = {end}"]
        elif kind == "enum":
            symbols, x = self.temp(), self.temp()
            self.env[symbols] = tuple(schema["symbols"])
            self.long(x, lines, pad)
            lines += [f"{pad}if not 0 <= {x} < {len(schema['symbols'])}:", f"{pad}    raise Unreadable",
                      f"{pad}{target} = {symbols}[{x}]"]
        elif kind in ("array", "map"):
            self.container(schema, kind, target, lines, depth)
        else:  # record, error
            lines.append(f"{pad}{target}, i = {self.record(schema)}(b, i)")

    def container(self, schema: dict[str, Any], kind: str, target: str, lines: list[str], depth: int) -> None:
        """An array or a map: blocks of items until an empty one (a negative count is followed by a byte size)."""
        pad = "    " * depth
        items, count, skipped, key = self.temp(), self.temp(), self.temp(), self.temp()
        lines += [f"{pad}{items} = {'[]' if kind == 'array' else '{}'}", f"{pad}while True:"]
        self.long(count, lines, pad + "    ")
        lines += [f"{pad}    if {count} == 0:", f"{pad}        break", f"{pad}    if {count} < 0:",
                  f"{pad}        {count} = -{count}"]
        self.long(skipped, lines, pad + "        ")
        lines.append(f"{pad}    for _ in range({count}):")
        if kind == "array":
            item = self.temp()
            self.value(schema["items"], item, lines, depth + 2)
            lines.append(f"{pad}        {items}.append({item})")
        else:
            self.value("string", key, lines, depth + 2)
            self.value(schema["values"], f"{items}[{key}]", lines, depth + 2)
        lines.append(f"{pad}{target} = {items}")

    def union(self, branches: list[Any], target: str, lines: list[str], depth: int) -> None:
        """A union: the branch its index names, read as that branch's type."""
        pad = "    " * depth
        index = self.temp()
        self.long(index, lines, pad)
        for position, branch in enumerate(branches):
            lines.append(f"{pad}{'if' if position == 0 else 'elif'} {index} == {position}:")
            self.value(branch, target, lines, depth + 1)
        lines += [f"{pad}else:", f"{pad}    raise Unreadable"]


def compile_reader(parsed: dict[str, Any]) -> tuple[Reader, str]:
    """The generated reader of a parsed record schema (fastavro's `parse_schema` form) and its source; raises
    Unreadable when the schema holds a type only fastavro reads (then every record of it goes to fastavro)."""
    function, source = generated(parsed, _Generator, "reader", Unreadable)
    return function, source
