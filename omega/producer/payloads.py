"""The payloads of the seven packet types with a published schema (spec/omen/schema-v0.7/packets/).

Each payload is closed, as its schema is; objects nested in a payload are open where the schema leaves them
open (unknown keys kept). Required fields have no default; optional ones default to None and are not written.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AwareDatetime, Field

from omega.producer.types import (
    Closed,
    Json,
    JsonObject,
    Layer,
    NonEmptyStr,
    NonNegativeInt,
    NonNegativeNumber,
    Open,
    PacketId,
    TaskId,
    TokenId,
)


# --------------------------------------------------------------------------- ObservationPacket
class ReliabilityMetadata(Open):
    """How the observing tool call went."""

    tool_success: bool | None = None
    latency_ms: NonNegativeNumber | None = None
    partial_result: bool | None = None


class ObservationPayload(Closed):
    """A sensor, tool or user observation."""

    observation_type: Literal[
        "tool_output", "user_input", "system_telemetry", "character_state", "market_signal", "intel_update"]
    data: Annotated[JsonObject, Field(min_length=1)]
    source_tool: str | None = None
    query_params: JsonObject | None = None
    reliability_metadata: ReliabilityMetadata | None = None


# --------------------------------------------------------------------------- BeliefUpdatePacket
class BeliefChange(Open):
    """One belief changed: where, which, from what to what; `prior_value=None` is written as null, the schema
    index's "Previous state (null if new)": a required value, not an absent one."""

    domain: str
    key: str
    new_value: Json | None
    prior_value: Json | None
    epistemic_upgrade: bool | None = None


class ContradictionDetails(Open):
    """The packets that disagreed and how the disagreement was resolved."""

    conflicting_packet_ids: list[str] | None = None
    resolution_method: Literal[
        "prefer_fresh", "prefer_higher_reliability", "escalated", "manual_override"] | None = None


class BeliefUpdatePayload(Closed):
    """A revision of the world model."""

    update_type: Literal[
        "new_belief", "revision", "contradiction_resolved", "confidence_adjustment", "staleness_refresh"]
    belief_changes: Annotated[list[BeliefChange], Field(min_length=1)]
    evidence_integration: list[str] | None = None
    contradiction_details: ContradictionDetails | None = None


# --------------------------------------------------------------------------- DecisionPacket
class ChosenOption(Open):
    """The option the decision took."""

    option_id: str | None = None
    description: str | None = None
    expected_value: float | None = None
    risk_profile: str | None = None


class RejectedAlternative(Open):
    """An option considered and not taken."""

    option_id: str | None = None
    rejection_reason: str | None = None


class ConstraintsSatisfied(Open):
    """The three-stage gate: Layer 1 veto, budget feasibility, tier (and optionally verification)."""

    constitutional_check: bool
    budget_check: bool
    tier_check: bool
    verification_check: bool | None = None


class LoadBearingAssumption(Open):
    """An assumption that, if false, flips the decision."""

    assumption: str
    verified: bool
    verification_packet_id: str | None = None


class FailureMode(Open):
    """A known risk and its mitigation."""

    mode: str | None = None
    mitigation: str | None = None


class DecisionPayload(Closed):
    """A Layer 5 decision. `constraints_satisfied` is required (DecisionPacket.schema.json), though OMEN.md
    §15.2's example omits it."""

    decision_outcome: Literal["VERIFY_FIRST", "ACT", "ESCALATE", "DEFER", "CANCEL"]
    decision_summary: NonEmptyStr
    chosen_option: ChosenOption | None = None
    rejected_alternatives: list[RejectedAlternative] | None = None
    constraints_satisfied: ConstraintsSatisfied
    load_bearing_assumptions: list[LoadBearingAssumption] | None = None
    failure_modes: list[FailureMode] | None = None


# --------------------------------------------------------------------------- ToolAuthorizationToken
class AuthorizedScope(Open):
    """What a token permits."""

    tool_ids: Annotated[list[str], Field(min_length=1)]
    operation_types: Annotated[list[Literal["read", "write", "delete", "modify"]], Field(min_length=1)]
    resource_constraints: JsonObject | None = None


class ToolAuthorizationPayload(Closed):
    """A token for WRITE/MIXED tool use. `usage_count` and `revoked` have schema defaults (0, false) the kit
    never writes for you: leave them out, or state them."""

    token_id: TokenId
    authorized_scope: AuthorizedScope
    expiry: AwareDatetime
    max_usage_count: Annotated[int, Field(ge=1)]
    usage_count: NonNegativeInt | None = None
    issuer_layer: Layer
    revoked: bool | None = None
    rationale: NonEmptyStr | None = None


# --------------------------------------------------------------------------- TaskDirectivePacket
class ExecutionMethod(Open):
    """How the task is executed: a tool call, code, an LLM call or a memory query."""

    method: Literal["tool", "code", "llm_call", "memory_query"]
    tool_id: str | None = None
    tool_params: JsonObject | None = None
    code_ref: str | None = None
    code_params: JsonObject | None = None


class RetryPolicy(Open):
    """How often, and how much slower, a failed attempt is retried."""

    max_retries: NonNegativeInt | None = None
    backoff_multiplier: Annotated[float, Field(ge=1)] | None = None


class TaskDirectivePayload(Closed):
    """A directive to execute one task."""

    task_id: TaskId
    task_type: Literal["tool_read", "tool_write", "computation", "verification", "memory_lookup"]
    execution_method: ExecutionMethod
    tool_safety_class: Literal["READ", "WRITE", "MIXED"] | None = None
    authorization_token_id: TokenId | None = None
    timeout_seconds: Annotated[int, Field(ge=1)] | None = None
    retry_policy: RetryPolicy | None = None


# --------------------------------------------------------------------------- TaskResultPacket
class ErrorDetails(Open):
    """Why a task failed."""

    error_code: str | None = None
    error_message: str | None = None
    is_transient: bool | None = None
    retry_recommended: bool | None = None


class ExecutionMetadata(Open):
    """What the execution used (the episode ledger sums it against the budgets)."""

    execution_time_ms: NonNegativeNumber | None = None
    tokens_used: NonNegativeInt | None = None
    tool_calls_used: NonNegativeInt | None = None
    retry_count: NonNegativeInt | None = None


class TaskResultPayload(Closed):
    """The outcome of one directive."""

    task_id: TaskId
    directive_packet_id: PacketId
    result_status: Literal["SUCCESS", "FAILURE", "CANCELLED"]
    result_data: Json | None = None
    error_details: ErrorDetails | None = None
    execution_metadata: ExecutionMetadata | None = None
    observation_packet_id: PacketId | None = None


# --------------------------------------------------------------------------- EscalationPacket
class EscalationOption(Open):
    """One option presented to the human or Layer 1."""

    option_id: str
    description: str
    pros: list[str]
    cons: list[str]
    risk_summary: str | None = None


class EvidenceGap(Open):
    """Something unknown that matters."""

    gap: str
    impact_if_unknown: str
    verification_method: str | None = None


class EstimatedCost(Open):
    """What the recommended step would cost."""

    time_seconds: int | None = None
    tokens: int | None = None
    tool_calls: int | None = None


class NextStep(Open):
    """The recommended next step and why."""

    step: str
    rationale: str
    estimated_cost: EstimatedCost | None = None


class EscalationPayload(Closed):
    """A request for a human or Layer 1 decision: 2-3 options, the gaps, a recommendation."""

    escalation_trigger: Literal[
        "high_stakes_high_uncertainty", "constitutional_boundary", "contradiction_unresolved",
        "budget_insufficient", "tools_degraded_critical", "user_override_required"]
    top_options: Annotated[list[EscalationOption], Field(min_length=2, max_length=3)]
    evidence_gaps: Annotated[list[EvidenceGap], Field(min_length=1)]
    recommended_next_step: NextStep
    blocking_decision_packet_id: PacketId | None = None
