"""The DS005 stage (streams/stages/answers.py) where versions meet: a question's `version` against its plan's (given, or
read from the text by the planner), and a fact's version through Avro into the store. One version in two
spellings is neither a contradiction nor a second version; 2 against 2.0 stays a contradiction."""

from __future__ import annotations

import json
from typing import Any

import pytest

from omega.answers.ingest import ingest
from omega.answers.model import fact_from_dict
from omega.answers.records import FACT_SCHEMA, fact_from_record, fact_to_record
from omega.answers.store import FactStore
from streams.stages.answers import AnswersStage
from streams.stages.base import Source
from streams.stages.packets import PacketStage
from streams.topics import ANSWERS, DEAD_LETTERS
from streams.wire.codec import SchemaRegistry

EXPIRY = "Session tokens expire after 15 minutes of inactivity."
SOURCE = Source("ds005.questions", 0, 7, b"default", None)  # keyed by its corpus: answered here
STORE = FactStore(ingest(EXPIRY, {"docId": "spec", "version": "2.0"}).facts)
PLAN = {"subjects": ["session_token"], "predicates": ["expires_after"]}


def _ask(pipeline: PacketStage, question: dict[str, Any]) -> Any:
    [emit] = AnswersStage(pipeline.outputs).question(json.dumps(question).encode(), SOURCE, lambda _: STORE)
    return emit


def test_a_question_version_spelled_otherwise_than_its_plan_is_answered(registry: SchemaRegistry,
                                                                        pipeline: PacketStage) -> None:
    asked = [
        {"question": "How long before session tokens expire from inactivity in v2.0?", "version": "V2.0"},
        {"question": "How long before session tokens expire from inactivity in version 2.0?", "version": "v2.0"},
        {"question": "How long do they last?", "plan": {**PLAN, "version": "v2.0"}, "version": "Version 2.0"},
    ]
    for question in asked:
        emit = _ask(pipeline, question)
        assert emit.topic is ANSWERS, emit.record
        record = registry.decode(emit.value)[1]
        assert (record["verdict"], record["text"]) == ("supported", "15 minutes")


def test_two_against_two_point_zero_is_still_a_contradiction(pipeline: PacketStage) -> None:
    emit = _ask(pipeline, {"question": "How long before session tokens expire from inactivity in v2.0?",
                           "version": "2"})
    assert emit.topic is DEAD_LETTERS
    assert emit.record["error_class"] == "INVALID_QUESTION"
    assert "contradicts" in emit.record["reason"]


def test_a_fact_keeps_its_spelling_through_avro_and_is_compared_in_canonical_form(registry: SchemaRegistry) -> None:
    [fact] = ingest(EXPIRY, {"docId": "spec", "version": "V2.0"}).facts
    record = fact_to_record(fact.to_dict(), "2025-12-22T10:40:00Z")
    assert record["version"] == "V2.0"
    back = fact_from_dict(fact_from_record(registry.decode(registry.encode(FACT_SCHEMA, record))[1]))
    assert back == fact
    assert (back.version, back.version_key) == ("V2.0", "2.0")
    assert FactStore([back]).query(version="v2.0") == [back]


# ------------------------------------------------------------------ every document is answered by a record
def _ingest(pipeline: PacketStage, document: dict[str, Any]) -> list[Any]:
    return AnswersStage(pipeline.outputs).document(json.dumps(document).encode(), SOURCE)


@pytest.mark.parametrize("document", [
    {"docId": "d", "text": ""},
    {"docId": "d", "text": "  \n\t "},
    {"docId": "d", "text": "", "facts": []},
], ids=["empty", "blank", "empty-no-manual"])
def test_a_document_with_nothing_to_ingest_is_refused(pipeline: PacketStage, document: dict[str, Any]) -> None:
    [emit] = _ingest(pipeline, document)
    assert emit.topic is DEAD_LETTERS
    assert emit.record["error_class"] == "INVALID_DOCUMENT"
    assert emit.record["reason"] == "text is empty and there are no manual facts: nothing to ingest"


@pytest.mark.parametrize("doc_id", [" ", "\t", ""], ids=["space", "tab", "empty"])
def test_a_blank_doc_id_is_refused(pipeline: PacketStage, doc_id: str) -> None:
    [emit] = _ingest(pipeline, {"docId": doc_id, "text": EXPIRY})
    assert (emit.topic, emit.record["error_class"]) == (DEAD_LETTERS, "INVALID_DOCUMENT")
    assert emit.record["reason"] == "docId must be a non-empty string"


def test_a_document_from_which_no_fact_comes_says_so(pipeline: PacketStage) -> None:
    [emit] = _ingest(pipeline, {"docId": "notes", "text": "Hello there."})
    assert emit.topic is DEAD_LETTERS
    assert emit.record["error_class"] == "NO_FACTS"
    assert emit.record["reason"] == "document 'notes': no fact extracted from its 1 chunk(s) and no manual fact"
