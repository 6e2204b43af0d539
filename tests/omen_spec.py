"""The test-side description of OMEN v0.7 packets, transcribed from the published JSON Schemas and
docs/omen-extra-packets.md independently of `omega.packets.schema_rules`, so tests comparing the two
catch a slip in either (that independence is why the two tables look alike). Drives tests/omen_strategies.

The published payloads are closed; the three designed ones (VerificationPlanPacket, IntegrityAlertPacket,
QueueUpdatePacket) are open, requiring only an IntegrityAlertPacket's `severity`.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any

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
    """String: `enum`, `prefix` (pattern `^prefix[a-zA-Z0-9_-]+$`), `min_length`, `nullable`; `gen` and
    `suggest` are generation hints only: `gen` is "date-time", or an id prefix for strings the schema leaves
    unconstrained; `suggest` lists the values a document suggests for a string it does not constrain."""

    enum: tuple[str, ...] = ()
    prefix: str | None = None
    min_length: int = 0
    nullable: bool = False
    gen: str | None = None
    suggest: tuple[str, ...] = ()


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


def hint(words: str, *, min_length: int = 0) -> S:
    """A string that is not an enum; `words` are its suggested values (a generation hint)."""
    return S(min_length=min_length, suggest=tuple(words.split()))


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

# --------------------------------------------------------------------------- the designed payloads
# docs/omen-extra-packets.md: v0.7 publishes no schema for these three, so their payloads are open. Required
# is only what the validator reads (an IntegrityAlertPacket's `severity`, a non-empty string); every named
# field keeps the plain JSON type of its Avro field (schemas_avro/omega.omen.*Payload, VerificationTarget,
# QueueItem): strings with no enum / pattern / minLength, integers with no bounds, `metrics` any JSON value;
# nested objects are open with every field optional. The enums, id patterns and ranges the doc lists are
# *suggestions*: they appear below only as generation hints (`S.suggest`, `S.gen`), never as constraints.
VERIFICATION_TARGET = opn(
    assumption=TEXT,
    method=hint("tool_read user_query computation memory_lookup"),
    success_criteria=TEXT,
    tool_id=TEXT,
    load_bearing=B(),
)
VERIFICATION_PLAN = opn(
    plan_id=S(gen="plan_"),
    verification_requirement=hint("OPTIONAL VERIFY_ONE VERIFY_ALL"),
    verification_targets=A(VERIFICATION_TARGET),
    decision_packet_id=PKT_REF,
    max_tool_calls=I(),
    deadline_seconds=I(),
)
INTEGRITY_ALERT = opn(
    alert_type=hint(
        "budget_overrun tool_degradation contradiction_detected drift_detected token_revocation"
        " constitutional_violation rate_limit safe_mode_entry safe_mode_clear override"
    ),
    severity=Req(hint("INFO WARNING CRITICAL", min_length=1)),
    description=TEXT,
    action_taken=hint(
        "none token_revoked safe_mode_entered safe_mode_cleared execution_refused escalated"
        " budget_override_approved"
    ),
    revoked_token_ids=A(S(gen="token_")),
    affected_packet_ids=A(PKT_REF),
    override_rationale=TEXT,
    tools_state=hint("tools_ok tools_partial tools_down"),
    metrics=X(),
)
QUEUE_UPDATE = opn(
    queue_id=TEXT,
    operation=hint("enqueue dequeue reprioritize complete drop"),
    item=opn(item_id=TEXT, item_type=hint("task compile_request verification review"), priority=I(), description=TEXT),
    queue_depth=I(),
    reason=TEXT,
)

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
    "VerificationPlanPacket": VERIFICATION_PLAN,
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
    "IntegrityAlertPacket": INTEGRITY_ALERT,
    "QueueUpdatePacket": QUEUE_UPDATE,
}
SPECS: dict[str, O] = {t: rec(header=Req(HEADER), mcp=Req(MCP), payload=Req(p)) for t, p in PAYLOADS.items()}
"""Whole-packet specs (PacketBase also admits top-level keys starting with `_`)."""
