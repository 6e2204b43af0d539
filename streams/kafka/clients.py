"""Plain aiokafka producer and consumer for the CLI's `publish` and `tail` (no Faust needed)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from omega.canonical import canonical_json
from streams.replay import InputRecord, jsonable
from streams.settings import kafka_client_options
from streams.stages.packets import Pipeline
from streams.topics import PACKETS, TopicSpec
from streams.wire.omen_avro import PACKET_SCHEMA


def _options(given: Mapping[str, Any] | None) -> dict[str, Any]:
    return dict(kafka_client_options() if given is None else given)


def encode_for_topic(pipeline: Pipeline, record: InputRecord, spec: TopicSpec | None) -> tuple[bytes | None, bytes]:
    """(key, value) to publish: verbatim bytes for JSON topics, single-object Avro for Avro topics.

    Records of an Avro container file are turned back into the packet JSON a producer would send first.
    """
    raw = record.raw
    if record.stage == "avro":
        if record.schema_name != PACKET_SCHEMA:
            raise ValueError(f"container holds {record.schema_name} records, not {PACKET_SCHEMA}")
        raw = canonical_json(pipeline.packets.from_avro(record.datum)).encode("utf-8")
    if spec is None or spec.value_schema is None:
        return record.source.key, raw
    if spec is not PACKETS:
        raise ValueError(f"publishing to {spec.name} ({spec.value_schema}) is not supported")
    [emit] = pipeline.ingress(raw, record.source)
    if emit.topic is not PACKETS:
        raise ValueError(str(emit.record["reason"]))
    return emit.key.encode("utf-8"), emit.value


async def publish_records(
    pipeline: Pipeline, records: Iterable[InputRecord], spec: TopicSpec | None, name: str, bootstrap: str,
    *, client_options: Mapping[str, Any] | None = None,
) -> tuple[int, int]:
    """Send every record; returns (sent, refused). Refused records are ones the Avro contract cannot carry.

    `client_options` (here and below): aiokafka security options, by default `kafka_client_options()` (env)."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True,
                                **_options(client_options))
    await producer.start()
    sent = refused = 0
    try:
        for record in records:
            try:
                key, value = encode_for_topic(pipeline, record, spec)
            except ValueError:
                refused += 1
                continue
            await producer.send(name, value=value, key=key)
            sent += 1
        await producer.flush()
    finally:
        await producer.stop()
    return sent, refused


def decode_record(pipeline: Pipeline, value: bytes | None) -> Any:
    """A topic record as JSON: Avro decoded (packets back to their JSON form), anything else as text."""
    if value is None:
        return None
    if value[:2] == b"\xc3\x01":
        name, datum = pipeline.registry.decode(value)
        return pipeline.packets.from_avro(datum) if name == PACKET_SCHEMA else jsonable(datum)
    return jsonable(value)


async def tail_topic(
    pipeline: Pipeline, name: str, bootstrap: str, follow: bool, max_records: int | None, idle_timeout: float,
    echo: Callable[[str], None], *, client_options: Mapping[str, Any] | None = None,
) -> int:
    """Print every record of `name` from the beginning as a JSON line; returns how many were printed."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, auto_offset_reset="earliest",
                                **_options(client_options))
    await consumer.start()
    printed = 0
    try:
        partitions = await consumer._client.fetch_all_metadata()  # noqa: SLF001 - no public per-topic lookup
        ids = partitions.partitions_for_topic(name) or set()
        consumer.assign([TopicPartition(name, p) for p in sorted(ids)])
        while max_records is None or printed < max_records:
            batch = await consumer.getmany(timeout_ms=int(idle_timeout * 1000))
            if not batch and not follow:
                break
            for tp, messages in sorted(batch.items(), key=lambda kv: kv[0].partition):
                for msg in messages:
                    try:
                        value = decode_record(pipeline, msg.value)
                    except ValueError as exc:
                        value = {"undecodable": str(exc), "raw": jsonable(msg.value)}
                    key = msg.key.decode("utf-8", "replace") if msg.key else None
                    echo(canonical_json({"partition": tp.partition, "offset": msg.offset, "key": key, "value": value}))
                    printed += 1
                    if max_records is not None and printed >= max_records:
                        return printed
    finally:
        await consumer.stop()
    return printed


# Record timestamps are event time (`created_at`, DESIGN.md), so the broker's time-based retention (7 days by
# default, checked every 5 minutes) judges records by their event time: packets, verdicts and alerts of any
# episode older than that are deleted at the next check, judged or not, and a consumer behind them skips
# ahead. Replays of recorded episodes and backfills would lose events silently. These topics are the event
# log: no time-based deletion; operators who need a bound set `retention.bytes`.
TOPIC_CONFIG = {"retention.ms": "-1"}


async def ensure_topics(bootstrap: str, names: Iterable[str], partitions: int, replication: int = 1,
                        *, client_options: Mapping[str, Any] | None = None) -> list[str]:
    """Create the topics that do not exist yet (a consumer subscribed to a missing topic sees it late),
    with `TOPIC_CONFIG`. Topics that already exist keep their configuration."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, **_options(client_options))
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        missing = sorted(set(names) - existing)
        if missing:
            await admin.create_topics([NewTopic(n, partitions, replication, topic_configs=dict(TOPIC_CONFIG))
                                       for n in missing])
        return missing
    finally:
        await admin.close()
