"""The OMEGA-57 judge's module-level limits at their boundaries: exactly at, just above and just below each.

Values and inclusive sides come from the spec (`seeds/omega-57-operations-protocol.md`) and the module
docstrings, written here as literals (never the constants themselves, so a changed constant fails):

* documents: text of at most 1,000,000 characters; at most 64 nested containers; at most 20 reasons.
* roster: agent ids 1..57, both ends included (A.1).
* rules: a non-trivial problem needs GENESIS agents from at least 3 §1.3.1 categories (§1.3.2).
* validation (§2.1, §5.1): summary.verdict "max 100 chars"; iteration an int from 0 within Avro's int
  (2**31 - 1); meta.tokens_used within Avro's long (2**63 - 1); the verdict line's CONF agrees with
  summary.confidence within 1 percentage point, 1 itself included.
* planner (§1.3.3): "Maximum 10 agents run in parallel", Session Memory holds one slot throughout, so a
  batch holds at most 9; the MEDIUM stakes battery is 6 adversaries; proceeding to the next tier at 0.5
  (A.2), lowered to 0.4 at HIGH uncertainty.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from omega.agents import roster
from omega.agents import rules as r
from omega.agents.documents import read_documents
from omega.agents.model import AgentMessage
from omega.agents.planner import plan_deployment
from omega.agents.session import SessionState, replay
from omega.agents.validation import validate_message
from tests.unit.omega.agents.factories import Builder


# ------------------------------------------------------------------------------------------- documents
def _json_text(length: int) -> str:
    """A JSON object of exactly `length` characters."""
    text = '{"k": "' + "x" * (length - 9) + '"}'
    assert len(text) == length
    return text


@pytest.mark.parametrize(("length", "accepted"), [(999_999, True), (1_000_000, True), (1_000_001, False)])
def test_text_up_to_one_million_characters_is_read(length: int, accepted: bool) -> None:
    [doc] = read_documents(_json_text(length))
    if accepted:
        assert (doc.errors, len(doc.value["k"])) == ((), length - 9)
    else:
        assert doc.errors == (f"input is {length} characters, over the limit of 1000000",)


@pytest.mark.parametrize(("containers", "accepted"), [(63, True), (64, True), (65, False)])
def test_json_nesting_up_to_64_containers_is_read(containers: int, accepted: bool) -> None:
    [doc] = read_documents("[" * containers + "]" * containers)
    if accepted:
        assert doc.errors == ()
        node, depth = doc.value, 1
        while node:
            node, depth = node[0], depth + 1
        assert depth == containers
    else:
        assert doc.errors == ("JSON: nesting deeper than 64 levels",)


@pytest.mark.parametrize(("containers", "accepted"), [(63, True), (64, True), (65, False)])
def test_yaml_nesting_up_to_64_containers_is_read(containers: int, accepted: bool) -> None:
    # the top-level mapping is the first container
    inner = containers - 1
    [doc] = read_documents("k: " + "[" * inner + "]" * inner + "\n")
    if accepted:
        assert doc.errors == ()
        assert doc.value is not None
    else:
        assert doc.errors == ("line 1: nesting deeper than 64 levels",)


@pytest.mark.parametrize(("aliases", "reasons", "last"), [
    (19, 19, "line 20: alias *a refused (anchors and aliases are not accepted)"),
    (20, 20, "line 21: alias *a refused (anchors and aliases are not accepted)"),
    (21, 21, "... and 1 more"),
    (22, 21, "... and 2 more"),
])
def test_a_document_reports_at_most_20_reasons(aliases: int, reasons: int, last: str) -> None:
    [doc] = read_documents("a: &a 1\n" + "".join(f"k{i}: *a\n" for i in range(aliases)))
    assert len(doc.errors) == reasons
    assert doc.errors[-1] == last


# ------------------------------------------------------------------------------------------- roster
@pytest.mark.parametrize(("value", "is_agent"), [(0, False), (1, True), (2, True), (56, True), (57, True),
                                                 (58, False)])
def test_agent_ids_run_from_1_to_57_inclusive(value: int, is_agent: bool) -> None:
    assert roster.is_agent_id(value) is is_agent


# ------------------------------------------------------------------------------------------- rules
def _genesis_state(genesis: tuple[int, ...]) -> SessionState:
    b = Builder()
    b.start()
    for agent in genesis:
        b.msg(agent, 1, 0.8, f"[FINDING] agent {agent}")
    state = replay(b.events)[0]
    assert state is not None
    return state


@pytest.mark.parametrize(("genesis", "categories", "finding"), [
    ((1, 3, 2), ["empirical", "formal"], True),  # 2 categories: one short
    ((1, 2, 13), ["creative", "empirical", "formal"], False),  # exactly 3
    ((1, 2, 13, 5), ["creative", "cross_domain", "empirical", "formal"], False),  # 4
])
def test_genesis_agents_from_at_least_3_categories(genesis: tuple[int, ...], categories: list[str],
                                                    finding: bool) -> None:
    found = r.r_1_3_2_genesis_diversity(_genesis_state(genesis), 1)
    assert bool(found) is finding
    if finding:
        [f] = found
        assert (f.facts["categories"], f.facts["required"], f.facts["missing"]) == (categories, 3, 1)


# ------------------------------------------------------------------------------------------- validation
def _block(**changes: Any) -> dict[str, Any]:
    """A valid §2.1 block at body.tier 0 (confidence 0.5, CONF 50%), with dotted paths changed."""
    block: dict[str, Any] = {
        "header": {"agent_id": 44, "agent_name": "Steelman Attacker", "agent_tier": "ADVERSARY",
                   "timestamp": "2026-01-26T09:00:00Z", "iteration": 1, "responding_to": "PHI_QUERY"},
        "summary": {"verdict": "[SUPPORTS] X causes Y | CONF: 50% | FLAGS: none", "confidence": 0.5,
                    "confidence_basis": "two trials"},
        "body": {"tier": 0, "content": {"claim": "X causes Y"}},
        "meta": {"tokens_used": 10},
    }
    block = copy.deepcopy(block)
    for path, value in changes.items():
        *parents, last = path.split("__")
        node = block
        for part in parents:
            node = node[part]
        node[last] = value
    return block


def _reasons(block: dict[str, Any]) -> list[str]:
    result = validate_message(block, "sess-1", lambda: "m-1")
    return [] if isinstance(result, AgentMessage) else result


def test_the_base_block_is_valid() -> None:
    assert isinstance(validate_message(_block(), "sess-1", lambda: "m-1"), AgentMessage)


@pytest.mark.parametrize(("length", "accepted"), [(99, True), (100, True), (101, False)])
def test_a_verdict_of_at_most_100_characters(length: int, accepted: bool) -> None:
    verdict = "v" * length
    reasons = _reasons(_block(body__tier=1, summary__verdict=verdict))
    assert reasons == ([] if accepted else [f"summary.verdict: is {length} characters, over the limit of 100"])


def test_the_verdict_is_measured_after_trimming() -> None:
    assert _reasons(_block(body__tier=1, summary__verdict="  " + "v" * 100 + "  ")) == []


@pytest.mark.parametrize(("iteration", "accepted"), [(-1, False), (0, True), (1, True),
                                                     (2**31 - 2, True), (2**31 - 1, True), (2**31, False)])
def test_iterations_count_from_0_within_avro_int(iteration: int, accepted: bool) -> None:
    reasons = _reasons(_block(header__iteration=iteration))
    assert (reasons == []) is accepted, reasons
    if not accepted:
        [reason] = reasons
        assert reason.startswith("header.iteration: ")
        assert reason.endswith("(iterations count from 0)")


@pytest.mark.parametrize(("tokens", "accepted"), [(0, True), (2**63 - 1, True), (2**63, False), (-1, False)])
def test_tokens_used_within_avro_long(tokens: int, accepted: bool) -> None:
    reasons = _reasons(_block(meta__tokens_used=tokens))
    assert (reasons == []) is accepted, reasons
    if not accepted:
        assert [x.split(":")[0] for x in reasons] == ["meta.tokens_used"]


@pytest.mark.parametrize(("conf", "accepted"), [
    ("51", True),  # exactly 1 point above summary.confidence 0.5
    ("49", True),  # exactly 1 point below
    ("50.5", True),
    ("51.5", False),  # just over 1 point
    ("48.9", False),
    ("51.01", False),
])
def test_conf_agrees_with_summary_confidence_within_one_point(conf: str, accepted: bool) -> None:
    reasons = _reasons(_block(summary__verdict=f"[SUPPORTS] X causes Y | CONF: {conf}% | FLAGS: none"))
    assert (reasons == []) is accepted, reasons
    if not accepted:
        [reason] = reasons
        assert "disagrees with summary.confidence 0.5" in reason


@pytest.mark.parametrize(("confidence", "conf", "accepted"), [
    (0.57, "58", True),  # 100 * 0.57 is 56.99999999999999 in binary: 58% is still one point away
    (0.57, "56", True),
    (0.07, "6", True),  # 100 * 0.07 is 7.000000000000001
    (0.07, "8", True),
    (0.57, "58.5", False),
    (0.07, "5.9", False),
])
def test_conf_tolerance_holds_for_confidences_not_exact_in_binary(confidence: float, conf: str,
                                                                   accepted: bool) -> None:
    verdict = f"[SUPPORTS] X causes Y | CONF: {conf}% | FLAGS: none"
    assert (_reasons(_block(summary__verdict=verdict, summary__confidence=confidence)) == []) is accepted


# ------------------------------------------------------------------------------------------- planner
@pytest.mark.parametrize(("uncertainty", "well_defined", "exploration", "overflow"), [
    ("LOW", True, 6, 0),
    ("LOW", False, 8, 0),
    ("MEDIUM", True, 9, 0),  # 9 GENESIS agents: exactly one full batch
    ("MEDIUM", False, 9, 2),  # 11: one over a batch, the rest to Formalization
    ("HIGH", True, 9, 3),  # 12
    ("HIGH", False, 9, 5),  # 14
])
def test_a_batch_holds_at_most_9_agents_beside_session_memory(uncertainty: str, well_defined: bool,
                                                              exploration: int, overflow: int) -> None:
    plan = plan_deployment("EMPIRICAL", "CAUSAL", uncertainty, "HIGH", well_defined)
    assert plan.persistent == (53,)
    assert len(plan.batch("Exploration")) == exploration
    genesis_in_formalization = [a for a in plan.batch("Formalization") if roster.AGENTS[a].tier == "GENESIS"]
    assert len(genesis_in_formalization) == overflow
    assert max(len(batch) for batch in plan.batches) <= 9
    assert all(53 not in batch for batch in plan.batches)


def test_no_plan_has_a_batch_over_9_agents() -> None:
    for ptype in ("EMPIRICAL", "NORMATIVE", "ANALYTICAL", "SYNTHETIC", "META"):
        for uncertainty in ("LOW", "MEDIUM", "HIGH"):
            for stakes in ("LOW", "MEDIUM", "HIGH"):
                for well_defined in (True, False):
                    plan = plan_deployment(ptype, None, uncertainty, stakes, well_defined)
                    sizes = [len(b) for b in plan.batches]
                    assert max(sizes) <= 9, (ptype, uncertainty, stakes, well_defined, sizes)


def test_medium_stakes_attack_with_a_standard_battery_of_6() -> None:
    plan = plan_deployment("EMPIRICAL", "CAUSAL", "LOW", "MEDIUM")
    attack = plan.batch("Attack")
    assert (plan.adversary_battery, len(attack)) == ("STANDARD", 6)
    assert {44, 46} <= set(attack)


@pytest.mark.parametrize(("uncertainty", "proceed"), [("LOW", 0.5), ("MEDIUM", 0.5), ("HIGH", 0.4)])
def test_proceed_to_the_next_tier_at_0_5_lowered_to_0_4_at_high_uncertainty(uncertainty: str,
                                                                             proceed: float) -> None:
    assert plan_deployment("EMPIRICAL", "CAUSAL", uncertainty, "MEDIUM").proceed_confidence == proceed
