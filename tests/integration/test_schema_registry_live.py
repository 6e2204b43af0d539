"""Schema Registry interoperability live (issue 26), on the real broker and a real Apicurio registry: a packet
published by a plain confluent-kafka producer with its own AvroSerializer is judged beside one in our single-object
framing; with OMEGA_AVRO_WIRE=confluent a plain confluent-kafka consumer with its AvroDeserializer reads our
verdicts and alerts; a frame with an id the registry does not have is a dead letter; `omega tail` decodes both
framings."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from confluent_kafka import Consumer, Producer
from confluent_kafka.schema_registry import SchemaRegistryClient, topic_record_subject_name_strategy
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

from streams.cli.main import main
from streams.topics import ALERTS, DEAD_LETTERS, PACKETS, VERDICTS
from streams.wire.codec import SchemaRegistry
from streams.wire.confluent import schema_json
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from tests.integration.worker import WorkerProcess

pytestmark = pytest.mark.integration

EXAMPLES = Path(__file__).parents[2] / "examples" / "omen"


@pytest.fixture
def confluent_worker(kafka_bootstrap: str, schema_registry_url: str, tmp_path: Path) -> Iterator[WorkerProcess]:
    process = WorkerProcess(kafka_bootstrap, tmp_path, env={"OMEGA_AVRO_WIRE": "confluent",
                                                           "OMEGA_SCHEMA_REGISTRY_URL": schema_registry_url})
    process.start()
    try:
        yield process
    finally:
        process.stop()


def _packets(stem: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (EXAMPLES / f"{stem}.jsonl").read_text().splitlines() if line.strip()]


def _consume(bootstrap: str, topic: str, deserializer: AvroDeserializer, count: int,
             timeout: float = 90.0) -> list[dict[str, Any]]:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"plain-{topic}",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    consumer.subscribe([topic])
    found: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    try:
        while len(found) < count and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None or message.error():
                continue
            value = message.value()
            assert value[:1] == b"\x00", value[:2]  # the registry's framing, not ours
            found.append(deserializer(value, SerializationContext(topic, MessageField.VALUE)))
    finally:
        consumer.close()
    return found


def test_registry_framed_packets_are_judged_and_plain_confluent_clients_read_our_outputs(
    confluent_worker: WorkerProcess, kafka_bootstrap: str, schema_registry_url: str
) -> None:
    registry = SchemaRegistry.from_directory()
    converter = PacketConverter(registry.get(PACKET_SCHEMA).parsed)
    packets_topic = confluent_worker.topic(PACKETS)
    client = SchemaRegistryClient({"url": schema_registry_url})
    try:
        _publish_judge_and_read(confluent_worker, kafka_bootstrap, schema_registry_url, client, registry, converter,
                                packets_topic)
    finally:
        client.close()


def _publish_judge_and_read(confluent_worker: WorkerProcess, kafka_bootstrap: str, schema_registry_url: str,
                            client: SchemaRegistryClient, registry: SchemaRegistry, converter: PacketConverter,
                            packets_topic: str) -> None:
    # the producer's own serializer, as a registry team's producer would be set up (TopicRecordNameStrategy: the
    # packets topic also carries the worker's watermark ticks)
    serializer = AvroSerializer(client, schema_json(registry.get(PACKET_SCHEMA).parsed),
                                conf={"subject.name.strategy": topic_record_subject_name_strategy})
    framed_episode, ours_episode = _packets("budget_overrun"), _packets("write_act")
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for packet in framed_episode:
        value = serializer(converter.to_avro(packet), SerializationContext(packets_topic, MessageField.VALUE))
        assert value is not None
        assert value[:1] == b"\x00"
        producer.produce(packets_topic, key=packet["header"]["correlation_id"].encode(), value=value)
    for packet in ours_episode:
        producer.produce(packets_topic, key=packet["header"]["correlation_id"].encode(),
                         value=registry.encode(PACKET_SCHEMA, converter.to_avro(packet)))
    unknown = b"\x00" + (987_654_321).to_bytes(4, "big") + b"\x02"
    producer.produce(packets_topic, key=b"corr_unknown_id", value=unknown)
    assert producer.flush(30) == 0

    reader = AvroDeserializer(client)
    verdicts = _consume(kafka_bootstrap, confluent_worker.topic(VERDICTS), reader,
                        len(framed_episode) + len(ours_episode))
    assert len(verdicts) == len(framed_episode) + len(ours_episode), confluent_worker.log_tail()
    judged = {v["packet_id"] for v in verdicts}
    assert judged == {p["header"]["packet_id"] for p in framed_episode + ours_episode}
    alerts = _consume(kafka_bootstrap, confluent_worker.topic(ALERTS), reader, 1)
    assert [a["kind"] for a in alerts] == ["BUDGET_OVERRUN"]  # budget_overrun.jsonl's one alert
    [letter] = _consume(kafka_bootstrap, confluent_worker.topic(DEAD_LETTERS), reader, 1)
    assert letter["error_class"] == "UNKNOWN_SCHEMA_ID"
    assert letter["raw"] == unknown  # the record kept as it came

    env = {"OMEGA_SCHEMA_REGISTRY_URL": schema_registry_url}
    tail = CliRunner().invoke(main, ["tail", "packets", "--bootstrap", kafka_bootstrap, "--prefix",
                                     confluent_worker.prefix, "--timeout", "3"], env=env)
    assert tail.exit_code == 0, tail.output
    lines = [json.loads(line) for line in tail.stdout.splitlines() if line.startswith("{")]
    decoded = [line["value"] for line in lines if "header" in (line["value"] or {})]
    # both framings decoded back to the packets as published (registry-framed first episode, ours second)
    assert sorted(p["header"]["packet_id"] for p in decoded) == sorted(
        p["header"]["packet_id"] for p in framed_episode + ours_episode)
    [undecodable] = [line["value"] for line in lines if "undecodable" in (line["value"] or {})]
    assert "987654321" in undecodable["undecodable"]
