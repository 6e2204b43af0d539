"""Hostile input through the embedded stages: every generated malformed event (tests/hostile.py) of every input
topic is a dead letter with a reason at its own source position, nothing raises, and no output outgrows the
broker's default message size; plus the fixes the live run found (bounded dead letters, lone surrogates, huge
session keys and log context, a table's changelog not yet in the metadata)."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
from collections import Counter
from types import SimpleNamespace
from typing import Any

import pytest
from faust.exceptions import PartitionsMismatch

from omega.answers.store import FactStore
from streams.kafka.partitioning import partition_of
from streams.stages.answers import AnswersStage
from streams.stages.base import (
    DEAD_LETTER_KEY_BYTES,
    DEAD_LETTER_RAW_BYTES,
    DEAD_LETTER_REASON_CHARS,
    Emit,
    InputRejected,
    Outputs,
    Source,
    parse_json_object,
)
from streams.stages.episodes import EpisodeSteps
from streams.stages.grounding import GroundingStage, GroundingSteps
from streams.stages.messages import MAX_SESSION_ID_BYTES, MonitorStage, SessionSteps
from streams.stages.oracle import OracleStage
from streams.stages.packets import PacketStage
from streams.topics import (
    AGENT_MESSAGES_RAW,
    DEAD_LETTERS,
    DOCUMENTS,
    GROUNDING_FACTS,
    GROUNDING_REQUESTS,
    INPUTS,
    ORACLE_REQUESTS,
    PACKETS,
    PACKETS_JSON,
    QUESTIONS,
    VERDICTS,
    TopicSpec,
)
from streams.wire.codec import SchemaRegistry
from streams.worker import guard as guard_module
from streams.worker.guard import log_key, run_guarded
from tests.hostile import TEN_MB, malformed, valid, valid_json

PARTITION_OF_4 = functools.partial(partition_of, partitions=4)  # the packets topic's 4 partitions

BROKER_DEFAULT_MAX = 1_048_576
EVENTS = 400  # per topic: every category, and a sample of the wrong-typed fields (the live test walks them all)


class Stages:
    """Every input topic's stage, as the agents call them, over plain dicts for tables."""

    def __init__(self, registry: SchemaRegistry) -> None:
        self.pipeline = pipeline = PacketStage(Outputs(registry))
        self.answers = AnswersStage(pipeline.outputs)
        self.oracle = OracleStage.from_default_config(pipeline.outputs)
        self.grounding = GroundingSteps(GroundingStage(pipeline.outputs), {}, {})
        self.monitor = SessionSteps(MonitorStage(pipeline.outputs), {})
        self.validator = EpisodeSteps(pipeline, {}, PARTITION_OF_4)

    def run(self, topic: TopicSpec, raw: bytes, src: Source) -> list[Emit]:
        key = "" if src.key is None else src.key.decode("utf-8", "replace")
        runners = {
            PACKETS_JSON: lambda: self.ingress_then_validator(raw, src),
            PACKETS: lambda: self.validator.packet(src, raw, key, self.pipeline.read_packet(raw)),
            AGENT_MESSAGES_RAW: lambda: self.monitor.record(raw, src),
            ORACLE_REQUESTS: lambda: self.oracle.request(raw, src),
            DOCUMENTS: lambda: self.answers.document(raw, src),
            QUESTIONS: lambda: self.answers.question(raw, src, lambda _: FactStore([])),
            GROUNDING_FACTS: lambda: self.grounding.fact(raw, src),
            GROUNDING_REQUESTS: lambda: self.grounding.request(raw, src),
        }
        return runners[topic]()

    def ingress_then_validator(self, raw: bytes, src: Source) -> list[Emit]:
        """The ingress, then the validator on what it put on the packets topic (the two agents of a JSON packet)."""
        emits = self.pipeline.ingress(raw, src)
        if emits[0].topic is not PACKETS:
            return emits
        return self.validator.record(emits[0].value,
                                     Source(PACKETS.name, 0, src.offset, emits[0].key.encode(), src.timestamp_ms))


@pytest.fixture(scope="module")
def stages(registry: SchemaRegistry) -> Stages:
    return Stages(registry)


@pytest.mark.parametrize("topic", INPUTS, ids=lambda t: t.logical)
def test_every_malformed_event_is_a_bounded_dead_letter_at_its_own_position(
    topic: TopicSpec, stages: Stages, registry: SchemaRegistry
) -> None:
    categories: Counter[str] = Counter()
    for offset, event in enumerate(malformed(topic, EVENTS, registry, ten_mb=1)):
        raw = event.value or b""
        src = Source(topic.name, 0, offset, event.key, 1_766_314_800_000)
        emits = stages.run(topic, raw, src)
        letters = [e for e in emits if e.topic is DEAD_LETTERS and e.record["source_offset"] == offset]
        # an attributable packet (its identity readable) is judged instead: a verdict (REJECTED when it breaks the
        # JSON Schema; a value only the Avro record refuses, such as 900.0 for an integer, is schema-valid)
        judged = [e for e in emits if e.topic is VERDICTS]
        assert letters or (topic is PACKETS_JSON and judged), (event.category, raw[:200],
                                                               [e.topic.logical for e in emits])
        assert all(e.record["reason"] and e.record["error_class"] != "INTERNAL" for e in letters)
        assert all(len(e.value) + len(e.key) < BROKER_DEFAULT_MAX for e in emits), event.category
        categories[event.category.split(":")[0]] += 1
    expected = {"random_bytes", "truncated_avro", "unknown_fingerprint", "garbage_body", "other_schema",
                "not_an_object", "deep_nesting", "empty_value", "null_value", "huge_key", "wrong_type", "ten_mb"}
    assert expected <= set(categories), categories


def test_the_generator_is_deterministic_and_walks_every_field(registry: SchemaRegistry) -> None:
    first = [(e.category, e.key, e.value) for e in malformed(DOCUMENTS, 300, registry, ten_mb=0)]
    again = [(e.category, e.key, e.value) for e in malformed(DOCUMENTS, 300, registry, ten_mb=0)]
    assert first == again
    fields = {e.category for e in malformed(PACKETS_JSON, 10_000, registry, ten_mb=0) if e.category.startswith("wrong")}
    assert {"wrong_type:header.packet_id", "wrong_type:mcp.budgets.token_budget",
            "wrong_type:payload.decision_outcome"} <= fields


@pytest.mark.parametrize("topic", INPUTS, ids=lambda t: t.logical)
def test_the_valid_traffic_is_not_dead_lettered(topic: TopicSpec, stages: Stages, registry: SchemaRegistry) -> None:
    for offset, (key, value) in enumerate(valid(topic, registry)):
        emits = Stages(registry).run(topic, value, Source(topic.name, 0, offset, key, 1_766_314_800_000))
        assert emits or topic is GROUNDING_FACTS  # a stored fact emits nothing
        assert not [e for e in emits if e.topic is DEAD_LETTERS and e.record["error_class"] != "FACT_REJECTED"]


# ------------------------------------------------------------------------------------- the fixes, pinned
def test_a_ten_megabyte_event_is_dead_lettered_as_an_excerpt_with_its_size_and_digest(pipeline: PacketStage) -> None:
    raw = b"{" + b"x" * (TEN_MB - 1)
    [letter] = pipeline.ingress(raw, Source("t", 1, 2, b"k" * 2_000_000))
    record = pipeline.outputs.registry.decode(letter.value)[1]
    assert record["error_class"] == "OVERSIZED"
    assert record["raw"] == raw[:DEAD_LETTER_RAW_BYTES]
    assert record["raw_size"] == TEN_MB
    assert record["raw_sha256"] == hashlib.sha256(raw).hexdigest()
    assert len(record["source_key"]) == DEAD_LETTER_KEY_BYTES
    assert len(letter.value) < 2 * DEAD_LETTER_RAW_BYTES


def test_a_small_event_is_dead_lettered_whole_without_size_or_digest(pipeline: PacketStage) -> None:
    [letter] = pipeline.ingress(b"[1]", Source("t", 0, 0, b"key"))
    record = pipeline.outputs.registry.decode(letter.value)[1]
    assert (record["raw"], record["raw_size"], record["raw_sha256"], record["source_key"]) == (b"[1]", None, None,
                                                                                              b"key")


def test_a_reason_quoting_a_huge_value_is_cut(pipeline: PacketStage) -> None:
    packet = {"header": {"packet_id": "p", "correlation_id": "c", "packet_type": "A" * 900_000}}
    [emit] = pipeline.ingress(json.dumps(packet).encode(), Source("t", 0, 0))
    assert emit.topic is PACKETS  # attributable: judged, with the reason the Packet record could not carry it cut
    reason = pipeline.outputs.registry.decode(emit.value)[1]["not_carried"]
    assert reason.startswith("UNKNOWN_PACKET_TYPE: ")
    assert len(reason) <= DEAD_LETTER_REASON_CHARS
    assert reason.endswith("characters in all)")


@pytest.mark.parametrize("raw", [rb'{"a": "\ud800"}', rb'{"\udfff": 1}', rb'{"a": ["x\uDBFFy"]}'])
def test_a_lone_surrogate_escape_is_rejected_at_parse(raw: bytes) -> None:
    with pytest.raises(InputRejected) as caught:
        parse_json_object(raw, 1000)
    assert caught.value.error_class == "INVALID_UNICODE"


def test_a_surrogate_pair_and_an_escaped_backslash_are_fine() -> None:
    assert parse_json_object(rb'{"a": "\ud83d\ude00", "b": "\\ud800"}', 1000) == {"a": "\U0001f600", "b": "\\ud800"}


def test_a_document_whose_id_holds_a_lone_surrogate_is_a_dead_letter_not_an_internal_error(
    pipeline: PacketStage,
) -> None:
    raw = json.dumps({"docId": "d\ud800", "text": "The admin console requires MFA."}).encode()
    [letter] = AnswersStage(pipeline.outputs).document(raw, Source("t", 0, 0))
    assert letter.record["error_class"] == "INVALID_UNICODE"


def test_a_session_id_past_the_bound_is_a_dead_letter_and_keeps_no_state(pipeline: PacketStage) -> None:
    sessions: dict[str, Any] = {}
    steps = SessionSteps(MonitorStage(pipeline.outputs), sessions)
    [letter] = steps.record(b"garbage", Source("t", 0, 5, b"s" * (MAX_SESSION_ID_BYTES + 1)))
    assert letter.record["error_class"] == "INVALID_SESSION"
    assert sessions == {}


def test_a_huge_key_is_cut_in_the_log_context() -> None:
    assert log_key("short") == "short"
    assert log_key("k" * 2_000_000).endswith("...(2000000 characters)")
    assert len(log_key("k" * 2_000_000)) < 300


def _event(raw: bytes, key: bytes = b"k") -> Any:
    return SimpleNamespace(message=SimpleNamespace(topic="t", partition=0, offset=7, key=key, value=raw,
                                                   timestamp=1.5))


def test_a_step_is_run_again_while_its_tables_changelog_is_not_in_the_metadata(
    pipeline: PacketStage, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard_module, "TABLE_NOT_READY_WAIT_SECONDS", 0)
    calls: list[Source] = []

    def step(raw: bytes, src: Source) -> list[Emit]:
        calls.append(src)
        if len(calls) < 3:
            raise PartitionsMismatch("changelog has 0 partitions")
        return []

    assert asyncio.run(run_guarded(pipeline.outputs, _event(b"{}"), DOCUMENTS, step)) == []
    assert len(calls) == 3


def test_a_step_that_never_finds_its_table_and_one_that_fails_are_dead_letters(
    pipeline: PacketStage, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(guard_module, "TABLE_NOT_READY_WAIT_SECONDS", 0)

    def missing(raw: bytes, src: Source) -> list[Emit]:
        raise PartitionsMismatch("changelog has 0 partitions")

    def broken(raw: bytes, src: Source) -> list[Emit]:
        raise ZeroDivisionError("bug")

    for step, reason in ((missing, "PartitionsMismatch"), (broken, "ZeroDivisionError")):
        [letter] = asyncio.run(run_guarded(pipeline.outputs, _event(b"{}"), DOCUMENTS, step))
        assert (letter.record["error_class"], letter.record["source_offset"]) == ("INTERNAL", 7)
        assert letter.record["reason"].startswith(reason)


def test_an_output_too_large_for_the_producer_is_a_dead_letter_of_its_source(registry: SchemaRegistry) -> None:
    stages = Stages(registry)
    _, question = valid_json(QUESTIONS)[0]
    raw = json.dumps({**question, "id": "q" + "9" * 990_000}).encode()

    [letter] = asyncio.run(run_guarded(stages.pipeline.outputs, _event(raw, b"default"), QUESTIONS,
                                       lambda raw, src: stages.run(QUESTIONS, raw, src)))

    assert letter.topic is DEAD_LETTERS
    assert letter.record["error_class"] == "OUTPUT_TOO_LARGE"
    assert letter.record["source_offset"] == 7
    assert "ds005.answers" in letter.record["reason"]
    assert letter.record["raw_size"] == len(raw)


def test_outputs_that_fit_pass_unchanged(registry: SchemaRegistry) -> None:
    stages = Stages(registry)
    raw = json.dumps(valid_json(QUESTIONS)[0][1]).encode()
    emits = stages.run(QUESTIONS, raw, Source("t", 0, 7, b"default", 1500))
    assert [e.topic.logical for e in emits] == ["answers"]
    guarded = asyncio.run(run_guarded(stages.pipeline.outputs, _event(raw, b"default"), QUESTIONS,
                                      lambda raw, src: emits))
    assert guarded == emits


def test_a_fact_too_large_for_its_changelog_is_a_dead_letter_and_not_stored(pipeline: PacketStage) -> None:
    facts: dict[str, Any] = {}
    steps = GroundingSteps(GroundingStage(pipeline.outputs), facts, {})
    _, fact = valid_json(GROUNDING_FACTS)[0]
    raw = json.dumps({**fact, "id": "F" * 600_000, "content": fact["content"] + " x" * 200_000}).encode()

    [letter] = steps.fact(raw, Source("t", 0, 3, b"hostile"))

    assert letter.record["error_class"] == "STATE_TOO_LARGE"
    assert facts == {}


def test_a_paragraph_state_too_large_for_its_changelog_is_a_dead_letter_and_not_stored(pipeline: PacketStage) -> None:
    paragraphs: dict[str, Any] = {}
    steps = GroundingSteps(GroundingStage(pipeline.outputs), {}, paragraphs)
    _, request = valid_json(GROUNDING_REQUESTS)[0]
    raw = json.dumps({**request, "paragraph_id": "p" * 500_000}).encode()

    [letter] = steps.request(raw, Source("t", 0, 3, b"hostile"))

    assert letter.record["error_class"] == "STATE_TOO_LARGE"
    assert paragraphs == {}


def test_a_judgement_too_large_for_its_changelog_is_a_dead_letter_and_not_stored(pipeline: PacketStage) -> None:
    episodes: dict[str, Any] = {}
    steps = EpisodeSteps(pipeline, episodes, PARTITION_OF_4)
    packet = json.loads(valid(PACKETS_JSON, pipeline.outputs.registry)[0][1])
    key = packet["header"]["correlation_id"]
    packet["header"]["packet_id"] = "p" * 600_000  # fits its own judgement entry (key and value)...
    avro = []
    for summary in ("first", "second"):  # ...but not the DUPLICATE judgement of its re-use, which quotes it
        packet["payload"]["summary"] = summary
        [emit] = pipeline.ingress(json.dumps(packet).encode(), Source("t", 0, 0))
        assert emit.topic is PACKETS
        avro.append(emit.value)

    first = steps.packet(Source("t", 0, 3, b"c"), avro[0], key, pipeline.read_packet(avro[0]))
    assert [e.topic.logical for e in first] == ["verdicts"]
    stored = dict(episodes)
    [letter] = steps.packet(Source("t", 0, 4, b"c"), avro[1], key, pipeline.read_packet(avro[1]))

    assert letter.record["error_class"] == "STATE_TOO_LARGE"
    assert episodes == stored
    assert sorted(len(k) for k in stored) == [len(key), len(key) + 1 + 600_000]  # the ledger, one judgement
