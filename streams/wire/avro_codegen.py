"""What the generated Avro writers and readers (streams/wire/avro_writer.py, avro_reader.py) share: the source
generator's bookkeeping (named types, temporaries, one function per record) and turning its source into the
top record's function."""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import Any

PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
KINDS = PRIMITIVES | {"record", "error", "enum", "array", "map", "fixed"}


class SourceGenerator:
    """The source of one function per named record reachable from a schema, each record once; `record_lines`
    is the subclass's: the body of one record's function."""

    def __init__(self, named: dict[str, Any], env: dict[str, Any], prefix: str) -> None:
        self.named = named
        self.env = env
        self.prefix = prefix  # of the generated functions' names: w0, w1, ... or r0, r1, ...
        self.functions: dict[str, str] = {}  # record full name -> generated function name
        self.sources: list[str] = []
        self.temps = 0

    def record(self, schema: dict[str, Any]) -> str:
        """The name of the generated function of record `schema` (generated on first use)."""
        full = schema["name"]
        if full in self.functions:
            return self.functions[full]
        function = self.functions[full] = f"{self.prefix}{len(self.functions)}"
        # Named before its lines are written, so a record that contains itself calls the function by name.
        self.sources.append("\n".join(self.record_lines(function, schema)))
        return function

    def record_lines(self, function: str, schema: dict[str, Any]) -> list[str]:
        """The source lines of `function`, the generated function of record `schema`."""
        raise NotImplementedError

    def resolved(self, schema: Any) -> Any:
        """A named type reference resolved to its definition; anything else as it is."""
        return self.named[schema] if isinstance(schema, str) and schema not in PRIMITIVES else schema

    def definition(self, schema: Any, converted: Container[str], refused: type[Exception]) -> tuple[Any, str]:
        """(definition, Avro type) of `schema`: a named reference resolved, `{"type": <a type>}` unwrapped, a union's
        type "union"; raises `refused` for a logical type in `converted` (a value fastavro converts: a datetime, a
        Decimal, a UUID)."""
        while True:
            schema = self.resolved(schema)
            if isinstance(schema, list):
                return schema, "union"
            if isinstance(schema, str):
                return schema, schema
            kind = schema["type"]
            if schema.get("logicalType") and f"{kind}-{schema['logicalType']}" in converted:
                raise refused
            if isinstance(kind, str) and kind in KINDS:
                return schema, kind
            schema = kind

    def temp(self) -> str:
        """A fresh local variable name."""
        self.temps += 1
        return f"t{self.temps}"


def generated(parsed: dict[str, Any], make: Callable[[dict[str, Any]], SourceGenerator], what: str,
              refused: type[Exception]) -> tuple[Callable[..., Any], str]:
    """The generated function of record schema `parsed` (fastavro's `parse_schema` form) and its whole source;
    raises `refused` for a schema that is not a record (or that `make`'s generator refuses)."""
    if parsed.get("type") not in ("record", "error"):
        raise refused
    generator = make(dict(parsed.get("__named_schemas", {})))
    top = generator.record(parsed)
    source = "\n\n".join(generator.sources) + "\n"
    exec(compile(source, f"<avro {what} of {parsed['name']}>", "exec"), generator.env)  # noqa: S102 - our source
    function: Callable[..., Any] = generator.env[top]
    return function, source
