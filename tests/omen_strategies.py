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
"""

from __future__ import annotations

import copy
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from functools import cache
from typing import Any

from hypothesis import strategies as st

Json = Any
Packet = dict[str, Any]
Strategy = st.SearchStrategy

PACKET_TYPES = (
    "ObservationPacket",
    "BeliefUpdatePacket",
    "DecisionPacket",
    "VerificationPlanPacket",
    "ToolAuthorizationToken",
    "TaskDirectivePacket",
    "TaskResultPacket",
    "EscalationPacket",
    "IntegrityAlertPacket",
    "QueueUpdatePacket",
)
DESIGNED_TYPES = ("VerificationPlanPacket", "IntegrityAlertPacket", "QueueUpdatePacket")
PUBLISHED_TYPES = tuple(t for t in PACKET_TYPES if t not in DESIGNED_TYPES)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
ID_ALPHABET = string.ascii_letters + string.digits + "_-"


# --------------------------------------------------------------------------- the test-side spec vocabulary
@dataclass(frozen=True)
class S:
    """String: `enum`, `prefix` (pattern `^prefix[a-zA-Z0-9_-]+$`), `min_length`, `nullable`; `gen` is a
    generation hint only ("date-time", or an id prefix for strings the schema leaves unconstrained)."""

    enum: tuple[str, ...] = ()
    prefix: str | None = None
    min_length: int = 0
    nullable: bool = False
    gen: str | None = None


@dataclass(frozen=True)
class I:  # noqa: E742 - the one-letter vocabulary keeps the tables readable
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True)
class N:
    minimum: float | None = None
    maximum: float | None = None


@dataclass(frozen=True)
class B:
    pass


@dataclass(frozen=True)
class X:
    """Any JSON value."""


@dataclass(frozen=True)
class A:
    items: Any
    min_items: int = 0
    max_items: int | None = None


@dataclass(frozen=True)
class O:  # noqa: E742
    """Object: `fields` maps a name to (node, required); no fields means a free-form object."""

    fields: dict[str, tuple[Any, bool]] = field(default_factory=dict)
    closed: bool = False
    min_properties: int = 0


@dataclass(frozen=True)
class U:
    """Exactly one of several alternatives of distinct JSON types (JSON Schema `oneOf`)."""

    options: tuple[Any, ...]


@dataclass(frozen=True)
class Req:
    node: Any


def _fields(kw: dict[str, Any]) -> dict[str, tuple[Any, bool]]:
    return {k: (v.node, True) if isinstance(v, Req) else (v, False) for k, v in kw.items()}


def rec(**kw: Any) -> O:
    """A closed object; wrap required fields in `Req`."""
    return O(_fields(kw), closed=True)


def opn(**kw: Any) -> O:
    """An open object (extra keys allowed)."""
    return O(_fields(kw), closed=False)


def en(words: str) -> S:
    return S(enum=tuple(words.split()))


TEXT, NONEMPTY, TS = S(), S(min_length=1), S(gen="date-time")
PKT, TOKEN = S(prefix="pkt_"), S(prefix="token_")
PKT_REF = S(gen="pkt_")  # a packet id by convention, unconstrained by the schema
LAYER = U((I(1, 6), S(enum=("Integrity",))))
TOOLS_STATE = en("tools_ok tools_partial tools_down")
LEVEL4 = en("LOW MEDIUM HIGH CRITICAL")
TASK_CLASS = en("FIND LOOKUP SEARCH CREATE VERIFY COMPILE")
VERIFICATION_REQUIREMENT = en("OPTIONAL VERIFY_ONE VERIFY_ALL")

# --------------------------------------------------------------------------- the tables
HEADER = rec(
    packet_id=Req(PKT),
    packet_type=Req(S(enum=PACKET_TYPES)),
    created_at=Req(TS),
    layer_source=Req(LAYER),
    correlation_id=Req(S(prefix="corr_")),
    campaign_id=S(prefix="camp_"),
    previous_packet_id=PKT,
)
_STAKES = rec(
    impact=Req(LEVEL4),
    irreversibility=Req(en("REVERSIBLE PARTIAL IRREVERSIBLE")),
    uncertainty=Req(en("LOW MEDIUM HIGH")),
    adversariality=Req(en("BENIGN CONTESTED HOSTILE")),
    stakes_level=Req(LEVEL4),
)
_QUALITY = rec(
    quality_tier=Req(en("SUBPAR PAR SUPERB")),
    satisficing_mode=Req(B()),
    definition_of_done=Req(rec(text=Req(NONEMPTY), checks=Req(A(TEXT, min_items=1)))),
    verification_requirement=Req(VERIFICATION_REQUIREMENT),
)
_BUDGETS = rec(
    token_budget=Req(I(0)),
    tool_call_budget=Req(I(0)),
    time_budget_seconds=Req(I(0)),
    risk_budget=Req(rec(envelope=Req(TEXT), max_loss=Req(U((TEXT, N()))))),
)
_EPISTEMICS = rec(
    status=Req(en("OBSERVED DERIVED REMEMBERED INFERRED HYPOTHESIZED UNKNOWN")),
    confidence=Req(N(0, 1)),
    calibration_note=Req(NONEMPTY),
    freshness_class=Req(en("REALTIME OPERATIONAL STRATEGIC ARCHIVAL")),
    stale_if_older_than_seconds=I(0),
    assumptions=Req(A(TEXT)),
)
_EVIDENCE_REF = rec(
    ref_type=Req(en("tool_output user_observation memory_item derived_calc")),
    ref_id=Req(NONEMPTY),
    timestamp=Req(TS),
    reliability_score=N(0, 1),
)
MCP = rec(
    intent=Req(rec(summary=Req(NONEMPTY), scope=Req(U((TEXT, O()))))),
    stakes=Req(_STAKES),
    quality=Req(_QUALITY),
    budgets=Req(_BUDGETS),
    epistemics=Req(_EPISTEMICS),
    evidence=Req(rec(evidence_refs=Req(A(_EVIDENCE_REF)), evidence_absent_reason=S(nullable=True))),
    routing=Req(rec(task_class=Req(TASK_CLASS), tools_state=Req(TOOLS_STATE))),
)

BELIEF_CHANGE = opn(
    domain=Req(TEXT), key=Req(TEXT), new_value=Req(X()), prior_value=Req(X()), epistemic_upgrade=B()
)
ESCALATION_OPTION = opn(
    option_id=Req(TEXT), description=Req(TEXT), pros=Req(A(TEXT)), cons=Req(A(TEXT)), risk_summary=TEXT
)
EVIDENCE_GAP = opn(gap=Req(TEXT), impact_if_unknown=Req(TEXT), verification_method=TEXT)
COST = opn(time_seconds=I(), tokens=I(), tool_calls=I())

PAYLOADS: dict[str, O] = {
    "ObservationPacket": rec(
        observation_type=Req(
            en("tool_output user_input system_telemetry character_state market_signal intel_update")
        ),
        data=Req(O(min_properties=1)),
        source_tool=TEXT,
        query_params=O(),
        reliability_metadata=opn(tool_success=B(), latency_ms=N(0), partial_result=B()),
    ),
    "BeliefUpdatePacket": rec(
        update_type=Req(
            en("new_belief revision contradiction_resolved confidence_adjustment staleness_refresh")
        ),
        belief_changes=Req(A(BELIEF_CHANGE, min_items=1)),
        evidence_integration=A(PKT_REF),
        contradiction_details=opn(
            conflicting_packet_ids=A(PKT_REF),
            resolution_method=en("prefer_fresh prefer_higher_reliability escalated manual_override"),
        ),
    ),
    "DecisionPacket": rec(
        decision_outcome=Req(en("VERIFY_FIRST ACT ESCALATE DEFER CANCEL")),
        decision_summary=Req(NONEMPTY),
        chosen_option=opn(option_id=TEXT, description=TEXT, expected_value=N(), risk_profile=TEXT),
        rejected_alternatives=A(opn(option_id=TEXT, rejection_reason=TEXT)),
        constraints_satisfied=Req(
            opn(
                constitutional_check=Req(B()),
                budget_check=Req(B()),
                tier_check=Req(B()),
                verification_check=B(),
            )
        ),
        load_bearing_assumptions=A(
            opn(assumption=Req(TEXT), verified=Req(B()), verification_packet_id=PKT_REF)
        ),
        failure_modes=A(opn(mode=TEXT, mitigation=TEXT)),
    ),
    "VerificationPlanPacket": rec(
        plan_id=Req(S(prefix="plan_")),
        verification_requirement=Req(VERIFICATION_REQUIREMENT),
        verification_targets=Req(
            A(
                opn(
                    assumption=Req(NONEMPTY),
                    method=Req(en("tool_read user_query computation memory_lookup")),
                    success_criteria=Req(NONEMPTY),
                    tool_id=TEXT,
                    load_bearing=B(),
                ),
                min_items=1,
            )
        ),
        decision_packet_id=PKT,
        max_tool_calls=I(0),
        deadline_seconds=I(1),
    ),
    "ToolAuthorizationToken": rec(
        token_id=Req(TOKEN),
        authorized_scope=Req(
            opn(
                tool_ids=Req(A(TEXT, min_items=1)),
                operation_types=Req(A(en("read write delete modify"), min_items=1)),
                resource_constraints=O(),
            )
        ),
        expiry=Req(TS),
        max_usage_count=Req(I(1)),
        usage_count=I(0),
        issuer_layer=Req(LAYER),
        revoked=B(),
        rationale=NONEMPTY,
    ),
    "TaskDirectivePacket": rec(
        task_id=Req(S(prefix="task_")),
        task_type=Req(en("tool_read tool_write computation verification memory_lookup")),
        execution_method=Req(
            opn(
                method=Req(en("tool code llm_call memory_query")),
                tool_id=TEXT,
                tool_params=O(),
                code_ref=TEXT,
                code_params=O(),
            )
        ),
        tool_safety_class=en("READ WRITE MIXED"),
        authorization_token_id=TOKEN,
        timeout_seconds=I(1),
        retry_policy=opn(max_retries=I(0), backoff_multiplier=N(1)),
    ),
    "TaskResultPacket": rec(
        task_id=Req(S(prefix="task_")),
        directive_packet_id=Req(PKT),
        result_status=Req(en("SUCCESS FAILURE CANCELLED")),
        result_data=X(),
        error_details=opn(error_code=TEXT, error_message=TEXT, is_transient=B(), retry_recommended=B()),
        execution_metadata=opn(
            execution_time_ms=N(0), tokens_used=I(0), tool_calls_used=I(0), retry_count=I(0)
        ),
        observation_packet_id=PKT,
    ),
    "EscalationPacket": rec(
        escalation_trigger=Req(
            en(
                "high_stakes_high_uncertainty constitutional_boundary contradiction_unresolved"
                " budget_insufficient tools_degraded_critical user_override_required"
            )
        ),
        top_options=Req(A(ESCALATION_OPTION, min_items=2, max_items=3)),
        evidence_gaps=Req(A(EVIDENCE_GAP, min_items=1)),
        recommended_next_step=Req(opn(step=Req(TEXT), rationale=Req(TEXT), estimated_cost=COST)),
        blocking_decision_packet_id=PKT,
    ),
    "IntegrityAlertPacket": rec(
        alert_type=Req(
            en(
                "budget_overrun tool_degradation contradiction_detected drift_detected token_revocation"
                " constitutional_violation rate_limit safe_mode_entry safe_mode_clear override"
            )
        ),
        severity=Req(en("INFO WARNING CRITICAL")),
        description=Req(NONEMPTY),
        action_taken=en(
            "none token_revoked safe_mode_entered safe_mode_cleared execution_refused escalated"
            " budget_override_approved"
        ),
        revoked_token_ids=A(TOKEN),
        affected_packet_ids=A(PKT),
        override_rationale=NONEMPTY,
        tools_state=TOOLS_STATE,
        metrics=O(),
    ),
    "QueueUpdatePacket": rec(
        queue_id=Req(NONEMPTY),
        operation=Req(en("enqueue dequeue reprioritize complete drop")),
        item=Req(
            opn(
                item_id=Req(NONEMPTY),
                item_type=Req(en("task compile_request verification review")),
                priority=I(0, 10),
                description=TEXT,
            )
        ),
        queue_depth=I(0),
        reason=TEXT,
    ),
}
SPECS: dict[str, O] = {t: rec(header=Req(HEADER), mcp=Req(MCP), payload=Req(p)) for t, p in PAYLOADS.items()}
"""Whole-packet specs (PacketBase also admits top-level keys starting with `_`)."""

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
