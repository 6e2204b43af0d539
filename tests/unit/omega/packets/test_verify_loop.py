"""The verification loop's packets (INV-008's "BeliefUpdate citing the verification evidence"): derived from the
judgements, so the loop is judged the same whether its judgements are in memory or stored apart (live)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from omega.packets.ledger import EpisodeLedger, Judgement
from omega.packets.validator import evolve
from omega.packets.verdict import VerdictStatus

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "omen" / "verify_loop.jsonl"
Packet = dict[str, Any]


def _example() -> dict[str, Packet]:
    packets = [json.loads(line) for line in EXAMPLE.read_text().splitlines()]
    return {p["header"]["packet_id"]: p for p in packets}


def _judged(packets: Iterable[Packet], ledger: EpisodeLedger | None = None) -> EpisodeLedger:
    for p in packets:
        ledger, _ = evolve(ledger, p)
    assert ledger is not None
    return ledger


def _citing(belief: Packet, *cited: str, refs_at: str | None = "2025-12-21T11:30:00-05:00") -> Packet:
    """`belief` naming `cited` in `evidence_integration`; its tool_output ref re-timed to `refs_at` (by default
    before the VERIFY_FIRST decision at 11:30:30, so the ref alone cannot close the loop), or dropped (None)."""
    changed = copy.deepcopy(belief)
    changed["payload"]["evidence_integration"] = list(cited)
    evidence = changed["mcp"]["evidence"]
    if refs_at is None:
        evidence.update(evidence_refs=[], evidence_absent_reason="integration only")
    else:
        for ref in evidence["evidence_refs"]:
            ref["timestamp"] = refs_at
    return changed


def _up_to_belief() -> tuple[list[Packet], Packet, Packet]:
    """Packets 1-7 (the loop opened by 3, evidence from 6 and 7), belief update 8 and ACT decision 9."""
    by_id = _example()
    ids = sorted(by_id)
    return [by_id[i] for i in ids[:7]], by_id[ids[7]], by_id[ids[8]]


def test_a_belief_citing_an_accepted_packet_of_the_loop_closes_that_item() -> None:
    before, belief, act = _up_to_belief()
    ledger = _judged([*before, _citing(belief, "pkt_vl_0007")])
    assert ledger.verify is not None
    assert ledger.verify.belief_update_with_evidence
    _, [verdict] = evolve(ledger, act)
    assert verdict.status is VerdictStatus.ACCEPTED


def test_a_belief_citing_only_a_packet_from_before_the_decision_does_not() -> None:
    before, belief, act = _up_to_belief()
    ledger = _judged([*before, _citing(belief, "pkt_vl_0001", "pkt_vl_0003")])
    assert ledger.verify is not None
    assert not ledger.verify.belief_update_with_evidence
    _, [verdict, *_] = evolve(ledger, act)
    assert [v.rule for v in verdict.violations] == ["INV-008"]
    assert "BeliefUpdate citing the verification evidence" in verdict.violations[0].message


def test_a_belief_carrying_tool_evidence_from_after_the_decision_closes_the_loop_without_citing_ids() -> None:
    """Ids in `evidence_integration` may point outside the stream: a fresh tool_output ref closes it too."""
    before, belief, act = _up_to_belief()
    ledger = _judged([*before, _citing(belief, "tool:raw/88213", refs_at="2025-12-21T11:30:44-05:00")])
    assert ledger.verify is not None
    assert ledger.verify.belief_update_with_evidence
    _, [verdict] = evolve(ledger, act)
    assert verdict.status is VerdictStatus.ACCEPTED


def test_a_belief_carrying_tool_evidence_from_exactly_the_decision_time_closes_the_loop() -> None:
    before, belief, _ = _up_to_belief()
    ledger = _judged([*before, _citing(belief, refs_at="2025-12-21T11:30:30-05:00")])
    assert ledger.verify is not None
    assert ledger.verify.belief_update_with_evidence


def test_a_belief_carrying_only_evidence_older_than_the_decision_does_not_close_the_loop() -> None:
    before, belief, act = _up_to_belief()
    ledger = _judged([*before, _citing(belief, refs_at="2025-12-21T11:30:29-05:00")])
    assert ledger.verify is not None
    assert not ledger.verify.belief_update_with_evidence
    _, [verdict, *_] = evolve(ledger, act)
    assert [v.rule for v in verdict.violations] == ["INV-008"]


def test_fresh_evidence_closes_nothing_before_the_loop_has_observed_anything() -> None:
    """The ref route needs observed evidence in the loop first (a result or an OBSERVED observation)."""
    before, belief, _ = _up_to_belief()
    ledger = _judged([*before[:5], _citing(belief, refs_at="2025-12-21T11:30:44-05:00")])
    assert ledger.verify is not None
    assert not ledger.verify.belief_update_with_evidence


def test_a_belief_citing_a_rejected_packet_of_the_loop_does_not() -> None:
    before, belief, _ = _up_to_belief()
    rejected = copy.deepcopy(before[-1])
    rejected["header"]["packet_id"] = "pkt_vl_0007x"
    del rejected["mcp"]["intent"]
    ledger = _judged([*before, rejected])
    assert ledger.applied["pkt_vl_0007x"].status is VerdictStatus.REJECTED
    ledger = _judged([_citing(belief, "pkt_vl_0007x", "pkt_vl_unknown")], ledger)
    assert ledger.verify is not None
    assert not ledger.verify.belief_update_with_evidence


def test_the_loop_is_judged_the_same_from_the_stored_form_with_judgements_apart() -> None:
    before, belief, _ = _up_to_belief()
    in_memory = _judged(before)
    stored = {pid: (seq, j) for seq, pid, j in in_memory.applied.added_since(None)}

    def find(packet_id: str) -> tuple[int, Judgement] | None:
        return stored.get(packet_id)

    restored = EpisodeLedger.from_dict(json.loads(json.dumps(in_memory.to_dict(judgements=False))), find)
    for cited in (["pkt_vl_0006"], ["pkt_vl_0001"]):
        expected = _judged([_citing(belief, *cited)], in_memory).verify
        assert _judged([_citing(belief, *cited)], restored).verify == expected


def test_a_ledger_stored_with_the_loop_packets_listed_still_loads() -> None:
    before, _, _ = _up_to_belief()
    data = _judged(before).to_dict()
    assert data["verify"] is not None
    data["verify"]["packet_ids"] = ["pkt_vl_0004", "pkt_vl_0005"]  # the form before they were derived
    assert EpisodeLedger.from_dict(data).verify == _judged(before).verify
