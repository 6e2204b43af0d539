"""Packet builders for the OMEN v0.7 conformance suite.

Every builder returns a complete packet: header (OMEN.md §9.1, PacketHeader.schema.json), the full MCP
envelope (§9.2, MCP.schema.json) and a payload carrying the required fields of its published schema (or of
docs/omen-extra-packets.md for the three designed types). Defaults describe a valid, grounded packet;
keyword arguments override single MCP fields so a test can change exactly what it is about.

Time is event time: `at(seconds)` is T0 + seconds, T0 = 2025-12-21T11:30:00-05:00, so that the §15.2
canonical DecisionPacket (created 11:32:00-05:00) sits at T0 + 120 s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from types import MappingProxyType
from typing import Any

Packet = dict[str, Any]

T0 = datetime(2025, 12, 21, 11, 30, tzinfo=timezone(timedelta(hours=-5)))


def at(seconds: float) -> str:
    """ISO 8601 timestamp T0 + `seconds`, in the -05:00 offset of the §15.2 example."""
    return (T0 + timedelta(seconds=seconds)).isoformat()


def seconds_of(timestamp: str) -> float:
    """The inverse of `at`."""
    return (datetime.fromisoformat(timestamp) - T0).total_seconds()


def ref(ref_type: str, ref_id: str, t: float, reliability: float | None = 0.9) -> dict[str, Any]:
    """One evidence ref (§8.1 "evidence_refs[] with {ref_type, ref_id, timestamp, optional reliability_score}")."""
    out: dict[str, Any] = {"ref_type": ref_type, "ref_id": ref_id, "timestamp": at(t)}
    if reliability is not None:
        out["reliability_score"] = reliability
    return out


def stakes(impact: str, irreversibility: str, uncertainty: str, adversariality: str,
           level: str) -> Mapping[str, str]:
    """An `mcp.stakes` object (read-only: the presets are shared)."""
    return MappingProxyType({"impact": impact, "irreversibility": irreversibility, "uncertainty": uncertainty,
                             "adversariality": adversariality, "stakes_level": level})


# INV-012: LOW = all axes LOW (REVERSIBLE / BENIGN are the low ends); MEDIUM = an axis MEDIUM or HIGH;
# HIGH = two axes HIGH (impact and uncertainty, whatever reading of the other two axes).
LOW = stakes("LOW", "REVERSIBLE", "LOW", "BENIGN", "LOW")
MEDIUM = stakes("MEDIUM", "PARTIAL", "LOW", "BENIGN", "MEDIUM")
MEDIUM_UNCERTAIN = stakes("MEDIUM", "PARTIAL", "HIGH", "BENIGN", "MEDIUM")
CANONICAL_MEDIUM = stakes("MEDIUM", "REVERSIBLE", "HIGH", "CONTESTED", "MEDIUM")  # §15.2 verbatim
HIGH = stakes("HIGH", "PARTIAL", "HIGH", "BENIGN", "HIGH")
HOSTILE_HIGH = stakes("HIGH", "PARTIAL", "HIGH", "HOSTILE", "HIGH")


def budgets(tokens: int = 900, calls: int = 2, seconds: int = 90, envelope: str = "low",
            max_loss: str | float = "small") -> Mapping[str, Any]:
    """An `mcp.budgets` object; the defaults are those of the §15.2 canonical decision."""
    return MappingProxyType({"token_budget": tokens, "tool_call_budget": calls, "time_budget_seconds": seconds,
                             "risk_budget": MappingProxyType({"envelope": envelope, "max_loss": max_loss})})


def plain(value: Any) -> Any:
    """`value` with every mapping turned into a plain dict (packets must be JSON data)."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


BUDGETS = budgets()
ALL_CHECKS_PASSED = MappingProxyType({"constitutional_check": True, "budget_check": True, "tier_check": True,
                                      "verification_check": True})


def mcp(*, summary: str, scope: str | Mapping[str, Any] = "intel_update", stakes: Mapping[str, str] = MEDIUM,
        tier: str = "PAR", satisficing: bool = True, dod: str = "The step's outcome is recorded",
        checks: Sequence[str] = ("outcome recorded",), verification: str = "VERIFY_ONE",
        budgets: Mapping[str, Any] = BUDGETS, status: str = "OBSERVED", confidence: float = 0.8,
        note: str = "Grounded in a recent tool read", freshness: str = "OPERATIONAL", stale: int | None = 1800,
        assumptions: Sequence[str] = (), refs: Sequence[Mapping[str, Any]] = (), absent: str | None = None,
        task_class: str = "LOOKUP", tools: str = "tools_ok") -> dict[str, Any]:
    """A fully populated MCP envelope (every field INV-001 lists)."""
    epistemics: dict[str, Any] = {"status": status, "confidence": confidence, "calibration_note": note,
                                  "freshness_class": freshness, "assumptions": list(assumptions)}
    if stale is not None:
        epistemics["stale_if_older_than_seconds"] = stale
    evidence: dict[str, Any] = {"evidence_refs": [dict(r) for r in refs]}
    if absent is not None:
        evidence["evidence_absent_reason"] = absent
    return {
        "intent": {"summary": summary, "scope": scope if isinstance(scope, str) else dict(scope)},
        "stakes": dict(stakes),
        "quality": {"quality_tier": tier, "satisficing_mode": satisficing,
                    "definition_of_done": {"text": dod, "checks": list(checks)},
                    "verification_requirement": verification},
        "budgets": plain(budgets),
        "epistemics": epistemics,
        "evidence": evidence,
        "routing": {"task_class": task_class, "tools_state": tools},
    }


OPTIONS = (
    {"option_id": "opt_hold", "description": "Hold position and wait for a fresh intel read",
     "pros": ["no exposure"], "cons": ["opportunity window may close"], "risk_summary": "low risk, some regret"},
    {"option_id": "opt_proceed", "description": "Proceed on the last known picture",
     "pros": ["captures the window"], "cons": ["acts on stale intel"], "risk_summary": "possible ship loss"},
    {"option_id": "opt_reroute", "description": "Take the longer, safer route",
     "pros": ["avoids the contested gate"], "cons": ["adds 12 jumps"], "risk_summary": "time cost only"},
)
GAPS = ({"gap": "Current hostile count in the target system", "impact_if_unknown": "could lose the hauler",
         "verification_method": "local intel tool read once tools recover"},)
NEXT_STEP = {"step": "Ask the pilot for a d-scan of the gate", "rationale": "the only live source while tools are down",
             "estimated_cost": {"time_seconds": 60, "tokens": 200, "tool_calls": 0}}


@dataclass(frozen=True)
class Ep:
    """The builders of one episode: the correlation id and the MCP defaults its packets share."""

    corr: str
    stakes: Mapping[str, str] = field(default_factory=lambda: MEDIUM)
    tier: str = "PAR"
    tools: str = "tools_ok"
    budgets: Mapping[str, Any] = field(default_factory=lambda: BUDGETS)
    campaign: str | None = None

    def packet(self, kind: str, pid: str, t: float, layer: int | str, payload: Mapping[str, Any],
               **mcp_kw: Any) -> Packet:
        header: dict[str, Any] = {"packet_id": pid, "packet_type": kind, "created_at": at(t),
                                  "layer_source": layer, "correlation_id": self.corr}
        if self.campaign is not None:
            header["campaign_id"] = self.campaign
        kw = {"stakes": self.stakes, "tier": self.tier, "tools": self.tools, "budgets": self.budgets, **mcp_kw}
        return {"header": header, "mcp": mcp(**kw), "payload": dict(payload)}

    def observation(self, pid: str, t: float, *, source: str = "tool_output", data: Mapping[str, Any] | None = None,
                    observation_type: str | None = None, tool: str = "esi_local_intel", **mcp_kw: Any) -> Packet:
        """An OBSERVED observation grounded in its own tool read (or user report when source=user_observation)."""
        from_tool = source == "tool_output"
        payload: dict[str, Any] = {
            "observation_type": observation_type or ("intel_update" if from_tool else "user_input"),
            "data": dict(data or {"system": "Tama", "hostiles_in_local": 2}),
        }
        if from_tool:
            payload |= {"source_tool": tool, "query_params": {"system": "Tama"},
                        "reliability_metadata": {"tool_success": True, "latency_ms": 180, "partial_result": False}}
        defaults: dict[str, Any] = {
            "summary": "Record the intel clue", "status": "OBSERVED", "confidence": 0.9,
            "note": "Fresh read" if from_tool else "Pilot report, unverified by tools", "freshness": "REALTIME",
            "refs": [ref(source, f"{'tool' if from_tool else 'user'}://{pid}", t)], "task_class": "LOOKUP",
        }
        return self.packet("ObservationPacket", pid, t, 6, payload, **(defaults | mcp_kw))

    def belief(self, pid: str, t: float, *, refs: Sequence[Mapping[str, Any]], cites: Sequence[str] = (),
               update_type: str = "revision", changes: Sequence[Mapping[str, Any]] | None = None,
               **mcp_kw: Any) -> Packet:
        """A belief update; `cites` go to payload.evidence_integration."""
        payload: dict[str, Any] = {
            "update_type": update_type,
            "belief_changes": [dict(c) for c in changes or [
                {"domain": "threats", "key": "local_threat_level", "new_value": "low", "prior_value": "unknown",
                 "epistemic_upgrade": bool(cites)}]],
        }
        if cites:
            payload["evidence_integration"] = list(cites)
        defaults: dict[str, Any] = {"summary": "Refresh the threat model", "status": "INFERRED", "confidence": 0.7,
                                    "note": "Inferred from the cited live evidence", "refs": refs,
                                    "assumptions": ["Intel channel reports are current"], "task_class": "LOOKUP"}
        return self.packet("BeliefUpdatePacket", pid, t, 5, payload, **(defaults | mcp_kw))

    def decision(self, pid: str, t: float, *, outcome: str, refs: Sequence[Mapping[str, Any]],
                 text: str = "Proceed per the verified picture.", extra: Mapping[str, Any] | None = None,
                 constraints: Mapping[str, bool] = ALL_CHECKS_PASSED, **mcp_kw: Any) -> Packet:
        """A DecisionPacket; `extra` adds payload fields (chosen_option, load_bearing_assumptions, ...)."""
        payload = {"decision_outcome": outcome, "decision_summary": text,
                   "constraints_satisfied": dict(constraints), **(extra or {})}
        defaults: dict[str, Any] = {"summary": f"Decide: {outcome}", "status": "INFERRED", "confidence": 0.75,
                                    "note": "Grounded in the cited live evidence", "refs": refs,
                                    "assumptions": ["Local threat level is low enough to proceed"],
                                    "task_class": "VERIFY" if outcome == "VERIFY_FIRST" else "CREATE"}
        return self.packet("DecisionPacket", pid, t, 5, payload, **(defaults | mcp_kw))

    def plan(self, pid: str, t: float, *, decision_pid: str, refs: Sequence[Mapping[str, Any]],
             **mcp_kw: Any) -> Packet:
        """A VerificationPlanPacket (docs/omen-extra-packets.md) checking the §15.2 load-bearing assumption."""
        payload = {
            "plan_id": f"plan_{pid.removeprefix('pkt_')}", "verification_requirement": "VERIFY_ONE",
            "verification_targets": [{"assumption": "Local threat level is low enough to proceed",
                                      "method": "tool_read", "success_criteria": "fresh local count read",
                                      "tool_id": "esi_local_intel", "load_bearing": True}],
            "decision_packet_id": decision_pid, "max_tool_calls": 1, "deadline_seconds": 90,
        }
        defaults: dict[str, Any] = {"summary": "Plan the verification read", "status": "INFERRED",
                                    "confidence": 0.6, "refs": refs, "task_class": "VERIFY"}
        return self.packet("VerificationPlanPacket", pid, t, 4, payload, **(defaults | mcp_kw))

    def token(self, pid: str, t: float, *, token_id: str, expiry_t: float, refs: Sequence[Mapping[str, Any]],
              tool_ids: Sequence[str] = ("esi_market_order",), operations: Sequence[str] = ("write",),
              max_usage: int = 1, **mcp_kw: Any) -> Packet:
        """A Layer 1 ToolAuthorizationToken."""
        payload = {
            "token_id": token_id,
            "authorized_scope": {"tool_ids": list(tool_ids), "operation_types": list(operations),
                                 "resource_constraints": {"max_quantity": 10, "station_id": "60003760"}},
            "expiry": at(expiry_t), "max_usage_count": max_usage, "usage_count": 0, "issuer_layer": 1,
            "revoked": False, "rationale": "Layer 1 authorizes one bounded market order",
        }
        defaults: dict[str, Any] = {"summary": "Authorize the market order", "status": "INFERRED",
                                    "confidence": 0.8, "refs": refs, "task_class": "CREATE"}
        return self.packet("ToolAuthorizationToken", pid, t, 1, payload, **(defaults | mcp_kw))

    def directive(self, pid: str, t: float, *, task_id: str, refs: Sequence[Mapping[str, Any]],
                  tool_id: str = "esi_local_intel", safety: str = "READ", token_id: str | None = None,
                  params: Mapping[str, Any] | None = None, timeout: int = 30, retries: int = 1,
                  **mcp_kw: Any) -> Packet:
        """A TaskDirectivePacket; deadline = created_at + max(time_budget_seconds, timeout x (1 + retries))."""
        payload: dict[str, Any] = {
            "task_id": task_id, "task_type": "tool_read" if safety == "READ" else "tool_write",
            "execution_method": {"method": "tool", "tool_id": tool_id,
                                 "tool_params": dict(params or {"system": "Tama"})},
            "tool_safety_class": safety, "timeout_seconds": timeout,
            "retry_policy": {"max_retries": retries, "backoff_multiplier": 2},
        }
        if token_id is not None:
            payload["authorization_token_id"] = token_id
        defaults: dict[str, Any] = {"summary": f"Execute {task_id}", "status": "INFERRED", "confidence": 0.75,
                                    "refs": refs, "task_class": "VERIFY" if safety == "READ" else "CREATE"}
        return self.packet("TaskDirectivePacket", pid, t, 5, payload, **(defaults | mcp_kw))

    def result(self, pid: str, t: float, *, task_id: str, directive_pid: str, status: str = "SUCCESS",
               tokens: int = 120, calls: int = 1, ms: float = 1500, **mcp_kw: Any) -> Packet:
        """A Layer 6 TaskResultPacket, OBSERVED, reporting its usage in execution_metadata."""
        payload: dict[str, Any] = {
            "task_id": task_id, "directive_packet_id": directive_pid, "result_status": status,
            "result_data": {"system": "Tama", "hostiles_in_local": 0} if status == "SUCCESS" else None,
            "execution_metadata": {"execution_time_ms": ms, "tokens_used": tokens, "tool_calls_used": calls,
                                   "retry_count": 0},
        }
        if status == "FAILURE":
            payload["error_details"] = {"error_code": "ESI_502", "error_message": "upstream unavailable",
                                        "is_transient": True, "retry_recommended": True}
        defaults: dict[str, Any] = {"summary": f"Report {task_id}", "status": "OBSERVED", "confidence": 0.95,
                                    "note": "Direct tool output", "freshness": "REALTIME",
                                    "refs": [ref("tool_output", f"tool://{task_id}", t, 0.95)], "task_class": "VERIFY"}
        return self.packet("TaskResultPacket", pid, t, 6, payload, **(defaults | mcp_kw))

    def escalation(self, pid: str, t: float, *, trigger: str, refs: Sequence[Mapping[str, Any]],
                   blocking: str | None = None, options: Sequence[Mapping[str, Any]] = OPTIONS[:2],
                   gaps: Sequence[Mapping[str, Any]] = GAPS, next_step: Mapping[str, Any] | None = NEXT_STEP,
                   **mcp_kw: Any) -> Packet:
        """An EscalationPacket: 2-3 options (option_id/description/pros/cons), gaps, recommended next step."""
        payload: dict[str, Any] = {"escalation_trigger": trigger, "top_options": [dict(o) for o in options],
                                   "evidence_gaps": [dict(g) for g in gaps]}
        if next_step is not None:
            payload["recommended_next_step"] = dict(next_step)
        if blocking is not None:
            payload["blocking_decision_packet_id"] = blocking
        defaults: dict[str, Any] = {"summary": "Escalate to the pilot", "status": "INFERRED", "confidence": 0.5,
                                    "refs": refs, "task_class": "VERIFY"}
        return self.packet("EscalationPacket", pid, t, 5, payload, **(defaults | mcp_kw))

    def alert(self, pid: str, t: float, *, severity: str, alert_type: str, description: str,
              extra: Mapping[str, Any] | None = None, **mcp_kw: Any) -> Packet:
        """An Integrity overlay IntegrityAlertPacket (docs/omen-extra-packets.md; payload open)."""
        payload = {"alert_type": alert_type, "severity": severity, "description": description, **(extra or {})}
        defaults: dict[str, Any] = {"summary": "Integrity overlay notice", "status": "OBSERVED", "confidence": 0.95,
                                    "freshness": "REALTIME", "task_class": "LOOKUP",
                                    "refs": [ref("tool_output", f"integrity://{pid}", t)]}
        return self.packet("IntegrityAlertPacket", pid, t, "Integrity", payload, **(defaults | mcp_kw))
