"""Cross-references read tolerantly (`omega.agents.crossrefs`): which agents a text names, the §2.1
responding_to words, §1.3.3 batches and §2.1 tiers, dependencies and contradiction_with. Expected values are
worked out by hand from the spec (A.1 roster, §1.3.3 batches 1..5, §2.1 tiers) and the module's rules."""

from __future__ import annotations

from typing import Any

import pytest

from omega.agents import roster
from omega.agents.crossrefs import (
    agent_of,
    agents_named,
    batch_reference,
    key_free,
    read_contradiction_with,
    read_dependencies,
    read_inputs_used,
    read_outputs_for,
    read_responding_to,
    reference_key,
    show,
    tier_reference,
)
from omega.agents.model import InputUsed


# ------------------------------------------------------------------------------------------- agents
@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("44", {44}), ("#44", {44}), (" 7 ", {7}), ("58", set()), ("0", set()),
        ("Steelman Attacker", {44}), ("steelman_attacker", {44}), ("counter model seeker", {30}), ("skeptic", {35}),
        ("agent_17_limit_explorer", {17}), ("Agent 37 (Historian)", {37}), ("agent-37", {37}), ("AGENT#37", {37}),
        ("agents 33 and 39", {33, 39}), ("agents 33, 39 & 41", {33, 39, 41}), ("agent 33 and 2 confounders", {33}),
        ("Causal Verifier (33)", {33}), ("see #12", {12}),
        ("Causal Verifier and Empirical Tester both assume stationarity", {32, 33}),
        ("the Historian's 2019 precedent", {37}), ("a confounder the trial ignored", set()),
        ("the CONFOUNDER", {39}), ("2 confounders, 80% failure rate", set()), ("subagent 3", set()),
        ("all ADVERSARY agents", set()), ("Steelman's second objection", set()), ("", set()),
        ("PHI", {57}), ("Agent 58 says so", set()),
    ],
)
def test_agents_named_finds_numbers_handles_and_roster_names(text: str, named: set[int]) -> None:
    assert agents_named(text) == named


def test_no_roster_name_is_found_inside_another() -> None:
    for agent in roster.AGENTS.values():
        assert agents_named(agent.name) == {agent.id}
        assert agents_named(f"the output of {agent.name}, as written") == {agent.id}


@pytest.mark.parametrize(
    ("value", "agent"),
    [(44, 44), (0, None), (58, None), (True, None), (44.0, None), ("agent_44", 44), ("agents 33 and 39", None),
     ("nobody", None), (None, None), ([44], None)],
)
def test_agent_of_is_an_id_or_a_string_naming_exactly_one_agent(value: Any, agent: int | None) -> None:
    assert agent_of(value) == agent


def test_key_free_never_takes_a_key_already_used() -> None:
    assert key_free({}, "x_raw") == "x_raw"
    assert key_free({"x_raw": 1, "x_raw_2": 2}, "x_raw") == "x_raw_3"


# ------------------------------------------------------------------------------------- responding_to
@pytest.mark.parametrize(
    ("text", "key"), [(" phi query ", "PHI_QUERY"), ("Batch 4 - 2", "BATCH_4_2"), ("genesis-tier", "GENESIS_TIER"),
                      ("__x__", "X"), ("  ", "")],
)
def test_reference_key_is_upper_case_with_one_underscore_between_words(text: str, key: str) -> None:
    assert reference_key(text) == key


@pytest.mark.parametrize(
    ("key", "batch"),
    [("BATCH_1", "BATCH_1"), ("BATCH_5", "BATCH_5"), ("BATCH_4_2", "BATCH_4_2"), ("BATCH3", "BATCH_3"),
     ("BATCH_03", "BATCH_3"), ("BATCH_0", None), ("BATCH_6", None), ("BATCH_2_0", None), ("BATCH", None),
     ("BATCH_4B", None)],
)
def test_batch_references_are_the_five_batches_of_1_3_3_and_their_parts(key: str, batch: str | None) -> None:
    assert batch_reference(key) == batch


@pytest.mark.parametrize(
    ("key", "tier"), [("META", "META_TIER"), ("META_TIER", "META_TIER"), ("PHI", "PHI_TIER"), ("WIZARD", None),
                      ("WIZARD_TIER", None), ("TIER", None)],
)
def test_tier_references_are_the_seven_tiers_of_2_1(key: str, tier: str | None) -> None:
    assert tier_reference(key) == tier


@pytest.mark.parametrize(
    ("value", "stored", "raw_kept"),
    [(48, 48, False), ("PHI_QUERY", "PHI_QUERY", False), ("INITIAL", "INITIAL", False), ("initial", "INITIAL", True),
     ("BATCH_2", "BATCH_2", False), ("batch 2", "BATCH_2", True), ("Verification", "VERIFICATION_TIER", True),
     ("agent_33_causal_verifier", 33, True), ("unknown thread", "unknown thread", False)],
)
def test_responding_to_reads_words_batches_tiers_and_agents(value: Any, stored: Any, raw_kept: bool) -> None:
    reading = read_responding_to(value, {})
    assert (reading.value, reading.problem) == (stored, None)
    assert reading.extras == ({"responding_to_raw": value} if raw_kept else {})
    assert len(reading.notes) == (1 if raw_kept or stored == "unknown thread" else 0)


@pytest.mark.parametrize(
    ("value", "problem"),
    [(0, "0 is outside the agent ids 1..57"), (58, "58 is outside the agent ids 1..57"), ("", "must not be empty"),
     (" _ ", "must not be empty"), (True, "must be an agent id 1..57 or a reference string"),
     ([44], "must be an agent id 1..57 or a reference string"), ({"agent": 44}, "must be an agent id")],
)
def test_responding_to_refuses_only_a_wrong_type_an_empty_string_or_an_id_outside_the_roster(
    value: Any, problem: str,
) -> None:
    reading = read_responding_to(value, {})
    assert reading.problem is not None
    assert reading.problem.startswith(problem)


# -------------------------------------------------------------------------------------- dependencies
def test_inputs_used_entries_in_every_shape() -> None:
    reading = read_inputs_used([
        17, "agent_19_boundary_mapper", {"agent_id": "Skeptic", "element": "premise", "how_used": "attacked"},
        {"agent_id": 32, "element": ["a", "b"], "how_used": "h", "weight": 0.5}, {"element": "no agent"},
        "agents 33 and 39", 99,
    ])
    assert reading.value == (
        InputUsed(17, "", ""),
        InputUsed(19, "", "", {"agent_id_raw": "agent_19_boundary_mapper"}),
        InputUsed(35, "premise", "attacked", {"agent_id_raw": "Skeptic"}),
        InputUsed(32, "", "h", {"weight": 0.5, "element_raw": ["a", "b"]}),
    )
    assert reading.extras == {"inputs_used_unresolved": [{"element": "no agent"}, "agents 33 and 39", 99]}
    assert reading.notes[0] == "dependencies.inputs_used[0]: element and how_used unstated"
    assert reading.notes[1] == "dependencies.inputs_used[1]: 'agent_19_boundary_mapper' read as agent 19"
    assert reading.notes[-1] == ("dependencies.inputs_used[6]: 99 names no single agent 1..57: the entry is kept "
                                 "in the dependencies extras under inputs_used_unresolved")


def test_outputs_for_keeps_agents_and_moves_the_rest() -> None:
    reading = read_outputs_for([57, "PHI", 0, 60, True, "the attack team", "Conflict Resolver"])
    assert reading.value == (57, 57, 50)
    assert reading.extras == {"outputs_for_unresolved": [0, 60, True, "the attack team"]}
    assert reading.notes[0] == "dependencies.outputs_for[1]: 'PHI' read as agent 57"


def test_a_producer_key_named_like_ours_is_not_overwritten() -> None:
    reading = read_dependencies({"inputs_used": ["nobody"], "inputs_used_unresolved": "mine"})
    assert reading.extras == {"inputs_used_unresolved_2": ["nobody"]}


# --------------------------------------------------------------------------------- contradiction_with
@pytest.mark.parametrize(
    ("value", "stored"),
    [(37, 37), (None, None), ("37", 37), ("Historian", 37), ("agents 33 and 39", None), (0, None), (True, None),
     ([33], 33), ([33, "Confounder"], None), ({"agent_id": 33}, None)],
)
def test_contradiction_with_is_the_one_agent_named_else_null(value: Any, stored: int | None) -> None:
    reading = read_contradiction_with(value, {})
    assert reading.value == stored
    as_written = value is None or value == 37
    assert reading.extras == ({} if as_written else {"contradiction_with_raw": value})
    assert len(reading.notes) == (0 if as_written else 1)
    assert reading.problem is None


@pytest.mark.parametrize(("value", "shown"), [
    ("x" * 58, "'" + "x" * 58 + "'"),                 # repr of 60 characters: shown whole
    ("x" * 59, "'" + "x" * 56 + "..."),               # 61: cut to 57 and "..." (60 in all)
    (12, "12"),
])
def test_a_value_is_shown_as_its_repr_cut_to_60_characters(value: object, shown: str) -> None:
    assert show(value) == shown
    assert len(show(value)) <= 60
