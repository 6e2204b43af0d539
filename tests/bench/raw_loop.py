"""The anchor of the live benchmark (issue 24): the validator's judgement on the same broker and topics, without Faust.

    python -m tests.bench.raw_loop --bootstrap B --group G --prefix P [--input TOPIC] [--partitions 4]

One process of a consumer group on the packets topic: `getmany` batches -> the worker's own validator step
(stages/episodes.py `EpisodeSteps` over a plain dict, as embedded replay drives it: decode, `evolve`, encode)
-> the outputs produced in batches (linger, acks=all, the send futures gathered per batch) -> the batch's offsets
committed once its sends completed. It keeps no changelog and drops the ledgers of revoked partitions, so it is
not a product: it is what Python and Kafka allow on this machine, the figure the Faust worker is measured against.
With `--changelog` it also sends every table entry a batch wrote (a judgement and a ledger per packet, JSON as
Faust's codec writes them, to a compacted topic, on the partition of the packet that wrote it) with the outputs:
the durability a Faust table buys, at its cost without Faust, still without a recovery that reads it back.
It prints `raw loop ready` once started and `raw loop assigned [..]` at each assignment; it runs until SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any, Protocol

import orjson

from streams.auth_policy import policy_for
from streams.kafka.partitioning import partition_of
from streams.settings import Settings
from streams.stages.base import CHANGELOG_JSON, Emit, Outputs, Source
from streams.stages.episodes import TICK_KEY, EpisodeSteps
from streams.stages.packets import PacketStage
from streams.topics import ALERTS, DEAD_LETTERS, ESCALATIONS, PACKETS, VERDICTS, topic_name
from streams.wire.codec import SchemaRegistry
from streams.worker.event_loop import use_event_loop

TOPICS = (PACKETS, VERDICTS, ALERTS, ESCALATIONS, DEAD_LETTERS)  # what the validator agent reads and writes
CHANGELOG = "raw-episodes-changelog"  # with --changelog, after the prefix (compacted, as a Faust changelog)
READY = "raw loop ready"
ASSIGNED = "raw loop assigned"


class Message(Protocol):
    """What the loop needs of a consumed record (aiokafka's ConsumerRecord has it)."""

    @property
    def topic(self) -> str: ...
    @property
    def partition(self) -> int: ...
    @property
    def offset(self) -> int: ...
    @property
    def key(self) -> bytes | None: ...
    @property
    def value(self) -> bytes | None: ...
    @property
    def timestamp(self) -> int: ...


def source_of(message: Message) -> Source:
    """A consumed record's position, as the worker's `_source` builds it (aiokafka stamps milliseconds)."""
    return Source(message.topic, message.partition, message.offset, message.key, message.timestamp)


class WrittenDict(dict[str, Any]):
    """A dict that remembers each assignment (key, value, the partition of the record being judged), in order."""

    def __init__(self) -> None:
        super().__init__()
        self.partition = 0
        self.written: list[tuple[str, Any, int]] = []

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        self.written.append((key, value, self.partition))


class RawJudge:
    """The validator agent's step over a dict of ledgers, per batch; the same code path as embedded replay."""

    def __init__(self, pipeline: PacketStage, partitions: int, lateness_ms: int = 0) -> None:
        self.pipeline = pipeline
        self.partitions = partitions
        self.episodes = WrittenDict()  # ledgers and judgements, keyed as the worker's episodes table
        self.steps = EpisodeSteps(pipeline, self.episodes, partial(partition_of, partitions=partitions),
                                  lateness_ms=lateness_ms)

    def batch(self, messages: Iterable[Message]) -> list[Emit]:
        """Every output of `messages`, in order; an unexpected error is a dead letter (the worker's guard)."""
        emits: list[Emit] = []
        for message in messages:
            raw = message.value or b""
            source = source_of(message)
            self.episodes.partition = message.partition
            try:
                emits.extend(self.steps.record(raw, source))
            except Exception as exc:  # noqa: BLE001 - the worker's run_guarded does the same
                reason = f"{type(exc).__name__}: {exc}"
                emits.append(self.pipeline.outputs.dead_letter(raw, source, "INTERNAL", reason))
        return emits

    def take_written(self) -> list[tuple[str, Any, int]]:
        """The table entries written since the last call, in order, and forget them."""
        written, self.episodes.written = self.episodes.written, []
        return written

    def revoke(self, partitions: Iterable[int]) -> int:
        """Forget the episodes of revoked packets partitions (no changelog to hand them over); returns how many
        table entries went."""
        gone = set(partitions)
        doomed = [key for key in self.episodes if partition_of(key.split("\x00", 1)[0], self.partitions) in gone]
        for key in doomed:
            del self.episodes[key]
        self.steps.open.clear()  # looked up again from the table, as after a Faust rebalance
        self.steps.room.forget()
        return len(doomed)

    def ticks(self, owned: Iterable[int]) -> list[tuple[int, bytes, int]]:
        """(partition, tick record, watermark ms) for each owned partition whose watermark moved, as the worker's
        timer appends them to the packets topic."""
        return [(p, self.pipeline.encode_tick(p, mark), mark) for p, mark in self.steps.due_ticks(owned)]


class Producer(Protocol):
    async def send(self, topic: str, value: bytes | None = None, key: bytes | None = None,
                   partition: int | None = None, timestamp_ms: int | None = None) -> asyncio.Future[Any]: ...


class Committer(Protocol):
    async def commit(self, offsets: Mapping[Any, int]) -> None: ...


async def send_all(producer: Producer, emits: Sequence[Emit], prefix: str) -> None:
    """Hand every output to the producer (batched by its linger), then wait for all of them to be acknowledged."""
    futures = [await producer.send(topic_name(e.topic, prefix), e.value, key=e.key.encode("utf-8"),
                                   timestamp_ms=e.timestamp_ms) for e in emits]
    await asyncio.gather(*futures)


async def send_changelog(producer: Producer, written: Sequence[tuple[str, Any, int]], topic: str) -> list[Any]:
    """Hand every table entry to the producer as Faust's table would (its JSON codec); returns the send futures."""
    return [await producer.send(topic, orjson.dumps(value, option=CHANGELOG_JSON), key=key.encode("utf-8"),
                                partition=partition) for key, value, partition in written]


async def process_batch(batch: Mapping[Any, Sequence[Message]], judge: RawJudge, producer: Producer,
                        consumer: Committer, prefix: str, changelog: str | None = None) -> int:
    """Judge one `getmany` batch, send its outputs (and its table entries to `changelog`), and only then commit its
    offsets; returns the records judged."""
    emits = judge.batch(m for messages in batch.values() for m in messages)
    written = judge.take_written()
    if changelog is not None:
        entries = await send_changelog(producer, written, changelog)
        await asyncio.gather(send_all(producer, emits, prefix), *entries)
    else:
        await send_all(producer, emits, prefix)
    offsets = {tp: messages[-1].offset + 1 for tp, messages in batch.items() if messages}
    if offsets:
        await consumer.commit(offsets)
    return sum(len(messages) for messages in batch.values())


async def create_topics(bootstrap: str, prefix: str, partitions: int, replication: int,
                        changelog: bool = False) -> None:
    """The validator's topics, as the worker declares them, and with `changelog` the compacted table topic (a
    concurrent creator's topic is fine)."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic
    from aiokafka.errors import TopicAlreadyExistsError

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        wanted = [NewTopic(topic_name(t, prefix), partitions, replication) for t in TOPICS
                  if topic_name(t, prefix) not in existing]
        if changelog and f"{prefix}{CHANGELOG}" not in existing:
            wanted.append(NewTopic(f"{prefix}{CHANGELOG}", partitions, replication,
                                   topic_configs={"cleanup.policy": "compact"}))
        if wanted:
            response = await admin.create_topics(wanted)
            failed = [(name, code) for name, code, *_ in response.topic_errors
                      if code not in (0, TopicAlreadyExistsError.errno)]  # another process of the run won the race
            if failed:
                raise RuntimeError(f"could not create the topics: {failed}")
    finally:
        await admin.close()


async def run(args: argparse.Namespace) -> int:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
    from aiokafka.abc import ConsumerRebalanceListener

    settings = Settings.from_env()  # the worker's environment: the same limits, auth policy and lateness
    await create_topics(args.bootstrap, args.prefix, args.partitions, settings.replication_factor, args.changelog)
    changelog = f"{args.prefix}{CHANGELOG}" if args.changelog else None
    pipeline = PacketStage(Outputs(SchemaRegistry.from_directory(), settings.max_event_bytes),
                           policy_for(settings.packet_auth_policy))
    judge = RawJudge(pipeline, args.partitions, settings.max_lateness_ms)
    packets_topic = args.input or topic_name(PACKETS, args.prefix)
    lock = asyncio.Lock()  # a revocation waits for the batch in flight: judged, sent and committed

    class Listener(ConsumerRebalanceListener):  # type: ignore[misc]
        async def on_partitions_revoked(self, revoked: Any) -> None:
            async with lock:
                judge.revoke(tp.partition for tp in revoked)

        async def on_partitions_assigned(self, assigned: Any) -> None:
            print(f"{ASSIGNED} {sorted(tp.partition for tp in assigned)}", flush=True)

    consumer = AIOKafkaConsumer(bootstrap_servers=args.bootstrap, group_id=args.group, enable_auto_commit=False,
                                auto_offset_reset="earliest", fetch_max_wait_ms=settings.fetch_max_wait_ms)
    producer = AIOKafkaProducer(bootstrap_servers=args.bootstrap, acks="all", linger_ms=args.linger_ms)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await producer.start()
    await consumer.start()
    consumer.subscribe([packets_topic], listener=Listener())
    print(READY, flush=True)
    judged, last_tick = 0, time.monotonic()
    try:
        while not stop.is_set():
            batch = await consumer.getmany(timeout_ms=args.timeout_ms, max_records=args.max_records)
            async with lock:
                judged += await process_batch(batch, judge, producer, consumer, args.prefix, changelog)
                if args.tick_interval > 0 and time.monotonic() - last_tick >= args.tick_interval:
                    last_tick = time.monotonic()
                    owned = [tp.partition for tp in consumer.assignment() if tp.topic == packets_topic]
                    futures = [await producer.send(packets_topic, raw, key=TICK_KEY.encode(), partition=p,
                                                   timestamp_ms=mark) for p, raw, mark in judge.ticks(owned)]
                    await asyncio.gather(*futures)
    finally:
        await consumer.stop()
        await producer.stop()
        print(f"raw loop stopped after {judged} record(s)", flush=True)
    return 0


def parser() -> argparse.ArgumentParser:
    """The command line of `python -m tests.bench.raw_loop`."""
    cli = argparse.ArgumentParser(prog="python -m tests.bench.raw_loop", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("--bootstrap", required=True)
    cli.add_argument("--group", required=True, help="the consumer group (every process of one run shares it)")
    cli.add_argument("--prefix", default="", help="the topic prefix, as the worker's --prefix")
    cli.add_argument("--input", help="the packets topic to read (default: the prefixed packets topic)")
    cli.add_argument("--partitions", type=int, default=Settings().partitions,
                     help="partitions of the topics it creates when missing")
    cli.add_argument("--max-records", type=int, default=500, help="records per getmany")
    cli.add_argument("--timeout-ms", type=int, default=100, help="getmany's wait when nothing is buffered")
    # not the worker's 20 ms: this loop awaits each batch's sends before its next getmany, so a linger only delays
    # every batch (the anchor is the loop at its best; 5 ms gave the anchor figures of BENCHMARKS.md)
    cli.add_argument("--linger-ms", type=int, default=5)
    cli.add_argument("--changelog", action="store_true",
                     help="also send each table entry a batch wrote to a compacted changelog topic (module docstring)")
    cli.add_argument("--tick-interval", type=float, default=Settings().tick_interval_seconds,
                     help="seconds between watermark ticks, as the worker's timer (0: none)")
    return cli


def main(argv: Sequence[str] | None = None) -> int:
    use_event_loop(Settings.from_env().event_loop)  # the worker's event loop: both sides on the same
    return asyncio.run(run(parser().parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
