"""The roster: Appendix A.1 as data, tier blocks, §1.3.2 mandatory agents, §1.3.1 categories, and lookups."""

from __future__ import annotations

import pytest

from omega.agents import roster
from omega.agents.model import TIERS


def test_appendix_a1_has_57_agents_numbered_1_to_57() -> None:
    assert list(roster.AGENTS) == list(range(1, 58))
    assert all(row.id == agent_id for agent_id, row in roster.AGENTS.items())


@pytest.mark.parametrize(
    ("agent_id", "name", "tier", "function"),
    [
        (1, "First Principles", "GENESIS", "Top-down axioms"),
        (20, "Forbidden Path Explorer", "GENESIS", "Taboo"),
        (21, "Formalizer", "BRIDGE", "Formalization"),
        (30, "Counter-Model Seeker", "VERIFICATION", "Counterexamples"),
        (44, "Steelman Attacker", "ADVERSARY", "Best-case attack"),
        (52, "Quality Controller", "META", "Quality"),
        (56, "Success Memory", "MEMORY", "Successes"),
        (57, "PHI", "PHI", "Orchestrator"),
    ],
)
def test_rows_match_appendix_a1(agent_id: int, name: str, tier: str, function: str) -> None:
    assert roster.agent(agent_id) == roster.Agent(agent_id, name, tier, function)


def test_tier_ranges_are_contiguous_blocks_in_tier_order_and_agree_with_every_row() -> None:
    assert tuple(roster.TIER_RANGES) == TIERS
    ids = [a for block in roster.TIER_RANGES.values() for a in block]
    assert ids == list(range(1, 58))
    for tier, block in roster.TIER_RANGES.items():
        assert {roster.tier_of(a) for a in block} == {tier}


def test_agents_in_tier_accepts_any_case() -> None:
    assert roster.agents_in_tier(" bridge ") == (21, 22, 23, 24, 25, 26)
    with pytest.raises(ValueError, match="not a tier"):
        roster.agents_in_tier("WIZARD")


def test_mandatory_agents_are_session_memory_progress_monitor_and_quality_controller() -> None:
    assert roster.MANDATORY_AGENTS == (53, 48, 52)
    names = [roster.agent(a).name for a in roster.MANDATORY_AGENTS]
    assert names == ["Session Memory", "Progress Monitor", "Quality Controller"]


def test_genesis_categories_partition_the_genesis_tier() -> None:
    members = [a for c in roster.GENESIS_CATEGORIES for a in c.agents]
    assert sorted(members) == list(range(1, 21))
    assert len(roster.GENESIS_CATEGORIES) == 8


@pytest.mark.parametrize(
    ("agent_id", "key"),
    [(1, "formal"), (12, "empirical"), (16, "creative"), (8, "cross_domain"), (19, "edge_case"),
     (11, "pattern"), (20, "intractable"), (4, "decomposition")],
)
def test_genesis_category_of_an_agent_follows_the_131_matrix(agent_id: int, key: str) -> None:
    assert roster.genesis_category(agent_id).key == key
    assert agent_id in roster.category(key).agents


def test_genesis_category_refuses_agents_outside_genesis_and_unknown_keys() -> None:
    with pytest.raises(ValueError, match="not a GENESIS agent"):
        roster.genesis_category(21)
    with pytest.raises(ValueError, match="not a GENESIS category"):
        roster.category("poetry")


@pytest.mark.parametrize(
    "name", ["Steelman Attacker", "steelman attacker", "  STEELMAN ATTACKER\t", "\nSteelman attacker ",
             "Steelman-Attacker", "Steelman  Attacker", "steelman_attacker", "Steelman _- Attacker"]
)
def test_name_matching_ignores_case_surrounding_whitespace_and_word_separators(name: str) -> None:
    assert roster.name_matches(44, name)
    assert roster.agent_by_name(name) == roster.agent(44)


@pytest.mark.parametrize(("name", "agent_id"), [("Counter Model Seeker", 30), ("bottom_up_builder", 2),
                                                ("Cross Domain Connector", 8), ("Counter-Model-Seeker", 30)])
def test_a_hyphenated_roster_name_matches_with_any_separator(name: str, agent_id: int) -> None:
    assert roster.agent_by_name(name) == roster.agent(agent_id)


@pytest.mark.parametrize("name", ["Steelman", "SteelmanAttacker", "Steelman Attacker 44", "", "_-"])
def test_name_matching_tolerates_nothing_else(name: str) -> None:
    assert not roster.name_matches(44, name)
    assert roster.agent_by_name(name) is None


def test_name_of_one_agent_does_not_match_another() -> None:
    assert not roster.name_matches(45, "Steelman Attacker")
    assert not roster.name_matches(99, "Steelman Attacker")


@pytest.mark.parametrize(
    ("text", "tier"), [("GENESIS", "GENESIS"), (" meta ", "META"), ("Phi", "PHI"), ("GENESYS", None)]
)
def test_parse_tier_returns_the_canonical_spelling_or_none(text: str, tier: str | None) -> None:
    assert roster.parse_tier(text) == tier


@pytest.mark.parametrize("value", [0, 58, -1, True, "44", 44.0, None])
def test_non_agent_ids_are_refused(value: object) -> None:
    assert not roster.is_agent_id(value)
    with pytest.raises(ValueError, match="not an agent id"):
        roster.agent(value)  # type: ignore[arg-type]
