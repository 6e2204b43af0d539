"""The DS005 seed's worked examples (§6.3, §4.4, §4.2) end to end: ingest -> store -> plan -> answer."""

from __future__ import annotations

from omega.answers.answer import answer
from omega.answers.ingest import ingest
from omega.answers.model import QueryPlan
from omega.answers.planner import plan_question
from omega.answers.store import FactStore
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB

V1 = "Session tokens expire after 30 minutes of inactivity."
V2 = "In v2.0, session tokens expire after 15 minutes of inactivity."


def _store() -> FactStore:
    facts = [*ingest(V1, {"docId": "spec-v1", "version": "v1.0"}).facts,
             *ingest(V2, {"docId": "spec-v2", "version": "v2.0"}).facts]
    return FactStore(facts)


def test_expiry_in_a_stated_version_is_supported_with_that_versions_duration() -> None:
    store = _store()
    got = answer(plan_question("How long before session tokens expire from inactivity in v2.0?", store.subjects()),
                 store, VOCAB)
    assert (got.verdict, got.text, got.chunks_used) == ("supported", "15 minutes", ("spec-v2@v2.0/c0",))


def test_twenty_minutes_of_inactivity_in_v2_answers_no_with_premise_derived_and_conclusion() -> None:
    store = _store()
    plan = QueryPlan(version="v2.0", subjects=("session_token",), predicates=("expires_after",),
                     params={"inactivityMinutes": 20})
    got = answer(plan, store, VOCAB)
    assert (got.verdict, got.text) == ("supported", "No")
    assert [s.role for s in got.fact_chain] == ["premise", "derived", "conclusion"]
    assert got.fact_chain[0].fact["object"] == "15 minutes"
    assert got.fact_chain[1].fact["predicate"] == "session_expired"
    assert got.fact_chain[1].fact["object"] is True
    assert got.to_dict()["supportScores"] == {s.fact_id: 1.0 for s in got.fact_chain}


def test_the_same_question_without_a_version_is_conflicting_with_the_pair_listed() -> None:
    store = _store()
    got = answer(plan_question("If a user is inactive for 20 minutes, is their session valid?", store.subjects()),
                 store, VOCAB)
    assert got.verdict == "conflicting"
    assert got.text is None
    [(a, b, reason)] = got.conflicts
    assert {a.object, b.object} == {"30 minutes", "15 minutes"}
    assert reason.startswith("VERSION_DISAGREEMENT")
    assert set(got.chunks_used) == {"spec-v1@v1.0/c0", "spec-v2@v2.0/c0"}


def test_a_predicate_outside_the_vocabulary_is_unsupported() -> None:
    got = answer(QueryPlan(subjects=("session_token",), predicates=("owned_by",)), _store(), VOCAB)
    assert got.verdict == "unsupported"
    assert got.text is None
    assert got.reason is not None
    assert "owned_by" in got.reason
