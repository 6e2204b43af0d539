"""The compiled predicates agree with the schema interpreter: exactly on decoded JSON, soundly on anything.

`COMPILED.is_valid(p)` must be `interpret_schema(p) == []` for every generated packet, every mutation
kind of tests/omen_strategies.py and every still-valid rewrite; for hostile values (NaN, infinities,
huge numbers, Decimal/Fraction, subclasses, arbitrary objects, non-str keys, cycles, deep nesting) it
must not raise and must never say True where the interpreter reports something. `check_schema` answers
what the interpreter answers, raising where it raises.
"""

from __future__ import annotations

import ast
import builtins
import copy
import json
import re
from collections import OrderedDict
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omega.packets import schema
from omega.packets.schema import COMPILED, PACKET_RULES, check_schema, interpret_schema
from omega.packets.schema_compile import Predicate, compile_rules, compile_source, generate_source
from omega.packets.schema_rules import ANY
from omega.packets.schema_vocabulary import (
    AnyValue,
    Arr,
    Bool,
    Int,
    Node,
    Num,
    Obj,
    OneOf,
    Str,
    open_record,
    opt,
    record,
    req,
)
from tests.omen_spec import DESIGNED_TYPES, PACKET_TYPES, SPECS
from tests.omen_strategies import (
    JSON_VALUES,
    MUTATION_KINDS,
    Mutation,
    _bad_values,
    _mutate,
    _node_at,
    _parent,
    _walk,
    accepted_changes,
    accepted_sites,
    equivalent_variants,
    get_at,
    mutated_packets,
    mutation_sites,
    valid_packet,
    valid_packets,
)

PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EXAMPLES = Path(__file__).resolve().parents[4] / "examples" / "omen"


# --------------------------------------------------------------------------- hostile values
class StrSub(str):
    pass


class IntSub(int):
    pass


class FloatSub(float):
    pass


class DictSub(dict):
    pass


class ListSub(list):
    pass


class Opaque:
    def __repr__(self) -> str:
        return "Opaque()"  # stable test ids across runs (mutmut matches tests by id)


_PLAIN = (dict, list, str, int, float, bool, type(None), Decimal, Fraction)
ODD_VALUES: tuple[Any, ...] = (
    float("nan"), float("inf"), float("-inf"), -0.0, 1e308, 5e-324, 2**64, -(2**64), 10**400, 3.0, 1.0000001,
    Decimal("NaN"), Decimal("sNaN"), Decimal("Infinity"), Decimal("-0"), Decimal("0.5"), Decimal(3),
    Fraction(1, 3), Fraction(3), True, False, None, "", "\n", "pkt_1\n", "pkt_1\n\n", "\x00", "Integrity",
    b"pkt_1", (1, 2), frozenset({"x"}), StrSub("pkt_1"), StrSub("LOW"), IntSub(3), FloatSub(0.5),
    DictSub(a=1), OrderedDict(), ListSub(["x"]), Opaque(), [], {}, [[[]]], {"k": {"k": [None]}},
)
ODD_KEYS = st.one_of(
    st.integers(), st.none(), st.booleans(), st.floats(), st.tuples(st.integers()), st.text(max_size=4),
    st.sampled_from(["_meta", "header", StrSub("_meta"), StrSub("header"), Decimal(1), Fraction(1, 2)]),
)
ODD_SCALARS = st.one_of(
    st.sampled_from(ODD_VALUES), st.integers(), st.floats(), st.decimals(), st.fractions(), st.text(max_size=6)
)
JUNK = st.recursive(
    ODD_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(ODD_KEYS, inner, max_size=3),
    max_leaves=6,
)


def _plain(value: Any) -> bool:
    """Built only from plain JSON types (Decimal and Fraction included), keys too; cycles and depth allowed."""
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if type(item) not in _PLAIN:
            return False
        if type(item) in (dict, list) and id(item) not in seen:
            seen.add(id(item))
            stack.extend([*item, *item.values()] if type(item) is dict else item)
    return True


def _judge(packet: Any) -> bool:
    """The predicate's answer, checked against the interpreter; `check_schema` answers as it does."""
    verdict = COMPILED.is_valid(packet)
    assert type(verdict) is bool
    try:
        expected = interpret_schema(packet)
    except InvalidOperation:  # a Decimal NaN in a bounded number: the interpreter's `<` raises
        assert verdict is False
        with pytest.raises(InvalidOperation):
            check_schema(packet)
        return verdict
    if _plain(packet):
        assert verdict == (expected == []), expected
    else:
        assert not verdict or expected == [], expected
    assert check_schema(packet) == expected
    return verdict


# --------------------------------------------------------------------------- generated packets
@PROPERTY
@given(valid_packets())
def test_valid_packets_pass_the_predicate(packet: dict[str, Any]) -> None:
    assert _judge(packet) is True


@PROPERTY
@given(mutated_packets())
def test_every_mutation_fails_the_predicate(mutation: Mutation) -> None:
    assert _judge(mutation.packet) is False, mutation.detail


@PROPERTY
@given(valid_packets().flatmap(equivalent_variants))
def test_equivalent_variants_pass_the_predicate(packet: dict[str, Any]) -> None:
    assert _judge(packet) is True


@pytest.mark.parametrize("packet_type", PACKET_TYPES)
def test_every_site_and_bad_value_of_full_packets_fails_the_predicate(packet_type: str) -> None:
    """Exhaustive where the properties sample: each kind at each site with each of its bad values."""

    @settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(valid_packet(packet_type, full=True))
    def check(packet: dict[str, Any]) -> None:
        for kind, path in mutation_sites(packet):
            current = get_at(packet, path)
            fixed = kind in ("drop_required", "extra_property")
            for value in [None] if fixed else _bad_values(kind, _node_at(packet, path), current):
                mutation = _mutate(packet, kind, path, value)
                assert _judge(mutation.packet) is False, mutation.detail

    check()


@pytest.mark.parametrize("packet_type", DESIGNED_TYPES)
def test_every_accepted_site_and_value_of_full_designed_packets_passes_the_predicate(packet_type: str) -> None:
    """The designed payloads are open: where the closed design rejected a break (an extra key, an off-suggestion
    value, a dropped optional field, an unbounded integer, ...), the predicate now accepts it, as the
    interpreter does."""

    @settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(valid_packet(packet_type, full=True))
    def check(packet: dict[str, Any]) -> None:
        sites = accepted_sites(packet, under="payload")
        assert {kind for kind, _ in sites} >= {"drop_required", "bad_enum", "empty_string", "extra_property"}
        for kind, path in sites:
            for change in accepted_changes(packet, kind, path):
                assert _judge(change.packet) is True, change.detail

    check()


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.tuples(*(valid_packet(t, full=True) for t in PACKET_TYPES)))
def test_full_packets_of_all_types_have_sites_of_every_mutation_kind(packets: tuple[dict[str, Any], ...]) -> None:
    assert {kind for packet in packets for kind, _ in mutation_sites(packet)} == set(MUTATION_KINDS)


# --------------------------------------------------------------------------- hostile packets
def _replace(packet: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(packet)
    parent, last = _parent(out, path)
    parent[last] = value
    return out


@st.composite
def hostile_packets(draw: st.DrawFn) -> dict[str, Any]:
    """A valid packet with one spec-covered value replaced by junk, or one junk key added to an object."""
    packet = draw(valid_packets())
    sites = [path for path, _, _ in _walk(packet, SPECS[packet["header"]["packet_type"]], "", False) if path]
    path = draw(st.sampled_from(sites))
    if draw(st.booleans()):
        return _replace(packet, path, draw(st.one_of(ODD_SCALARS, JUNK)))
    objects = ["", *(p for p in sites if type(get_at(packet, p)) is dict)]
    out = copy.deepcopy(packet)
    get_at(out, draw(st.sampled_from(objects)))[draw(ODD_KEYS)] = draw(JSON_VALUES)
    return out


@PROPERTY
@given(hostile_packets())
def test_hostile_values_never_raise_nor_pass_wrongly(packet: dict[str, Any]) -> None:
    _judge(packet)


# ids without quotes or backslashes: mutmut passes node ids back to pytest, which cannot match escaped ones
@pytest.mark.parametrize("value", ODD_VALUES, ids=lambda v: re.sub(r"[\\'\"]", "", repr(v))[:24])
@pytest.mark.parametrize(
    "path",
    ["header.layer_source", "header.packet_id", "mcp.budgets.token_budget", "mcp.epistemics.confidence",
     "mcp.budgets.risk_budget.max_loss", "mcp.intent.scope", "mcp.evidence.evidence_absent_reason",
     "mcp.quality.satisficing_mode", "mcp.quality.definition_of_done.checks", "payload.data", "payload"],
)
def test_each_odd_value_at_each_kind_of_field(path: str, value: Any) -> None:
    packet = _observation()
    _judge(_replace(packet, path, value))
    _judge(_replace(packet, path, [value]))


@pytest.mark.parametrize(
    "packet",
    [None, [], "pkt_1", 5, Decimal("NaN"), Opaque(), DictSub(), {}, {"header": []}, {"header": {"packet_type": []}},
     {"header": {"packet_type": {}}}, {"header": {"packet_type": StrSub("ObservationPacket")}},
     {"header": {"packet_type": "ThoughtPacket"}}, {"header": {"packet_type": "ObservationPacket"}}],
    ids=repr,
)
def test_hostile_wholes(packet: Any) -> None:
    assert _judge(packet) is False


def _observation() -> dict[str, Any]:
    lines = (EXAMPLES / "escalation.jsonl").read_text(encoding="utf-8").splitlines()
    packet: dict[str, Any] = json.loads(lines[0]) if lines else {}
    assert packet["header"]["packet_type"] == "ObservationPacket"
    assert _judge(packet) is True
    return packet


def test_metadata_keys_and_subclass_keys_at_the_top() -> None:
    packet = _observation()
    assert _judge({**packet, "_note": {"x": [1]}}) is True
    assert _judge({**packet, "note": 1}) is False
    assert _judge({**packet, StrSub("_note"): 1}) is False  # the interpreter accepts; the predicate defers
    assert check_schema({**packet, StrSub("_note"): 1}) == []
    assert _judge({**packet, 7: 1}) is False


def test_cycles_and_deep_nesting() -> None:
    packet = _observation()
    cycle: list[Any] = []
    cycle.append(cycle)
    loop: dict[str, Any] = {}
    loop["self"] = loop
    deep: Any = "x"
    for _ in range(100_000):
        deep = [deep]
    for value, where in [(cycle, "payload.data.loop"), (deep, "payload.data.deep"), (loop, "mcp.intent.scope")]:
        out = copy.deepcopy(packet)
        *head, last = where.split(".")
        get_at(out, ".".join(head))[last] = value
        assert _judge(out) is True
    assert _judge(_replace(packet, "mcp.epistemics.assumptions", cycle)) is False
    assert _judge(_replace(packet, "mcp.epistemics.assumptions", deep)) is False
    assert _judge(_replace(packet, "mcp.intent.scope", cycle)) is False


# --------------------------------------------------------------------------- the fast path is taken
def test_a_valid_packet_is_decided_without_the_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    packet = _observation()

    def refuse(_: object) -> list[Any]:
        raise AssertionError("the interpreter ran")

    monkeypatch.setattr(schema, "interpret_schema", refuse)
    first = check_schema(packet)
    assert first == []
    first.append("mutated by a caller")  # each call answers a fresh list
    assert check_schema(packet) == []
    with pytest.raises(AssertionError, match="interpreter ran"):
        check_schema({**packet, "note": 1})


def test_bundled_examples() -> None:
    for path in sorted(EXAMPLES.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                packet = json.loads(line)
            except json.JSONDecodeError:
                continue
            assert _judge(packet) is (path.name != "malformed.jsonl"), f"{path.name}: {line[:60]}"


# --------------------------------------------------------------------------- the generated source
_PROVIDED = {"Decimal", "Fraction", "_compile"}
_BUILTINS_USED = {"type", "len", "str", "int", "float", "bool", "dict", "list", "frozenset", "id", "set"}


@pytest.mark.parametrize("packet_type", PACKET_TYPES)
def test_source_is_inspectable_and_self_contained(packet_type: str) -> None:
    source = schema.source_for(packet_type)
    assert source == COMPILED.source_for(packet_type) == generate_source(packet_type, PACKET_RULES[packet_type])
    tree = ast.parse(source)
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    defined = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    defined |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    local = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    local |= {a.arg for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) for a in n.args.args}
    assert loaded <= _PROVIDED | _BUILTINS_USED | defined | local
    assert set(dir(builtins)) >= _BUILTINS_USED
    assert f"def is_valid_{packet_type}(" in source
    assert "_deep_plain" not in source  # every OneOf of the tables has alternatives of distinct JSON types
    with pytest.raises(KeyError):
        schema.source_for("ThoughtPacket")


def test_unsupported_tables_are_refused_at_generation() -> None:
    with pytest.raises(ValueError, match="bound"):
        generate_source("T", Num(minimum=float("nan")))
    with pytest.raises(ValueError, match="identifier"):
        generate_source("not a name", ANY)


# --------------------------------------------------------------------------- synthetic tables
_EITHER = "either"
SYNTHETIC: dict[str, Node] = {
    "Overlapping": record(
        n=req(OneOf((Int(0, 10), Num(5, 20)), _EITHER)),
        a=req(OneOf((ANY, Str(enum=("x",))), _EITHER)),
        o=opt(OneOf((open_record(a=req(Int())), open_record(b=req(Int())), Arr(Int(), max_items=2)), _EITHER)),
        nested=opt(OneOf((Arr(Int(), max_items=2), OneOf((Str(), Num()), _EITHER), Arr(Num())), _EITHER)),
    ),
    "Bounds": open_record(
        f=opt(Num(-0.5, 2.5)),
        g=opt(Int(-3, 3)),
        h=opt(Num(float("-inf"), 1e300)),
        i=opt(Int(minimum=0.5, maximum=float("inf"))),  # type: ignore[arg-type]
        s=opt(Str(pattern="^a.c$", min_length=2, nullable=True)),
        e=opt(Str(enum=("pq", "r"), min_length=2)),
        arr=opt(Arr(Bool(), min_items=1, max_items=2)),
        closed=opt(record()),
        free=opt(open_record(min_properties=2)),
        sized=opt(open_record(min_properties=2, a=opt(Int()))),
        any_items=opt(Arr(ANY, min_items=1)),
    ),
    "Meta": Obj(record(a=req(Str()), b=opt(Int())).fields, closed=True, meta_prefix="x_"),
    "Disjoint": OneOf((record(a=req(Bool())), Arr(Str()), Str(nullable=True), Num(0, 1)), _EITHER),
    "Strings": OneOf((Str(nullable=True), Str(min_length=3)), _EITHER),  # overlap on strings, not on null
    "Flag": OneOf((Bool(), Str(enum=("yes", "no"))), _EITHER),
    "Single": OneOf((Arr(ANY),), _EITHER),
    "Anything": OneOf((ANY,), _EITHER),
    "Nested": OneOf((OneOf((Str(), Int()), _EITHER), Arr(ANY)), _EITHER),  # disjoint through the inner OneOf
}
COMPILED_SYNTHETIC = {name: compile_source(name, generate_source(name, node)) for name, node in SYNTHETIC.items()}


def _fresh(name: str) -> Predicate:
    """`name`'s predicate generated and compiled by the calling test itself, not once at import."""
    return compile_source(name, generate_source(name, SYNTHETIC[name]))


def _near(node: Node) -> st.SearchStrategy[Any]:
    """Values close to what `node` accepts (often valid, often just off), with junk mixed in."""
    junk = st.one_of(ODD_SCALARS, JUNK)
    good: st.SearchStrategy[Any]
    if isinstance(node, Str):
        good = st.one_of(
            st.sampled_from(node.enum) if node.enum else st.text(max_size=4),
            st.from_regex(node.pattern) if node.pattern else st.text(max_size=3),
            st.none() if node.nullable else st.text(min_size=node.min_length, max_size=5),
        )
    elif isinstance(node, Int | Num):
        edges = [b for b in (node.minimum, node.maximum) if b is not None]
        low = -50 if node.minimum is None or node.minimum == float("-inf") else max(int(node.minimum), -9999)
        high = 50 if node.maximum is None or node.maximum == float("inf") else min(int(node.maximum), 9999)
        ints = st.integers(low - 2, high + 2)
        odd = st.sampled_from([*edges, *map(float, edges), float("nan"), Decimal("NaN"), True])
        good = st.one_of(ints, ints.map(float), st.floats(low - 1, high + 1), ints.map(Decimal),
                         st.fractions(low - 1, high + 1), odd)
    elif isinstance(node, Bool):
        good = st.booleans()
    elif isinstance(node, AnyValue):
        good = st.one_of(JSON_VALUES, junk)
    elif isinstance(node, Arr):
        good = st.lists(_near(node.items), min_size=max(0, node.min_items - 1), max_size=(node.max_items or 3) + 1)
    elif isinstance(node, OneOf):
        good = st.one_of(*(_near(option) for option in node.options))
    else:
        assert isinstance(node, Obj)
        fields = {name: _near(spec.node) for name, spec in node.fields.items()}
        required = {name: s for name, s in fields.items() if node.fields[name].required}
        optional = {name: s for name, s in fields.items() if not node.fields[name].required}
        extra = st.dictionaries(st.sampled_from(["x_m", "zz", "a"]) | ODD_KEYS, JSON_VALUES, max_size=2)
        base = st.fixed_dictionaries(required, optional=optional)
        good = st.one_of(base, base, st.builds(lambda b, x: {**b, **x}, base, extra))
    return st.one_of(good, good, good, junk)


# Built once, not inside `flatmap` per example; and derandomized: in full-suite runs (never alone) this test now and
# then stopped on FlakyStrategyDefinition ("inconsistent data generation") rather than on a finding, on the code of
# issue 20 and 21 alike. A fixed seed keeps its 400 examples, the same ones every run.
NEAR = {name: st.tuples(st.just(name), _near(node)) for name, node in sorted(SYNTHETIC.items())}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(st.one_of(*NEAR.values()))
def test_synthetic_tables_agree_with_the_interpreter(case: tuple[str, Any]) -> None:
    name, value = case
    verdict = COMPILED_SYNTHETIC[name](value)
    assert type(verdict) is bool
    found: list[Any] = []
    try:
        schema._check(SYNTHETIC[name], value, "", found)
    except InvalidOperation:
        assert verdict is False
        return
    if _plain(value):
        assert verdict == (found == []), found
    else:
        assert not verdict or found == [], found


@pytest.mark.parametrize(
    ("name", "value", "valid"),
    [
        ("Overlapping", {"n": 3, "a": 1}, True),
        ("Overlapping", {"n": 7, "a": 1}, False),  # both alternatives hold
        ("Overlapping", {"n": 7.5, "a": 1}, True),
        ("Overlapping", {"n": 3, "a": "x"}, False),  # ANY and the enum both hold
        ("Overlapping", {"n": 3, "a": 1, "o": {"a": 1, "b": 2}}, False),  # open records: both hold
        ("Overlapping", {"n": 3, "a": 1, "o": {"a": 1}}, True),
        ("Overlapping", {"n": 3, "a": 1, "o": {"a": 1, "b": "no"}}, True),
        ("Overlapping", {"n": 3, "a": 1, "o": {"a": IntSub(1), "b": "no"}}, False),  # deferred: not plain
        ("Overlapping", {"n": 3, "a": 1, "o": {"a": IntSub(1), "b": 2}}, False),  # both hold, one unsure
        ("Overlapping", {"n": 3, "a": 1, "nested": [1, 2]}, False),  # two arrays hold
        ("Overlapping", {"n": 3, "a": 1, "nested": [1.5]}, True),
        ("Bounds", {"f": float("nan"), "h": float("-inf"), "i": 1, "s": None, "closed": {}}, True),
        ("Bounds", {"f": Decimal("2.5"), "g": -3.0, "s": "abc\n", "arr": [True], "free": {"a": 1, "b": 2}}, True),
        ("Bounds", {"f": Decimal("2.6")}, False),
        ("Bounds", {"i": 0}, False),
        ("Bounds", {"h": float("inf")}, False),
        ("Bounds", {"e": "r"}, False),
        ("Bounds", {"closed": {"x": 1}}, False),
        ("Bounds", {"sized": {"a": 1}}, False),
        ("Bounds", {"sized": {"a": 1, "b": [2]}}, True),
        ("Meta", {"a": "s", "x_note": 1, "x_": None}, True),
        ("Meta", {"a": "s", "b": True}, False),
        ("Disjoint", None, True),
        ("Disjoint", Fraction(1, 2), True),
        ("Disjoint", {"a": 1}, False),
        ("Strings", None, True),
        ("Strings", "ab", True),  # only the nullable alternative
        ("Strings", "abc", False),  # both alternatives hold
        ("Flag", True, True),
        ("Flag", "no", True),
        ("Flag", 1, False),
        ("Single", [1, "x"], True),
        ("Single", {}, False),
        ("Nested", "x", True),
        ("Nested", [None], True),
        ("Nested", 2.5, False),
    ],
)
def test_synthetic_examples(name: str, value: Any, valid: bool) -> None:
    found: list[Any] = []
    schema._check(SYNTHETIC[name], value, "", found)
    assert _fresh(name)(value) is valid
    assert COMPILED_SYNTHETIC[name](value) is valid
    if _plain(value):
        assert (found == []) is valid


@pytest.mark.parametrize("name", ["Disjoint", "Flag", "Single", "Anything", "Nested"])
def test_alternatives_of_distinct_json_types_compile_to_or_and_pass_unusual_values_they_do_not_check(
        name: str) -> None:
    """The module docstring: alternatives whose JSON types cannot overlap compile to `or`, with no plainness guard;
    a single alternative and one nested OneOf of other types are disjoint too. So an opaque value where `ANY`
    accepts it without looking (at the top, or as an `Arr(ANY)` item) passes: the interpreter reports nothing."""
    source = generate_source(name, SYNTHETIC[name])
    assert "_deep_plain" not in source
    assert " or " in source or name in ("Single", "Anything")
    if name in ("Single", "Anything", "Nested"):
        value = Opaque() if name == "Anything" else [Opaque()]
        found: list[Any] = []
        schema._check(SYNTHETIC[name], value, "", found)
        assert found == []
        assert _fresh(name)(value) is True


@pytest.mark.parametrize("name", ["Overlapping", "Strings"])
def test_overlapping_alternatives_count_their_passes_behind_the_plainness_guard(name: str) -> None:
    source = generate_source(name, SYNTHETIC[name])
    assert "def _deep_plain(" in source
    assert ") == 1)" in source


def test_compile_rules_keeps_each_types_predicate_and_its_source() -> None:
    table = record(header=req(open_record(packet_type=req(Str(enum=("Ping",))))), n=opt(Num(0, 0.5)))
    compiled = compile_rules({"Ping": table})
    assert compiled.source_for("Ping") == generate_source("Ping", table)
    assert compiled.is_valid({"header": {"packet_type": "Ping", "x": 1}, "n": Decimal("0.5")}) is True
    assert compiled.is_valid({"header": {"packet_type": "Ping"}, "n": Decimal("0.6")}) is False
    assert compiled.is_valid({"header": {"packet_type": "Ping"}, "extra": 1}) is False
    assert compiled.is_valid({"header": {"packet_type": "Pong"}}) is False
    with pytest.raises(KeyError):
        compiled.source_for("Pong")
