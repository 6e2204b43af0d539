"""The structural rules of OMEN v0.7 packets, written as data.

Each record is a small field-spec table (`record(...)` / `open_record(...)` of `req(...)` and `opt(...)`
fields, the vocabulary of `omega.packets.schema_vocabulary`); `omega.packets.schema` walks these tables with
one interpreter. The tables transcribe the published JSON Schemas in `spec/omen/schema-v0.7/` (header, MCP,
seven payloads) and, for the three types without a published schema (VerificationPlanPacket,
IntegrityAlertPacket, QueueUpdatePacket), `docs/omen-extra-packets.md`. Keep the two in step: a change here is
a change of the contract.

Closedness follows the JSON Schemas: the header, every MCP object and every payload are closed
(`additionalProperties: false`); objects nested inside a payload are open unless a schema closes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from omega.packets.schema_vocabulary import (
    AnyValue,
    Arr,
    Bool,
    Int,
    Num,
    Obj,
    OneOf,
    Str,
    choice,
    ident,
    open_record,
    opt,
    record,
    req,
)

# --------------------------------------------------------------------------- shared leaves
TEXT = Str()
NONEMPTY = Str(min_length=1)
BOOL = Bool()
ANY = AnyValue()
FREE_OBJECT = open_record()
TEXT_LIST = Arr(TEXT)
DATE_TIME = Str()  # `format: date-time` is an annotation only (draft 2020-12 default): not asserted
PKT_ID = ident("pkt_")
TOKEN_ID = ident("token_")
LAYER = OneOf((Int(1, 6), choice("Integrity")), 'an integer 1..6 or "Integrity"')
TOOLS_STATE = choice("tools_ok tools_partial tools_down")
VERIFICATION_REQUIREMENT = choice("OPTIONAL VERIFY_ONE VERIFY_ALL")
LEVEL4 = choice("LOW MEDIUM HIGH CRITICAL")

# --------------------------------------------------------------------------- MCP envelope
EVIDENCE_REF = record(
    ref_type=req(choice("tool_output user_observation memory_item derived_calc")),
    ref_id=req(NONEMPTY),
    timestamp=req(DATE_TIME),
    reliability_score=opt(Num(0, 1)),
)

MCP = record(
    intent=req(record(summary=req(NONEMPTY), scope=req(OneOf((TEXT, FREE_OBJECT), "a string or an object")))),
    stakes=req(
        record(
            impact=req(LEVEL4),
            irreversibility=req(choice("REVERSIBLE PARTIAL IRREVERSIBLE")),
            uncertainty=req(choice("LOW MEDIUM HIGH")),
            adversariality=req(choice("BENIGN CONTESTED HOSTILE")),
            stakes_level=req(LEVEL4),
        )
    ),
    quality=req(
        record(
            quality_tier=req(choice("SUBPAR PAR SUPERB")),
            satisficing_mode=req(BOOL),
            definition_of_done=req(record(text=req(NONEMPTY), checks=req(Arr(TEXT, min_items=1)))),
            verification_requirement=req(VERIFICATION_REQUIREMENT),
        )
    ),
    budgets=req(
        record(
            token_budget=req(Int(minimum=0)),
            tool_call_budget=req(Int(minimum=0)),
            time_budget_seconds=req(Int(minimum=0)),
            risk_budget=req(
                record(envelope=req(TEXT), max_loss=req(OneOf((TEXT, Num()), "a string or a number")))
            ),
        )
    ),
    epistemics=req(
        record(
            status=req(choice("OBSERVED DERIVED REMEMBERED INFERRED HYPOTHESIZED UNKNOWN")),
            confidence=req(Num(0, 1)),
            calibration_note=req(NONEMPTY),
            freshness_class=req(choice("REALTIME OPERATIONAL STRATEGIC ARCHIVAL")),
            stale_if_older_than_seconds=opt(Int(minimum=0)),
            assumptions=req(TEXT_LIST),
        )
    ),
    evidence=req(
        record(evidence_refs=req(Arr(EVIDENCE_REF)), evidence_absent_reason=opt(Str(nullable=True)))
    ),
    routing=req(
        record(
            task_class=req(choice("FIND LOOKUP SEARCH CREATE VERIFY COMPILE")),
            tools_state=req(TOOLS_STATE),
        )
    ),
)

# --------------------------------------------------------------------------- published payloads
OBSERVATION = record(
    observation_type=req(
        choice("tool_output user_input system_telemetry character_state market_signal intel_update")
    ),
    data=req(open_record(min_properties=1)),
    source_tool=opt(TEXT),
    query_params=opt(FREE_OBJECT),
    reliability_metadata=opt(
        open_record(tool_success=opt(BOOL), latency_ms=opt(Num(minimum=0)), partial_result=opt(BOOL))
    ),
)

BELIEF_CHANGE = open_record(
    domain=req(TEXT), key=req(TEXT), new_value=req(ANY), prior_value=req(ANY), epistemic_upgrade=opt(BOOL)
)
BELIEF_UPDATE = record(
    update_type=req(
        choice("new_belief revision contradiction_resolved confidence_adjustment staleness_refresh")
    ),
    belief_changes=req(Arr(BELIEF_CHANGE, min_items=1)),
    evidence_integration=opt(TEXT_LIST),
    contradiction_details=opt(
        open_record(
            conflicting_packet_ids=opt(TEXT_LIST),
            resolution_method=opt(choice("prefer_fresh prefer_higher_reliability escalated manual_override")),
        )
    ),
)

DECISION = record(
    decision_outcome=req(choice("VERIFY_FIRST ACT ESCALATE DEFER CANCEL")),
    decision_summary=req(NONEMPTY),
    chosen_option=opt(
        open_record(
            option_id=opt(TEXT), description=opt(TEXT), expected_value=opt(Num()), risk_profile=opt(TEXT)
        )
    ),
    rejected_alternatives=opt(Arr(open_record(option_id=opt(TEXT), rejection_reason=opt(TEXT)))),
    constraints_satisfied=req(
        open_record(
            constitutional_check=req(BOOL),
            budget_check=req(BOOL),
            tier_check=req(BOOL),
            verification_check=opt(BOOL),
        )
    ),
    load_bearing_assumptions=opt(
        Arr(open_record(assumption=req(TEXT), verified=req(BOOL), verification_packet_id=opt(TEXT)))
    ),
    failure_modes=opt(Arr(open_record(mode=opt(TEXT), mitigation=opt(TEXT)))),
)

TOOL_AUTHORIZATION = record(
    token_id=req(TOKEN_ID),
    authorized_scope=req(
        open_record(
            tool_ids=req(Arr(TEXT, min_items=1)),
            operation_types=req(Arr(choice("read write delete modify"), min_items=1)),
            resource_constraints=opt(FREE_OBJECT),
        )
    ),
    expiry=req(DATE_TIME),
    max_usage_count=req(Int(minimum=1)),
    usage_count=opt(Int(minimum=0)),
    issuer_layer=req(LAYER),
    revoked=opt(BOOL),
    rationale=opt(NONEMPTY),
)

TASK_DIRECTIVE = record(
    task_id=req(ident("task_")),
    task_type=req(choice("tool_read tool_write computation verification memory_lookup")),
    execution_method=req(
        open_record(
            method=req(choice("tool code llm_call memory_query")),
            tool_id=opt(TEXT),
            tool_params=opt(FREE_OBJECT),
            code_ref=opt(TEXT),
            code_params=opt(FREE_OBJECT),
        )
    ),
    tool_safety_class=opt(choice("READ WRITE MIXED")),
    authorization_token_id=opt(TOKEN_ID),
    timeout_seconds=opt(Int(minimum=1)),
    retry_policy=opt(open_record(max_retries=opt(Int(minimum=0)), backoff_multiplier=opt(Num(minimum=1)))),
)

TASK_RESULT = record(
    task_id=req(ident("task_")),
    directive_packet_id=req(PKT_ID),
    result_status=req(choice("SUCCESS FAILURE CANCELLED")),
    result_data=opt(ANY),
    error_details=opt(
        open_record(
            error_code=opt(TEXT), error_message=opt(TEXT), is_transient=opt(BOOL), retry_recommended=opt(BOOL)
        )
    ),
    execution_metadata=opt(
        open_record(
            execution_time_ms=opt(Num(minimum=0)),
            tokens_used=opt(Int(minimum=0)),
            tool_calls_used=opt(Int(minimum=0)),
            retry_count=opt(Int(minimum=0)),
        )
    ),
    observation_packet_id=opt(PKT_ID),
)

ESCALATION_OPTION = open_record(
    option_id=req(TEXT),
    description=req(TEXT),
    pros=req(TEXT_LIST),
    cons=req(TEXT_LIST),
    risk_summary=opt(TEXT),
)
EVIDENCE_GAP = open_record(gap=req(TEXT), impact_if_unknown=req(TEXT), verification_method=opt(TEXT))
COST = open_record(time_seconds=opt(Int()), tokens=opt(Int()), tool_calls=opt(Int()))
ESCALATION = record(
    escalation_trigger=req(
        choice(
            "high_stakes_high_uncertainty constitutional_boundary contradiction_unresolved"
            " budget_insufficient tools_degraded_critical user_override_required"
        )
    ),
    top_options=req(Arr(ESCALATION_OPTION, min_items=2, max_items=3)),
    evidence_gaps=req(Arr(EVIDENCE_GAP, min_items=1)),
    recommended_next_step=req(open_record(step=req(TEXT), rationale=req(TEXT), estimated_cost=opt(COST))),
    blocking_decision_packet_id=opt(PKT_ID),
)

# --------------------------------------------------------------------------- designed payloads
# docs/omen-extra-packets.md. v0.7 publishes no schema for these three, so their payloads are open: only the
# fields the validator reads are required (an IntegrityAlertPacket's `severity`: CRITICAL enters safe mode),
# the named fields keep the JSON types the Avro contract gives them, and any other key is accepted (and kept,
# in `extras`). A closed payload here rejected a CRITICAL alert with one extra field, and the episode carried
# on: fail-open on the safety path.
VERIFICATION_TARGET = open_record(
    assumption=opt(TEXT),
    method=opt(TEXT),
    success_criteria=opt(TEXT),
    tool_id=opt(TEXT),
    load_bearing=opt(BOOL),
)
VERIFICATION_PLAN = open_record(
    plan_id=opt(TEXT),
    verification_requirement=opt(TEXT),
    verification_targets=opt(Arr(VERIFICATION_TARGET)),
    decision_packet_id=opt(TEXT),
    max_tool_calls=opt(Int()),
    deadline_seconds=opt(Int()),
)

INTEGRITY_ALERT = open_record(
    alert_type=opt(TEXT),
    severity=req(NONEMPTY),
    description=opt(TEXT),
    action_taken=opt(TEXT),
    revoked_token_ids=opt(Arr(TEXT)),
    affected_packet_ids=opt(Arr(TEXT)),
    override_rationale=opt(TEXT),
    tools_state=opt(TEXT),
    metrics=opt(ANY),
)

QUEUE_UPDATE = open_record(
    queue_id=opt(TEXT),
    operation=opt(TEXT),
    item=opt(open_record(item_id=opt(TEXT), item_type=opt(TEXT), priority=opt(Int()), description=opt(TEXT))),
    queue_depth=opt(Int()),
    reason=opt(TEXT),
)

PAYLOADS: Mapping[str, Obj] = MappingProxyType(
    {
        "ObservationPacket": OBSERVATION,
        "BeliefUpdatePacket": BELIEF_UPDATE,
        "DecisionPacket": DECISION,
        "VerificationPlanPacket": VERIFICATION_PLAN,
        "ToolAuthorizationToken": TOOL_AUTHORIZATION,
        "TaskDirectivePacket": TASK_DIRECTIVE,
        "TaskResultPacket": TASK_RESULT,
        "EscalationPacket": ESCALATION,
        "IntegrityAlertPacket": INTEGRITY_ALERT,
        "QueueUpdatePacket": QUEUE_UPDATE,
    }
)
"""The payload rules of each packet type, in the order of OMEN.md §9.3."""

PACKET_TYPES: tuple[str, ...] = tuple(PAYLOADS)
"""The ten canonical packet types, in the order of OMEN.md §9.3."""

# --------------------------------------------------------------------------- header (PacketHeader)
HEADER = record(
    packet_id=req(PKT_ID),
    packet_type=req(Str(enum=PACKET_TYPES)),
    created_at=req(DATE_TIME),
    layer_source=req(LAYER),
    correlation_id=req(ident("corr_")),
    campaign_id=opt(ident("camp_")),
    previous_packet_id=opt(PKT_ID),
)
