"""Deterministic OMEN packets for tests and benchmarks (valid against the published v0.7 schemas)."""

from __future__ import annotations

import copy
from typing import Any

_MCP: dict[str, Any] = {
    "intent": {"summary": "Check the local market before hauling", "scope": "market_scan"},
    "stakes": {"impact": "MEDIUM", "irreversibility": "REVERSIBLE", "uncertainty": "HIGH",
               "adversariality": "CONTESTED", "stakes_level": "MEDIUM"},
    "quality": {"quality_tier": "PAR", "satisficing_mode": True, "verification_requirement": "VERIFY_ONE",
                "definition_of_done": {"text": "One fresh observation of the key unknown", "checks": ["fresh"]}},
    "budgets": {"token_budget": 900, "tool_call_budget": 2, "time_budget_seconds": 90,
                "risk_budget": {"envelope": "low", "max_loss": "small"}},
    "epistemics": {"status": "OBSERVED", "confidence": 0.8, "calibration_note": "fresh tool read",
                   "freshness_class": "OPERATIONAL", "assumptions": []},
    "evidence": {"evidence_refs": [{"ref_type": "tool_output", "ref_id": "market:jita",
                                    "timestamp": "2025-12-21T11:30:00Z", "reliability_score": 0.9}],
                 "evidence_absent_reason": None},
    "routing": {"task_class": "LOOKUP", "tools_state": "tools_ok"},
}


def packet(n: int, episode: int, packet_type: str = "ObservationPacket") -> dict[str, Any]:
    """Packet number `n` of episode `episode`; event time grows with `n`."""
    header = {
        "packet_id": f"pkt_{episode:05d}_{n:06d}",
        "packet_type": packet_type,
        "created_at": f"2025-12-21T{11 + n // 3600 % 12:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z",
        "layer_source": 6 if packet_type == "ObservationPacket" else 5,
        "correlation_id": f"corr_ep{episode:05d}",
    }
    payloads: dict[str, dict[str, Any]] = {
        "ObservationPacket": {"observation_type": "tool_output", "data": {"price": 4.2 + n, "item": "tritanium"},
                              "source_tool": "market_api"},
        "BeliefUpdatePacket": {"update_type": "new_belief", "belief_changes": [
            {"domain": "market", "key": "tritanium_price", "new_value": 4.2 + n, "prior_value": None}]},
        "DecisionPacket": {"decision_outcome": "VERIFY_FIRST", "decision_summary": "Verify before acting",
                           "constraints_satisfied": {"constitutional_check": True, "budget_check": True,
                                                     "tier_check": True}},
    }
    return {"header": header, "mcp": copy.deepcopy(_MCP), "payload": payloads[packet_type]}


def episode_packets(episode: int, count: int) -> list[dict[str, Any]]:
    """A sense -> model -> decide sequence of `count` packets."""
    kinds = ("ObservationPacket", "BeliefUpdatePacket", "DecisionPacket")
    return [packet(n, episode, kinds[min(n, 2)] if n < 3 else "ObservationPacket") for n in range(count)]
