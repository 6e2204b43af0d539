"""Issue 46 (fault 2's class): the agents' spelling tables map each spelling one way. A bracketed report tag names
one outcome only (a gap report is clear or open, a steelman survives or is defeated), each agent name and each tier
name is read as one agent or tier whatever its case, and the 57 agent ids (OMEGA-57) fall in exactly one tier."""

from __future__ import annotations

from itertools import combinations

from omega.agents.roster import AGENTS, TIER_RANGES, agent_by_name, parse_tier
from omega.agents.session_gates import (
    DEFEATED_TAGS,
    GAPS_CLEAR_TAGS,
    GAPS_OPEN_TAGS,
    INTRACTABLE_TAGS,
    SURVIVES_TAGS,
)


def test_no_report_tag_names_two_outcomes() -> None:
    tables = {"clear": GAPS_CLEAR_TAGS, "open": GAPS_OPEN_TAGS, "survives": SURVIVES_TAGS,
              "defeated": DEFEATED_TAGS, "intractable": INTRACTABLE_TAGS}
    for (a, first), (b, second) in combinations(tables.items(), 2):
        assert not set(first) & set(second), (a, b)
    # hand-picked: the tag with "NO" in front is the clear one
    assert "NO CRITICAL GAPS" in GAPS_CLEAR_TAGS
    assert "CRITICAL GAPS" in GAPS_OPEN_TAGS


def test_each_agent_name_reads_as_its_own_agent_in_any_case() -> None:
    names = [a.name.strip().casefold() for a in AGENTS.values()]
    assert len(names) == len(set(names)) == 57
    for agent_id, row in AGENTS.items():
        found = agent_by_name(f"  {row.name.upper()} ")
        assert found is not None
        assert found.id == agent_id


def test_the_tiers_split_the_57_ids_and_each_tier_name_reads_one_way() -> None:
    ids = [i for block in TIER_RANGES.values() for i in block]
    assert sorted(ids) == list(range(1, 58))
    for tier in TIER_RANGES:
        assert parse_tier(f" {tier.lower()} ") == tier
    assert parse_tier("GENESI") is None
