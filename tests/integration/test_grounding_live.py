"""Grounded generation on the real broker with two workers in one group: each labelled suite file is its own
corpus; facts keyed by fact id and requests keyed by paragraph id are re-published keyed by their corpus, meet
on one partition whichever worker owns it, and every verdict equals the embedded judgement of the same file
(byte-identical records: the requests carry their event time). A corpus sees only its own facts."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from omega.grounding.paragraph import ParagraphState, evolve
from streams.cli.grounding import read_requests
from streams.topics import GROUNDING_FACTS, GROUNDING_REQUESTS, GROUNDING_VERDICTS
from streams.wire.codec import SchemaRegistry
from tests.integration.worker import WorkerProcess, consume_until, produce

pytestmark = pytest.mark.integration

SUITE = sorted((Path(__file__).resolve().parents[1] / "data" / "grounding").glob("*.json"))
EPOCH = "1970-01-01T00:00:00+00:00"  # the embedded judge's event time when a request names none


def _embedded(path: Path) -> list[dict[str, Any]]:
    """The verdict records `omega check grounding` judges for one file, in order."""
    states: dict[str, ParagraphState] = {}
    records = []
    for request in read_requests(path):
        states[request.paragraph_id], verdict = evolve(states.get(request.paragraph_id), request)
        records.append(verdict.to_record())
    return records


def test_two_workers_judge_every_corpus_beside_its_own_facts_as_embedded_replay_does(
    two_workers: list[WorkerProcess], kafka_bootstrap: str
) -> None:
    worker, registry = two_workers[0], SchemaRegistry.from_directory()
    suites = {path.stem: json.loads(path.read_text("utf-8")) for path in SUITE}
    facts = [(f["id"].encode(), json.dumps({**f, "corpus": corpus}).encode())
             for corpus, data in suites.items() for f in data["facts"]]
    asyncio.run(produce(kafka_bootstrap, worker.topic(GROUNDING_FACTS), facts))
    facts_topic = worker.topic(GROUNDING_FACTS)
    # each fact twice on its topic: as sent, then re-published keyed by its corpus (and then stored)
    found = asyncio.run(consume_until(kafka_bootstrap, [facts_topic], _RawRegistry(),
                                      lambda f: len(f[facts_topic]) >= 2 * len(facts), 90))
    assert len(found[facts_topic]) == 2 * len(facts), worker.log_tail()
    time.sleep(3)  # the facts agent stores what it re-published

    requests = [(p["paragraph_id"].encode(), json.dumps({**p, "corpus": corpus, "event_time": EPOCH}).encode())
                for corpus, data in suites.items() for p in data["paragraphs"]]
    asyncio.run(produce(kafka_bootstrap, worker.topic(GROUNDING_REQUESTS), requests))
    verdicts_topic = worker.topic(GROUNDING_VERDICTS)
    found = asyncio.run(consume_until(kafka_bootstrap, [verdicts_topic], registry,
                                      lambda f: len(f[verdicts_topic]) >= len(requests), 120))
    live = [{k: v for k, v in r.items() if k not in ("key", "partition", "offset", "timestamp")}
            for r in found[verdicts_topic]]
    expected = [record for path in SUITE for record in _embedded(path)]
    assert len(live) == len(expected), two_workers[1].log_tail()
    by_version = {(r["paragraph_id"], r["version"]): r for r in live}
    mismatched = [(e["paragraph_id"], e["version"]) for e in expected
                  if by_version.get((e["paragraph_id"], e["version"])) != e]
    assert mismatched == [], (mismatched, worker.log_tail(), two_workers[1].log_tail())
    assert {r["paragraph_verified"] for r in live} == {True, False}
    assert all(w.alive() for w in two_workers)


class _RawRegistry(SchemaRegistry):
    """The facts topic holds JSON text, not Avro: count records without decoding them."""

    def __init__(self) -> None:
        pass

    def decode(self, data: bytes, reader_name: str | None = None) -> tuple[str, Any]:
        return "json", {"value": data}
