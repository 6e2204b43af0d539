"""`Episode` fills the header (ids, chaining, created_at from the injected clock, layer_source, campaign), refuses
what the validator would reject (a reused id, a payload of the wrong type, evidence absent without a reason),
and signs Layer 1 / Integrity packets with `omega.packets.authenticity`."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from pydantic import ValidationError

from omega.packets.authenticity import AuthKey, AuthPolicy, auth_001_authority_requires_signature, signature
from omega.packets.validator import evolve
from omega.packets.verdict import VerdictStatus
from omega.producer import Episode, packet_of, sequential_ids, to_jsonl
from omega.producer.mcp import Evidence, Intent
from omega.producer.packets import DecisionPacket
from omega.producer.payloads import (
    BeliefChange,
    BeliefUpdatePayload,
    ConstraintsSatisfied,
    DecisionPayload,
    ObservationPayload,
)
from tests.unit.omega.producer.builders import (
    CANONICAL_BUDGETS,
    MEDIUM,
    T0,
    Steps,
    at,
    epistemics,
    quality,
    ref,
    routing,
)

OBSERVATION = ObservationPayload(observation_type="tool_output", data={"k": 1})
CONTEXT = {"intent": Intent(summary="read", scope="x"), "epistemics": epistemics("OBSERVED", 0.9, "read"),
           "evidence": Evidence.of(ref("tool_output", "tool://x", 0))}


def episode(clock_times: list[datetime], **kw: object) -> Episode:
    times = iter(clock_times)
    return Episode("corr_abc", layer_source=6, clock=lambda: next(times), stakes=MEDIUM, quality=quality(),
                   budgets=CANONICAL_BUDGETS, routing=routing("LOOKUP"), **kw)  # type: ignore[arg-type]


def test_ids_are_sequential_chained_and_stamped_by_the_clock() -> None:
    ep = episode([at(0), at(5), at(9)], campaign_id="camp_x")
    packets = [ep.observation(OBSERVATION, **CONTEXT) for _ in range(3)]
    headers = [p.to_json()["header"] for p in packets]
    assert [h["packet_id"] for h in headers] == ["pkt_abc_0001", "pkt_abc_0002", "pkt_abc_0003"]
    assert [h.get("previous_packet_id") for h in headers] == [None, "pkt_abc_0001", "pkt_abc_0002"]
    assert [h["created_at"] for h in headers] == [
        "2025-12-21T11:30:00-05:00", "2025-12-21T11:30:05-05:00", "2025-12-21T11:30:09-05:00"]
    assert {h["layer_source"] for h in headers} == {6}
    assert {(h["correlation_id"], h["campaign_id"]) for h in headers} == {("corr_abc", "camp_x")}
    assert "previous_packet_id" not in headers[0]  # absent, not null
    assert ep.to_json() == [p.to_json() for p in packets]


def test_an_injected_id_factory_and_overrides_are_used() -> None:
    ep = episode([at(0), at(1)], ids=lambda corr, n: f"pkt_{n}_{corr}", chain=False)
    first = ep.observation(OBSERVATION, **CONTEXT)
    second = ep.observation(OBSERVATION, **CONTEXT, packet_id="pkt_mine", layer_source="Integrity",
                            created_at=at(100))
    assert first.header.packet_id == "pkt_1_corr_abc"
    assert (second.header.packet_id, second.header.layer_source, second.header.created_at) == (
        "pkt_mine", "Integrity", at(100))
    assert second.header.previous_packet_id is None
    assert sequential_ids("corr_77A", 12) == "pkt_77A_0012"


def test_a_reused_packet_id_is_refused() -> None:
    ep = episode([at(0), at(1)])
    ep.observation(OBSERVATION, **CONTEXT, packet_id="pkt_same")
    with pytest.raises(ValueError, match="pkt_same already used"):
        ep.observation(OBSERVATION, **CONTEXT, packet_id="pkt_same")


@pytest.mark.parametrize("bad", ["episode_1", "corr_", "corr_a b"])
def test_a_bad_correlation_id_is_refused(bad: str) -> None:
    with pytest.raises(ValidationError):
        Episode(bad, layer_source=5, clock=lambda: T0, stakes=MEDIUM, quality=quality(), budgets=CANONICAL_BUDGETS,
                routing=routing("LOOKUP"))


def test_a_naive_clock_is_refused() -> None:
    with pytest.raises(ValidationError, match="timezone"):
        episode([datetime(2025, 1, 1)]).observation(OBSERVATION, **CONTEXT)


def test_evidence_absent_needs_a_reason_and_a_payload_its_own_packet_type() -> None:
    with pytest.raises(ValidationError, match="evidence_absent_reason"):
        Evidence(evidence_refs=[])
    with pytest.raises(ValidationError, match="evidence_absent_reason"):
        Evidence.absent("  ")
    decision = DecisionPayload(decision_outcome="DEFER", decision_summary="later", constraints_satisfied=(
        ConstraintsSatisfied(constitutional_check=True, budget_check=True, tier_check=True)))
    with pytest.raises(ValidationError):
        episode([at(0)]).observation(decision, **CONTEXT)  # type: ignore[arg-type]
    assert isinstance(episode([at(0)]).emit(decision, **CONTEXT), DecisionPacket)


def test_strict_models_refuse_coercions_nan_and_null_in_free_json() -> None:
    for data in ({"k": None}, {"k": float("nan")}, {}):
        with pytest.raises(ValidationError):
            ObservationPayload(observation_type="tool_output", data=data)
    with pytest.raises(ValidationError):
        epistemics("OBSERVED", "0.9", "as text")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        epistemics("OBSERVED", 1.5, "out of range")
    with pytest.raises(ValidationError):
        ObservationPayload(observation_type="tool_output", data={"k": 1}, extra_field=1)  # type: ignore[call-arg]


def test_jsonl_and_packet_of_round_trip() -> None:
    ep = episode([at(0), at(1)])
    packets = [ep.observation(OBSERVATION, **CONTEXT), ep.observation(OBSERVATION, **CONTEXT)]
    lines = to_jsonl(packets).splitlines()
    assert len(lines) == 2
    assert [packet_of(json.loads(line)) for line in lines] == packets


SECRET, OVERLAY = b"a-layer-one-secret", b"an-integrity-secret"
POLICY = AuthPolicy.of({"governor": AuthKey(SECRET, frozenset({"1"})),
                        "overlay": AuthKey(OVERLAY, frozenset({"Integrity"}))})


def test_layer_1_and_integrity_packets_are_signed_with_the_key_for_their_authority() -> None:
    s = Steps("corr_sig", signing=POLICY)
    obs = s.observation(0)
    token = s.token(10, token_id="token_t", expiry_t=600, refs=[ref("tool_output", "tool://obs/0", 0)])
    alert = s.alert(20, severity="INFO", alert_type="drift_detected", action="none")
    assert obs.auth is None
    assert (token.auth and token.auth.key_id, alert.auth and alert.auth.key_id) == ("governor", "overlay")
    for packet, secret in ((token, SECRET), (alert, OVERLAY)):
        signed = packet.to_json()
        assert signed["_auth"]["alg"] == "HMAC-SHA256-JCS"
        unsigned = {k: v for k, v in signed.items() if k != "_auth"}
        assert signed["_auth"]["sig"] == signature(unsigned, signed["_auth"]["key_id"], secret)
        assert auth_001_authority_requires_signature(signed, POLICY) == []


def test_a_packet_no_key_may_sign_for_is_refused_not_sent_unsigned() -> None:
    s = Steps("corr_sig", signing=AuthPolicy.of({"governor": AuthKey(SECRET, frozenset({"1"}))}))
    with pytest.raises(ValueError, match="Integrity"):
        s.alert(0, severity="INFO", alert_type="drift_detected", action="none")


def test_a_decision_packet_read_back_keeps_its_type() -> None:
    s = Steps("corr_rt")
    decision = s.decision(0, outcome="DEFER", refs=[ref("tool_output", "tool://x", 0)])
    assert isinstance(packet_of(decision.to_json()), DecisionPacket)
    with pytest.raises(ValueError, match="unknown"):
        packet_of({"header": {"packet_type": "Nope"}})


def test_a_new_belief_writes_its_prior_value_as_null_and_is_accepted() -> None:
    """schema-index-v0.7.md, BeliefUpdatePacket: `prior_value` is required, "Previous state (null if new)"."""
    ep = episode([at(0), at(1)])
    ep.observation(OBSERVATION, **CONTEXT)
    change = BeliefChange(domain="market", key="tritanium_price", new_value=5.1, prior_value=None)
    update = ep.belief_update(BeliefUpdatePayload(update_type="new_belief", belief_changes=[change]), **CONTEXT)
    dumped = update.to_json()["payload"]["belief_changes"][0]
    assert dumped == {"domain": "market", "key": "tritanium_price", "new_value": 5.1, "prior_value": None}
    ledger = None
    for packet in ep.to_json():
        ledger, outputs = evolve(ledger, packet)
        assert outputs[0].status is VerdictStatus.ACCEPTED, outputs[0].violations
