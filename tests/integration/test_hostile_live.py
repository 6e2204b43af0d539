"""Hostile input on the real broker: on every input topic, 10,000 generated malformed events (tests/hostile.py)
interleaved with known valid traffic, a few of them 10 MB. Every malformed event becomes a dead letter with a
reason at its own source position, but for a JSON packet whose identity is readable, which is judged instead (a
verdict for its packet id, issue 41); the worker and all its agents live on, and every valid event gives its output.

The input topics are created by the test with max.message.bytes of 16 MB (the broker default is about 1 MB), so
the 10 MB events reach the worker; the dead-letter topic keeps the default: a dead letter must fit it, whatever
it reports on. Two phases: DS005 documents and grounding facts first, then the questions and paragraph requests
that need them (so their outputs are known), each phase interleaving its own malformed events.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

from omega.answers.ingest import ingest
from omega.grounding.paragraph import ParagraphState, evolve
from omega.grounding.request import parse_request
from streams.stages.base import DEAD_LETTER_RAW_BYTES, Outputs, Source
from streams.stages.grounding import stored_facts
from streams.stages.messages import MonitorStage
from streams.stages.oracle import default_config_path
from streams.stages.packets import PacketStage
from streams.topics import (
    AGENT_MESSAGES,
    AGENT_MESSAGES_RAW,
    ANSWERS,
    DEAD_LETTERS,
    DOCUMENTS,
    FACTS,
    GROUNDING_FACTS,
    GROUNDING_REQUESTS,
    GROUNDING_VERDICTS,
    INPUTS,
    ORACLE_REQUESTS,
    ORACLE_VERDICTS,
    PACKETS,
    PACKETS_JSON,
    QUESTIONS,
    VERDICTS,
    TopicSpec,
)
from streams.wire.codec import DecodeError, SchemaRegistry
from tests.hostile import Hostile, huge_valid, malformed, valid, valid_json
from tests.integration.worker import WorkerProcess, consume_until, produce

pytestmark = pytest.mark.integration

MALFORMED_PER_TOPIC = int(os.environ.get("OMEGA_HOSTILE_EVENTS", "10000"))  # per input topic; fewer for a quick look
BIG = 16 * 1024 * 1024  # the input topics' max.message.bytes and the test producer's max_request_size
PHASE_ONE = (PACKETS_JSON, PACKETS, AGENT_MESSAGES_RAW, ORACLE_REQUESTS, DOCUMENTS, GROUNDING_FACTS)
PHASE_TWO = (QUESTIONS, GROUNDING_REQUESTS)
SUITE = json.loads((Path(__file__).resolve().parents[1] / "data" / "answers" / "suite.json").read_text("utf-8"))
Position = tuple[str, int, int]


async def _create_inputs(bootstrap: str, worker: WorkerProcess) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(worker.topic(spec), worker.partitions, 1,
                                            topic_configs={"max.message.bytes": str(BIG)}) for spec in INPUTS])
    finally:
        await admin.close()


@pytest.fixture
def worker(kafka_bootstrap: str, tmp_path: Path) -> Iterator[WorkerProcess]:
    process = WorkerProcess(kafka_bootstrap, tmp_path)
    asyncio.run(_create_inputs(kafka_bootstrap, process))  # before Faust declares them with the defaults
    process.start()
    try:
        yield process
    finally:
        process.stop()


def _interleave(bad: list[Hostile], good: list[tuple[bytes, bytes]]) -> list[tuple[bool, bytes | None, bytes | None]]:
    """(is valid, key, value): the valid records spread evenly among the malformed ones, in their order."""
    out: list[tuple[bool, bytes | None, bytes | None]] = []
    step = max(1, len(bad) // (len(good) + 1))
    queue = list(good)
    for n, event in enumerate(bad):
        if n and n % step == 0 and queue:
            key, value = queue.pop(0)
            out.append((True, key, value))
        out.append((False, event.key, event.value))
    out.extend((True, key, value) for key, value in queue)
    return out


async def _produce_phase(bootstrap: str, worker: WorkerProcess, plan: dict[TopicSpec, list[tuple[bool, bytes | None,
                         bytes | None]]]) -> dict[TopicSpec, list[tuple[int, int]]]:
    options = {"max_request_size": BIG}
    # a None value is a Kafka null (tombstone), which aiokafka sends as such
    results = await asyncio.gather(*(produce(bootstrap, worker.topic(spec), cast(
        list[tuple[bytes | None, bytes]], [(k, v) for _, k, v in records]), options) for spec, records in plan.items()))
    return dict(zip(plan, results, strict=True))


class Progress:
    """Incremental bookkeeping over the records `consume_until` accumulates: which malformed positions have a dead
    letter, and the outputs seen per topic (counted once each, whatever the redelivery)."""

    def __init__(self, worker: WorkerProcess, wanted: set[Position], outputs: dict[str, set[str]]) -> None:
        self.dead_letters = worker.topic(DEAD_LETTERS)
        self.wanted, self.outputs = wanted, outputs
        self.covered: dict[Position, dict[str, Any]] = {}
        self.seen: dict[str, set[str]] = {t: set() for t in outputs}
        self.records: dict[str, list[dict[str, Any]]] = {t: [] for t in outputs}
        self.read: dict[str, int] = {}
        self.letters: list[dict[str, Any]] = []

    def done(self, found: dict[str, list[dict[str, Any]]]) -> bool:
        for topic, records in found.items():
            start = self.read.get(topic, 0)
            self.read[topic] = len(records)
            for record in records[start:]:
                if topic == self.dead_letters:
                    self.letters.append(record)
                    position = (record["source_topic"], record["source_partition"], record["source_offset"])
                    if position in self.wanted:
                        self.covered.setdefault(position, record)
                elif topic.endswith("-changelog"):  # a table entry stored: its key
                    self.seen[topic].add(json.loads(record["key"]))
                else:
                    self.seen[topic].add(_output_id(record))
                    self.records[topic].append(record)
        return len(self.covered) == len(self.wanted) and all(self.outputs[t] <= self.seen[t] for t in self.outputs)


def _answered_as_expected(question: dict[str, Any], got: dict[str, Any]) -> bool:
    if question.get("expectedVerdict") and got["verdict"] != question["expectedVerdict"]:
        return False
    expected = question.get("expectedAnswer")
    return expected is None or (got["text"] or "").strip().lower() == str(expected).strip().lower()


def _output_id(record: dict[str, Any]) -> str:
    for field in ("packet_id", "message_id", "fact_id", "question_id"):
        if field in record:
            return str(record[field])
    if "paragraph_verified" in record:  # a grounding verdict: the whole record (compared with the embedded one)
        return json.dumps({k: v for k, v in record.items() if k not in ("key", "partition", "offset", "timestamp")},
                          sort_keys=True)
    return str(record["id"])  # an oracle verdict


def _expected_phase_one(worker: WorkerProcess, registry: SchemaRegistry) -> dict[str, set[str]]:
    packets = [p for _, p in valid_json(PACKETS_JSON)]
    avro_packets = [registry.decode(v)[1]["header"]["packet_id"] for _, v in valid(PACKETS, registry)]
    stage = MonitorStage(Outputs(registry))
    messages = {e.record["message_id"] for n, (key, raw) in enumerate(valid(AGENT_MESSAGES_RAW, registry))
                for e in stage.messages(None, raw, Source("x", 0, n), key.decode()).emits
                if e.topic is AGENT_MESSAGES}
    facts = {f.fact_id for d in SUITE["corpus"] for f in ingest(d["text"], d).facts}
    grounding = {f"hostile/{f['id']}" for _, f in valid_json(GROUNDING_FACTS)}
    expected = {worker.topic(VERDICTS): {p["header"]["packet_id"] for p in packets} | set(avro_packets),
                worker.topic(AGENT_MESSAGES): messages, worker.topic(FACTS): facts,
                # stored, not only sent: the questions and requests of phase two must find them in the tables
                _changelog(worker, "facts"): {f"default/{f}" for f in facts}, _changelog(worker, "grounding-facts"):
                grounding}
    if default_config_path().exists():
        expected[worker.topic(ORACLE_VERDICTS)] = {c["id"] for _, c in valid_json(ORACLE_REQUESTS)}
    return expected


def _changelog(worker: WorkerProcess, table: str) -> str:
    return f"{worker.prefix}app-{worker.prefix}{table}-changelog"


class _AvroOrRaw(SchemaRegistry):
    """Decodes Avro outputs; a table's changelog holds JSON, kept raw."""

    def decode(self, data: bytes, reader_name: str | None = None) -> tuple[str, Any]:
        try:
            return super().decode(data, reader_name)
        except DecodeError:
            return "raw", {"value": data}


def _expected_phase_two(worker: WorkerProcess) -> dict[str, set[str]]:
    facts = {f["id"]: {k: v for k, v in f.items() if k != "corpus"} for _, f in valid_json(GROUNDING_FACTS)}
    states: dict[str, ParagraphState] = {}
    verdicts = set()
    for _, obj in valid_json(GROUNDING_REQUESTS):
        request = parse_request(obj, stored_facts(facts, obj.get("allowed_fact_ids")), obj["event_time"])
        states[request.paragraph_id], verdict = evolve(states.get(request.paragraph_id), request)
        verdicts.add(json.dumps(verdict.to_record(), sort_keys=True))
    return {worker.topic(ANSWERS): {q["id"] for q in SUITE["questions"]}, worker.topic(GROUNDING_VERDICTS): verdicts}


def _run_phase(kafka: str, worker: WorkerProcess, registry: SchemaRegistry, topics: tuple[TopicSpec, ...],
               expected: dict[str, set[str]], timeout: float) -> tuple[Progress, dict[TopicSpec, list[Hostile]]]:
    bad = {spec: list(malformed(spec, MALFORMED_PER_TOPIC, registry)) for spec in topics}
    plan = {spec: _interleave(bad[spec], valid(spec, registry)) for spec in topics}
    for spec in topics:  # valid inputs whose outputs may not fit: early, so the agent must live on after them
        at = len(plan[spec]) // 3
        plan[spec][at:at] = [(True, key, value) for _, key, value in huge_valid(spec, registry)]
    positions = asyncio.run(_produce_phase(kafka, worker, plan))
    wanted: set[Position] = set()
    judged = _attributable(registry, plan.get(PACKETS_JSON, []))
    for spec in topics:
        wanted |= {(worker.topic(spec), p, o) for (is_valid, _, value), (p, o) in zip(plan[spec], positions[spec],
                                                                                       strict=True)
                   if not is_valid and not (spec is PACKETS_JSON and value in judged)}
    if judged:
        expected[worker.topic(VERDICTS)] = expected.get(worker.topic(VERDICTS), set()) | set(judged.values())
    progress = Progress(worker, wanted, expected)
    asyncio.run(consume_until(kafka, [progress.dead_letters, *expected], registry, progress.done, timeout))
    missing = wanted - set(progress.covered)
    assert not missing, (len(missing), sorted(missing)[:10], worker.log_tail())
    for topic, ids in expected.items():
        assert ids <= progress.seen[topic], (topic, sorted(ids - progress.seen[topic])[:10], worker.log_tail())
    return progress, bad


def _attributable(registry: SchemaRegistry, records: list[tuple[bool, bytes | None, bytes | None]]) -> dict[bytes, str]:
    """The malformed JSON packets whose identity is readable (the ingress puts them on the packets topic, to be
    judged), by value: their packet ids."""
    pipeline = PacketStage(Outputs(registry))
    found: dict[bytes, str] = {}
    for is_valid, _, value in records:
        if not is_valid and value is not None and pipeline.ingress(value, Source("x", 0, 0))[0].topic is PACKETS:
            found[value] = json.loads(value)["header"]["packet_id"]
    return found


def test_malformed_events_on_every_input_topic_are_dead_letters_and_valid_traffic_is_judged(
    worker: WorkerProcess, kafka_bootstrap: str
) -> None:
    registry = _AvroOrRaw.from_directory()
    started = time.monotonic()
    one, bad_one = _run_phase(kafka_bootstrap, worker, registry, PHASE_ONE, _expected_phase_one(worker, registry),
                              240)
    two, bad_two = _run_phase(kafka_bootstrap, worker, registry, PHASE_TWO, _expected_phase_two(worker), 180)
    elapsed = time.monotonic() - started

    answers = {a["question_id"]: a for a in two.records[worker.topic(ANSWERS)]}
    wrong = [(q["id"], answers[q["id"]]["verdict"], answers[q["id"]]["text"]) for q in SUITE["questions"]
             if not _answered_as_expected(q, answers[q["id"]])]
    assert wrong == [], "the malformed documents and questions changed what the valid ones answer"
    assert worker.alive(), worker.log_tail()
    logs = worker.logs()
    assert "stage_failed" not in logs, worker.log_tail(120)
    assert "Crashed" not in logs, worker.log_tail(120)
    letters = [*one.covered.values(), *two.covered.values()]
    assert all(r["reason"] and r["error_class"] for r in letters)
    every_letter = [*one.letters, *two.letters]
    assert not [r for r in every_letter if r["error_class"] == "INTERNAL"], "an exception escaped a stage"
    assert any(r["error_class"] == "OUTPUT_TOO_LARGE" for r in every_letter)
    big = [r for r in letters if r["raw_size"] is not None]
    ten_mb = [e.value for events in (*bad_one.values(), *bad_two.values()) for e in events if e.category == "ten_mb"]
    assert {r["raw_sha256"] for r in big} >= {hashlib.sha256(v or b"").hexdigest() for v in ten_mb}
    assert all(len(r["raw"]) == DEAD_LETTER_RAW_BYTES for r in big)

    per_topic = Counter(r["source_topic"].removeprefix(worker.prefix) for r in letters)
    per_reason = Counter(r["error_class"] for r in letters)
    too_large = Counter(r["error_class"] for r in every_letter if r["error_class"].endswith("_TOO_LARGE"))
    malformed_count = sum(len(v) for v in (*bad_one.values(), *bad_two.values()))
    print(f"hostile: {malformed_count} malformed events in {elapsed:.1f}s ({malformed_count / elapsed:.0f}/s), "
          f"dead letters per topic {dict(per_topic)}, per reason {dict(per_reason.most_common())}; "
          f"valid inputs too large to pass on {dict(too_large)}")
