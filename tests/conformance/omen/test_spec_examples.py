"""The worked examples of OMEN.md: §9.2 (MCP envelope), §15.2 (canonical DecisionPacket), §15.3 (verify loop).

Expected states come from fsm-transitions-v0.7.md: S0 --Observation--> S1 --BeliefUpdate--> S2
--Decision--> S3, whose outcome rule sends VERIFY_FIRST on to S4_VERIFY; plan, READ directive and result stay
in S4; the closing BeliefUpdate goes S4 -> S2; the re-decision S2 -> S3 (ACT waits in S3_DECIDE).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from omega.packets.validator import evolve_single
from omega.packets.verdict import VerdictStatus
from tests.conformance.omen.episodes import (
    CANONICAL_DECISION_VERBATIM,
    VL,
    canonical_decision,
    section_9_2_observation,
    verify_loop,
)
from tests.conformance.omen.judging import assert_no_errors, error_rules, index_of, run, states
from tests.conformance.omen.packets import Packet
from tests.external_data import OMEN_MD, needs

S1, S2, S3, S4, S8 = "S1_SENSE", "S2_MODEL", "S3_DECIDE", "S4_VERIFY", "S8_ESCALATED"
LOOP_STATES = [S1, S2, S4, S4, S4, S4, S2]


# --------------------------------------------------------------------------- §15.2
def test_canonical_decision_fixture_is_the_documented_verify_first_packet() -> None:
    packet = canonical_decision()
    assert packet["payload"]["decision_outcome"] == "VERIFY_FIRST"
    assert packet["mcp"]["epistemics"]["status"] == "HYPOTHESIZED"
    assert packet["mcp"]["epistemics"]["freshness_class"] == "OPERATIONAL"
    assert packet["mcp"]["evidence"]["evidence_refs"] == []
    assert packet["mcp"]["evidence"]["evidence_absent_reason"]
    # schema-complete differs from the verbatim example only by payload.constraints_satisfied
    del packet["payload"]["constraints_satisfied"]
    assert packet == CANONICAL_DECISION_VERBATIM




def section_15_2_as_printed() -> Any:
    """The first ```json block under OMEN.md's "## 15.2" heading, read from the spec itself."""
    text = OMEN_MD.read_text(encoding="utf-8")
    section = text[text.index("\n## 15.2 "):]
    block = re.search(r"```json\n(.*?)\n```", section, re.DOTALL)
    assert block is not None
    return json.loads(block.group(1))


@needs(OMEN_MD)  # the spec as printed: external data
def test_section_15_2_as_printed_is_the_suites_verbatim_copy() -> None:
    assert section_15_2_as_printed() == CANONICAL_DECISION_VERBATIM


@needs(OMEN_MD)
def test_section_15_2_as_printed_is_rejected_by_the_schema_at_payload_constraints_satisfied() -> None:
    """Decision (c): DecisionPacket.schema.json (schema-v0.7) requires payload.constraints_satisfied and the
    published schema is normative; the §15.2 example omits it, a defect of the example, so the packet as printed
    is REJECTED with exactly one violation, SCHEMA at that path. Nothing else in it breaks a rule: INV-004
    exempts its VERIFY_FIRST, INV-001 finds its evidence_absent_reason."""
    verdict = evolve_single(section_15_2_as_printed())
    assert verdict.status is VerdictStatus.REJECTED
    assert [(v.rule, v.severity.value, v.field) for v in verdict.violations] == [
        ("SCHEMA", "ERROR", "payload.constraints_satisfied")]


@needs(OMEN_MD)
def test_section_15_2_as_printed_inside_its_verify_loop_is_rejected_and_leaves_the_episode_modelling() -> None:
    packets: list[Packet] = verify_loop()
    packets[index_of(packets, VL.VERIFY_FIRST)] = section_15_2_as_printed()
    step = run(packets)[index_of(packets, VL.VERIFY_FIRST)]
    assert step.verdict.status is VerdictStatus.REJECTED
    assert [(v.rule, v.field) for v in step.verdict.violations] == [("SCHEMA", "payload.constraints_satisfied")]
    assert (step.verdict.state_before, step.verdict.state_after) == (S2, S2)


def test_canonical_decision_alone_is_accepted_with_no_error() -> None:
    verdict = evolve_single(canonical_decision())
    assert verdict.status is not VerdictStatus.REJECTED, verdict.violations
    assert not error_rules(verdict)


def test_canonical_decision_verify_first_needs_no_live_evidence() -> None:
    """HYPOTHESIZED + OPERATIONAL + no evidence: the VERIFY_FIRST decision is INV-004's remedy, not a claim."""
    verdict = evolve_single(canonical_decision())
    assert "INV-004" not in {v.rule for v in verdict.violations}
    assert "INV-001" not in {v.rule for v in verdict.violations}


def test_canonical_decision_in_its_verify_loop_moves_model_to_verify() -> None:
    steps = run(verify_loop())
    decision = steps[index_of(verify_loop(), VL.VERIFY_FIRST)]
    assert decision.verdict.packet_id == "pkt_0123"
    assert decision.verdict.state_before == S2
    assert decision.state == S4
    assert not decision.errors


# --------------------------------------------------------------------------- §9.2
@pytest.mark.parametrize("scope", ["intel_update", {"system": "Tama", "domain": "intel_update"}],
                         ids=["string_scope", "object_scope"])
def test_section_9_2_envelope_on_an_observation_is_accepted_and_starts_sensing(scope: str | dict[str, str]) -> None:
    packet = section_9_2_observation(scope)
    assert not error_rules(evolve_single(packet))
    [step] = run([packet])
    assert_no_errors([step])
    assert step.verdict.state_before == "S0_IDLE"
    assert step.state == S1


def test_section_9_2_null_absent_reason_is_fine_when_evidence_is_present() -> None:
    packet = section_9_2_observation()
    assert packet["mcp"]["evidence"]["evidence_absent_reason"] is None
    assert packet["mcp"]["evidence"]["evidence_refs"]
    assert "INV-001" not in {v.rule for v in evolve_single(packet).violations}


# --------------------------------------------------------------------------- §15.3
def test_verify_loop_fixture_follows_section_15_3() -> None:
    packets = verify_loop()
    assert [p["header"]["packet_type"] for p in packets] == [
        "ObservationPacket", "BeliefUpdatePacket", "DecisionPacket", "VerificationPlanPacket",
        "TaskDirectivePacket", "TaskResultPacket", "BeliefUpdatePacket", "DecisionPacket"]
    result, update = packets[5], packets[6]
    assert packets[4]["payload"]["tool_safety_class"] == "READ"
    assert result["mcp"]["epistemics"]["status"] == "OBSERVED"
    assert result["payload"]["result_status"] == "SUCCESS"
    assert result["header"]["packet_id"] in update["payload"]["evidence_integration"]
    stamps = [p["header"]["created_at"] for p in packets]
    assert stamps == sorted(stamps)
    assert {p["header"]["correlation_id"] for p in packets} == {"corr_77A"}


def test_verify_loop_is_accepted_and_act_redecision_ends_in_decide() -> None:
    steps = run(verify_loop())
    assert_no_errors(steps)
    assert states(steps) == [*LOOP_STATES, S3]


def test_verify_loop_closing_with_escalate_is_accepted() -> None:
    steps = run(verify_loop(final="ESCALATE"))
    assert_no_errors(steps)
    assert states(steps)[:-1] == LOOP_STATES
    # The table's row "S3_DECIDE -> S8_ESCALATED" is taken by the EscalationPacket, the S3 transition rules
    # send decision_outcome ESCALATE to S8 at once: both readings are allowed here.
    assert steps[-1].state in (S3, S8)


def test_verify_loop_without_verification_plan_has_no_error() -> None:
    """The plan is optional in v0.7 (OMEN.md §10.4 Verification closure does not list it): a WARNING at most."""
    steps = run(verify_loop(plan=False))
    assert_no_errors(steps)
    assert states(steps) == [S1, S2, S4, S4, S4, S2, S3]


def test_verify_loop_usage_stays_inside_the_canonical_envelope() -> None:
    steps = run(verify_loop())
    usage = steps[-1].verdict.usage
    assert usage is not None
    assert usage["token_budget"] == 900
    assert usage["tool_call_budget"] == 2
    assert usage["time_budget_seconds"] == 90
    assert usage["tokens_used"] == 120
    assert usage["tool_calls_used"] == 1
    assert usage["time_elapsed_seconds"] == pytest.approx(1.5)
