"""The Faust application factory: topics, tables and agents declared in one place, nothing module-global.

Each agent only moves bytes: decode, call the pipeline stage (which calls the pure `evolve`), reassign
the table entry, send the outputs. Faust persists a table change only on `table[key] = value`, so the
ledger is always reassigned, never mutated in place.

DS005 facts live in a partitioned Table keyed `corpus/fact id`, written by the facts agent from the facts topic,
which is keyed by corpus like the questions topic: a question is answered on the worker that owns its corpus's
partition, beside every fact of that corpus (see `streams.stages.answers`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import faust
import structlog
from faust.exceptions import PartitionsMismatch

from omega.agents.session import SessionState
from streams.auth_policy import policy_for
from streams.kafka.offset_probe import OffsetProbe
from streams.kafka.transport import admitted, transport_class
from streams.logs import get_logger
from streams.settings import Settings
from streams.stages.answers import AnswersStage, FactStoreView
from streams.stages.base import Emit, Source, oversized_entry
from streams.stages.corpus import DEFAULT_CORPUS, fact_key
from streams.stages.episodes import ValidatorSteps
from streams.stages.grounding import GroundingStage, GroundingSteps
from streams.stages.keyed import DecodedCache, oversized_state
from streams.stages.messages import MAX_SESSION_ID_BYTES, MonitorStage
from streams.stages.oracle import OracleStage
from streams.stages.packets import Pipeline
from streams.topics import (
    AGENT_MESSAGES_RAW,
    ALL_TOPICS,
    DEAD_LETTERS,
    DOCUMENTS,
    FACTS,
    GROUNDING_FACTS,
    GROUNDING_REQUESTS,
    ORACLE_REQUESTS,
    PACKETS,
    PACKETS_JSON,
    QUESTIONS,
    TopicSpec,
    topic_name,
)
from streams.wire.codec import SchemaRegistry
from streams.worker import watchdog

log = get_logger("omega.worker")
TABLE_NOT_READY_RETRIES = 40  # x 0.25 s: how long a step waits for a table's changelog metadata after start-up
TABLE_NOT_READY_WAIT_SECONDS = 0.25
STALL_CHECK_SECONDS = 10.0  # how often the stall watch looks (streams/worker/watchdog.py)
MAX_OUTPUT_BYTES = 990_000  # key + value of one output: under the producer's max_request_size (Faust: 1,000,000)
OUTPUT_PART_BASE = 1_000_000
# A ledger or session is rewritten whole on every record, so its changelog grows with the square of the episode
# length (100,000 packets over 1,000 episodes wrote ~1.4 GB). Compaction only cleans closed segments, and the
# broker's default segment is 1 GB: nothing was ever compacted, and a restarted worker re-read everything
# (restarts of 1-2 min in tests/integration/test_under_fire). Small segments let the cleaner keep the
# changelog near one value per key.
WHOLE_VALUE_CHANGELOG = {"segment.bytes": 16 * 1024 * 1024, "min.cleanable.dirty.ratio": 0.2}


@dataclass
class OmegaApp:
    """The Faust app with handles on its topics and tables, for the CLI and tests."""

    app: faust.App
    settings: Settings
    pipeline: Pipeline
    topics: dict[str, Any]
    episodes: Any
    sessions: Any
    facts: Any = None  # DS005 corpus/fact id -> fact dict (co-partitioned with the questions by corpus)
    grounding_facts: Any = None  # corpus/§3.1 fact id -> fact JSON (co-partitioned with the requests by corpus)
    paragraphs: Any = None  # corpus/paragraph_id -> ParagraphState dict (beside the corpus's facts)
    processed: dict[tuple[str, int], int] = field(default_factory=dict)  # (topic, partition) -> next offset

    async def send_all(self, emits: Iterable[Emit]) -> None:
        """Send outputs in order; the caller's offset is committed only after the stream step returns."""
        for emit in emits:
            if emit.topic is DEAD_LETTERS:
                log.warning("dead_letter", source_topic=emit.record["source_topic"],
                            partition=emit.record["source_partition"], offset=emit.record["source_offset"],
                            error_class=emit.record["error_class"], reason=emit.record["reason"])
            else:
                log.debug("emit", topic=emit.topic.name, key=emit.key)
            # 1. outputs are sent before the source offset is acknowledged (at-least-once; ids dedupe)
            await self.topics[emit.topic.logical].send(
                key=emit.key.encode("utf-8"),
                value=emit.value,
                timestamp=None if emit.timestamp_ms is None else emit.timestamp_ms / 1000,
            )


def log_key(key: str, limit: int = 256) -> str:
    """A record key as bound into every log line of its step: cut, so a huge key cannot bloat each line."""
    return key if len(key) <= limit else f"{key[:limit]}...({len(key)} characters)"


def _source(event: Any) -> Source:
    message = event.message
    timestamp = getattr(message, "timestamp", None)
    return Source(
        topic=message.topic,
        partition=message.partition,
        offset=message.offset,
        key=message.key,
        # Faust hands back the broker's milliseconds divided by 1000: int() would cut some by 1 ms
        timestamp_ms=None if timestamp is None else round(timestamp * 1000),
    )


def _raw(event: Any) -> bytes:
    value = event.message.value
    return value if isinstance(value, bytes) else bytes(value or b"")


class MonitorSteps:
    """The monitor agent's work per record: the session state from the table, the stage, the reassignment."""

    def __init__(self, stage: MonitorStage, sessions: Any) -> None:
        self.stage, self.sessions = stage, sessions
        self.cache: DecodedCache[SessionState] = DecodedCache(lambda _key, stored: SessionState.from_dict(stored))

    def record(self, src: Source, raw: bytes, key: str) -> list[Emit]:
        """One record of session `key`; a record without a session id cannot be attributed: a dead letter."""
        if not key:
            return [self.stage.pipeline.dead_letter(raw, src, "NO_SESSION", "the record has no key (session id)")]
        if len(key.encode("utf-8")) > MAX_SESSION_ID_BYTES:  # it keys the table and every output: bounded
            return [self.stage.pipeline.dead_letter(
                raw, src, "INVALID_SESSION", f"the session id (key) is {len(key.encode('utf-8'))} bytes, more than "
                f"the limit of {MAX_SESSION_ID_BYTES}")]
        stored = self.sessions.get(key)
        state = self.cache.get(key, stored)
        step = self.stage.messages(state, raw, src, key)
        if step.state is not None and step.state is not state:
            value = step.state.to_dict()
            why = oversized_state(key, raw, lambda: value)
            if why is not None:
                return [self.stage.pipeline.dead_letter(raw, src, "STATE_TOO_LARGE", why)]
            self.sessions[key] = value  # reassigned, never mutated: Faust logs only this
            self.cache.put(key, value, step.state)
        return step.emits


def broker_credentials(settings: Settings) -> faust.SASLCredentials | None:
    """Faust's broker credentials for `settings` (None for PLAINTEXT); the same options as our own clients."""
    if not settings.sasl:
        return None
    options = settings.kafka_client_options()
    return faust.SASLCredentials(username=options["sasl_plain_username"], password=options["sasl_plain_password"],
                                 mechanism=options["sasl_mechanism"], ssl_context=options.get("ssl_context"))


def create_app(settings: Settings, registry: SchemaRegistry | None = None) -> OmegaApp:
    """Build the Faust app for `settings`; schemas are parsed here, once. Raises PolicyError for a bad
    `packet_auth_policy` (the validator agent then checks signatures with it)."""
    pipeline = Pipeline(registry or SchemaRegistry.from_directory(), settings.max_event_bytes,
                        policy_for(settings.packet_auth_policy))
    app = faust.App(
        settings.app_id,
        broker=f"kafka://{settings.bootstrap_servers}",
        broker_credentials=broker_credentials(settings),
        store=settings.store,
        datadir=str(settings.data_dir),
        topic_partitions=settings.partitions,
        key_serializer="raw",
        value_serializer="raw",
        web_enabled=False,
        producer_acks=-1,
        # A few ms of linger lets one produce request carry many outputs (socket writes were ~13% of a worker).
        producer_linger=settings.producer_linger_seconds,
        table_standby_replicas=settings.standby_replicas,
        consumer_auto_offset_reset="earliest",
        topic_allow_declare=True,
    )
    probe = OffsetProbe(settings.bootstrap_servers, settings.kafka_client_options())
    app.transport = transport_class(settings.fetch_max_wait_ms, probe)(app.conf.broker_consumer, app)
    topics = {
        spec.logical: app.topic(
            topic_name(spec, settings.topic_prefix),
            key_type=bytes,
            value_type=bytes,
            key_serializer="raw",
            value_serializer="raw",
            partitions=settings.partitions,
        )
        for spec in ALL_TOPICS
    }
    episodes = app.Table(
        f"{settings.topic_prefix}episodes",
        default=None,
        partitions=settings.partitions,
        help="Episode ledger per correlation_id, and one judgement per judged packet (stages/episodes.py; JSON).",
        extra_topic_configs=WHOLE_VALUE_CHANGELOG,
    )
    sessions = app.Table(
        f"{settings.topic_prefix}sessions",
        default=None,
        partitions=settings.partitions,
        help="OMEGA-57 session state per session_id (JSON).",
        extra_topic_configs=WHOLE_VALUE_CHANGELOG,
    )
    omega = OmegaApp(app, settings, pipeline, topics, episodes, sessions)
    omega.facts = app.Table(
        f"{settings.topic_prefix}facts",
        default=None,
        partitions=settings.partitions,
        help="DS005 validated facts by corpus/fact id (JSON, Fact.to_dict()), co-partitioned with the questions.",
    )
    omega.grounding_facts = app.Table(
        f"{settings.topic_prefix}grounding-facts", default=None, partitions=settings.partitions,
        help="Grounded-generation Atomic Facts by corpus/fact id (JSON), co-partitioned with the paragraph requests.")
    omega.paragraphs = app.Table(
        f"{settings.topic_prefix}paragraphs", default=None, partitions=settings.partitions,
        help="Grounded-generation paragraph state (every version of every sentence) by corpus/paragraph_id (JSON).")
    _register_agents(omega)
    watchdog.install(app, omega.processed, settings.stall_seconds, every=STALL_CHECK_SECONDS,
                     stored=probe.first_at_or_after)

    log.info("app_created", app_id=settings.app_id, topics=[t.name for t in ALL_TOPICS],
             prefix=settings.topic_prefix, dead_letters=DEAD_LETTERS.name)
    return omega


async def run_guarded(pipeline: Pipeline, event: Any, spec: TopicSpec, step: Callable[[Source], list[Emit]]
                      ) -> list[Emit]:
    """Run one stage step; an unexpected error becomes a dead letter instead of killing the worker.

    Just after start-up a table's changelog may be missing from the consumer's metadata ("0 partitions",
    PartitionsMismatch): the step wrote nothing (every step assigns its table last), so it waits and runs again.
    """
    source = _source(event)
    for attempt in range(TABLE_NOT_READY_RETRIES + 1):
        try:
            return fitting(pipeline, _raw(event), source, step(source))
        except PartitionsMismatch as exc:
            if attempt < TABLE_NOT_READY_RETRIES:
                log.warning("table_not_ready", topic=spec.name, partition=source.partition, offset=source.offset)
                await asyncio.sleep(TABLE_NOT_READY_WAIT_SECONDS)
                continue
            log.exception("stage_failed", topic=spec.name, partition=source.partition, offset=source.offset)
            return [pipeline.dead_letter(_raw(event), source, "INTERNAL", f"{type(exc).__name__}: {exc}")]
        except Exception as exc:
            log.exception("stage_failed", topic=spec.name, partition=source.partition, offset=source.offset)
            return [pipeline.dead_letter(_raw(event), source, "INTERNAL", f"{type(exc).__name__}: {exc}")]
    raise AssertionError("unreachable")


def fitting(pipeline: Pipeline, raw: bytes, source: Source, emits: list[Emit]) -> list[Emit]:
    """The outputs, each one too large for the producer (a valid input of up to `max_event_bytes` may give a larger
    output, e.g. its huge id in both key and value) replaced by a dead letter of its source record: sending it
    would raise and stop the agent."""
    out = []
    for index, emit in enumerate(emits):
        size = len(emit.value) + len(emit.key.encode("utf-8"))
        if size <= MAX_OUTPUT_BYTES:
            out.append(emit)
            continue
        reason = f"the {emit.topic.name} record it gives is {size} bytes, more than the limit of {MAX_OUTPUT_BYTES}"
        # parts past any a stage numbers (messages, rejected facts), so the dead letter's id is its own
        out.append(pipeline.dead_letter(raw, source, "OUTPUT_TOO_LARGE", reason, part=OUTPUT_PART_BASE + index))
    return out


def _register_agents(omega: OmegaApp) -> None:
    """The ingress, validator, monitor, oracle and DS005 (documents, facts, questions) agents and the watermark
    timer, bound to one app's topics and tables."""
    app, settings, pipeline, topics, episodes = omega.app, omega.settings, omega.pipeline, omega.topics, omega.episodes

    async def guarded(event: Any, spec: TopicSpec, step: Any) -> list[Emit]:
        """Run one stage on its partition's next record (streams/kafka/input_order.py); an unexpected error becomes a
        dead letter instead of killing the worker."""
        message = event.message
        if not await admitted(app.consumer, message):
            return []
        emits = await run_guarded(pipeline, event, spec, step)
        omega.processed[message.topic, message.partition] = message.offset + 1  # for the stall watch
        return emits

    @app.agent(topics[PACKETS_JSON.logical], name=f"{settings.topic_prefix}ingress")
    async def ingress(stream: faust.StreamT[Any]) -> None:
        async for event in stream.events():
            emits = await guarded(event, PACKETS_JSON, lambda src, ev=event: pipeline.ingress(_raw(ev), src))
            await omega.send_all(emits)

    steps = ValidatorSteps(pipeline, episodes, settings.partitions)

    @app.agent(topics[PACKETS.logical], name=f"{settings.topic_prefix}validator")
    async def validator(stream: faust.StreamT[Any]) -> None:
        async for event in stream.events():
            raw = _raw(event)
            tick_partition = pipeline.decode_tick(raw)
            if tick_partition is not None:
                await omega.send_all(await guarded(
                    event, PACKETS, lambda src, raw=raw, p=tick_partition: steps.tick(src, raw, p)))
                continue
            key = event.key.decode("utf-8", "replace") if isinstance(event.key, bytes) else str(event.key)
            structlog.contextvars.bind_contextvars(correlation_id=log_key(key))
            await omega.send_all(await guarded(
                event, PACKETS, lambda src, raw=raw, key=key: steps.packet(src, raw, key)))

    monitor_steps = MonitorSteps(MonitorStage(pipeline), omega.sessions)

    @app.agent(topics[AGENT_MESSAGES_RAW.logical], name=f"{settings.topic_prefix}monitor")
    async def monitor(stream: faust.StreamT[Any]) -> None:
        async for event in stream.events():
            key = event.key.decode("utf-8", "replace") if isinstance(event.key, bytes) else str(event.key or "")
            structlog.contextvars.bind_contextvars(session_id=log_key(key))
            await omega.send_all(await guarded(
                event, AGENT_MESSAGES_RAW, lambda src, ev=event, key=key: monitor_steps.record(src, _raw(ev), key)))

    oracle_stage = OracleStage.from_default_config(pipeline)

    @app.agent(topics[ORACLE_REQUESTS.logical], name=f"{settings.topic_prefix}oracle")
    async def oracle(stream: faust.StreamT[Any]) -> None:
        async for event in stream.events():
            await omega.send_all(await guarded(
                event, ORACLE_REQUESTS, lambda src, ev=event: oracle_stage.request(_raw(ev), src)))

    answers_stage, facts_table = AnswersStage(pipeline), omega.facts
    facts_view = FactStoreView(facts_table)

    @app.agent(topics[DOCUMENTS.logical], name=f"{settings.topic_prefix}documents")
    async def documents(stream: faust.StreamT[Any]) -> None:
        async for event in stream.events():
            await omega.send_all(await guarded(
                event, DOCUMENTS, lambda src, ev=event: answers_stage.document(_raw(ev), src)))

    def store_fact(src: Source, raw: bytes) -> list[Emit]:
        fact, emits = answers_stage.fact(raw, src)
        corpus = (src.key or DEFAULT_CORPUS.encode()).decode("utf-8", "replace")
        key = None if fact is None else fact_key(corpus, fact.fact_id)
        if fact is not None and key is not None and facts_table.get(key) is None:  # ids are content hashes
            why = oversized_entry(key, fact.to_dict())
            if why is not None:
                return [pipeline.dead_letter(raw, src, "STATE_TOO_LARGE", why)]
            facts_table[key] = fact.to_dict()  # assigned, never mutated: Faust logs only this
        return emits

    @app.agent(topics[FACTS.logical], name=f"{settings.topic_prefix}facts")
    async def facts(stream: faust.StreamT[Any]) -> None:
        async for event in stream.events():
            await omega.send_all(await guarded(event, FACTS, lambda src, ev=event: store_fact(src, _raw(ev))))

    @app.agent(topics[QUESTIONS.logical], name=f"{settings.topic_prefix}questions")
    async def questions(stream: faust.StreamT[Any]) -> None:
        async for event in stream.events():
            await omega.send_all(await guarded(
                event, QUESTIONS, lambda src, ev=event: answers_stage.question(_raw(ev), src, facts_view.store)))

    _register_grounding(omega, guarded)
    _register_ticks(omega, steps)


def _register_ticks(omega: OmegaApp, steps: ValidatorSteps) -> None:
    """The watermark timer, and the rebalance hook that makes the validator look up open episodes again."""
    app, settings, topics = omega.app, omega.settings, omega.topics
    app.on_partitions_revoked.connect(steps.on_partitions_revoked)  # type: ignore[arg-type]  # mode types it narrowly

    @app.timer(interval=settings.tick_interval_seconds)  # type: ignore[untyped-decorator]  # faust is untyped
    async def watermark_ticks() -> None:
        """Append a tick to each owned packets partition whose watermark moved since the last tick."""
        packets_topic = topic_name(PACKETS, settings.topic_prefix)
        owned = [tp.partition for tp in app.assignor.assigned_actives() if tp.topic == packets_topic]
        for partition, mark in steps.due_ticks(owned):
            await topics[PACKETS.logical].send(key=b"__watermark__", value=omega.pipeline.encode_tick(partition, mark),
                                               partition=partition, timestamp=mark / 1000)


def _register_grounding(omega: OmegaApp, guarded: Any) -> None:
    """The grounded-generation agents: facts into their corpus's table, paragraph requests judged beside them."""
    app, settings, topics = omega.app, omega.settings, omega.topics
    grounding = GroundingSteps(GroundingStage(omega.pipeline), omega.grounding_facts, omega.paragraphs)

    @app.agent(topics[GROUNDING_FACTS.logical], name=f"{settings.topic_prefix}grounding-facts")
    async def grounding_facts(stream: faust.StreamT[Any]) -> None:
        async for event in stream.events():
            await omega.send_all(await guarded(
                event, GROUNDING_FACTS, lambda src, ev=event: grounding.fact(src, _raw(ev))))

    @app.agent(topics[GROUNDING_REQUESTS.logical], name=f"{settings.topic_prefix}grounding")
    async def grounding_requests(stream: faust.StreamT[Any]) -> None:
        async for event in stream.events():
            await omega.send_all(await guarded(
                event, GROUNDING_REQUESTS, lambda src, ev=event: grounding.request(src, _raw(ev))))
