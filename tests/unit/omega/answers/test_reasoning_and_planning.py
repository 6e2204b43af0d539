"""Backward chaining (rules, depth bound), §6.2 evaluators, the template planner, chunking, extraction and
§8 consistency."""

from __future__ import annotations

from typing import Any

import pytest

from omega.answers.answer import answer
from omega.answers.chunking import chunk
from omega.answers.consistency import extraction_consistency, jaccard
from omega.answers.evaluators import compare, duration_minutes, timestamp_ms
from omega.answers.extraction import rule_extract
from omega.answers.model import Chunk, QueryPlan
from omega.answers.planner import plan_question, split_version
from omega.answers.reasoning import Context, derive
from omega.answers.store import FactStore
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB
from tests.unit.omega.answers.test_store_and_conflicts import fact

CHAIN = FactStore([fact("a", "part_of", "b"), fact("b", "part_of", "c"), fact("c", "part_of", "d"),
                   fact("d", "requires", "vpn"), fact("x", "part_of", "y"), fact("y", "part_of", "x")])


def test_transitive_part_of_is_derived_with_premises_and_derived_steps() -> None:
    [solution, *_] = derive({"subject": "a", "predicate": "part_of", "object": "d"}, Context(CHAIN))
    assert [s.role for s in solution.steps].count("premise") == 3
    assert solution.steps[-1].role == "derived"


def test_requirements_are_inherited_from_the_whole() -> None:
    got = answer(QueryPlan(goal={"subject": "a", "predicate": "requires", "object": "vpn"}), CHAIN, VOCAB)
    assert (got.verdict, got.text) == ("supported", "Yes")


def test_the_depth_bound_stops_long_chains_and_cycles() -> None:
    assert derive({"subject": "a", "predicate": "part_of", "object": "d"}, Context(CHAIN), depth=1) == []
    assert derive({"subject": "x", "predicate": "part_of", "object": "z"}, Context(CHAIN), depth=6) == []


def test_an_absent_link_is_not_guessed() -> None:
    got = answer(QueryPlan(goal={"subject": "a", "predicate": "requires", "object": "mfa"}), CHAIN, VOCAB)
    assert got.verdict == "unsupported"
    assert answer(QueryPlan(goal={"subject": "q", "predicate": "part_of", "object": "d"}), CHAIN, VOCAB).text is None


def test_durations_and_timestamps_parse_to_canonical_numbers() -> None:
    assert duration_minutes("2 hours") == 120.0
    assert duration_minutes("30 seconds") == 0.5
    assert duration_minutes("soon") is None
    assert duration_minutes(True) is None
    assert timestamp_ms("1970-01-02") == 86_400_000
    assert timestamp_ms("2024-01-01T00:00:00Z") == timestamp_ms("2024-01-01")
    assert timestamp_ms("yesterday") is None


def test_comparisons_return_none_when_a_side_is_missing() -> None:
    assert compare(20, ">", 15) is True
    assert compare(15, "==", 15) is True
    assert compare(None, ">", 15) is None
    assert compare(1, "~", 2) is None


def test_missing_parameters_make_the_derived_answer_unsupported() -> None:
    store = FactStore([fact("t", "expires_after", "15 minutes"), fact("k", "created_at", "2024-01-01")])
    goal: dict[str, Any] = {"subject": "t", "predicate": "valid_after_inactivity", "object": "?answer"}
    got = answer(QueryPlan(goal=goal), store, VOCAB)
    assert (got.verdict, got.reason) == ("unsupported", "missing parameter(s): inactivityMinutes")
    created = answer(QueryPlan(goal={"subject": "k", "predicate": "created_before", "object": "?a"},
                               params={"before": "not a date"}), store, VOCAB)
    assert created.verdict == "unsupported"
    at_limit = answer(QueryPlan(goal=goal, params={"inactivityMinutes": 15}), store, VOCAB)
    assert at_limit.text == "No"  # it expires at minute 15
    within = answer(QueryPlan(goal=goal, params={"inactivityMinutes": 14}), store, VOCAB)
    assert within.text == "Yes"


def test_planner_reads_versions_and_templates_and_resolves_subjects() -> None:
    plan = plan_question("Is the admin console part of the platform in v2.0?", ["admin_console"])
    assert plan.version == "2.0"  # the canonical form; the question text keeps the asker's "v2.0"
    assert plan.goal == {"subject": "admin_console", "predicate": "part_of", "object": "platform"}
    assert plan_question("If a user is inactive for 2 hours, is their session valid?", ["session_token"]).params == {
        "inactivityMinutes": 120.0}
    assert split_version("Does X require Y (v1.2)?") == ("Does X require Y?", "1.2")


@pytest.mark.parametrize(("question", "rest", "version"), [
    ("Does X require Y in v2.0?", "Does X require Y?", "2.0"),
    ("Does X require Y in V2.0?", "Does X require Y?", "2.0"),
    ("Does X require Y in version 2.0?", "Does X require Y?", "2.0"),
    ("Does X require Y in Version2.0?", "Does X require Y?", "2.0"),
    ("Does X require Y in v.2.0?", "Does X require Y?", "2.0"),
    ("Does X require Y in 2.0?", "Does X require Y?", "2.0"),
    ("Does X require Y in 2?", "Does X require Y?", "2"),
    ("Does X require Y in v2?", "Does X require Y?", "2"),
    ("Does X require Y for v 3.1.4?", "Does X require Y?", "3.1.4"),
    ("If a user is inactive for 20 minutes in 2.0, is their session valid?",
     "If a user is inactive for 20 minutes, is their session valid?", "2.0"),
    ("If a user is inactive for 20 minutes, is their session valid?",
     "If a user is inactive for 20 minutes, is their session valid?", None),
    ("Do tokens expire in 20 minutes?", "Do tokens expire in 20 minutes?", None),
    ("Was the audit log created before 2024-01-01?", "Was the audit log created before 2024-01-01?", None),
    ("Does X require Y within 2.0?", "Does X require Y within 2.0?", None),
    ("Does vista require IPv6?", "Does vista require IPv6?", None),
])
def test_planner_reads_every_spelling_of_a_version_and_gives_its_canonical_form(question: str, rest: str,
                                                                               version: str | None) -> None:
    assert split_version(question) == (rest, version)


def test_planner_gives_an_empty_plan_for_unknown_questions() -> None:
    assert plan_question("Who owns the key?").to_dict() == {}
    assert plan_question("Tell me everything in version 3").to_dict() == {"version": "3"}


def test_chunks_are_paragraphs_with_stable_ids() -> None:
    text = "One.\n\nTwo.\n"
    assert [(c.chunk_id, c.text) for c in chunk(text, "d", "v1")] == [("d@v1/c0", "One."), ("d@v1/c1", "Two.")]
    assert chunk(text, "d") == chunk(text, "d")
    assert chunk("  \n\n ", "d") == []


def test_rule_extractor_reads_polarity_and_leaves_unknown_sentences_alone() -> None:
    piece = chunk("Guest accounts do not require MFA. The sky is blue.", "d")[0]
    [candidate] = rule_extract(piece, VOCAB)
    assert (candidate["subject"], candidate["object"], candidate["polarity"]) == ("guest_account", "mfa", "negate")
    assert rule_extract(piece, {"expires_after": ("entity", "duration")}) == []


def test_consistency_is_one_for_a_deterministic_extractor_and_low_for_a_noisy_one() -> None:
    piece = chunk("Session tokens expire after 15 minutes. Admin accounts require MFA.", "d")[0]
    assert extraction_consistency(piece, rule_extract, VOCAB, 4).mean_jaccard == 1.0
    calls = iter(range(100))

    def noisy(c: Chunk, v: Any) -> list[Any]:
        # every other run drops a fact: the pairs agree on half
        found = rule_extract(c, v)
        return found if next(calls) % 2 == 0 else found[:1]

    result = extraction_consistency(piece, noisy, VOCAB, 2)
    assert result.mean_jaccard == 0.5
    assert not result.reliable
    assert jaccard(frozenset(), frozenset()) == 1.0
