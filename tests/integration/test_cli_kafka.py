"""`omega publish` and `omega tail` against the real broker."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import fastavro
import pytest
from click.testing import CliRunner

from streams.cli.main import main
from streams.wire.codec import SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from tests.factories import episode_packets

pytestmark = pytest.mark.integration


def _tail(runner: CliRunner, bootstrap: str, prefix: str, topic: str, count: int) -> list[dict[str, object]]:
    result = runner.invoke(main, ["tail", topic, "--bootstrap", bootstrap, "--prefix", prefix,
                                  "--max", str(count), "--timeout", "10"])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_jsonl_and_avro_container_files_publish_as_avro_packets_and_tail_back_equal(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    prefix = f"cli-{uuid.uuid4().hex[:8]}."
    packets = episode_packets(1, 4)
    jsonl = tmp_path / "episode.jsonl"
    jsonl.write_text("".join(json.dumps(p) + "\n" for p in packets[:2]))
    registry = SchemaRegistry.from_directory()
    converter = PacketConverter(registry.get(PACKET_SCHEMA).parsed)
    container = tmp_path / "episode.avro"
    with container.open("wb") as handle:
        schema = registry.get(PACKET_SCHEMA).parsed
        fastavro.writer(handle, schema, [converter.to_avro(p) for p in packets[2:]])

    runner = CliRunner()
    result = runner.invoke(main, ["publish", str(jsonl), str(container), "--topic", "packets",
                                  "--bootstrap", kafka_bootstrap, "--prefix", prefix])
    assert result.exit_code == 0, result.output
    assert "published 4 record(s)" in result.output

    lines = _tail(runner, kafka_bootstrap, prefix, "packets", 4)
    assert sorted((line["value"] for line in lines), key=lambda v: v["header"]["packet_id"]) == packets
    assert {line["key"] for line in lines} == {"corr_ep00001"}


def test_raw_lines_reach_the_json_ingress_verbatim_even_when_malformed(kafka_bootstrap: str, tmp_path: Path) -> None:
    prefix = f"cli-{uuid.uuid4().hex[:8]}."
    jsonl = tmp_path / "mixed.jsonl"
    jsonl.write_bytes(b'{"header": {"packet_id": "pkt_1"}}\n{not json\n')
    runner = CliRunner()
    result = runner.invoke(main, ["publish", str(jsonl), "--topic", "packets_json",
                                  "--bootstrap", kafka_bootstrap, "--prefix", prefix])
    assert result.exit_code == 0, result.output
    lines = _tail(runner, kafka_bootstrap, prefix, "packets_json", 2)
    # keyless records may land on different partitions, so only the contents are compared
    assert sorted(line["value"]["utf8"] for line in lines) == ['{"header": {"packet_id": "pkt_1"}}', "{not json"]


def test_publish_keys_by_correlation_id_and_tail_filters_starts_and_formats_for_replay(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    prefix = f"cli-{uuid.uuid4().hex[:8]}."
    packets = episode_packets(1, 3) + episode_packets(2, 3)
    jsonl = tmp_path / "two.jsonl"
    jsonl.write_text("".join(json.dumps(p) + "\n" for p in packets))
    runner = CliRunner()
    args = ["--bootstrap", kafka_bootstrap, "--prefix", prefix]
    assert runner.invoke(main, ["publish", str(jsonl), "--topic", "packets_json", *args]).exit_code == 0

    def tail(*options: str) -> list[str]:
        result = runner.invoke(main, ["tail", "packets_json", *args, "--timeout", "3", *options])
        assert result.exit_code == 0, result.output
        return result.stdout.splitlines()

    everything = [json.loads(line) for line in tail()]
    assert sorted(line["key"] for line in everything) == ["corr_ep00001"] * 3 + ["corr_ep00002"] * 3  # natural keys
    assert [json.loads(line)["key"] for line in tail("--key", "corr_ep00002")] == ["corr_ep00002"] * 3
    assert tail("--from-end") == []  # nothing arrives after the start
    assert tail("--since", "2999-01-01T00:00:00Z") == []
    assert len(tail("--since", "2000-01-01T00:00:00Z")) == 6
    first = everything[0]["partition"]
    assert {json.loads(line)["partition"] for line in tail("--partition", str(first))} == {first}

    # --format replay: one packet per line, which `omega replay` judges as it judges the file published
    tailed = tmp_path / "tailed.jsonl"
    tailed.write_text("\n".join(tail("--format", "replay")) + "\n")
    assert sorted(json.loads(line)["header"]["packet_id"] for line in tailed.read_text().splitlines()) == sorted(
        p["header"]["packet_id"] for p in packets)
    replayed = runner.invoke(main, ["replay", str(tailed), "--out", str(tmp_path / "out.jsonl")])
    assert replayed.exit_code == 0, replayed.output
    verdicts = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len([v for v in verdicts if v["topic"] == "omen.verdicts"]) == 6


def test_tail_of_a_bad_since_is_a_usage_error(kafka_bootstrap: str) -> None:
    result = CliRunner().invoke(main, ["tail", "packets", "--since", "yesterday", "--bootstrap", kafka_bootstrap])
    assert result.exit_code == 2
    assert "--since 'yesterday': not an ISO 8601 time" in result.output
