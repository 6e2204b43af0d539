"""JSON ingress -> Avro -> validator on the real broker: every input is either judged or dead-lettered; an attributable
packet that breaks the schema is judged (REJECTED, its field named), only unattributable input is a dead letter."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from streams.topics import DEAD_LETTERS, PACKETS_JSON, VERDICTS
from streams.wire.codec import SchemaRegistry
from tests.factories import packet
from tests.integration.worker import WorkerProcess, drain, produce

pytestmark = pytest.mark.integration

VALID, MALFORMED = 950, 50
JUDGED = 25  # the broken records of kinds 1 and 2: attributable, so REJECTED verdicts (issue 41)


def malformed_inputs(valid: list[bytes]) -> list[tuple[str, bytes]]:
    """50 broken records of four kinds, each with the error class (a dead letter) or the field (a SCHEMA
    rejection) the worker must name."""
    broken: list[tuple[str, bytes]] = []
    for i in range(MALFORMED):
        original = json.loads(valid[i])
        kind = i % 4
        if kind == 0:
            broken.append(("JSON_SYNTAX", b'{"header": {"packet_id": "pkt_x' + str(i).encode()))
        elif kind == 1:
            original["mcp"]["budgets"]["token_budget"] = "nine hundred"
            original["header"]["packet_id"] = f"pkt_wrongtype_{i}"
            broken.append(("mcp.budgets.token_budget", json.dumps(original).encode()))
        elif kind == 2:
            original["header"]["packet_type"] = "TeleportPacket"
            original["header"]["packet_id"] = f"pkt_teleport_{i}"
            broken.append(("header.packet_type", json.dumps(original).encode()))
        else:
            broken.append(("JSON_SYNTAX", valid[i][: len(valid[i]) // 2]))
    return broken


@pytest.fixture(params=["memory://", "rocksdb://"])
def worker(kafka_bootstrap: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[WorkerProcess]:
    process = WorkerProcess(kafka_bootstrap, tmp_path, store=request.param)
    process.start()
    try:
        yield process
    finally:
        process.stop()


def test_thousand_json_packets_give_975_verdicts_and_25_dead_letters_with_raw_bytes(
    worker: WorkerProcess, kafka_bootstrap: str
) -> None:
    valid = [json.dumps(packet(n % 19, n // 19)).encode() for n in range(VALID)]
    broken = malformed_inputs(valid)
    # Interleave: every 19th record is broken, so bad input sits between good input on every partition.
    records: list[tuple[bytes | None, bytes]] = []
    expected_class: dict[bytes, str] = {}
    good = iter(valid)
    for i in range(VALID + MALFORMED):
        if i % 20 == 19:
            error_class, raw = broken[i // 20]
            expected_class[raw] = error_class
            records.append((f"bad-{i}".encode(), raw))
        else:
            raw = next(good)
            records.append((json.loads(raw)["header"]["correlation_id"].encode(), raw))
    positions = asyncio.run(produce(kafka_bootstrap, worker.topic(PACKETS_JSON), records))

    registry = SchemaRegistry.from_directory()
    verdict_topic, dead_topic = worker.topic(VERDICTS), worker.topic(DEAD_LETTERS)
    found = asyncio.run(drain(kafka_bootstrap, {verdict_topic: VALID + JUDGED, dead_topic: MALFORMED - JUDGED},
                              registry, 120))
    verdicts, dead = found[verdict_topic], found[dead_topic]

    assert len(verdicts) == VALID + JUDGED, worker.log_tail()
    assert len({v["packet_id"] for v in verdicts}) == VALID + JUDGED
    assert Counter(v["status"] for v in verdicts) == {"ACCEPTED": VALID, "REJECTED": JUDGED}
    assert all(v["key"] == v["correlation_id"].encode() for v in verdicts)
    fields = {raw: field for field, raw in broken if field.count(".")}
    for rejected in (v for v in verdicts if v["status"] == "REJECTED"):
        [raw] = [r for r in fields if json.loads(r)["header"]["packet_id"] == rejected["packet_id"]]
        assert [(x["rule"], x["field"]) for x in rejected["violations"]] == [("SCHEMA", fields[raw])]

    assert len(dead) == MALFORMED - JUDGED
    by_position = dict(zip(positions, records, strict=True))
    for letter in dead:
        key, raw = by_position[(letter["source_partition"], letter["source_offset"])]
        assert letter["raw"] == raw
        assert letter["source_key"] == key
        assert letter["source_topic"] == worker.topic(PACKETS_JSON)
        assert letter["error_class"] == expected_class[raw]
        assert letter["reason"]

    # The worker survived all of it and keeps consuming.
    assert worker.alive()
    late = json.dumps(packet(0, 99_999)).encode()
    asyncio.run(produce(kafka_bootstrap, worker.topic(PACKETS_JSON), [(b"corr_ep99999", late)]))
    after = asyncio.run(drain(kafka_bootstrap, {verdict_topic: VALID + JUDGED + 1}, registry, 60))
    assert any(v["packet_id"] == "pkt_99999_000000" for v in after[verdict_topic])
    assert worker.alive()
