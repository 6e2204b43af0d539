"""DS005 on the real broker with two workers in one group: documents in, facts keyed by corpus into the table,
questions keyed by question id (so re-keyed by corpus first) answered beside every fact of the corpus; every
suite expectation holds, whichever worker the question first reached."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from omega.answers.ingest import ingest
from streams.topics import ANSWERS, DOCUMENTS, FACTS, QUESTIONS
from streams.wire.codec import SchemaRegistry
from tests.integration.worker import WorkerProcess, consume_until, produce

pytestmark = pytest.mark.integration

SUITE = json.loads((Path(__file__).resolve().parents[1] / "data" / "answers" / "suite.json").read_text("utf-8"))


def _passed(question: dict[str, Any], got: dict[str, Any]) -> bool:
    if question.get("expectedVerdict") and got["verdict"] != question["expectedVerdict"]:
        return False
    expected = question.get("expectedAnswer")
    return expected is None or (got["text"] or "").strip().lower() == str(expected).strip().lower()


def test_two_workers_answer_every_suite_question_over_the_shared_fact_table(
    two_workers: list[WorkerProcess], kafka_bootstrap: str
) -> None:
    worker, registry = two_workers[0], SchemaRegistry.from_directory()
    documents = [(d["docId"].encode(), json.dumps(d).encode()) for d in SUITE["corpus"]]
    asyncio.run(produce(kafka_bootstrap, worker.topic(DOCUMENTS), documents))
    facts_topic = worker.topic(FACTS)
    expected_facts = sum(len(ingest(d["text"], d).facts) for d in SUITE["corpus"])
    found = asyncio.run(consume_until(kafka_bootstrap, [facts_topic], registry,
                                      lambda f: len(f[facts_topic]) >= expected_facts, 90))
    assert len(found[facts_topic]) >= expected_facts, worker.log_tail()
    time.sleep(3)  # the facts agent stores the facts of the corpus's partition

    questions = [(q["id"].encode(), json.dumps({"id": q["id"], "question": q["question"],
                                                **({"plan": q["plan"]} if "plan" in q else {})}).encode())
                 for q in SUITE["questions"]]
    asyncio.run(produce(kafka_bootstrap, worker.topic(QUESTIONS), questions))
    answers_topic = worker.topic(ANSWERS)
    found = asyncio.run(consume_until(kafka_bootstrap, [answers_topic], registry,
                                      lambda f: len(f[answers_topic]) >= len(questions), 120))
    by_id = {a["question_id"]: a for a in found[answers_topic]}
    assert set(by_id) == {q["id"] for q in SUITE["questions"]}, worker.log_tail()
    failed = [(q["id"], by_id[q["id"]]["verdict"], by_id[q["id"]]["text"]) for q in SUITE["questions"]
              if not _passed(q, by_id[q["id"]])]
    assert failed == [], (failed, two_workers[1].log_tail())
    assert all(w.alive() for w in two_workers)
