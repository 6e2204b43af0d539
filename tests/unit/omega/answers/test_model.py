"""The DS005 data model: §5.1 plan validation and its messages, fact ids (given or derived from the version as
written), and paragraph chunks with their index and offset."""

from __future__ import annotations

from typing import Any

import pytest

from omega.answers.chunking import chunk
from omega.answers.model import Chunk, PlanError, QueryPlan, fact_from_dict, fact_id_of, plan_from_dict


@pytest.mark.parametrize(("plan", "message"), [
    (["subjects"], "a plan is a JSON object"),
    (None, "a plan is a JSON object"),
    ({"topic": 1, "subjects": [], "area": 2}, "unknown plan field(s): area, topic"),
    ({"version": 2}, "plan.version must be a string"),
    ({"subjects": "session_token"}, "plan.subjects must be a list of non-empty strings"),
    ({"subjects": ["session_token", ""]}, "plan.subjects must be a list of non-empty strings"),
    ({"predicates": ["requires", 3]}, "plan.predicates must be a list of non-empty strings"),
    ({"goal": {"subject": "x"}}, "plan.goal must be an object with a predicate"),
    ({"goal": ["predicate"]}, "plan.goal must be an object with a predicate"),
    ({"goal": {"predicate": "requires", "when": 1, "because": 2}}, "unknown goal field(s): because, when"),
    ({"params": [1]}, "plan.params must be an object"),
])
def test_a_plan_that_does_not_follow_5_1_is_refused_with_its_message(plan: Any, message: str) -> None:
    with pytest.raises(PlanError) as caught:
        plan_from_dict(plan)
    assert str(caught.value) == message


def test_a_plan_keeps_every_field_it_is_given() -> None:
    goal = {"subject": "session_token", "predicate": "expires_after", "object": "?d", "qualifiers": {"version": "v2"}}
    assert plan_from_dict({"version": "v2", "subjects": ["session_token"], "predicates": ["expires_after"],
                           "goal": goal, "params": {"inactivityMinutes": 20}}) == \
        QueryPlan("v2", ("session_token",), ("expires_after",), goal, {"inactivityMinutes": 20})
    assert plan_from_dict({"subjects": None, "params": None}) == QueryPlan()


FACT: dict[str, Any] = {"span": {"start": 0, "end": 9}, "subject": "t", "predicate": "valid_for", "object": "2 days",
                        "source": {"docId": "d", "chunkId": "d@v1/c0"}}


def test_a_given_fact_id_is_kept() -> None:
    assert fact_from_dict({**FACT, "factId": "fact_given"}).fact_id == "fact_given"


def test_a_derived_fact_id_hashes_the_version_as_written() -> None:
    versioned = fact_from_dict({**FACT, "qualifiers": {"version": "v1", "condition": "guest"}})
    assert versioned.fact_id == fact_id_of("t", "valid_for", "2 days", "affirm", "d", "d@v1/c0", 0, 9, "v1",
                                           {"condition": "guest"})
    assert versioned.fact_id != fact_from_dict({**FACT, "qualifiers": {"version": "1", "condition": "guest"}}).fact_id
    assert versioned.fact_id != fact_from_dict({**FACT, "qualifiers": {"condition": "guest"}}).fact_id
    assert fact_from_dict(FACT).fact_id == fact_id_of("t", "valid_for", "2 days", "affirm", "d", "d@v1/c0", 0, 9,
                                                      None, {})


def test_chunks_are_paragraphs_with_their_index_and_offset() -> None:
    assert chunk("Alpha one.\n\n  Beta two.\n\nGamma.", "doc", "v1") == [
        Chunk("doc@v1/c0", "doc", "v1", 0, 0, "Alpha one."),
        Chunk("doc@v1/c1", "doc", "v1", 1, 14, "Beta two."),
        Chunk("doc@v1/c2", "doc", "v1", 2, 25, "Gamma."),
    ]
