"""The grounding agents, driven with faust's `agent.test_context()`: Atomic Facts into the corpus-keyed facts
table, paragraph requests judged beside them into Avro verdicts and audit events keyed by paragraph id, records
not keyed by their corpus re-published keyed by it, the paragraph state reassigned per version, bad input
dead-lettered, a redelivery byte-identical."""

from __future__ import annotations

import json
from typing import Any

from omega.grounding.paragraph import ParagraphState
from streams.topics import DEAD_LETTERS, GROUNDING_AUDIT, GROUNDING_FACTS, GROUNDING_REQUESTS, GROUNDING_VERDICTS
from streams.wire.codec import SchemaRegistry
from streams.worker.app import OmegaApp
from tests.agents.support import agent_of, all_sends, sends, settle

REGISTRY = SchemaRegistry.from_directory()
KAFKA_TS = 1_766_400_000.5
FACT = {"id": "F1", "content": "Dizziness was reported by 8.4% of participants receiving drug A.",
        "source_type": "PDF", "source_span": {"document_id": "pdf:trial", "page": 6}, "qualifiers": {},
        "confidence": 0.9}
MANUAL = FACT | {"id": "F2", "content": "Dizziness was reported by 3.1% of participants receiving placebo.",
                 "source_type": "MANUAL", "source_span": {"document_id": "manual-entry"}}
GOOD = "Dizziness was reported by 8.4% of participants receiving drug A. [F1]"
BAD = "Dizziness was reported by 9% of participants receiving drug A. [F1]"


def _request(*texts: str, version: int = 1, **extra: Any) -> bytes:
    sentences = [{"order": i, "text": t} for i, t in enumerate(texts, start=1)]
    return json.dumps({"paragraph_id": "p1", "version": version, "sentences": sentences, **extra}).encode()


def _decoded(omega: OmegaApp, logical: str) -> list[dict[str, Any]]:
    return [REGISTRY.decode(s["value"])[1] for s in sends(omega, logical)]


async def test_facts_go_to_their_corpus_table_and_a_request_is_judged_against_them(omega: OmegaApp) -> None:
    async with agent_of(omega, "grounding-facts").test_context() as facts_agent:
        for fact in (FACT, MANUAL):
            await facts_agent.put(json.dumps(fact).encode(), key=b"default", timestamp=KAFKA_TS)
        await facts_agent.put(json.dumps(FACT | {"id": "F3", "corpus": "trials"}).encode(), key=b"trials",
                              timestamp=KAFKA_TS)
        await settle(lambda: omega.grounding_facts.get("trials/F3") is not None)
    assert sorted(omega.grounding_facts.keys()) == ["default/F1", "default/F2", "trials/F3"]
    assert "corpus" not in omega.grounding_facts["trials/F3"]  # routing, not content
    async with agent_of(omega, "grounding").test_context() as agent:
        await agent.put(_request(GOOD, BAD.replace("[F1]", "[F2]")), key=b"default", timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, GROUNDING_AUDIT.logical)) == 1)

    assert set(all_sends(omega)) == {GROUNDING_VERDICTS.logical, GROUNDING_AUDIT.logical}
    [verdict] = _decoded(omega, GROUNDING_VERDICTS.logical)
    assert [s["outcome"] for s in verdict["sentences"]] == ["PASS", "FAIL"]
    assert (verdict["paragraph_verified"], verdict["displayable_paragraph"]) == (False, GOOD)
    [audit] = _decoded(omega, GROUNDING_AUDIT.logical)
    assert audit["verdict_id"] == verdict["verdict_id"]
    assert [f["id"] for f in audit["allowed_facts"]] == ["F1", "F2"]  # both sources alike (§8), other corpus unseen
    assert [s["key"] for s in sends(omega, GROUNDING_VERDICTS.logical)] == [b"p1"]
    assert all(s["timestamp"] == KAFKA_TS for s in sends(omega, GROUNDING_VERDICTS.logical))


async def test_facts_and_requests_not_keyed_by_their_corpus_are_republished_keyed_by_it(omega: OmegaApp) -> None:
    async with agent_of(omega, "grounding-facts").test_context() as facts_agent:
        await facts_agent.put(json.dumps(FACT).encode(), key=b"F1", timestamp=KAFKA_TS)
        await facts_agent.put(json.dumps(MANUAL | {"corpus": "trials"}).encode(), key=None, timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, GROUNDING_FACTS.logical)) == 2)
    async with agent_of(omega, "grounding").test_context() as agent:
        await agent.put(_request(GOOD), key=b"p1", timestamp=KAFKA_TS)
        await agent.put(_request(GOOD, corpus="trials"), key=None, timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, GROUNDING_REQUESTS.logical)) == 2)

    assert set(all_sends(omega)) == {GROUNDING_FACTS.logical, GROUNDING_REQUESTS.logical}  # nothing judged yet
    assert [s["key"] for s in sends(omega, GROUNDING_FACTS.logical)] == [b"default", b"trials"]
    assert [s["key"] for s in sends(omega, GROUNDING_REQUESTS.logical)] == [b"default", b"trials"]
    assert sends(omega, GROUNDING_REQUESTS.logical)[0]["value"] == _request(GOOD)  # the bytes, as sent
    assert len(omega.grounding_facts) == 0
    assert len(omega.paragraphs) == 0


async def test_a_request_may_embed_its_facts_and_each_edit_is_a_kept_version(omega: OmegaApp) -> None:
    async with agent_of(omega, "grounding").test_context() as agent:
        await agent.put(_request(BAD, facts=[FACT]), key=b"default", timestamp=KAFKA_TS)
        await agent.put(_request(GOOD, version=2, facts=[FACT]), key=b"default", timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, GROUNDING_VERDICTS.logical)) == 2)
        stored = omega.paragraphs["default/p1"]

    assert [v["paragraph_verified"] for v in _decoded(omega, GROUNDING_VERDICTS.logical)] == [False, True]
    history = ParagraphState.from_dict(stored).history[1]
    assert [(v.version, v.outcome, v.edited_by_user) for v in history] == [(1, "FAIL", False), (2, "PASS", True)]


async def test_bad_input_is_dead_lettered_and_the_agents_go_on(omega: OmegaApp) -> None:
    async with agent_of(omega, "grounding-facts").test_context() as facts_agent:
        await facts_agent.put(b"{not json", key=b"default", timestamp=KAFKA_TS)
        await facts_agent.put(json.dumps(FACT | {"source_type": "WEB"}).encode(), key=b"F1", timestamp=KAFKA_TS)
        await facts_agent.put(json.dumps(FACT | {"corpus": "a/b"}).encode(), key=b"a/b", timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, DEAD_LETTERS.logical)) == 3)
    async with agent_of(omega, "grounding").test_context() as agent:
        await agent.put(b"[1, 2]", key=b"default", timestamp=KAFKA_TS)
        await agent.put(_request(GOOD, corpus=7), key=b"default", timestamp=KAFKA_TS)
        await agent.put(b'{"paragraph_id": "p1", "sentences": "none"}', key=b"default", timestamp=KAFKA_TS)
        # judged: F1 is allowed but its content unknown (the bad fact was not stored) -> FAIL, not a crash
        await agent.put(_request(GOOD, allowed_fact_ids=["F1"]), key=b"default", timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, GROUNDING_VERDICTS.logical)) == 1)

    letters = _decoded(omega, DEAD_LETTERS.logical)
    assert [d["error_class"] for d in letters] == ["JSON_SYNTAX", "INVALID_FACT", "INVALID_CORPUS", "NOT_AN_OBJECT",
                                                   "INVALID_CORPUS", "INVALID_REQUEST"]
    [verdict] = _decoded(omega, GROUNDING_VERDICTS.logical)
    assert verdict["sentences"][0]["failures"][0]["code"] == "UNKNOWN_FACT"


async def test_a_redelivered_request_gives_byte_identical_outputs_and_leaves_the_state(omega: OmegaApp) -> None:
    async with agent_of(omega, "grounding").test_context() as agent:
        await agent.put(_request(GOOD, facts=[FACT]), key=b"default", timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, GROUNDING_VERDICTS.logical)) == 1)
        stored = omega.paragraphs["default/p1"]
        await agent.put(_request(GOOD, facts=[FACT]), key=b"default", timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, GROUNDING_VERDICTS.logical)) == 2)
        again = omega.paragraphs["default/p1"]

    first, second = (s["value"] for s in sends(omega, GROUNDING_VERDICTS.logical))
    assert first == second
    assert again is stored
