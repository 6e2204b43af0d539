"""Deterministic OMEN packets for tests and benchmarks (valid against the published v0.7 schemas)."""

from __future__ import annotations

import copy
import heapq
import json
import re
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
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


_FIRST_PACKET_AT = datetime(2025, 12, 21, 11, 0, 0)


def packet(n: int, episode: int, packet_type: str = "ObservationPacket", *,
           distinct_times: bool = False) -> dict[str, Any]:
    """Packet number `n` of episode `episode`; event time grows with `n`, one second per packet. With
    `distinct_times`, episode e's packets sit e milliseconds past each second, so no two of the first 1,000
    episodes share a timestamp (otherwise every episode has the same timestamps)."""
    if distinct_times:
        at = _FIRST_PACKET_AT + timedelta(seconds=n, milliseconds=episode % 1000)
        created_at = at.isoformat(timespec="milliseconds") + "Z"
    else:
        created_at = f"2025-12-21T{11 + n // 3600 % 12:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z"
    header = {
        "packet_id": f"pkt_{episode:05d}_{n:06d}",
        "packet_type": packet_type,
        "created_at": created_at,
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


def episode_packets(episode: int, count: int, *, distinct_times: bool = False) -> list[dict[str, Any]]:
    """A sense -> model -> decide sequence of `count` packets (`distinct_times`: see `packet`)."""
    kinds = ("ObservationPacket", "BeliefUpdatePacket", "DecisionPacket")
    return [packet(n, episode, kinds[min(n, 2)] if n < 3 else "ObservationPacket", distinct_times=distinct_times)
            for n in range(count)]


# ------------------------------------------------------------------ realistic episodes from the bundled examples
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "omen"
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")


@cache
def _example_text(name: str) -> tuple[str, ...]:
    return tuple(line for line in (EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines() if line)


def example_cycle(name: str, correlation_id: str, tag: str, start: datetime) -> list[dict[str, Any]]:
    """One bundled example episode (`examples/omen/<name>.jsonl`) re-addressed: its packets under
    `correlation_id`, packet ids `pkt_<tag>_<xx>_NNNN` (references inside the packets follow), and every
    full timestamp shifted so that the first packet is created at `start` (offsets kept)."""
    lines = _example_text(name)
    headers = [json.loads(line)["header"] for line in lines]
    old_corr, stem = headers[0]["correlation_id"], headers[0]["packet_id"].rsplit("_", 1)[0] + "_"  # pkt_xx_
    assert all(h["packet_id"].startswith(stem) and h["correlation_id"] == old_corr for h in headers), name
    packets = [json.loads(line.replace(old_corr, correlation_id).replace(stem, f"pkt_{tag}_{stem[4:]}"))
               for line in lines]
    shift = start - datetime.fromisoformat(packets[0]["header"]["created_at"])
    return [_shifted(p, shift) for p in packets]


def _shifted(value: Any, shift: timedelta) -> Any:
    if isinstance(value, str) and _ISO.match(value):
        return (datetime.fromisoformat(value) + shift).isoformat()
    if isinstance(value, dict):
        return {k: _shifted(v, shift) for k, v in value.items()}
    if isinstance(value, list):
        return [_shifted(v, shift) for v in value]
    return value


def _created_ms(p: dict[str, Any]) -> int:
    return int(datetime.fromisoformat(p["header"]["created_at"]).timestamp() * 1000)


# Each cycle: (example, how it is bent). Accepted, warned and rejected packets all occur:
#   clean        the example as it is (safe_mode holds one deliberate FSM-E7 reject)
#   subpar_act   the ACT decision at quality tier SUBPAR: INV-002 rejects it, then FSM-E2 rejects the writes
#   no_plan      the VerificationPlan dropped: FSM-E3 warns on the directive, INV-008 rejects the re-decision
#   resent       a packet re-sent verbatim (same verdict again) and an id re-used for other content (DUPLICATE)
#   bad_schema   an observation with confidence 1.4: SCHEMA reject
#   dangling     cut right after its READ directive: no result ever comes (INV-011 timeout later)
CYCLES: tuple[tuple[str, str], ...] = (
    ("verify_loop", "clean"), ("write_act", "clean"), ("degraded_tools", "clean"), ("write_act", "subpar_act"),
    ("escalation", "clean"), ("verify_loop", "no_plan"), ("write_act", "resent"), ("safe_mode", "clean"),
    ("verify_loop", "bad_schema"), ("verify_loop", "dangling"),
)


def bent_cycle(kind: str, name: str, correlation_id: str, tag: str, start: datetime) -> list[dict[str, Any]]:
    """`example_cycle` with one of the `CYCLES` bends applied."""
    packets = example_cycle(name, correlation_id, tag, start)
    if kind == "subpar_act":
        decision = next(p for p in packets if p["payload"].get("decision_outcome") == "ACT")
        decision["mcp"]["quality"]["quality_tier"] = "SUBPAR"
    elif kind == "no_plan":
        packets = [p for p in packets if p["header"]["packet_type"] != "VerificationPlanPacket"]
    elif kind == "resent":
        impostor = copy.deepcopy(packets[0])
        impostor["payload"]["data"]["best_ask"] = 4.05  # same id, other content
        packets = [*packets[:3], copy.deepcopy(packets[1]), *packets[3:5], impostor, *packets[5:]]
    elif kind == "bad_schema":
        packets[0]["mcp"]["epistemics"]["confidence"] = 1.4
    elif kind == "dangling":
        packets = packets[:5]
    return packets


def mixed_episode(episode: int, length: int, start: datetime, *, tight_budget: bool = False) -> list[dict[str, Any]]:
    """`length` packets of one episode: an opening observation, then example cycles chosen by the episode
    number, 20 s apart, the last one cut to fit. Every packet carries one generous envelope, except with
    `tight_budget`, where each keeps the example's own and the episode soon overruns it (INV-005, safe mode)."""
    correlation_id = f"corr_mx{episode:05d}"
    opener = packet(0, episode)
    opener["header"].update(packet_id=f"pkt_mx{episode:05d}_open", correlation_id=correlation_id,
                            created_at=start.isoformat())
    envelope = None if tight_budget else {"token_budget": 200_000, "tool_call_budget": 200,
                                          "time_budget_seconds": 7_200,
                                          "risk_budget": {"envelope": "medium", "max_loss": 200_000_000}}
    packets = [opener]
    moment = start + timedelta(seconds=5)
    cycle = 0
    while len(packets) < length:
        name, kind = CYCLES[(episode * 3 + cycle) % len(CYCLES)]
        tag = f"mx{episode:05d}c{cycle:02d}"
        packets += bent_cycle(kind, name, correlation_id, tag, moment)
        moment = datetime.fromtimestamp(max(map(_created_ms, packets)) / 1000 + 20, tz=moment.tzinfo)
        cycle += 1
    if envelope is not None:  # the episode's envelope on every packet (Integrity's budgets replace it)
        for p in packets:
            p["mcp"]["budgets"] = copy.deepcopy(envelope)
    return packets[:length]


def merged_log(episodes: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Concurrent episodes as one log: ordered by send time (the running maximum of each episode's
    `created_at`, so a re-sent packet travels where it was re-sent), each episode's own order kept."""

    def timed(n: int, packets: list[dict[str, Any]]) -> list[tuple[int, int, int, dict[str, Any]]]:
        sent, rows = 0, []
        for i, p in enumerate(packets):
            sent = max(sent, _created_ms(p))
            rows.append((sent, n, i, p))
        return rows

    return [row[3] for row in heapq.merge(*(timed(n, eps) for n, eps in enumerate(episodes)))]


def ledger_outgrowing_episode(count: int, ref_chars: int) -> list[dict[str, Any]]:
    """`count` observations of one episode, each citing a new evidence ref of `ref_chars` characters: small records
    whose episode ledger, which keeps every ref it saw, grows by about `ref_chars` bytes a packet."""
    packets = []
    for n in range(count):
        observation = packet(n, 2)
        observation["mcp"]["evidence"]["evidence_refs"][0]["ref_id"] = f"doc:{n:06d}:" + "r" * ref_chars
        packets.append(observation)
    return packets


def state_outgrowing_episode(long_id_chars: int = 600_000) -> list[dict[str, Any]]:
    """Two packets of one episode whose second cannot be stored: the first under a `long_id_chars`-character packet id
    (its judgement entry fits: key and value quote the id once each), then a packet re-using that id, whose DUPLICATE
    judgement quotes the id in its key and in its reason, past a changelog record's limit (STATE_TOO_LARGE)."""
    first = packet(0, 1)
    first["header"]["packet_id"] = "p" * long_id_chars
    second = copy.deepcopy(first)
    second["payload"]["summary"] = "the same id, other content"
    return [first, second]
