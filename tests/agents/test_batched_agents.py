"""Agents in batches (issue 24, OMEGA_BATCH_MAX > 1): the validator takes records several at a time (Faust
`take_events`) and gives, in the same order, the outputs embedded replay gives for the same packets, its table
written under each record's own event (so the ledger and judgements land where the record-by-record loop puts them)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from streams.replay import Replayer
from streams.replay_inputs import read_inputs
from streams.stages.base import Source
from streams.stages.packets import Pipeline
from streams.worker.app import OmegaApp
from tests.agents.support import REGISTRY, agent_of, all_sends, fresh_app, sends, settle

EXAMPLES = Path(__file__).parents[2] / "examples" / "omen"


@pytest.fixture
async def batched() -> AsyncIterator[OmegaApp]:
    async for app in fresh_app(batch_max=7, batch_wait_seconds=0.005):
        yield app


async def test_a_batched_validator_gives_replays_outputs_in_order_and_stores_each_ledger(
        batched: OmegaApp, tmp_path: Path) -> None:
    lines = [line for stem in ("budget_overrun", "safe_mode", "token_revoked")
             for line in (EXAMPLES / f"{stem}.jsonl").read_bytes().splitlines() if line.strip()]
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    replayer = Replayer(Pipeline(REGISTRY))
    expected = [(e.topic.logical, e.value) for r in read_inputs([path]) for e in replayer.feed(r)]
    total = len(expected)
    assert total > 20  # several batches of 7

    async with agent_of(batched, "validator").test_context() as agent:
        for n, line in enumerate(lines):
            [emit] = batched.pipeline.ingress(line, Source("packets_json", 0, n))
            await agent.put(emit.value, key=emit.key.encode(), partition=0,
                            timestamp=(emit.timestamp_ms or 0) / 1000)
        await settle(lambda: sum(all_sends(batched).values()) >= total)

    live = {logical: [sent["value"] for sent in sends(batched, logical)] for logical in all_sends(batched)}
    assert live == {t: [v for topic, v in expected if topic == t] for t, _ in expected}  # in order, per topic
    stored = {str(key) for key, _ in batched.episodes.items() if "\x00" not in str(key)}
    assert stored == {json.loads(line)["header"]["correlation_id"] for line in lines}
