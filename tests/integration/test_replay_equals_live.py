"""Replay equals live on the real broker (issue 21): an episode whose state outgrows a changelog record gives, from a
running worker, the verdict and the STATE_TOO_LARGE dead letter that `Replayer` gives for the same packets, because
both run the same episode step (stages/episodes.py) over a Faust table and a dict."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from streams.replay.inputs import read_inputs
from streams.replay.replayer import Replayer
from streams.stages.base import Outputs
from streams.topics import DEAD_LETTERS, PACKETS_JSON, VERDICTS
from streams.wire.codec import SchemaRegistry
from tests.factories import state_outgrowing_episode
from tests.integration.worker import WorkerProcess, drain, produce

pytestmark = pytest.mark.integration


def test_an_episode_whose_state_outgrows_a_record_is_the_same_dead_letter_live_and_in_replay(
    worker: WorkerProcess, kafka_bootstrap: str, tmp_path: Path
) -> None:
    packets = state_outgrowing_episode()
    registry = SchemaRegistry.from_directory()
    path = tmp_path / "episode.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in packets), encoding="utf-8")
    replayer = Replayer(Outputs(registry))
    replayed = [e for record in read_inputs([path]) for e in replayer.feed(record)] + replayer.finish()

    records = [(p["header"]["correlation_id"].encode(), json.dumps(p).encode()) for p in packets]
    asyncio.run(produce(kafka_bootstrap, worker.topic(PACKETS_JSON), records))
    verdicts, letters = worker.topic(VERDICTS), worker.topic(DEAD_LETTERS)
    found = asyncio.run(drain(kafka_bootstrap, {verdicts: 1, letters: 1}, registry, 120))

    assert [e.topic.logical for e in replayed] == ["verdicts", "dead_letters"]
    assert len(found[verdicts]) == 1, worker.log_tail()
    assert len(found[letters]) == 1, worker.log_tail()
    [live_verdict], [live_letter] = found[verdicts], found[letters]
    replay_verdict, replay_letter = (dict(e.record) for e in replayed)
    assert {k: live_verdict[k] for k in replay_verdict} == replay_verdict  # the same record, field for field
    assert live_letter["error_class"] == replay_letter["error_class"] == "STATE_TOO_LARGE"
    assert live_letter["reason"] == replay_letter["reason"]
    assert live_letter["raw"] == replay_letter["raw"]  # the same Avro packet refused (its first 64 KiB)
    assert live_letter["raw_sha256"] == replay_letter["raw_sha256"]
