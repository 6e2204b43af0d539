"""Straight-line predicates generated from the structural rules: the fast path of `check_schema`.

`compile_rules(rules)` turns each whole-packet rule table (an `Obj` of `omega.packets.schema_vocabulary`, as
`omega.packets.schema_rules` builds them) into the source of one Python function,
`is_valid_<PacketType>(packet) -> bool`, and compiles it once. The function is the interpreter of
`omega.packets.schema` unrolled for that one table: inline type checks, frozenset enum membership, precompiled
patterns, presence by `in` and closedness by counting keys, bounds and lengths, one `for` loop per array; no
recursion, no messages, about a tenth of the interpreter's time on a valid packet.
`omega.packets.schema.source_for(packet_type)` shows what `check_schema` compiled (about 25 ms at import for
all ten); this module imports nothing of the checker.

The contract with the interpreter (`omega.packets.schema.interpret_schema`):

* sound, always: when a predicate answers True, the interpreter reports nothing. `check_schema` may
  then answer `[]` without running it; on False it runs the interpreter, which owns every message.
* exact on decoded JSON: for a value built from plain dicts, lists, str, int, float, bool and None
  (Decimal and Fraction too), it answers True exactly when the interpreter reports nothing.
* never raising: every operation on a value is applied only after an exact type check (`type(v) is
  str`, never `isinstance`), so nothing user-defined runs. A checked position holding anything else (a
  str or dict subclass, a tuple, an arbitrary object) makes it answer False and the interpreter decide;
  so does a Decimal NaN in a bounded number field (the interpreter's `<` raises there, as it always did).
  Dict keys are hashed and compared as the interpreter does, so a key whose `__eq__` raises raises in
  both; the code is not recursive, so no nesting depth can exhaust the stack.

The semantics mirrored are the interpreter's (and so jsonschema's): a bool is neither an integer nor a
number, `3.0` is an integer, an integer is a number; patterns use `re.search` (same compiled pattern);
`minLength` counts code points; bounds compare with `<`/`>` (a NaN float passes a number's bounds);
closed records admit only their declared keys, plus `str` keys starting with `meta_prefix`; `OneOf`
holds when exactly one alternative does. Alternatives whose JSON types cannot overlap (every table in
schema_rules today) compile to `or`; overlapping ones count passes with `+`, guarded by a check that
the whole value is plain (where every alternative is exact), so a False from an unusual value can never
turn "two alternatives match" into "one matches".
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType

from omega.packets.schema_vocabulary import AnyValue, Arr, Bool, Int, Node, Num, Obj, OneOf, Str

__all__ = ["CompiledRules", "Predicate", "compile_rules", "generate_source"]

Predicate = Callable[[object], bool]

_PROVIDED = "Decimal, Fraction, _compile (re.compile)"
"""The only names the generated source uses besides builtins: handed in by `_namespace`."""

_DEEP_PLAIN = '''
_PLAIN = frozenset((str, int, float, bool, type(None), Decimal, Fraction))


def _deep_plain(value):
    """Whether `value` is built only from plain JSON types (no subclasses), cycles tolerated."""
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict or kind is list:
            if id(item) in seen:
                continue
            seen.add(id(item))
            if kind is dict:
                for key in item:
                    if type(key) not in _PLAIN:
                        return False
                stack.extend(item.values())
            else:
                stack.extend(item)
        elif kind not in _PLAIN:
            return False
    return True
'''


# --------------------------------------------------------------------------- JSON-type tags of a node
_ALL = "*"


def _tags(node: Node) -> frozenset[str]:
    """The exact Python types whose values `node` can accept (its `schema_messages.admits` domain), as tags."""
    if isinstance(node, Str):
        return frozenset({"str", "null"} if node.nullable else {"str"})
    if isinstance(node, Int):
        return frozenset({"int", "float"})
    if isinstance(node, Num):
        return frozenset({"int", "float", "decimal", "fraction"})
    if isinstance(node, Bool):
        return frozenset({"bool"})
    if isinstance(node, Arr):
        return frozenset({"list"})
    if isinstance(node, Obj):
        return frozenset({"dict"})
    if isinstance(node, OneOf):
        return frozenset().union(*(_tags(option) for option in node.options))
    return frozenset({_ALL})


def _disjoint(options: tuple[Node, ...]) -> bool:
    """Whether no value can have a type two of the alternatives accept."""
    if len(options) <= 1:
        return True
    seen: set[str] = set()
    for option in options:
        tags = _tags(option)
        if _ALL in tags or seen & tags:
            return False
        seen |= tags
    return True


# --------------------------------------------------------------------------- literals
def _bound(value: float) -> str:
    """A source literal for a bound of the tables (an int or a non-NaN float)."""
    if type(value) is int:
        return repr(value)
    if type(value) is float and not math.isnan(value):
        return repr(value) if math.isfinite(value) else f"float({str(value)!r})"
    raise ValueError(f"unsupported bound {value!r} in the schema rules")


# --------------------------------------------------------------------------- the generator
class _Generator:
    """Writes one function (plus the constants and helpers it needs) for one rule table."""

    def __init__(self) -> None:
        self.constants: dict[str, str] = {}  # source of a constant -> its name
        self.helpers: list[str] = []
        self.lines: list[str] = []
        self.uses_deep_plain = False
        self.count = 0

    # --- names
    def fresh(self) -> str:
        self.count += 1
        return f"x{self.count}"

    def constant(self, prefix: str, source: str) -> str:
        if source not in self.constants:
            self.constants[source] = f"_{prefix}{len(self.constants)}"
        return self.constants[source]

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def fail_unless(self, depth: int, condition: str) -> None:
        self.fail_if(depth, f"not {condition}")  # `condition`: a comparison or a parenthesised expression

    def fail_if(self, depth: int, condition: str) -> None:
        self.emit(depth, f"if {condition}:")
        self.emit(depth + 1, "return False")

    # --- whole functions
    def function(self, name: str, node: Node) -> list[str]:
        outer, self.lines = self.lines, []
        param = self.fresh()
        self.emit(0, f"def {name}({param}):")
        self.check(node, param, 1)
        self.emit(1, "return True")
        body, self.lines = self.lines, outer
        return body

    def helper(self, node: Node) -> str:
        name = f"_h{len(self.helpers)}"
        self.helpers.append("\n".join(self.function(name, node)))
        return name

    # --- statements: fall through when `x` is valid, `return False` otherwise
    def check(self, node: Node, x: str, depth: int) -> None:
        condition = self.expression(node, x)
        if condition is not None:
            if condition != "True":
                self.fail_unless(depth, condition)
        elif isinstance(node, Arr):
            self.check_array(node, x, depth)
        else:
            assert isinstance(node, Obj)
            self.check_object(node, x, depth)

    def check_array(self, node: Arr, x: str, depth: int) -> None:
        self.fail_if(depth, f"type({x}) is not list")
        if node.min_items:
            self.fail_if(depth, f"len({x}) < {node.min_items}")
        if node.max_items is not None:
            self.fail_if(depth, f"len({x}) > {node.max_items}")
        if isinstance(node.items, AnyValue):
            return
        item = self.fresh()
        self.emit(depth, f"for {item} in {x}:")
        self.check(node.items, item, depth + 1)

    def check_object(self, node: Obj, x: str, depth: int) -> None:
        """Presence by `in`; closedness by counting: with every required name present, `x` has no other
        key exactly when its size is the number of declared names present (`'a' in x` adds 1)."""
        self.fail_if(depth, f"type({x}) is not dict")
        required = [name for name, spec in node.fields.items() if spec.required]
        optional = [name for name, spec in node.fields.items() if not spec.required]
        if required:
            self.fail_if(depth, " or ".join(f"{name!r} not in {x}" for name in required))
        if node.closed:
            declared = " + ".join([str(len(required)), *(f"({name!r} in {x})" for name in optional)])
            if node.meta_prefix is None:
                self.fail_if(depth, f"len({x}) != {declared}")
            else:  # the undeclared keys must all be str starting with the prefix
                every, key = self.constant("K", f"frozenset({tuple(node.fields)!r})"), self.fresh()
                self.emit(depth, f"if len({x}) != {declared}:")
                self.emit(depth + 1, f"for {key} in {x}.keys() - {every}:")
                self.emit(depth + 2, f"if type({key}) is not str or not {key}.startswith({node.meta_prefix!r}):")
                self.emit(depth + 3, "return False")
        if node.min_properties:
            self.fail_if(depth, f"len({x}) < {node.min_properties}")
        for name, spec in node.fields.items():
            if isinstance(spec.node, AnyValue):
                continue  # presence (if required) is checked above; any value goes
            value, inner = self.fresh(), depth + (not spec.required)
            if not spec.required:
                self.emit(depth, f"if {name!r} in {x}:")
            self.emit(inner, f"{value} = {x}[{name!r}]")
            self.check(spec.node, value, inner)

    # --- expressions: a bool-valued condition on `x`, or None for nodes that need statements
    def expression(self, node: Node, x: str) -> str | None:
        if isinstance(node, AnyValue):
            return "True"
        if isinstance(node, Bool):
            return f"type({x}) is bool"
        if isinstance(node, Str):
            return self.string(node, x)
        if isinstance(node, Int):
            return self.integer(node, x)
        if isinstance(node, Num):
            return self.number(node, x)
        if isinstance(node, OneOf):
            return self.one_of(node, x)
        if isinstance(node, Obj) and not node.fields and not node.closed:
            size = f" and len({x}) >= {node.min_properties}" if node.min_properties else ""
            return f"(type({x}) is dict{size})"
        return None

    def string(self, node: Str, x: str) -> str:
        parts = [f"type({x}) is str"]
        if node.min_length:
            parts.append(f"len({x}) >= {node.min_length}")
        if node.enum:
            parts.append(f"{x} in {self.constant('E', f'frozenset({node.enum!r})')}")
        if node.pattern is not None:
            parts.append(f"{self.constant('P', f'_compile({node.pattern!r}).search')}({x}) is not None")
        condition = " and ".join(parts)
        return f"({x} is None or ({condition}))" if node.nullable else f"({condition})"

    def integer(self, node: Int, x: str) -> str:
        """int (not bool) or an integral float; neither can be NaN here, so `<=` is the negated `<`."""
        low = "" if node.minimum is None else f"{_bound(node.minimum)} <= "
        high = "" if node.maximum is None else f" <= {_bound(node.maximum)}"
        bounds = f" and {low}{x}{high}" if low or high else ""
        return f"((type({x}) is int{bounds}) or (type({x}) is float and {x}.is_integer(){bounds}))"

    def number(self, node: Num, x: str) -> str:
        """int, float, Fraction or Decimal (not bool); `not x < lo` keeps a NaN float passing, as `<` does."""
        limits = [(node.minimum, "<"), (node.maximum, ">")]
        bounds = "".join(f" and not {x} {op} {_bound(b)}" for b, op in limits if b is not None)
        decimal = "t is Decimal"
        if bounds:  # Decimal: a NaN raises on `<` (the interpreter's too: answer False); float bounds exactly
            bounds_d = "".join(f" and not {x} {op} {self.decimal_bound(b)}" for b, op in limits if b is not None)
            decimal = f"(t is Decimal and not {x}.is_nan(){bounds_d})"
        exact = f"((t := type({x})) is float or t is int or t is Fraction)"
        return f"(({exact}{bounds}) or {decimal})" if bounds else f"({exact} or {decimal})"

    def decimal_bound(self, value: float) -> str:
        """A bound to compare a Decimal with, avoiding float-Decimal comparisons (a context may trap them)."""
        if type(value) is int:
            return repr(value)
        return self.constant("D", f"Decimal({_bound(value)})")  # Decimal(float) is exact, as `<` is

    def one_of(self, node: OneOf, x: str) -> str:
        parts = []
        for option in node.options:
            condition = self.expression(option, x)
            parts.append(condition if condition is not None else f"{self.helper(option)}({x})")
        if _disjoint(node.options):
            return f"({' or '.join(parts)})"
        self.uses_deep_plain = True
        return f"(_deep_plain({x}) and ({' + '.join(parts)}) == 1)"

    # --- the module
    def module(self, name: str, node: Node, origin: str) -> str:
        body = self.function(name, node)
        head = [f"# {name}: generated by omega.packets.schema_compile from {origin}.", f"# Provided: {_PROVIDED}."]
        head += [f"{const} = {source}" for source, const in self.constants.items()]
        chunks = ["\n".join(head)]
        if self.uses_deep_plain:
            chunks.append(_DEEP_PLAIN.strip("\n"))
        chunks += self.helpers
        chunks.append("\n".join(body))
        return "\n\n\n".join(chunks) + "\n"


def _function_name(packet_type: str) -> str:
    if not packet_type.isidentifier():
        raise ValueError(f"packet type {packet_type!r} is not an identifier")
    return f"is_valid_{packet_type}"


def generate_source(packet_type: str, rules: Node, origin: str = "omega.packets.schema_rules") -> str:
    """The source of `is_valid_<packet_type>(packet) -> bool` for one whole-packet rule table."""
    return _Generator().module(_function_name(packet_type), rules, origin)


def _namespace() -> dict[str, object]:
    return {"Decimal": Decimal, "Fraction": Fraction, "_compile": re.compile}


def compile_source(packet_type: str, source: str) -> Predicate:
    """Run generated source (ours, from our own tables) in a fresh namespace; its predicate."""
    namespace = _namespace()
    code = compile(source, f"<schema_compile {packet_type}>", "exec")
    exec(code, namespace)  # noqa: S102 - source generated here from omega.packets.schema_rules, not from input
    predicate = namespace[_function_name(packet_type)]
    assert callable(predicate)
    return predicate


# --------------------------------------------------------------------------- the compiled set
@dataclass(frozen=True, slots=True)
class CompiledRules:
    """The predicates of every packet type, their sources, and the dispatch on `header.packet_type`."""

    predicates: Mapping[str, Predicate]
    sources: Mapping[str, str]

    def is_valid(self, packet: object) -> bool:
        """True only if the interpreter would report nothing for `packet` (exact on decoded JSON)."""
        if type(packet) is not dict:
            return False
        header = packet.get("header")
        if type(header) is not dict:
            return False
        packet_type = header.get("packet_type")
        if type(packet_type) is not str:
            return False
        predicate = self.predicates.get(packet_type)
        return predicate is not None and predicate(packet)

    def source_for(self, packet_type: str) -> str:
        """The generated source behind `packet_type`'s predicate."""
        return self.sources[packet_type]


def compile_rules(rules: Mapping[str, Node]) -> CompiledRules:
    """Generate and compile one predicate per packet type of `rules` (type -> whole-packet table)."""
    sources = {name: generate_source(name, node) for name, node in rules.items()}
    predicates = {name: compile_source(name, source) for name, source in sources.items()}
    return CompiledRules(MappingProxyType(predicates), MappingProxyType(sources))
