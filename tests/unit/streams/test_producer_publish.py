"""`streams.producer_publish`: packets keyed by correlation id to the JSON ingress, JSONL files, the wall clock."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import streams.kafka.clients
from streams.producer_publish import encode, publish, wall_clock, write_jsonl
from tests.unit.omega.producer.builders import Steps, ref


def _packets() -> list[Any]:
    s = Steps("corr_pub")
    s.observation(0)
    s.belief(10, refs=[ref("tool_output", "tool://obs/0", 0)])
    return list(s.episode.packets)


def test_a_record_is_keyed_by_correlation_id_and_carries_the_packet_as_json() -> None:
    packet = _packets()[0]
    key, value = encode(packet)
    assert key == b"corr_pub"
    assert json.loads(value) == packet.to_json()
    assert encode(packet.to_json()) == (key, value)  # a dumped (or signed) packet is sent the same
    with pytest.raises(ValueError, match="correlation_id"):
        encode({"header": {}})


async def test_publish_sends_every_packet_in_order_to_the_prefixed_json_ingress(
        monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[tuple[str, str, list[tuple[bytes, bytes]]]] = []

    async def fake(records: Iterable[Any], encoder: Callable[[Any], tuple[bytes, bytes]], name: str, bootstrap: str,
                   *, client_options: Any = None) -> tuple[int, int]:
        sent.append((name, bootstrap, [encoder(r) for r in records]))
        return len(sent[-1][2]), 0

    monkeypatch.setattr(streams.kafka.clients, "publish_records", fake)
    packets = _packets()
    assert await publish(packets, bootstrap="broker:9092", prefix="t1.") == 2
    [(name, bootstrap, records)] = sent
    assert (name, bootstrap) == ("t1.omen.packets.json", "broker:9092")
    assert [(k, json.loads(v)["header"]["packet_id"]) for k, v in records] == [
        (b"corr_pub", "pkt_pub_0001"), (b"corr_pub", "pkt_pub_0002")]
    with pytest.raises(ValueError, match="correlation_id"):  # refused before anything is sent
        await publish([*packets, {"header": {}}], bootstrap="broker:9092")
    assert len(sent) == 1


def test_write_jsonl_writes_one_packet_a_line_and_appends(tmp_path: Path) -> None:
    out = tmp_path / "episode.jsonl"
    packets = _packets()
    assert write_jsonl(packets, out) == 2
    assert write_jsonl(packets[:1], out, append=True) == 1
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [p.to_json() for p in [*packets, packets[0]]]


def test_the_wall_clock_is_aware_utc() -> None:
    assert wall_clock().utcoffset() == timedelta(0)
