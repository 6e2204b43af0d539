"""Test-side shorthands over the producer kit: the MCP values the spec's examples use, and `Steps`, one
`Episode` whose packets are written in one line each. Every value comes from OMEN.md (§9.2, §15.2, §15.3) or is
chosen by hand as the conformance fixtures (tests/conformance/omen/packets.py) choose it.

Time is event time: `at(seconds)` is T0 + seconds, T0 = 2025-12-21T11:30:00-05:00, so that §15.2's decision
(11:32:00-05:00) sits at T0 + 120 s. The episode's clock is injected: `Steps` sets it before each packet.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

from omega.packets.authenticity import AuthPolicy
from omega.producer import Episode
from omega.producer.designed import IntegrityAlertPayload, VerificationPlanPayload, VerificationTarget
from omega.producer.mcp import (
    Budgets,
    DefinitionOfDone,
    Epistemics,
    Evidence,
    EvidenceRef,
    Intent,
    Quality,
    RiskBudget,
    Routing,
    Stakes,
)
from omega.producer.packets import PacketModel
from omega.producer.payloads import (
    AuthorizedScope,
    BeliefChange,
    BeliefUpdatePayload,
    ConstraintsSatisfied,
    DecisionPayload,
    EscalationOption,
    EscalationPayload,
    EvidenceGap,
    ExecutionMetadata,
    ExecutionMethod,
    NextStep,
    ObservationPayload,
    ReliabilityMetadata,
    RetryPolicy,
    TaskDirectivePayload,
    TaskResultPayload,
    ToolAuthorizationPayload,
)

T0 = datetime(2025, 12, 21, 11, 30, tzinfo=timezone(timedelta(hours=-5)))


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def ref(ref_type: str, ref_id: str, t: float, reliability: float | None = 0.9) -> EvidenceRef:
    return EvidenceRef(ref_type=ref_type, ref_id=ref_id, timestamp=at(t),
                       reliability_score=reliability)


def stakes(impact: str, irreversibility: str, uncertainty: str, adversariality: str, level: str) -> Stakes:
    return Stakes(impact=impact, irreversibility=irreversibility, uncertainty=uncertainty,
                  adversariality=adversariality, stakes_level=level)


# INV-012: every level justified by its axes (CONTESTED counts as high)
LOW = stakes("LOW", "REVERSIBLE", "LOW", "BENIGN", "LOW")
MEDIUM = stakes("MEDIUM", "PARTIAL", "LOW", "BENIGN", "MEDIUM")
MEDIUM_UNCERTAIN = stakes("MEDIUM", "PARTIAL", "HIGH", "BENIGN", "MEDIUM")
CANONICAL_MEDIUM = stakes("MEDIUM", "REVERSIBLE", "HIGH", "CONTESTED", "MEDIUM")  # §15.2
HIGH = stakes("HIGH", "PARTIAL", "HIGH", "BENIGN", "HIGH")
HOSTILE_HIGH = stakes("HIGH", "PARTIAL", "HIGH", "HOSTILE", "HIGH")

CANONICAL_BUDGETS = Budgets(token_budget=900, tool_call_budget=2, time_budget_seconds=90,
                            risk_budget=RiskBudget(envelope="low", max_loss="small"))  # §15.2
ALL_CHECKS = ConstraintsSatisfied(constitutional_check=True, budget_check=True, tier_check=True,
                                  verification_check=True)


def quality(tier: str = "PAR", *, dod: str = "The step's outcome is recorded",
            checks: Sequence[str] = ("outcome recorded",), verification: str = "VERIFY_ONE") -> Quality:
    return Quality(quality_tier=tier, satisficing_mode=True,
                   definition_of_done=DefinitionOfDone(text=dod, checks=list(checks)),
                   verification_requirement=verification)


def epistemics(status: str, confidence: float, note: str, freshness: str = "OPERATIONAL", stale: int | None = 1800,
               assumptions: Sequence[str] = ()) -> Epistemics:
    return Epistemics(status=status, confidence=confidence, calibration_note=note,
                      freshness_class=freshness, stale_if_older_than_seconds=stale, assumptions=list(assumptions))


def routing(task_class: str, tools: str = "tools_ok") -> Routing:
    return Routing(task_class=task_class, tools_state=tools)


OPTIONS = (
    EscalationOption(option_id="opt_hold", description="Hold position and wait for a fresh intel read",
                     pros=["no exposure"], cons=["opportunity window may close"], risk_summary="low risk"),
    EscalationOption(option_id="opt_proceed", description="Proceed on the last known picture",
                     pros=["captures the window"], cons=["acts on stale intel"], risk_summary="possible ship loss"),
    EscalationOption(option_id="opt_reroute", description="Take the longer, safer route",
                     pros=["avoids the contested gate"], cons=["adds 12 jumps"], risk_summary="time cost only"),
)
GAPS = (EvidenceGap(gap="Current hostile count in the target system", impact_if_unknown="could lose the hauler"),)
NEXT = NextStep(step="Ask the pilot for a d-scan of the gate", rationale="the only live source while tools are down")


class Steps:
    """One kit `Episode` (its clock set by each call's `t`) and one-line packets in the fixtures' style."""

    def __init__(self, correlation_id: str, *, stakes: Stakes = MEDIUM, tier: str = "PAR", tools: str = "tools_ok",
                 budgets: Budgets = CANONICAL_BUDGETS, campaign: str | None = None,
                 signing: AuthPolicy | None = None) -> None:
        self.now = T0
        self.tools = tools
        self.episode = Episode(correlation_id, layer_source=5, clock=lambda: self.now, stakes=stakes,
                               quality=quality(tier), budgets=budgets, routing=routing("LOOKUP", tools),
                               campaign_id=campaign, signing=signing)

    def _at(self, t: float) -> None:
        self.now = at(t)

    @property
    def packets(self) -> list[dict[str, Any]]:
        return self.episode.to_json()

    def observation(self, t: float, *, source: str = "tool_output", tool: str = "esi_local_intel",
                    data: dict[str, Any] | None = None, kind: str = "intel_update", **ctx: Any) -> PacketModel:
        """An OBSERVED observation grounded in its own read (a tool output, or a user report)."""
        self._at(t)
        from_tool = source == "tool_output"
        payload = ObservationPayload(
            observation_type=kind if from_tool else "user_input",
            data=data or {"system": "Tama", "hostiles_in_local": 2},
            source_tool=tool if from_tool else None, query_params={"system": "Tama"} if from_tool else None,
            reliability_metadata=ReliabilityMetadata(tool_success=True, latency_ms=180, partial_result=False)
            if from_tool else None)
        kind_of = "tool" if from_tool else "user"
        context: dict[str, Any] = {
            "intent": Intent(summary="Record the intel clue", scope="intel_update"),
            "epistemics": epistemics("OBSERVED", 0.9, "Fresh read" if from_tool else "Pilot report", "REALTIME"),
            "evidence": Evidence.of(ref(source, f"{kind_of}://obs/{t}", t)), "layer_source": 6,
            "routing": routing("LOOKUP", self.tools), **ctx}
        return self.episode.observation(payload, **context)

    def belief(self, t: float, *, refs: Sequence[EvidenceRef], cites: Sequence[str] = (),
               update_type: str = "revision", change: BeliefChange | None = None, **ctx: Any) -> PacketModel:
        self._at(t)
        payload = BeliefUpdatePayload(
            update_type=update_type,
            belief_changes=[change or BeliefChange(domain="threats", key="local_threat_level", new_value="low",
                                                   prior_value="unknown", epistemic_upgrade=bool(cites))],
            evidence_integration=list(cites) or None)
        context: dict[str, Any] = {
            "intent": Intent(summary="Refresh the threat model", scope="intel_update"),
            "epistemics": epistemics("INFERRED", 0.7, "Inferred from the cited live evidence",
                                     assumptions=["Intel channel reports are current"]),
            "evidence": Evidence.of(*refs), "routing": routing("LOOKUP", self.tools), **ctx}
        return self.episode.belief_update(payload, **context)

    def decision(self, t: float, *, outcome: str, refs: Sequence[EvidenceRef], text: str = "Proceed as planned.",
                 extra: dict[str, Any] | None = None, **ctx: Any) -> PacketModel:
        self._at(t)
        payload = DecisionPayload(decision_outcome=outcome, decision_summary=text,
                                  constraints_satisfied=ALL_CHECKS, **(extra or {}))
        context: dict[str, Any] = {
            "intent": Intent(summary=f"Decide: {outcome}", scope="intel_update"),
            "epistemics": epistemics("INFERRED", 0.75, "Grounded in the cited live evidence",
                                     assumptions=["Local threat level is low enough to proceed"]),
            "evidence": Evidence.of(*refs),
            "routing": routing("VERIFY" if outcome == "VERIFY_FIRST" else "CREATE", self.tools), **ctx}
        return self.episode.decision(payload, **context)

    def plan(self, t: float, *, decision_id: str, refs: Sequence[EvidenceRef]) -> PacketModel:
        self._at(t)
        payload = VerificationPlanPayload(
            plan_id="plan_verify_local", verification_requirement="VERIFY_ONE", decision_packet_id=decision_id,
            verification_targets=[VerificationTarget(
                assumption="Local threat level is low enough to proceed", method="tool_read",
                success_criteria="fresh local count read", tool_id="esi_local_intel", load_bearing=True)],
            max_tool_calls=1, deadline_seconds=90)
        return self.episode.verification_plan(
            payload, intent=Intent(summary="Plan the verification read", scope="intel_update"),
            epistemics=epistemics("INFERRED", 0.6, "Planning the check"), evidence=Evidence.of(*refs),
            layer_source=4, routing=routing("VERIFY", self.tools))

    def token(self, t: float, *, token_id: str, expiry_t: float, refs: Sequence[EvidenceRef],
              tool: str = "esi_market_order", max_usage: int = 1) -> PacketModel:
        self._at(t)
        payload = ToolAuthorizationPayload(
            token_id=token_id, expiry=at(expiry_t), max_usage_count=max_usage, usage_count=0, issuer_layer=1,
            revoked=False, rationale="Layer 1 authorizes bounded market orders",
            authorized_scope=AuthorizedScope(tool_ids=[tool], operation_types=["write"],
                                             resource_constraints={"max_quantity": 10}))
        return self.episode.tool_authorization(
            payload, intent=Intent(summary="Authorize the market order", scope="market"),
            epistemics=epistemics("INFERRED", 0.8, "Within the standing policy"), evidence=Evidence.of(*refs),
            layer_source=1, routing=routing("CREATE", self.tools))

    def directive(self, t: float, *, task_id: str, refs: Sequence[EvidenceRef], tool: str = "esi_local_intel",
                  safety: str = "READ", token_id: str | None = None, params: dict[str, Any] | None = None,
                  task_class: str = "VERIFY") -> PacketModel:
        self._at(t)
        payload = TaskDirectivePayload(
            task_id=task_id, task_type="tool_read" if safety == "READ" else "tool_write",
            execution_method=ExecutionMethod(method="tool", tool_id=tool, tool_params=params or {"system": "Tama"}),
            tool_safety_class=safety, authorization_token_id=token_id,
            timeout_seconds=30, retry_policy=RetryPolicy(max_retries=1, backoff_multiplier=2))
        return self.episode.task_directive(
            payload, intent=Intent(summary=f"Execute {task_id}", scope="intel_update"),
            epistemics=epistemics("INFERRED", 0.75, "Grounded in the cited live evidence"),
            evidence=Evidence.of(*refs), routing=routing(task_class, self.tools))

    def result(self, t: float, *, task_id: str, directive_id: str, tokens: int = 120, calls: int = 1,
               task_class: str = "VERIFY") -> PacketModel:
        self._at(t)
        payload = TaskResultPayload(
            task_id=task_id, directive_packet_id=directive_id, result_status="SUCCESS",
            result_data={"system": "Tama", "hostiles_in_local": 0},
            execution_metadata=ExecutionMetadata(execution_time_ms=1500, tokens_used=tokens, tool_calls_used=calls,
                                                 retry_count=0))
        return self.episode.task_result(
            payload, intent=Intent(summary=f"Report {task_id}", scope="intel_update"),
            epistemics=epistemics("OBSERVED", 0.95, "Direct tool output", "REALTIME"),
            evidence=Evidence.of(ref("tool_output", f"tool://{task_id}", t, 0.95)), layer_source=6,
            routing=routing(task_class, self.tools))

    def escalation(self, t: float, *, trigger: str, refs: Sequence[EvidenceRef], blocking: str,
                   options: Sequence[EscalationOption] = OPTIONS[:2]) -> PacketModel:
        self._at(t)
        payload = EscalationPayload(escalation_trigger=trigger, top_options=list(options),
                                    evidence_gaps=list(GAPS), recommended_next_step=NEXT,
                                    blocking_decision_packet_id=blocking)
        return self.episode.escalation(
            payload, intent=Intent(summary="Escalate to the pilot", scope="intel_update"),
            epistemics=epistemics("INFERRED", 0.5, "Options with their gaps"), evidence=Evidence.of(*refs),
            routing=routing("VERIFY", self.tools))

    def alert(self, t: float, *, severity: str, alert_type: str, action: str) -> PacketModel:
        self._at(t)
        payload = IntegrityAlertPayload(severity=severity, alert_type=alert_type,
                                        description="Integrity overlay notice", action_taken=action)
        return self.episode.integrity_alert(
            payload, intent=Intent(summary="Integrity overlay notice", scope="integrity"),
            epistemics=epistemics("OBSERVED", 0.95, "Overlay telemetry", "REALTIME"),
            evidence=Evidence.of(ref("tool_output", f"integrity://{t}", t)), layer_source="Integrity")
