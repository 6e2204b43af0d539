"""Agents in batches (issue 24, OMEGA_BATCH_MAX > 1): the validator takes records several at a time (Faust
`take_events`) and gives, in the same order, the outputs embedded replay gives for the same packets; each ledger it
rewrote is stored once per batch, under the event of the record that wrote it last (so it lands in the changelog
partition the record-by-record loop puts it in), after the judgements it adds."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from faust.streams import _current_event as faust_current_event

from streams.replay.inputs import read_inputs
from streams.replay.replayer import Replayer
from streams.stages.base import Outputs, Source
from streams.worker.app import OmegaApp
from streams.worker.write_behind import WriteBehind
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
    replayer = Replayer(Outputs(REGISTRY))
    expected = [(e.topic.logical, e.value) for r in read_inputs([path]) for e in replayer.feed(r)]
    total = len(expected)
    assert total > 20  # several batches of 7

    async with agent_of(batched, "validator").test_context() as agent:
        for n, line in enumerate(lines):
            [emit] = batched.packet_stage.ingress(line, Source("packets_json", 0, n))
            await agent.put(emit.value, key=emit.key.encode(), partition=0,
                            timestamp=(emit.timestamp_ms or 0) / 1000)
        await settle(lambda: sum(all_sends(batched).values()) >= total)

    live = {logical: [sent["value"] for sent in sends(batched, logical)] for logical in all_sends(batched)}
    assert live == {t: [v for topic, v in expected if topic == t] for t, _ in expected}  # in order, per topic
    stored = {str(key) for key, _ in batched.episodes.items() if "\x00" not in str(key)}
    assert stored == {json.loads(line)["header"]["correlation_id"] for line in lines}


async def test_a_batch_stores_each_ledger_once_under_the_event_that_wrote_it_last_after_its_judgements(
        batched: OmegaApp) -> None:
    assert isinstance(batched.episodes, WriteBehind)
    table: Any = batched.episodes.table
    stored: list[tuple[str, int]] = []  # (key, partition of the event it was assigned under), in order
    original = table.on_key_set

    def on_key_set(key: Any, value: Any) -> None:
        event = faust_current_event.get(None)
        stored.append((str(key), -1 if event is None else event().message.partition))
        original(key, value)

    table.on_key_set = on_key_set
    packets = [json.loads(line) for line in (EXAMPLES / "verify_loop.jsonl").read_bytes().splitlines() if line.strip()]
    other = [json.loads(line) for line in (EXAMPLES / "write_act.jsonl").read_bytes().splitlines() if line.strip()]
    episode, second = packets[0]["header"]["correlation_id"], other[0]["header"]["correlation_id"]
    async with agent_of(batched, "validator").test_context() as agent:
        for n, (packet, partition) in enumerate([(p, 0) for p in packets] + [(p, 1) for p in other]):
            [emit] = batched.packet_stage.ingress(json.dumps(packet).encode(), Source("packets_json", 0, n))
            await agent.put(emit.value, key=emit.key.encode(), partition=partition,
                            timestamp=(emit.timestamp_ms or 0) / 1000)
        await settle(lambda: len(sends(batched, "verdicts")) >= len(packets) + len(other))

    ledgers = [(key, partition) for key, partition in stored if "\x00" not in key]
    judgements = [key for key, _ in stored if "\x00" in key]
    assert len(judgements) == len({p["header"]["packet_id"] for p in packets} | {p["header"]["packet_id"] for p in
                                                                                   other})
    # batches of 7 hold several packets of an episode: its ledger is stored fewer times than it was rewritten
    assert len(ledgers) < len(packets) + len(other)
    assert {partition for key, partition in ledgers if key == episode} == {0}
    assert {partition for key, partition in ledgers if key == second} == {1}
    for position, (key, _) in enumerate(stored):  # every judgement is stored before the next store of its ledger
        if "\x00" in key:
            owner = key.split("\x00")[0]
            assert any(k == owner for k, _ in stored[position + 1:])
    assert batched.episodes.get(episode) is table.get(episode)  # nothing left behind once the batches are done
