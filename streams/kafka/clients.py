"""Plain aiokafka producer, consumer and admin for the CLI's `publish`, `tail` and `worker` (no Faust needed); what
the bytes mean is the caller's (streams/cli/topic_codec.py `encode_for_topic`, `decode_record`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from omega.bytes_json import jsonable
from omega.canonical import canonical_json
from streams.records import key_text
from streams.settings import kafka_client_options

T = TypeVar("T")


class UnknownTopic(LookupError):
    """The broker's metadata has no topic of that name."""

    def __init__(self, name: str, bootstrap: str) -> None:
        super().__init__(f"topic {name} does not exist at {bootstrap}")
        self.name, self.bootstrap = name, bootstrap


def _options(given: Mapping[str, Any] | None) -> dict[str, Any]:
    return dict(kafka_client_options() if given is None else given)


async def _started(client: AIOKafkaProducer | AIOKafkaConsumer) -> None:
    """Start `client`; one that cannot start is stopped before the error propagates (no unclosed-client warning)."""
    try:
        await client.start()
    except BaseException:
        await client.stop()
        raise


async def publish_records(
    records: Iterable[T], encode: Callable[[T], tuple[bytes | None, bytes]], name: str, bootstrap: str,
    *, client_options: Mapping[str, Any] | None = None,
) -> tuple[int, int]:
    """Send every record as `encode` makes it (key, value); returns (sent, refused). A record `encode` refuses
    (ValueError: the topic's contract cannot carry it) is counted, not sent.

    `client_options` (here and below): aiokafka security options, by default `kafka_client_options()` (env)."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True,
                                **_options(client_options))
    await _started(producer)
    sent = refused = 0
    try:
        for record in records:
            try:
                key, value = encode(record)
            except ValueError:
                refused += 1
                continue
            await producer.send(name, value=value, key=key)
            sent += 1
        await producer.flush()
    finally:
        await producer.stop()
    return sent, refused


# (partition, offset, key, decoded value, headers) -> one line
Render = Callable[[int, int, bytes | None, Any, Sequence[tuple[str, bytes]]], str]


def json_line(partition: int, offset: int, key: bytes | None, value: Any,
              headers: Sequence[tuple[str, bytes]] = ()) -> str:
    """The default line of `omega tail`: partition, offset, key (text), the decoded value, and the record's headers
    when it has any (name -> text; a value that is not UTF-8 as `{"base64"}`)."""
    text = key_text(key) if key else None
    line: dict[str, Any] = {"partition": partition, "offset": offset, "key": text, "value": value}
    if headers:
        line["headers"] = {name: _header_text(header) for name, header in headers}
    return canonical_json(line)


def _header_text(value: bytes | None) -> Any:
    shown = jsonable(value or b"")
    return shown.get("utf8", shown) if isinstance(shown, dict) else shown


async def tail_topic(
    decode: Callable[[bytes | None], Any], name: str, bootstrap: str, follow: bool, max_records: int | None,
    idle_timeout: float, echo: Callable[[str], None], *, client_options: Mapping[str, Any] | None = None,
    from_end: bool = False, since_ms: int | None = None, partitions: Iterable[int] | None = None,
    key: bytes | None = None, render: Render = json_line,
) -> int:
    """Print the records of `name` as lines (`render`), each value as `decode` reads it (which never raises: an
    undecodable value is shown, not fatal); returns how many were printed. Where to start: the beginning, the end
    (`from_end`: only what arrives from now on) or the first record at or after `since_ms` (record timestamps are
    event time); only `partitions` when given, only records keyed `key` when given. `UnknownTopic` when the broker
    has no topic `name`, or none of the partitions asked for."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, auto_offset_reset="earliest",
                                **_options(client_options))
    await _started(consumer)
    printed = 0
    try:
        metadata = await consumer._client.fetch_all_metadata()  # noqa: SLF001 - no public per-topic lookup
        ids = metadata.partitions_for_topic(name)
        if ids is None:
            raise UnknownTopic(name, bootstrap)
        chosen = sorted(ids if partitions is None else set(ids) & set(partitions))
        if not chosen:
            raise UnknownTopic(f"{name} partition(s) {sorted(set(partitions or []))}", bootstrap)
        tps = [TopicPartition(name, p) for p in chosen]
        consumer.assign(tps)
        await _seek(consumer, tps, from_end, since_ms)
        while max_records is None or printed < max_records:
            batch = await consumer.getmany(timeout_ms=int(idle_timeout * 1000))
            if not batch and not follow:
                break
            for tp, messages in sorted(batch.items(), key=lambda kv: kv[0].partition):
                for msg in messages:
                    if key is not None and msg.key != key:
                        continue
                    echo(render(tp.partition, msg.offset, msg.key, decode(msg.value), msg.headers or ()))
                    printed += 1
                    if max_records is not None and printed >= max_records:
                        return printed
    finally:
        await consumer.stop()
    return printed


async def _seek(consumer: AIOKafkaConsumer, tps: list[TopicPartition], from_end: bool, since_ms: int | None) -> None:
    if since_ms is not None:
        found = await consumer.offsets_for_times(dict.fromkeys(tps, since_ms))
        ends = await consumer.end_offsets(tps)
        for tp in tps:
            at = found.get(tp)
            consumer.seek(tp, ends[tp] if at is None else at.offset)  # nothing that late yet: from the end
    elif from_end:
        await consumer.seek_to_end(*tps)
    else:
        await consumer.seek_to_beginning(*tps)


# Record timestamps are event time (`created_at`, docs/design.md), so the broker's time-based retention (7 days by
# default, checked every 5 minutes) judges records by their event time: packets, verdicts and alerts of any
# episode older than that are deleted at the next check, judged or not, and a consumer behind them skips
# ahead. Replays of recorded episodes and backfills would lose events silently. These topics are the event
# log: no time-based deletion; operators who need a bound set `retention.bytes`.
TOPIC_CONFIG = {"retention.ms": "-1"}


async def ensure_topics(bootstrap: str, names: Iterable[str], partitions: int, replication: int = 1,
                        *, min_insync: int | None = None,
                        client_options: Mapping[str, Any] | None = None) -> list[str]:
    """Create the topics that do not exist yet (a consumer subscribed to a missing topic sees it late),
    with `TOPIC_CONFIG`, `replication` replicas and `min_insync` as `min.insync.replicas`. Topics that already
    exist keep their configuration (`replication_mismatches` says which ones differ)."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    config = dict(TOPIC_CONFIG)
    if min_insync is not None:
        config["min.insync.replicas"] = str(min_insync)
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, **_options(client_options))
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        missing = sorted(set(names) - existing)
        if missing:
            await admin.create_topics([NewTopic(n, partitions, replication, topic_configs=dict(config))
                                       for n in missing])
        return missing
    finally:
        await admin.close()


async def replication_mismatches(bootstrap: str, names: Iterable[str], replication: int,
                                 *, client_options: Mapping[str, Any] | None = None) -> dict[str, int]:
    """The topics among `names` that exist with a replication factor other than `replication`: name -> theirs
    (the smallest over their partitions). Only existing topics are described: a metadata request naming a missing
    one lets a broker with auto.create.topics.enable create it, with its defaults instead of ours (for a Faust
    changelog: without compaction)."""
    from aiokafka.admin import AIOKafkaAdminClient

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, **_options(client_options))
    await admin.start()
    try:
        existing = set(await admin.list_topics()) & set(names)
        described = await admin.describe_topics(sorted(existing)) if existing else []
    finally:
        await admin.close()
    found = {}
    for topic in described:
        counts = [len(p["replicas"]) for p in topic.get("partitions") or []]
        if not topic.get("error_code") and counts and min(counts) != replication:
            found[topic["topic"]] = min(counts)
    return found
