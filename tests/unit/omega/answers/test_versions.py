"""One canonical form for versions (issue 18, DS005 part): the spelling table, written by hand from the rule
(trim, lowercase, strip a leading `version` or `v` before a number), then end to end through ingest -> store ->
planner (or a given plan) -> answer, and the suite tests/data/answers/version_spellings.json. Expected values
come from the rule and DS005 §4.4 by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from omega.answers.answer import answer
from omega.answers.ingest import ingest, ingest_manual
from omega.answers.model import QueryPlan
from omega.answers.planner import plan_question
from omega.answers.store import FactStore
from omega.answers.suite import answer_question, build_store, parse_suite, passed
from omega.answers.versions import canonical_version, same_version, shown_version, version_key
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB

SPELLINGS = Path(__file__).resolve().parents[3] / "data" / "answers" / "version_spellings.json"
EXPIRY = "Session tokens expire after 15 minutes of inactivity."  # 53 characters
ASKED = "How long before session tokens expire from inactivity{}?"


@pytest.mark.parametrize(("raw", "canonical"), [
    ("2.0", "2.0"),
    ("v2.0", "2.0"),
    ("V2.0", "2.0"),
    ("version 2.0", "2.0"),
    ("Version 2.0", "2.0"),
    ("VERSION  2.0", "2.0"),
    ("version2.0", "2.0"),
    ("version.2.0", "2.0"),
    ("version. 2.0", "2.0"),
    ("v 2.0", "2.0"),
    ("v.2.0", "2.0"),
    ("version v2.0", "2.0"),
    ("  v2.0\t", "2.0"),
    ("2", "2"),
    ("v2", "2"),
    ("2.00", "2.00"),
    ("V2.0-Beta", "2.0-beta"),
    ("vista", "vista"),
    ("Vista 2", "vista 2"),
    ("versioning", "versioning"),
    ("versions 2", "versions 2"),
    ("version", "version"),
    ("version.", "version."),
    ("v", "v"),
    ("version alpha", "alpha"),
    ("", ""),
])
def test_the_canonical_form_of_each_spelling(raw: str, canonical: str) -> None:
    assert canonical_version(raw) == canonical


def test_the_canonical_form_is_a_fixed_point() -> None:
    for raw in ("v2.0", "version 2.0", "version v2.0", "2", "vista", "version alpha"):
        once = canonical_version(raw)
        assert canonical_version(once) == once


def test_two_and_two_point_zero_stay_different_and_no_version_is_not_a_version() -> None:
    assert not same_version("2", "2.0")
    assert not same_version("v2", "version 2.0")
    assert same_version("v2.0", "Version 2.0")
    assert same_version(None, None)
    assert not same_version(None, "2.0")
    assert version_key(None) is None
    assert version_key(" V3 ") == "3"


def test_messages_show_the_spelling_as_written_when_it_was_normalised() -> None:
    assert shown_version("2.0") == "2.0"
    assert shown_version("v2.0") == "2.0 (written 'v2.0')"
    assert shown_version(None) == "none"


# ---------------------------------------------------------------------------------------------- end to end

def _store(version: str) -> FactStore:
    return FactStore(ingest(EXPIRY, {"docId": "spec", "version": version}).facts)


def test_a_document_versioned_2_0_asked_in_v2_0_is_supported_and_keeps_its_spelling() -> None:
    store = _store("2.0")
    got = answer(plan_question(ASKED.format(" in v2.0"), store.subjects()), store, VOCAB)
    assert (got.verdict, got.text, got.chunks_used) == ("supported", "15 minutes", ("spec@2.0/c0",))
    assert got.fact_chain[0].fact["qualifiers"] == {"version": "2.0"}


def test_a_document_versioned_v2_0_asked_in_2_0_is_supported_and_keeps_its_spelling() -> None:
    store = _store("v2.0")
    got = answer(plan_question(ASKED.format(" in 2.0"), store.subjects()), store, VOCAB)
    assert (got.verdict, got.text, got.chunks_used) == ("supported", "15 minutes", ("spec@v2.0/c0",))
    assert got.fact_chain[0].fact["qualifiers"] == {"version": "v2.0"}  # the producer's spelling, not "2.0"


@pytest.mark.parametrize("document", ["2.0", "v2.0", "V2.0", "version 2.0"])
@pytest.mark.parametrize("asked", [" in v2.0", " in V2.0", " in version 2.0", " in 2.0", " (v2.0)", " in v 2.0"])
def test_every_spelling_of_the_question_meets_every_spelling_of_the_document(document: str, asked: str) -> None:
    store = _store(document)
    plan = plan_question(ASKED.format(asked), store.subjects())
    assert plan.version == "2.0"
    assert (answer(plan, store, VOCAB).verdict, answer(plan, store, VOCAB).text) == ("supported", "15 minutes")


@pytest.mark.parametrize(("document", "asked", "shown"), [("2.0", " in v2", "2"), ("2.0", " in 2", "2"),
                                                          ("2", " in 2.0", "2.0"), ("v2", " in version 2.0", "2.0")])
def test_two_against_two_point_zero_stays_unsupported_and_says_which_version_was_asked(document: str, asked: str,
                                                                                       shown: str) -> None:
    store = _store(document)
    got = answer(plan_question(ASKED.format(asked), store.subjects()), store, VOCAB)
    assert (got.verdict, got.text) == ("unsupported", None)
    assert got.reason is not None
    assert f" in version {shown} (candidates retrieved: 0)" in got.reason


def test_a_given_plan_in_another_spelling_is_answered() -> None:
    plan = QueryPlan(version="Version 2.0", subjects=("session_token",), predicates=("expires_after",),
                     params={"inactivityMinutes": 20})
    got = answer(plan, _store("v2.0"), VOCAB)
    assert (got.verdict, got.text) == ("supported", "No")
    assert [s.role for s in got.fact_chain] == ["premise", "derived", "conclusion"]


def test_a_manual_fact_keeps_its_own_spelling_and_is_in_the_documents_version() -> None:
    chunks = ingest(EXPIRY, {"docId": "spec", "version": "v2.0"}).chunks
    manual = {"span": {"start": 0, "end": 53}, "subject": "session_token", "predicate": "expires_after",
              "object": "15 minutes", "source": {"docId": "spec", "chunkId": "spec@v2.0/c0"},
              "qualifiers": {"version": "2.0"}}
    [fact] = ingest_manual([manual], chunks).facts
    assert (fact.version, fact.version_key) == ("2.0", "2.0")
    store = FactStore([fact])
    assert store.query("session_token", "expires_after", "V2.0") == [fact]
    assert store.query("session_token", "expires_after", "2") == []


# ------------------------------------------------------------------------------------- conflicts (§4.4)

RETRIES = "The value of max retries is {}."
CREATED = "The audit log was created on 2023-06-01."


def test_facts_differing_only_in_version_spelling_are_one_version_and_do_not_conflict() -> None:
    store = FactStore([*ingest(CREATED, {"docId": "a", "version": "V4.0"}).facts,
                       *ingest(CREATED, {"docId": "b", "version": "4.0"}).facts])
    assert len(store) == 2
    for asked in ("", " in v4.0", " in 4.0"):
        got = answer(plan_question(f"When was the audit log created{asked}?", store.subjects()), store, VOCAB)
        assert (got.verdict, got.text, got.conflicts) == ("supported", "2023-06-01", ())
        assert got.chunks_used == ("a@V4.0/c0", "b@4.0/c0")


def test_a_spelling_difference_neither_hides_a_conflict_nor_turns_it_into_a_version_disagreement() -> None:
    store = FactStore([*ingest(RETRIES.format(5), {"docId": "a", "version": "v5.0"}).facts,
                       *ingest(RETRIES.format(3), {"docId": "b", "version": "5.0"}).facts])
    for asked in (" in 5.0", " in v5.0", ""):
        got = answer(plan_question(f"What is the value of max retries{asked}?", store.subjects()), store, VOCAB)
        assert (got.verdict, got.text) == ("conflicting", None)
        [(first, second, reason)] = got.conflicts
        assert {first.object, second.object} == {5, 3}
        assert reason.startswith("VALUE_MISMATCH")
        assert reason.endswith("(version 5.0 (written 'v5.0' and '5.0'))")


def test_the_version_spellings_suite_meets_every_expectation() -> None:
    suite = parse_suite(json.loads(SPELLINGS.read_text(encoding="utf-8")))
    store, rejections = build_store(suite)
    assert rejections == []
    failed = [q.id for q in suite.questions if not passed(q, answer_question(q, store, suite.vocabulary))]
    assert failed == []
    assert {q.expected_verdict for q in suite.questions} == {"supported", "conflicting", "unsupported"}
