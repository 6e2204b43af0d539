"""The payloads of the three packet types v0.7 publishes no schema for (docs/omen-extra-packets.md).

The payloads and their nested objects are open, and only an IntegrityAlertPacket's `severity` is required,
as the validator has them. Where the page *suggests* a vocabulary or an id pattern, the kit enforces it, so
a producer emits the canonical words (the validator reads `severity` and `alert_type` case-insensitively; the
kit writes them as the page does). Unknown keys remain possible: pass them as extra keyword arguments.
"""

from __future__ import annotations

from typing import Literal

from omega.producer.types import (
    Json,
    Open,
    PacketId,
    PlanId,
    TokenId,
    ToolsState,
    VerificationRequirement,
)


class VerificationTarget(Open):
    """One load-bearing assumption to check, and how."""

    assumption: str | None = None
    method: Literal["tool_read", "user_query", "computation", "memory_lookup"] | None = None
    success_criteria: str | None = None
    tool_id: str | None = None
    load_bearing: bool | None = None


class VerificationPlanPayload(Open):
    """What a VERIFY_FIRST decision will verify, how, and by when."""

    plan_id: PlanId | None = None
    verification_requirement: VerificationRequirement | None = None
    verification_targets: list[VerificationTarget] | None = None
    decision_packet_id: PacketId | None = None
    max_tool_calls: int | None = None
    deadline_seconds: int | None = None


class IntegrityAlertPayload(Open):
    """An Integrity overlay alert: CRITICAL enters safe mode, `alert_type` safe_mode_clear leaves it."""

    alert_type: Literal[
        "budget_overrun", "tool_degradation", "contradiction_detected", "drift_detected", "token_revocation",
        "constitutional_violation", "rate_limit", "safe_mode_entry", "safe_mode_clear", "override"] | None = None
    severity: Literal["INFO", "WARNING", "CRITICAL"]
    description: str | None = None
    action_taken: Literal[
        "none", "token_revoked", "safe_mode_entered", "safe_mode_cleared", "execution_refused", "escalated",
        "budget_override_approved"] | None = None
    revoked_token_ids: list[TokenId] | None = None
    affected_packet_ids: list[PacketId] | None = None
    override_rationale: str | None = None
    tools_state: ToolsState | None = None
    metrics: Json | None = None


class QueueItem(Open):
    """One backlog item."""

    item_id: str | None = None
    item_type: Literal["task", "compile_request", "verification", "review"] | None = None
    priority: int | None = None
    description: str | None = None


class QueueUpdatePayload(Open):
    """A backlog change (outside the cognition loop: the FSM does not move)."""

    queue_id: str | None = None
    operation: Literal["enqueue", "dequeue", "reprioritize", "complete", "drop"] | None = None
    item: QueueItem | None = None
    queue_depth: int | None = None
    reason: str | None = None
