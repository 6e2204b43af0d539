"""DS005 JSON forms <-> records: every suite fact and every suite answer (all three verdicts) round-trips through
the record builders and the registry, each record valid against its schema; no null lands in a non-nullable
field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import fastavro
import pytest

from omega.answers.answer import AnswerContract, unsupported
from omega.answers.model import Fact, fact_from_dict
from omega.answers.planner import plan_question
from omega.answers.records import (
    ANSWER_SCHEMA,
    EPOCH,
    FACT_SCHEMA,
    answer_from_record,
    answer_id_of,
    answer_to_record,
    fact_from_record,
    fact_to_record,
)
from omega.answers.store import FactStore
from omega.answers.suite import Suite, answer_question, build_store, parse_suite
from omega.answers.vocabulary import DEFAULT_VOCABULARY
from streams.stages.answers import AnswersStage
from streams.stages.base import Outputs, Source
from streams.wire.codec import SchemaRegistry

SUITE_PATH = Path(__file__).resolve().parents[3] / "data" / "answers" / "suite.json"
T0 = "2025-12-22T10:40:00.500000+00:00"


@pytest.fixture(scope="module")
def registry() -> SchemaRegistry:
    """Every schema of schemas_avro/, to check each record against its .avsc and round-trip it through Avro."""
    return SchemaRegistry.from_directory()


@pytest.fixture(scope="module")
def suite() -> Suite:
    return parse_suite(json.loads(SUITE_PATH.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def store(suite: Suite) -> FactStore:
    built, _ = build_store(suite)
    return built


def _valid(registry: SchemaRegistry, name: str, record: dict[str, Any]) -> None:
    assert fastavro.validation.validate(record, registry.get(name).parsed, raise_errors=True)


def test_every_suite_fact_round_trips_and_validates(registry: SchemaRegistry, store: FactStore) -> None:
    facts: list[Fact] = list(store)
    assert facts
    for fact in facts:
        record = fact_to_record(fact.to_dict(), T0)
        _valid(registry, FACT_SCHEMA, record)
        name, decoded = registry.decode(registry.encode(FACT_SCHEMA, record))
        assert name == FACT_SCHEMA
        assert decoded == record
        assert fact_from_record(decoded) == fact.to_dict()
        assert fact_from_dict(fact_from_record(decoded)) == fact


def test_fact_scalars_qualifiers_and_extras_keep_their_types(registry: SchemaRegistry, store: FactStore) -> None:
    base = next(iter(store)).to_dict()
    for obj in (True, 5, 2.5, "x"):
        value = {**base, "object": obj, "qualifiers": {"version": "v9", "condition": {"a": [1, None]}},
                 "confidence": 0.5, "note": ["kept"]}
        record = fact_to_record(value, T0)
        assert record["version"] == "v9"
        assert "version" not in record["qualifiers"]
        back = fact_from_record(registry.decode(registry.encode(FACT_SCHEMA, record))[1])
        assert back == value
        assert type(back["object"]) is type(obj)


def test_a_fact_missing_a_mandatory_field_is_refused_not_nulled() -> None:
    with pytest.raises(ValueError, match="subject"):
        fact_to_record({"factId": "f", "span": {"start": 0, "end": 1}, "subject": None, "predicate": "p",
                        "object": "o", "source": {"docId": "d", "chunkId": "c"}}, T0)


def _contracts(suite: Suite, store: FactStore) -> list[tuple[str, AnswerContract]]:
    return [(q.id, answer_question(q, store, suite.vocabulary)) for q in suite.questions]


def test_answers_of_every_verdict_round_trip_and_validate(registry: SchemaRegistry, suite: Suite,
                                                          store: FactStore) -> None:
    contracts = _contracts(suite, store)
    assert {c.verdict for _, c in contracts} == {"supported", "conflicting", "unsupported"}
    for qid, contract in contracts:
        as_dict = contract.to_dict()
        record = answer_to_record(as_dict, qid, {"subjects": ["x"]}, T0)
        _valid(registry, ANSWER_SCHEMA, record)
        name, decoded = registry.decode(registry.encode(ANSWER_SCHEMA, record))
        assert name == ANSWER_SCHEMA
        assert decoded == record
        assert answer_from_record(decoded) == as_dict


def test_a_refusal_keeps_its_null_text_and_its_reason(registry: SchemaRegistry) -> None:
    record = answer_to_record(unsupported("no facts").to_dict(), "q", {}, None)
    assert record["text"] is None
    assert record["reason"] == "no facts"
    assert record["event_time"] == EPOCH
    _valid(registry, ANSWER_SCHEMA, record)
    assert answer_from_record(registry.decode(registry.encode(ANSWER_SCHEMA, record))[1])["reason"] == "no facts"


def test_the_answer_id_depends_on_question_plan_and_facts_only(suite: Suite, store: FactStore) -> None:
    qid, contract = _contracts(suite, store)[0]
    as_dict = contract.to_dict()
    plan = plan_question(suite.questions[0].text, store.subjects()).to_dict()
    first = answer_id_of(qid, plan, as_dict)
    assert first == answer_id_of(qid, dict(reversed(list(plan.items()))), as_dict)
    assert first != answer_id_of("other", plan, as_dict)
    assert first != answer_id_of(qid, {**plan, "version": "v0"}, as_dict)
    assert first != answer_id_of(qid, plan, {**as_dict, "factChain": []})


def test_the_stage_is_deterministic_for_the_same_input(registry: SchemaRegistry, store: FactStore) -> None:
    stage = AnswersStage(Outputs(registry), vocabulary=DEFAULT_VOCABULARY)
    source = Source("ds005.questions", 0, 7, b"default", None)  # keyed by its corpus: answered here
    raw = b'{"question": "How long before session tokens expire from inactivity in v2.0?"}'
    first, second = stage.question(raw, source, lambda _: store), stage.question(raw, source, lambda _: store)
    assert first[0].value == second[0].value
    record = registry.decode(first[0].value)[1]
    assert record["event_time"] == EPOCH
    assert record["verdict"] == "supported"
    assert record["text"] == "15 minutes"
    assert first[0].key == record["question_id"]
    assert record["question_id"].startswith("q_")
