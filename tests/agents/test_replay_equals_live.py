"""Replay equals live by construction (issue 21): the validator agent and `Replayer` call the same episode step
(stages/episodes.py) over a Faust table and a dict, so a packet whose state outgrows its changelog record is the
same STATE_TOO_LARGE dead letter in both, and what came before it the same verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from streams.replay.inputs import read_inputs
from streams.replay.replayer import Replayer
from streams.stages.base import MAX_TABLE_ENTRY_BYTES, Outputs, Source
from streams.topics import DEAD_LETTERS, PACKETS, VERDICTS
from streams.wire.codec import SchemaRegistry
from streams.worker.app import OmegaApp
from tests.agents.support import agent_of, sends, settle
from tests.factories import state_outgrowing_episode

REGISTRY = SchemaRegistry.from_directory()
def _replayed(tmp_path: Path) -> list[tuple[str, dict[str, Any]]]:
    path = tmp_path / "episode.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in state_outgrowing_episode()), encoding="utf-8")
    replayer = Replayer(Outputs(REGISTRY))
    outputs = [e for record in read_inputs([path]) for e in replayer.feed(record)] + replayer.finish()
    return [(e.topic.logical, dict(e.record)) for e in outputs]


async def _live(omega: OmegaApp) -> list[tuple[str, dict[str, Any]]]:
    pipeline = omega.packet_stage
    avro = []
    for n, packet in enumerate(state_outgrowing_episode()):
        [emit] = pipeline.ingress(json.dumps(packet).encode(), Source("packets_json", 0, n))
        assert emit.topic is PACKETS
        avro.append((emit.key.encode(), emit.value, emit.timestamp_ms))
    async with agent_of(omega, "validator").test_context() as agent:
        for key, value, ts in avro:
            await agent.put(value, key=key, timestamp=ts / 1000)
        await settle(lambda: bool(sends(omega, DEAD_LETTERS.logical)))
    out = []
    for logical in (VERDICTS.logical, DEAD_LETTERS.logical):
        for sent in sends(omega, logical):
            out.append((logical, REGISTRY.decode(sent["value"])[1]))
    return out


async def test_a_packet_whose_state_outgrows_a_record_is_the_same_dead_letter_in_replay_and_live(
    omega: OmegaApp, tmp_path: Path
) -> None:
    replayed = _replayed(tmp_path)
    live = await _live(omega)

    assert [topic for topic, _ in replayed] == ["verdicts", "dead_letters"]
    assert [topic for topic, _ in live] == ["verdicts", "dead_letters"]
    assert replayed[0][1] == live[0][1]  # the first packet's verdict, byte for byte the same record
    replay_letter, live_letter = replayed[1][1], live[1][1]
    assert replay_letter["error_class"] == live_letter["error_class"] == "STATE_TOO_LARGE"
    assert replay_letter["reason"] == live_letter["reason"]
    assert replay_letter["reason"].endswith(f"more than the limit of {MAX_TABLE_ENTRY_BYTES}")
    # the position differs by construction (a file line vs a topic offset); the refused bytes do not
    assert replay_letter["raw"] == live_letter["raw"]
