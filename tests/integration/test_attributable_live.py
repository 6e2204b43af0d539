"""Every attributable packet is judged live as in replay, byte for byte (issue 41): packets a real producer writes
(nulls on optional fields, string numbers, UUID ids, an unknown type, a flattened payload, no MCP) reach the
validator as `omega.omen.PacketAsSent` and come out as the very verdict records `Replayer` gives; only the
unattributable lines are dead letters, with their raw bytes."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from streams.replay.inputs import read_inputs
from streams.replay.replayer import Replayer
from streams.stages.base import Outputs, Source
from streams.stages.packets import PacketStage
from streams.topics import DEAD_LETTERS, PACKETS, PACKETS_JSON, VERDICTS
from streams.wire.codec import SchemaRegistry
from tests.factories import packet as factory_packet
from tests.integration.worker import WorkerProcess, consume_until, produce

NEAR_OMEN = Path(__file__).resolve().parents[1] / "data" / "near_omen"

pytestmark = pytest.mark.integration


def _dialects() -> list[bytes]:
    """An episode of attributable packets in a real producer's dialects, then two lines nobody can attribute."""
    def at(n: int, change: Any) -> bytes:
        packet = copy.deepcopy(factory_packet(n, 41))
        change(packet)
        return json.dumps(packet).encode("utf-8")

    def null_campaign(p: dict[str, Any]) -> None:
        p["header"]["campaign_id"] = None

    def string_layer(p: dict[str, Any]) -> None:
        p["header"]["layer_source"] = "5"

    def uuid_id(p: dict[str, Any]) -> None:
        p["header"]["packet_id"] = "1b4e28ba-2fa1-11d2-883f-0016d3cca427"

    def unknown_type(p: dict[str, Any]) -> None:
        p["header"]["packet_type"] = "ThoughtPacket"

    def flattened(p: dict[str, Any]) -> None:
        p.update(p.pop("payload"))

    def no_mcp(p: dict[str, Any]) -> None:
        del p["mcp"]

    def string_budget(p: dict[str, Any]) -> None:
        p["mcp"]["budgets"]["token_budget"] = "2000"

    changes = [null_campaign, string_layer, uuid_id, unknown_type, flattened, no_mcp, string_budget]
    return [at(n, change) for n, change in enumerate(changes)] + [b'{"header": {"packet_id": 7}}', b"not json"]


def _raw(bootstrap: str, topics: dict[str, int], timeout: float) -> dict[str, list[bytes]]:
    """Each topic's record values, raw, from the start until it holds the expected count (or time runs out)."""
    found = asyncio.run(consume_until(bootstrap, list(topics), None,
                                      lambda got: all(len(got[t]) >= n for t, n in topics.items()), timeout))
    return {topic: [r["value"] for r in records if r["value"] is not None] for topic, records in found.items()}


def test_attributable_packets_are_judged_live_with_the_bytes_of_replay_and_only_the_rest_is_dead_lettered(
    worker: WorkerProcess, kafka_bootstrap: str, tmp_path: Path
) -> None:
    lines = _dialects()
    path = tmp_path / "dialects.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    registry = SchemaRegistry.from_directory()
    pipeline = PacketStage(Outputs(registry))
    replayer = Replayer(pipeline.outputs)
    replayed = [e for record in read_inputs([path]) for e in replayer.feed(record)] + replayer.finish()
    replay_verdicts = [e.value for e in replayed if e.topic is VERDICTS]
    replay_packets = [e.value for n, line in enumerate(lines)
                      for e in pipeline.ingress(line, Source("x", 0, n)) if e.topic is PACKETS]
    assert len(replay_verdicts) == len(replay_packets) == 7  # every attributable line judged
    assert [e.record["error_class"] for e in replayed if e.topic is DEAD_LETTERS] == ["MISSING_IDENTITY",
                                                                                   "JSON_SYNTAX"]

    asyncio.run(produce(kafka_bootstrap, worker.topic(PACKETS_JSON), [(b"corr_ep00041", line) for line in lines]))
    topics = {worker.topic(VERDICTS): 7, worker.topic(DEAD_LETTERS): 2, worker.topic(PACKETS): 7}
    found = _raw(kafka_bootstrap, topics, 120)

    live_packets = [v for v in found[worker.topic(PACKETS)]
                    if registry.writer_of(v).name != "omega.events.WatermarkTick"]
    assert sorted(live_packets) == sorted(replay_packets), worker.log_tail()
    assert [registry.writer_of(v).name for v in live_packets].count("omega.omen.PacketAsSent") == 3  # null, wrong types
    assert found[worker.topic(VERDICTS)] == replay_verdicts, worker.log_tail()  # one episode: in order, byte for byte
    letters = [registry.decode(v)[1] for v in found[worker.topic(DEAD_LETTERS)]]
    assert sorted((d["error_class"], d["raw"]) for d in letters) == sorted(
        [("MISSING_IDENTITY", lines[7]), ("JSON_SYNTAX", lines[8])])


def test_the_near_omen_corpus_gives_live_the_verdicts_of_replay_byte_for_byte(
    worker: WorkerProcess, kafka_bootstrap: str
) -> None:
    """The corpus of tests/data/near_omen (three teams' logs in every dialect of issue 41), each record sent as
    `read_inputs` reads it, keyed by its episode: live and replay give the same verdict records and dead letters."""
    registry = SchemaRegistry.from_directory()
    paths = [NEAR_OMEN / "alpha.jsonl", NEAR_OMEN / "beta.jsonl", NEAR_OMEN / "gamma.json"]
    records = list(read_inputs(paths))
    replayer = Replayer(Outputs(registry))
    replayed = [e for record in records for e in replayer.feed(record)] + replayer.finish()
    replay_verdicts = sorted(e.value for e in replayed if e.topic is VERDICTS)
    replay_letters = sorted((e.record["error_class"], e.record["raw"]) for e in replayed if e.topic is DEAD_LETTERS)
    assert (len(replay_verdicts), len(replay_letters)) == (25, 3)  # tests/data/near_omen/expected_report.json

    def key(raw: bytes) -> bytes:
        try:
            return str(json.loads(raw)["header"]["correlation_id"]).encode()
        except (ValueError, KeyError, TypeError):
            return b"unattributable"

    asyncio.run(produce(kafka_bootstrap, worker.topic(PACKETS_JSON), [(key(r.raw), r.raw) for r in records]))
    found = _raw(kafka_bootstrap, {worker.topic(VERDICTS): 25, worker.topic(DEAD_LETTERS): 3}, 120)
    assert sorted(found[worker.topic(VERDICTS)]) == replay_verdicts, worker.log_tail()
    letters = [registry.decode(v)[1] for v in found[worker.topic(DEAD_LETTERS)]]
    assert sorted((d["error_class"], d["raw"]) for d in letters) == replay_letters
