"""Every table step of streams/stages/ over plain dicts, as embedded replay runs them (the worker passes Faust
tables to the same code): what each stores under which key, and that a state too large for its changelog record
stores nothing and is a STATE_TOO_LARGE dead letter of its record. The limits are shrunk here so that ordinary
inputs cross them; stages/test_keyed.py pins the real ones."""

from __future__ import annotations

import json
from typing import Any

import pytest

from streams.stages import base
from streams.stages.answers import AnswersStage, FactSteps
from streams.stages.base import Emit, Outputs, Source
from streams.stages.episodes import EpisodeSteps, judgement_key
from streams.stages.grounding import GroundingStage, GroundingSteps
from streams.stages.messages import MonitorStage, SessionSteps
from streams.stages.packets import PacketStage
from streams.topics import (
    AGENT_MESSAGES_RAW,
    DEAD_LETTERS,
    DOCUMENTS,
    FACTS,
    GROUNDING_FACTS,
    GROUNDING_REQUESTS,
    PACKETS,
)
from streams.wire.codec import SchemaRegistry
from tests.hostile import valid, valid_json

PIPELINE = PacketStage(Outputs(SchemaRegistry.from_directory()))


@pytest.fixture
def tiny_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any entry over 200 bytes too large."""
    monkeypatch.setattr(base, "MAX_TABLE_ENTRY_BYTES", 200)


def _refused(emits: list[Emit], offset: int) -> None:
    [letter] = emits
    assert letter.topic is DEAD_LETTERS
    assert (letter.record["error_class"], letter.record["source_offset"]) == ("STATE_TOO_LARGE", offset)
    assert letter.record["reason"].endswith("bytes, more than the limit of 200")


# ------------------------------------------------------------------------------------------------ episodes
def _packet() -> tuple[str, bytes]:
    key, value = valid(PACKETS, PIPELINE.outputs.registry)[0]
    return key.decode(), value





def test_the_episode_step_stores_the_ledger_and_one_judgement_entry_per_packet() -> None:
    table: dict[str, Any] = {}
    key, raw = _packet()
    packet_id = PIPELINE.decode_packet(raw)["header"]["packet_id"]

    emits = EpisodeSteps(PIPELINE, table).record(raw, Source("packets", 0, 0, key.encode(), 1_000))

    assert [e.topic.logical for e in emits] == ["verdicts"]
    assert list(table) == [judgement_key(key, str(packet_id)), key]  # the judgement first, the ledger last
    assert table[judgement_key(key, str(packet_id))][0] == 0  # its sequence number in the episode
    assert isinstance(table[key], dict)


def test_an_episode_too_large_stores_nothing(tiny_limit: None) -> None:
    table: dict[str, Any] = {}
    key, raw = _packet()
    steps = EpisodeSteps(PIPELINE, table)

    _refused(steps.record(raw, Source("packets", 0, 3, key.encode(), 1_000)), 3)

    assert table == {}
    assert steps.watermarks == {}  # a refused packet does not move the partition's event time


# ------------------------------------------------------------------------------------------------ sessions
def test_the_session_step_stores_the_session_under_its_key() -> None:
    table: dict[str, Any] = {}
    key, raw = valid(AGENT_MESSAGES_RAW, PIPELINE.outputs.registry)[0]

    emits = SessionSteps(MonitorStage(PIPELINE.outputs), table).record(raw, Source("raw", 0, 0, key))

    assert "agent_messages" in [e.topic.logical for e in emits]
    assert list(table) == [key.decode()]


def test_a_session_too_large_stores_nothing(tiny_limit: None) -> None:
    table: dict[str, Any] = {}
    key, raw = valid(AGENT_MESSAGES_RAW, PIPELINE.outputs.registry)[0]

    _refused(SessionSteps(MonitorStage(PIPELINE.outputs), table).record(raw, Source("raw", 0, 4, key)), 4)

    assert table == {}


# ------------------------------------------------------------------------------------------------ DS005 facts
def _fact_records() -> list[bytes]:
    _, doc = valid(DOCUMENTS, PIPELINE.outputs.registry)[0]
    emits = AnswersStage(PIPELINE.outputs).document(doc, Source("documents", 0, 0))
    return [e.value for e in emits if e.topic is FACTS]


def test_the_fact_step_stores_a_fact_once_under_corpus_and_id() -> None:
    table: dict[str, Any] = {}
    steps = FactSteps(AnswersStage(PIPELINE.outputs), table)
    raw = _fact_records()[0]

    steps.record(raw, Source("facts", 0, 0, b"corpus-a"))
    [(key, stored)] = table.items()
    steps.record(raw, Source("facts", 0, 1, b"corpus-a"))  # redelivered: the same content hash

    assert key.startswith("corpus-a/")
    assert table == {key: stored}
    assert table[key] is stored  # not rewritten


def test_a_fact_too_large_stores_nothing(tiny_limit: None) -> None:
    table: dict[str, Any] = {}
    steps = FactSteps(AnswersStage(PIPELINE.outputs), table)
    _refused(steps.record(_fact_records()[0], Source("facts", 0, 5, b"c")), 5)
    assert table == {}


# ------------------------------------------------------------------------------------------------ grounding
def test_the_grounding_steps_store_facts_and_paragraphs_under_their_corpus() -> None:
    facts: dict[str, Any] = {}
    paragraphs: dict[str, Any] = {}
    steps = GroundingSteps(GroundingStage(PIPELINE.outputs), facts, paragraphs)
    for n, (key, obj) in enumerate(valid_json(GROUNDING_FACTS)):
        assert steps.fact(json.dumps(obj).encode(), Source("gf", 0, n, key)) == []
    key, request = valid_json(GROUNDING_REQUESTS)[0]

    emits = steps.request(json.dumps(request).encode(), Source("gr", 0, 0, key))

    assert {k.split("/")[0] for k in facts} == {"hostile"}
    assert len(facts) == len(valid_json(GROUNDING_FACTS))
    assert list(paragraphs) == [f"hostile/{request['paragraph_id']}"]
    assert [e.topic.logical for e in emits] == ["grounding_verdicts", "grounding_audit"]


def test_a_grounding_fact_too_large_stores_nothing(tiny_limit: None) -> None:
    facts: dict[str, Any] = {}
    key, obj = valid_json(GROUNDING_FACTS)[0]
    steps = GroundingSteps(GroundingStage(PIPELINE.outputs), facts, {})
    _refused(steps.fact(json.dumps(obj).encode(), Source("gf", 0, 6, key)), 6)
    assert facts == {}


def test_a_paragraph_too_large_stores_nothing_and_sends_no_verdict(tiny_limit: None) -> None:
    paragraphs: dict[str, Any] = {}
    key, request = valid_json(GROUNDING_REQUESTS)[0]
    steps = GroundingSteps(GroundingStage(PIPELINE.outputs), {}, paragraphs)
    _refused(steps.request(json.dumps(request).encode(), Source("gr", 0, 7, key)), 7)
    assert paragraphs == {}
