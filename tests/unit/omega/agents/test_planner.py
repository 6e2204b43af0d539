"""The deployment planner: every classification gives a plan that keeps §1.2-§1.3 and A.3, deterministically."""

from __future__ import annotations

import itertools
import json

import pytest

from omega.agents import roster
from omega.agents.planner import (
    BATCH_CAPACITY,
    CLARITY_AGENTS,
    GENESIS_RANGE,
    LEVELS,
    MAX_PARALLEL,
    PRIORITY_AGENTS,
    PROBLEM_TYPES,
    DeploymentPlan,
    plan_deployment,
)

COMBINATIONS = [
    (ptype, sub, unc, stk, well)
    for ptype, subs in PROBLEM_TYPES.items()
    for sub in (None, *subs)
    for unc, stk, well in itertools.product(LEVELS, LEVELS, (True, False))
]

# Which tiers each batch may hold (§1.3.3); the Clarification batch is §1.2's clarity set.
BATCH_TIERS = {
    "Clarification": {"GENESIS", "META"},
    "Exploration": {"GENESIS"},
    "Formalization": {"BRIDGE", "GENESIS"},
    "Verification": {"VERIFICATION"},
    "Attack": {"ADVERSARY"},
    "Attack 1": {"ADVERSARY"},
    "Attack 2": {"ADVERSARY"},
    "Synthesis": {"META", "VERIFICATION"},
}
ORDER = ["Clarification", "Exploration", "Formalization", "Verification", "Attack", "Attack 1", "Attack 2",
         "Synthesis"]


def _plan_id(combo: tuple[object, ...]) -> str:
    return "-".join(str(part) for part in combo)


def genesis(plan: DeploymentPlan) -> set[int]:
    return {a for a in plan.agents() if roster.tier_of(a) == "GENESIS"}


def tier_count(plan: DeploymentPlan, tier: str) -> int:
    return sum(1 for a in plan.agents() if roster.tier_of(a) == tier)


@pytest.mark.parametrize("combo", COMBINATIONS, ids=_plan_id)
def test_every_classification_gives_a_plan_within_the_rules(combo: tuple[str, str | None, str, str, bool]) -> None:
    ptype, _, unc, stk, well_defined = combo
    plan = plan_deployment(*combo)
    deployed = set(plan.agents())
    # §1.3.2 mandatory agents, and Session Memory persists beside every batch
    assert set(roster.MANDATORY_AGENTS) <= deployed
    assert plan.persistent == (roster.SESSION_MEMORY,)
    assert roster.SESSION_MEMORY not in {a for batch in plan.batches for a in batch}
    # §1.3.3 / A.3: at most 10 in parallel, persistent agents included
    assert all(0 < len(batch) <= MAX_PARALLEL - len(plan.persistent) for batch in plan.batches)
    # §1.3.2 non-trivial problem: >= 3 GENESIS categories, >= 1 VERIFICATION, >= 1 ADVERSARY
    assert len({roster.genesis_category(a).key for a in genesis(plan)}) >= 3
    assert tier_count(plan, "VERIFICATION") >= 1
    assert tier_count(plan, "ADVERSARY") >= 1
    # §1.2 priority agents of the type, and the clarity agents of an ill-defined problem
    assert set(PRIORITY_AGENTS[ptype]) <= deployed
    assert (set(CLARITY_AGENTS) <= deployed) or well_defined
    # §1.2 GENESIS width by uncertainty
    low, high = GENESIS_RANGE[unc]
    assert low <= len(genesis(plan)) <= high
    # §1.3.3 batch order, and each batch holds the tiers it is for
    assert plan.batch_names == tuple(sorted(plan.batch_names, key=ORDER.index))
    for name, batch in zip(plan.batch_names, plan.batches, strict=True):
        assert {roster.tier_of(a) for a in batch} <= BATCH_TIERS[name], name
        assert list(batch) == sorted(set(batch))
    assert len(plan.batch("Exploration")) >= 6
    assert ("Clarification" in plan.batch_names) is not well_defined
    # §1.2 stakes: full battery in two batches / a single verification pass / Steelman at least
    assert 44 in deployed
    if stk == "HIGH":
        assert tier_count(plan, "ADVERSARY") == 12
        assert "Attack 2" in plan.batch_names
        assert plan.verification_passes >= 2
    if stk == "LOW":
        assert plan.verification_passes == 1
        assert not set(plan.batch("Synthesis")) & set(roster.TIER_RANGES["VERIFICATION"])


@pytest.mark.parametrize(("uncertainty", "well_defined", "count"),
                         [("LOW", True, 6), ("LOW", False, 8), ("MEDIUM", True, 9), ("MEDIUM", False, 11),
                          ("HIGH", True, 12), ("HIGH", False, 14)])
def test_genesis_width_is_the_low_end_of_the_range_plus_two_when_ill_defined(
    uncertainty: str, well_defined: bool, count: int
) -> None:
    plan = plan_deployment("ANALYTICAL", "LOGICAL", uncertainty, "LOW", well_defined)
    assert len(genesis(plan)) == count


def test_high_uncertainty_overflows_genesis_into_the_formalization_batch() -> None:
    plan = plan_deployment("EMPIRICAL", "CAUSAL", "HIGH", "LOW")
    overflow = set(plan.batch("Formalization")) & genesis(plan)
    assert len(plan.batch("Exploration")) == BATCH_CAPACITY
    assert len(overflow) == 12 - BATCH_CAPACITY
    assert plan.attack_rounds == 2
    assert plan.proceed_confidence == 0.4


def test_low_stakes_deploy_an_abbreviated_attack_of_steelman_and_the_type_priorities() -> None:
    assert plan_deployment("SYNTHETIC", None, "LOW", "LOW").batch("Attack") == (44,)
    assert plan_deployment("EMPIRICAL", None, "LOW", "LOW").batch("Attack") == (36, 37, 44)


def test_high_stakes_attack_with_all_twelve_adversaries_in_two_batches() -> None:
    plan = plan_deployment("NORMATIVE", "ETHICAL", "LOW", "HIGH")
    assert plan.batch("Attack 1") + plan.batch("Attack 2") == tuple(range(35, 47))
    assert plan.adversary_battery == "FULL"
    assert set(plan.batch("Verification")) <= set(plan.batch("Synthesis"))
    assert plan.final_confidence == 0.8


def test_the_subtype_steers_which_genesis_categories_are_covered() -> None:
    plan = plan_deployment("META", "TRACTABILITY", "LOW", "LOW")
    assert plan.genesis_categories[:3] == ("intractable", "decomposition", "formal")
    assert {15, 4, 1} <= genesis(plan)


def test_same_inputs_give_the_same_plan_and_json_output() -> None:
    first = plan_deployment("SYNTHETIC", "CREATIVE", "HIGH", "MEDIUM", well_defined=False)
    again = plan_deployment(" synthetic", "creative ", "high", "Medium", well_defined=False)
    assert first == again
    data = first.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["batches"][0] == {"name": "Clarification", "agents": [1, 3, 4, 47]}
    assert data["agents"] == list(first.agents())
    assert data["rules"] == list(first.rules)
    # the agents deployed, named (Appendix A.1): the Clarification batch's four, by hand
    named = {r["id"]: (r["name"], r["tier"]) for r in data["roster"]}
    assert [r["id"] for r in data["roster"]] == data["agents"]
    assert named[1] == ("First Principles", "GENESIS")
    assert named[4] == ("Decomposition Critic", "GENESIS")


def test_the_plan_records_the_rules_it_applied() -> None:
    rules = plan_deployment("EMPIRICAL", None, "MEDIUM", "MEDIUM").rules
    assert rules[0] == "§1.2 EMPIRICAL priority agents: 2, 32, 33, 36, 37"
    assert any(r.startswith("MEDIUM (not in §1.2, between LOW and HIGH) stakes: standard ADVERSARY battery")
               for r in rules)
    assert any(r.startswith("§1.3.2 mandatory: Session Memory 53 persistent") for r in rules)


def test_batch_lookup_of_a_missing_batch_raises_key_error() -> None:
    with pytest.raises(KeyError):
        plan_deployment("EMPIRICAL", None, "LOW", "LOW").batch("Attack 2")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("PHYSICAL", None, "LOW", "LOW"), "problem_type must be one of EMPIRICAL|NORMATIVE|ANALYTICAL|SYNTHETIC|META"),
        (("EMPIRICAL", "ETHICAL", "LOW", "LOW"), "subtype ETHICAL belongs to NORMATIVE, not EMPIRICAL"),
        (("EMPIRICAL", "QUANTUM", "LOW", "LOW"),
         r"subtype 'QUANTUM' is not a subtype of EMPIRICAL \(allowed: CAUSAL|DESCRIPTIVE|PREDICTIVE or None\)"),
        (("EMPIRICAL", None, "EXTREME", "LOW"), "uncertainty must be one of LOW|MEDIUM|HIGH, got 'EXTREME'"),
        (("EMPIRICAL", None, "LOW", ""), "stakes must be one of LOW|MEDIUM|HIGH, got ''"),
        (("EMPIRICAL", None, "LOW", None), "stakes must be one of LOW|MEDIUM|HIGH, got None"),
    ],
)
def test_bad_inputs_raise_value_error_with_a_clear_message(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("|", r"\|")):
        plan_deployment(*args)  # type: ignore[arg-type]


@pytest.mark.parametrize(("uncertainty", "synthesis", "rule"), [
    ("LOW", (48, 51, 52), "§1.2 LOW uncertainty: 1 attack round(s); proceed to next tier at 0.50 (A.2)"),
    ("MEDIUM", (48, 49, 51, 52),
     "MEDIUM (not in §1.2, between LOW and HIGH) uncertainty: 1 attack round(s); proceed to next tier at 0.50 (A.2)"),
    ("HIGH", (48, 49, 51, 52), "§1.2 HIGH uncertainty: 2 attack round(s); proceed to next tier at 0.40 (A.2)"),
])
def test_low_stakes_plan_reads_whole_by_uncertainty(uncertainty: str, synthesis: tuple[int, ...], rule: str) -> None:
    """EMPIRICAL at LOW stakes: the abbreviated battery is Steelman 44 plus the type's priority adversaries 36
    and 37; no final VERIFICATION pass; the Consensus Mapper 49 joins Synthesis unless uncertainty is LOW."""
    plan = plan_deployment("EMPIRICAL", None, uncertainty, "LOW")
    assert (plan.adversary_battery, plan.batch("Attack"), plan.batch("Synthesis")) == (
        "ABBREVIATED", (36, 37, 44), synthesis)
    assert "§1.2 LOW stakes: abbreviated ADVERSARY 36, 37, 44 (Steelman Attacker 44 + the type's priority " \
           "adversaries)" in plan.rules
    assert plan.rules[-2:] == (rule, "A.2/§6.1 LOW stakes: final answer needs confidence > 0.40")
