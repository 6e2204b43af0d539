"""Hypothesis strategies for OMEN v0.7 packets: valid packets of all ten types, and broken variants.

One test-side table (`SPECS`) describes every packet type, transcribed from the published JSON Schemas
(`spec/omen/schema-v0.7/`) and `docs/omen-extra-packets.md` independently of
`omega.packets.schema_rules`, so tests comparing the two catch a slip in either. The table drives both
generation and mutation.

* `valid_packet(packet_type, full=False)` / `valid_packets(types)`: JSON-Schema-valid packets with
  realistic ids, ISO-8601 timestamps with offsets, optional fields sometimes present (all of them with
  `full=True`), free-form objects holding nested JSON values, unicode text, ints and floats both in
  number fields, extra keys where objects are open, `_`-prefixed top-level metadata. Valid in
  *structure* only: context rules (a token for WRITE, error_details on FAILURE, ...) and episode order
  are not respected.
* `mutations(packet, kinds)`: one targeted break (`Mutation.kind`; `Mutation.field`, the dotted path
  the one resulting violation must name; `Mutation.packet`, the broken copy).
* `equivalent_variants(packet)`: rewrites that must stay valid (3.0 for 3 in an integer field, extra
  keys where objects are open, `_` metadata, a null `evidence_absent_reason`).
* `accepted_breaks(packet, kinds)` / `accepted_sites` / `accepted_changes`: the mutation kinds applied
  where the spec leaves them open (`Accepted`; the packet must stay valid). The designed payloads
  (docs/omen-extra-packets.md) are open, so most of what a closed design rejected there is accepted:
  an extra key, an off-suggestion value, a dropped field other than `severity`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from functools import cache
from typing import Any

from hypothesis import strategies as st

from tests.omen_spec import (
    HEADER,
    ID_ALPHABET,
    INT64_MAX,
    INT64_MIN,
    MCP,
    PACKET_TYPES,
    PAYLOADS,
    SPECS,
    A,
    B,
    I,
    N,
    O,
    S,
    U,
    X,
)

Json = Any
Packet = dict[str, Any]
Strategy = st.SearchStrategy


# --------------------------------------------------------------------------- leaf strategies
_PHRASES = (
    "Verify the load-bearing assumption with one tool read",
    "local threat level",
    "market price of Tritanium in Jita",
    "Have at least one fresh observation for the key unknown",
    "fresh evidence collected",
    "Überprüfung der Annahme",
    "確認済み",
)
_OFFSETS = (UTC, *(timezone(timedelta(minutes=m)) for m in (-300, -210, 0, 330, 540, 840)))


def texts(*, min_size: int = 0) -> Strategy[str]:
    """Unicode text (no surrogates), mixed with realistic phrases."""
    return st.one_of(st.sampled_from(_PHRASES), st.text(min_size=min_size, max_size=30))


def ids(prefix: str) -> Strategy[str]:
    """Identifiers matching `^<prefix>[a-zA-Z0-9_-]+$`."""
    tail = st.one_of(
        st.integers(0, 999_999).map(lambda n: f"{n:04d}"),
        st.text(ID_ALPHABET, min_size=1, max_size=24),
        st.uuids().map(lambda u: u.hex[:12]),
    )
    return tail.map(lambda t: prefix + t)


def _render(moment: datetime, style: str) -> str:
    if style == "Z" and moment.utcoffset() == timedelta(0):
        return moment.isoformat(timespec="seconds").replace("+00:00", "Z")
    return moment.isoformat(timespec="milliseconds" if style == "ms" else "seconds")


def timestamps() -> Strategy[str]:
    """ISO-8601 / RFC 3339 date-times with an explicit offset (or Z)."""
    moments = st.datetimes(datetime(2020, 1, 1), datetime(2035, 12, 31), timezones=st.sampled_from(_OFFSETS))
    return st.builds(_render, moments, st.sampled_from(("s", "ms", "Z")))


def ints(min_value: int | None = None, max_value: int | None = None) -> Strategy[int]:
    """Integers, mostly small, sometimes anywhere in the signed 64-bit range."""
    low = INT64_MIN if min_value is None else min_value
    high = INT64_MAX if max_value is None else max_value
    start = max(low, -1000)
    return st.one_of(st.integers(start, min(high, start + 10_000)), st.integers(low, high))


def numbers(min_value: float | None = None, max_value: float | None = None) -> Strategy[int | float]:
    """JSON numbers: ints and finite floats both."""
    low = None if min_value is None else int(-(-min_value // 1))
    high = None if max_value is None else int(max_value // 1)
    return st.one_of(ints(low, high), st.floats(min_value, max_value, allow_nan=False, allow_infinity=False))


JSON_SCALARS: Strategy[Json] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(INT64_MIN, INT64_MAX),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=16),
)
JSON_VALUES: Strategy[Json] = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def json_objects(*, min_size: int = 0) -> Strategy[dict[str, Json]]:
    """Free-form JSON objects with nested values."""
    return st.dictionaries(st.text(max_size=12), JSON_VALUES, min_size=min_size, max_size=4)


_EXTRAS = st.dictionaries(ids("ext_"), JSON_VALUES, max_size=2)
_METADATA = st.dictionaries(st.sampled_from(("_validation_notes", "_source")), JSON_VALUES, max_size=2)


# --------------------------------------------------------------------------- generation from the tables
def _strategy(node: Any, full: bool) -> Strategy[Any]:
    if isinstance(node, S):
        if node.enum:
            return st.sampled_from(node.enum)
        if node.prefix or (node.gen and node.gen != "date-time"):
            return ids(node.prefix or node.gen or "")
        if node.suggest:  # suggested values most of the time, but any string is valid
            suggested = st.sampled_from(node.suggest)
            return st.one_of(suggested, suggested, texts(min_size=node.min_length))
        base = timestamps() if node.gen == "date-time" else texts(min_size=node.min_length)
        return st.one_of(st.none(), base) if node.nullable else base
    if isinstance(node, I):
        return ints(node.minimum, node.maximum)
    if isinstance(node, N):
        return numbers(node.minimum, node.maximum)
    if isinstance(node, B):
        return st.booleans()
    if isinstance(node, X):
        return JSON_VALUES
    if isinstance(node, A):
        low = max(node.min_items, 1 if full else 0)
        return st.lists(_strategy(node.items, full), min_size=low, max_size=node.max_items or max(low, 3))
    if isinstance(node, U):
        return st.one_of(*(_strategy(option, full) for option in node.options))
    assert isinstance(node, O)
    if not node.fields:
        return json_objects(min_size=node.min_properties)
    required = {k: _strategy(n, full) for k, (n, req) in node.fields.items() if req or full}
    optional = {k: _strategy(n, full) for k, (n, req) in node.fields.items() if not (req or full)}
    base = st.fixed_dictionaries(required, optional=optional)
    return base if node.closed else st.builds(lambda b, x: {**b, **x}, base, _EXTRAS)


@cache
def valid_packet(packet_type: str, *, full: bool = False) -> Strategy[Packet]:
    """JSON-Schema-valid packets of one type (`full`: every optional field present, arrays non-empty)."""
    header = _strategy(HEADER, full).map(lambda h: {**h, "packet_type": packet_type})
    body = st.fixed_dictionaries(
        {"header": header, "mcp": _strategy(MCP, full), "payload": _strategy(PAYLOADS[packet_type], full)}
    )
    return st.builds(lambda p, meta: {**p, **meta}, body, _METADATA)


def valid_packets(types: tuple[str, ...] = PACKET_TYPES) -> Strategy[Packet]:
    """JSON-Schema-valid packets of the given types (all ten by default)."""
    return st.sampled_from(types).flatmap(valid_packet)


# --------------------------------------------------------------------------- paths
_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _steps(path: str) -> list[str | int]:
    return [name if name else int(index) for name, index in _STEP.findall(path)]


def _walk(value: Json, node: Any, path: str, required: bool) -> Iterator[tuple[str, Any, bool]]:
    """(concrete path, spec node, required) for `value` and everything under it that the spec covers."""
    yield path, node, required
    if isinstance(node, O) and isinstance(value, dict):
        for name, (child, req) in node.fields.items():
            if name in value:
                yield from _walk(value[name], child, f"{path}.{name}" if path else name, req)
    elif isinstance(node, A) and isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, node.items, f"{path}[{index}]", False)
    elif isinstance(node, U):
        for option in node.options:
            if isinstance(option, O) and isinstance(value, dict):
                yield from list(_walk(value, option, path, required))[1:]


def get_at(packet: Packet, path: str) -> Json:
    """The value at a concrete dotted path ("" is the packet itself)."""
    node: Any = packet
    for step in _steps(path):
        node = node[step]
    return node


def _parent(packet: Packet, path: str) -> tuple[Any, str | int]:
    *head, last = _steps(path)
    node: Any = packet
    for step in head:
        node = node[step]
    return node, last


# --------------------------------------------------------------------------- mutations
@dataclass(frozen=True)
class Mutation:
    """One targeted break: the violation must name `field` (None: the packet as a whole)."""

    kind: str
    field: str | None
    packet: Packet
    detail: str


MUTATION_KINDS = (
    "drop_required",
    "wrong_type",
    "bad_enum",
    "bad_pattern",
    "out_of_range",
    "empty_string",
    "empty_array",
    "empty_object",
    "extra_property",
)
EXTRA_KEY = "unexpected_field"
_TYPE_POOL: tuple[Json, ...] = (None, True, False, 0, 7, -1, 2.5, "text", "", [], ["x"], {}, {"k": 1})


def accepts_type(node: Any, value: Json) -> bool:
    """Whether `value` has a JSON type the spec node admits (JSON Schema semantics: 3.0 is an integer)."""
    is_num = isinstance(value, int | float) and not isinstance(value, bool)
    if isinstance(node, S):
        return isinstance(value, str) or (node.nullable and value is None)
    if isinstance(node, U):
        return any(accepts_type(option, value) for option in node.options)
    kinds = {I: is_num and float(value).is_integer(), N: is_num, B: isinstance(value, bool), X: True}
    kinds.update({A: isinstance(value, list), O: isinstance(value, dict)})
    return kinds[type(node)]


def _leaves(node: Any) -> tuple[Any, ...]:
    return node.options if isinstance(node, U) else (node,)


def _bad_values(kind: str, node: Any, current: Json) -> list[Json]:
    leaves = _leaves(node)
    if kind == "wrong_type":
        return [v for v in _TYPE_POOL if not accepts_type(node, v)]
    if kind == "bad_enum":
        enum = next(leaf.enum for leaf in leaves if isinstance(leaf, S) and leaf.enum)
        pool = ["", "unknown", enum[0].lower(), f"{enum[0].upper()}_X", f"{enum[0]} "]
        return [v for v in pool if v not in enum]
    if kind == "bad_pattern":
        p = node.prefix
        return ["", p, f"{p}has space", f"{p.upper()}1", f"x{p}1", f"{p}1!", f"{p}ü", f"{p.rstrip('_')}-1"]
    if kind == "out_of_range":
        if isinstance(node, A):
            bad = [[current[0]] * (node.max_items + 1)] if node.max_items is not None else []
            return bad + ([current[: node.min_items - 1]] if node.min_items > 1 else [])
        rng = next(leaf for leaf in leaves if isinstance(leaf, I | N))
        step = 1 if isinstance(rng, I) else 0.25
        return [m - step for m in (rng.minimum,) if m is not None] + [
            m + step for m in (rng.maximum,) if m is not None
        ]
    return {"empty_string": [""], "empty_array": [[]], "empty_object": [{}]}[kind]


def _applies(kind: str, node: Any, required: bool, current: Json) -> bool:
    leaves = _leaves(node)
    ranged = any(isinstance(leaf, I | N) and (leaf.minimum, leaf.maximum) != (None, None) for leaf in leaves)
    if isinstance(node, A):
        ranged = (node.max_items is not None or node.min_items > 1) and bool(current)
    return {
        "drop_required": required,
        "wrong_type": not isinstance(node, X),
        "bad_enum": any(isinstance(leaf, S) and leaf.enum for leaf in leaves),
        "bad_pattern": isinstance(node, S) and node.prefix is not None,
        "out_of_range": ranged,
        "empty_string": isinstance(node, S) and node.min_length >= 1,
        "empty_array": isinstance(node, A) and node.min_items >= 1,
        "empty_object": isinstance(node, O) and node.min_properties >= 1,
        "extra_property": isinstance(node, O) and node.closed,
    }[kind]


Kinds = tuple[str, ...]


def mutation_sites(packet: Packet, kinds: Kinds = MUTATION_KINDS, under: str = "") -> list[tuple[str, str]]:
    """Every (kind, concrete path) a mutation can hit in `packet` (a valid packet), in table order."""
    spec = SPECS[packet["header"]["packet_type"]]
    return [
        (kind, path)
        for path, node, required in _walk(packet, spec, "", False)
        if path.startswith(under)
        for kind in kinds
        if (path or kind == "extra_property") and _applies(kind, node, required, get_at(packet, path))
    ]


def _mutate(packet: Packet, kind: str, path: str, bad: Json) -> Mutation:
    broken = copy.deepcopy(packet)
    if kind == "extra_property":
        get_at(broken, path)[EXTRA_KEY] = "surprise"
        name = f"{path}.{EXTRA_KEY}" if path else EXTRA_KEY
        return Mutation(kind, name, broken, f"added {name}")
    parent, last = _parent(broken, path)
    if kind == "drop_required":
        del parent[last]
        return Mutation(kind, path, broken, f"dropped {path}")
    parent[last] = copy.deepcopy(bad)
    return Mutation(kind, path, broken, f"set {path} to {bad!r}")


def _node_at(packet: Packet, path: str) -> Any:
    spec = SPECS[packet["header"]["packet_type"]]
    return next(node for p, node, _ in _walk(packet, spec, "", False) if p == path)


def mutations(packet: Packet, kinds: Kinds = MUTATION_KINDS, under: str = "") -> Strategy[Mutation]:
    """One break of `packet` (a valid packet), of one of `kinds` (each applicable kind equally likely),
    at a path starting with `under`. Each break makes exactly one field invalid; when nothing
    applies the strategy is `st.nothing()`."""
    by_kind: dict[str, list[tuple[str, str]]] = {}
    for site in mutation_sites(packet, kinds, under):
        by_kind.setdefault(site[0], []).append(site)
    if not by_kind:
        return st.nothing()

    def at_site(site: tuple[str, str]) -> Strategy[Mutation]:
        kind, path = site
        if kind in ("drop_required", "extra_property"):
            return st.just(_mutate(packet, kind, path, None))
        values = _bad_values(kind, _node_at(packet, path), get_at(packet, path))
        return st.sampled_from(values).map(lambda bad: _mutate(packet, kind, path, bad))

    kind_first = st.sampled_from(sorted(by_kind, key=MUTATION_KINDS.index))  # every kind equally likely
    return kind_first.flatmap(lambda kind: st.sampled_from(by_kind[kind])).flatmap(at_site)


def mutated_packets(types: Kinds = PACKET_TYPES, kinds: Kinds = MUTATION_KINDS) -> Strategy[Mutation]:
    """Broken variants of generated packets of the given types."""
    return valid_packets(types).flatmap(lambda p: mutations(p, kinds))


# --------------------------------------------------------------------------- breaks an open contract accepts
@dataclass(frozen=True)
class Accepted:
    """A change a closed, constrained reading would reject but the spec accepts: `packet` must stay valid.
    `kind` is the mutation kind it mirrors, `path` where it was made."""

    kind: str
    path: str
    packet: Packet
    detail: str


_OFF_SUGGESTION = ("", "unknown", " ")
_UNBOUNDED_INTS = (-1, 0, 11, INT64_MIN, INT64_MAX)


def _accepted_values(kind: str, node: Any) -> list[Json]:
    if kind == "wrong_type":  # any JSON value
        return list(_TYPE_POOL)
    if kind == "bad_enum":
        first = node.suggest[0]
        pool = [*_OFF_SUGGESTION, first.lower(), first.upper(), f"{first.upper()}_X", f"{first} "]
        values = [v for v in pool if v not in node.suggest]
    elif kind == "bad_pattern":
        p = node.gen
        values = ["", p, f"{p}has space", f"{p.upper()}1", f"x{p}1", f"{p}1!", f"{p}ü", "no prefix"]
    elif kind == "out_of_range":
        return list(_UNBOUNDED_INTS) if isinstance(node, I) else [-1.5, 0, 11, 1e300]
    else:
        empties: dict[str, list[Json]] = {"empty_string": [""], "empty_array": [[]], "empty_object": [{}]}
        return empties[kind]
    return [v for v in values if len(v) >= node.min_length]


def _has_required(node: O) -> bool:
    return any(required for _, required in node.fields.values())


def _accepts(kind: str, node: Any, required: bool, path: str) -> bool:
    """Whether the spec leaves open what mutation `kind` would break at `node`."""
    loose_string = isinstance(node, S) and not node.enum and node.prefix is None
    return {
        "drop_required": not required and not path.endswith("]"),  # an optional member of an object
        "wrong_type": isinstance(node, X),
        "bad_enum": loose_string and bool(node.suggest),
        "bad_pattern": loose_string and node.gen not in (None, "date-time"),
        "out_of_range": isinstance(node, I | N) and (node.minimum, node.maximum) == (None, None),
        "empty_string": loose_string and node.min_length == 0,
        "empty_array": isinstance(node, A) and node.min_items == 0,
        "empty_object": isinstance(node, O) and node.min_properties == 0 and not _has_required(node),
        "extra_property": isinstance(node, O) and not node.closed,
    }[kind]


def accepted_sites(packet: Packet, kinds: Kinds = MUTATION_KINDS, under: str = "") -> list[tuple[str, str]]:
    """Every (kind, concrete path) in `packet` (a valid packet) where the spec accepts what `kind` breaks
    elsewhere: an optional field dropped, an off-suggestion value where a string only has suggested values,
    an id-like string without its prefix, any integer where none is bounded, an empty string / array / object
    where none is required to be non-empty, any value where any JSON value goes, an extra key in an open
    object."""
    spec = SPECS[packet["header"]["packet_type"]]
    return [
        (kind, path)
        for path, node, required in _walk(packet, spec, "", False)
        if path and path.startswith(under)
        for kind in kinds
        if _accepts(kind, node, required, path)
    ]


def accepted_changes(packet: Packet, kind: str, path: str) -> list[Accepted]:
    """Every change of `kind` at `path` (a site of `accepted_sites`), one per value."""
    if kind in ("drop_required", "extra_property"):
        values: list[Json] = [None]
    else:
        values = _accepted_values(kind, _node_at(packet, path))
    out = []
    for value in values:
        m = _mutate(packet, kind, path, value)
        out.append(Accepted(kind, path, m.packet, m.detail))
    return out


def accepted_breaks(packet: Packet, kinds: Kinds = MUTATION_KINDS, under: str = "") -> Strategy[Accepted]:
    """One change of `packet` (a valid packet) of one of `kinds` that the spec accepts (each applicable kind
    equally likely), at a path starting with `under`; `st.nothing()` when there is none."""
    by_kind: dict[str, list[tuple[str, str]]] = {}
    for site in accepted_sites(packet, kinds, under):
        by_kind.setdefault(site[0], []).append(site)
    if not by_kind:
        return st.nothing()
    kind_first = st.sampled_from(sorted(by_kind, key=MUTATION_KINDS.index))
    sites = kind_first.flatmap(lambda kind: st.sampled_from(by_kind[kind]))
    return sites.flatmap(lambda site: st.sampled_from(accepted_changes(packet, *site)))


# --------------------------------------------------------------------------- still-valid rewrites
def equivalent_variants(packet: Packet) -> Strategy[Packet]:
    """A rewrite of `packet` that every JSON Schema validator must still accept."""
    rewrites: list[tuple[str, str]] = [("meta", ""), ("absent_reason_null", "mcp.evidence")]
    for path, node, _ in _walk(packet, SPECS[packet["header"]["packet_type"]], "", False):
        value = get_at(packet, path)
        is_int = isinstance(value, int) and not isinstance(value, bool)
        if any(isinstance(leaf, I) for leaf in _leaves(node)) and is_int and abs(value) < 2**53:
            rewrites.append(("integral_float", path))
        if any(isinstance(leaf, O) and not leaf.closed for leaf in _leaves(node)) and isinstance(value, dict):
            rewrites.append(("open_extra", path))

    def apply(rewrite: tuple[str, str], extra: Json) -> Packet:
        kind, path = rewrite
        out = copy.deepcopy(packet)
        target = get_at(out, path)
        if kind == "meta":
            out["_omega_note"] = extra
        elif kind == "absent_reason_null":
            target["evidence_absent_reason"] = None
        elif kind == "integral_float":
            parent, last = _parent(out, path)
            parent[last] = float(target)
        else:
            target["ext_added"] = extra
        return out

    return st.builds(apply, st.sampled_from(rewrites), JSON_VALUES)


def object_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every JSON object in `value` (the packet itself included), depth first: where a test may add a key."""
    found: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        found.append(path)
        for key, child in value.items():
            found.extend(object_paths(child, (*path, key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found.extend(object_paths(child, (*path, index)))
    return found


def value_at(value: Any, path: tuple[Any, ...]) -> Any:
    """The value at `path` (keys and indexes) inside `value`."""
    for step in path:
        value = value[step]
    return value
