"""The DS005 agents, driven with faust's `agent.test_context()`: documents (JSON) in, Avro facts out keyed by
corpus; facts into the facts table; questions (JSON) over that table, Avro answers out; bad input dead-lettered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from omega.answers.ingest import ingest
from omega.answers.model import fact_from_dict
from omega.answers.records import answer_from_record, fact_from_record
from streams.topics import ANSWERS, DEAD_LETTERS, FACTS, QUESTIONS
from streams.wire.codec import SchemaRegistry
from streams.worker.app import OmegaApp
from tests.agents.support import agent_of, all_sends, sends, settle

REGISTRY = SchemaRegistry.from_directory()
SUITE = json.loads((Path(__file__).resolve().parents[1] / "data" / "answers" / "suite.json").read_text("utf-8"))
KAFKA_TS = 1_766_400_000.5
EVENT_TIME = "2025-12-22T10:40:00.500000+00:00"  # the record timestamp, as event time


def _decoded(omega: OmegaApp, logical: str) -> list[dict[str, Any]]:
    return [REGISTRY.decode(s["value"])[1] for s in sends(omega, logical)]


def _doc(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc).encode()


async def _ingest_corpus(omega: OmegaApp) -> list[dict[str, Any]]:
    """Every suite document through the documents agent, then every fact record through the facts agent."""
    async with agent_of(omega, "documents").test_context() as agent:
        for doc in SUITE["corpus"]:
            await agent.put(_doc(doc), key=doc["docId"].encode(), timestamp=KAFKA_TS)
        expected = sum(len(ingest(d["text"], d).facts) for d in SUITE["corpus"])
        await settle(lambda: len(sends(omega, FACTS.logical)) == expected)
    fact_sends = sends(omega, FACTS.logical)
    async with agent_of(omega, "facts").test_context() as agent:
        for sent in fact_sends:
            await agent.put(sent["value"], key=sent["key"], timestamp=KAFKA_TS)
        await settle(lambda: len(omega.facts) == len({s["value"] for s in fact_sends}))
    return fact_sends


async def _ask(omega: OmegaApp, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    before = len(sends(omega, ANSWERS.logical))
    async with agent_of(omega, "questions").test_context() as agent:
        for q in questions:
            await agent.put(json.dumps(q).encode(), key=b"default", timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, ANSWERS.logical)) == before + len(questions))
    return _decoded(omega, ANSWERS.logical)[before:]


async def test_a_document_gives_fact_records_that_round_trip_to_the_same_facts(omega: OmegaApp) -> None:
    doc = SUITE["corpus"][0]
    async with agent_of(omega, "documents").test_context() as agent:
        await agent.put(_doc(doc), key=doc["docId"].encode(), timestamp=KAFKA_TS)
        expected = ingest(doc["text"], doc).facts
        await settle(lambda: len(sends(omega, FACTS.logical)) == len(expected))

    assert set(all_sends(omega)) == {FACTS.logical}
    records = _decoded(omega, FACTS.logical)
    assert [fact_from_dict(fact_from_record(r)) for r in records] == list(expected)
    assert {s["key"] for s in sends(omega, FACTS.logical)} == {b"default"}  # keyed by corpus, like the questions
    assert {r["event_time"] for r in records} == {EVENT_TIME}
    assert all(s["timestamp"] == KAFKA_TS for s in sends(omega, FACTS.logical))


async def test_the_facts_agent_fills_the_table_under_corpus_and_fact_id(omega: OmegaApp) -> None:
    fact_sends = await _ingest_corpus(omega)
    for sent in fact_sends:
        fact = fact_from_dict(fact_from_record(REGISTRY.decode(sent["value"])[1]))
        assert omega.facts[f"default/{fact.fact_id}"] == fact.to_dict()


async def test_a_question_over_the_table_gets_a_supported_answer_with_its_chain(omega: OmegaApp) -> None:
    await _ingest_corpus(omega)
    q04 = next(q for q in SUITE["questions"] if q["id"] == "q04")  # 20 minutes of inactivity in v2.0: No
    (record,) = await _ask(omega, [q04])

    assert record["question_id"] == "q04"
    assert record["verdict"] == "supported"
    assert record["text"] == "No"
    assert next(s["role"] for s in record["factChain"]) == "premise"
    assert {s["role"] for s in record["factChain"]} == {"premise", "derived", "conclusion"}
    assert record["event_time"] == EVENT_TIME
    assert record["answer_id"].startswith("ans_")
    assert sends(omega, ANSWERS.logical)[0]["key"] == b"q04"
    contract = answer_from_record(record)
    assert contract["chunksUsed"]
    assert set(contract["supportScores"]) >= {
        s["factId"] for s in contract["factChain"] if s["role"] == "premise"}


async def test_the_same_question_without_a_version_is_conflicting_with_the_pair(omega: OmegaApp) -> None:
    await _ingest_corpus(omega)
    (record,) = await _ask(omega, [{"id": "q06", "question": "If a user is inactive for 20 minutes, "
                                                             "is their session valid?"}])

    assert record["verdict"] == "conflicting"
    assert record["text"] is None
    (pair,) = [answer_from_record(record)["conflicts"][0]]
    versions = {pair["fact1"]["qualifiers"]["version"], pair["fact2"]["qualifiers"]["version"]}
    assert versions == {"v1.0", "v2.0"}


async def test_every_suite_question_meets_its_expectation_through_the_agents(omega: OmegaApp) -> None:
    await _ingest_corpus(omega)
    questions = [{k: q[k] for k in ("id", "question", "plan") if k in q} for q in SUITE["questions"]]
    records = await _ask(omega, questions)
    for q, r in zip(SUITE["questions"], records, strict=True):
        assert r["question_id"] == q["id"]
        if "expectedVerdict" in q:
            assert r["verdict"] == q["expectedVerdict"], q["id"]
        if "expectedAnswer" in q:
            assert (r["text"] or "").strip().lower() == str(q["expectedAnswer"]).strip().lower(), q["id"]


async def test_bad_input_is_dead_lettered_and_the_agents_go_on(omega: OmegaApp) -> None:
    doc = SUITE["corpus"][2]
    async with agent_of(omega, "documents").test_context() as agent:
        await agent.put(b"{not json", key=None, timestamp=KAFKA_TS)
        await agent.put(b'{"text": "no id"}', key=None, timestamp=KAFKA_TS)
        await agent.put(_doc({**doc, "facts": [{"subject": "x", "predicate": "nope", "object": 1,
                                                 "span": {"start": 0, "end": 3},
                                                 "source": {"docId": doc["docId"], "chunkId": "nowhere"}}]}),
                        key=doc["docId"].encode(), timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, DEAD_LETTERS.logical)) == 3 and len(sends(omega, FACTS.logical)) > 0)
    async with agent_of(omega, "questions").test_context() as agent:
        await agent.put(b"[1, 2]", key=None, timestamp=KAFKA_TS)
        await agent.put(b'{"question": "What?", "plan": {"bogus": 1}}', key=b"default", timestamp=KAFKA_TS)
        await agent.put(b'{"id": "ok", "question": "What is the status of the legacy API?"}', key=b"default",
                        timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, DEAD_LETTERS.logical)) == 5 and len(sends(omega, ANSWERS.logical)) == 1)
    async with agent_of(omega, "facts").test_context() as agent:
        await agent.put(b"not avro", key=None, timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, DEAD_LETTERS.logical)) == 6)

    letters = _decoded(omega, DEAD_LETTERS.logical)
    assert [d["error_class"] for d in letters] == ["JSON_SYNTAX", "INVALID_DOCUMENT", "FACT_REJECTED",
                                                   "NOT_AN_OBJECT", "INVALID_PLAN", "NOT_SINGLE_OBJECT"]
    assert letters[0]["raw"] == b"{not json"
    assert letters[2]["reason"].startswith("FACT_REJECTED: ")
    # the answer came from an empty table: the agent went on, and refused rather than guessed
    assert _decoded(omega, ANSWERS.logical)[0]["verdict"] == "unsupported"


async def test_a_redelivered_question_gives_a_byte_identical_answer(omega: OmegaApp) -> None:
    await _ingest_corpus(omega)
    q = {"id": "q01", "question": SUITE["questions"][0]["question"]}
    await _ask(omega, [q, q])
    first, second = (s["value"] for s in sends(omega, ANSWERS.logical))
    assert first == second


async def test_a_question_not_keyed_by_its_corpus_is_republished_keyed_by_it_and_not_answered_yet(
    omega: OmegaApp,
) -> None:
    question = {"id": "q-rekey", "question": "What is the status of the legacy API?", "corpus": "ops"}
    async with agent_of(omega, "questions").test_context() as agent:
        await agent.put(json.dumps(question).encode(), key=b"q-rekey", timestamp=KAFKA_TS)
        await settle(lambda: bool(sends(omega, QUESTIONS.logical)))
    [sent] = sends(omega, QUESTIONS.logical)
    assert sent["key"] == b"ops"
    assert json.loads(sent["value"]) == question
    assert not sends(omega, ANSWERS.logical)
