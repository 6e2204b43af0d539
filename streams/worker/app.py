"""The Faust application: tables built first, then a frozen, typed `OmegaApp`, then one agent per row of a table.

Each agent only moves bytes: the same `_agent_loop` admits a record, clears and binds the log context, runs the
row's step (a Faust-free function of `streams/stages/`, the same one embedded replay calls, over the tables behind
`KeyedTable`), fits its outputs, marks the offset processed and sends the outputs; Faust commits the offset after
the loop's iteration. A new agent is one row of `_agent_rows`. Faust persists a table change only on `table[key] =
value`, so every step reassigns, never mutates (stages/keyed.py `put_checked`).

DS005 facts live in a partitioned Table keyed `corpus/fact id`, written by the facts agent from the facts topic,
which is keyed by corpus like the questions topic: a question is answered on the worker that owns its corpus's
partition, beside every fact of that corpus (see `stages/answers.py`).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import faust
import structlog
from faust.streams import _current_event as faust_current_event

from streams.auth_policy import policy_for
from streams.kafka.offset_probe import OffsetProbe
from streams.kafka.otel import Origin, SpanSink, sink_from_environment
from streams.kafka.partitioning import partition_of
from streams.kafka.tracing import HEADER as TRACE_HEADER
from streams.kafka.tracing import child_of, parent_of
from streams.kafka.transport import admitted, transport_class
from streams.logs import get_logger
from streams.records import key_text
from streams.settings import Settings
from streams.stages.answers import AnswersStage, FactSteps, FactStoreView
from streams.stages.base import Emit, Outputs
from streams.stages.episodes import TICK_KEY, EpisodeSteps
from streams.stages.grounding import GroundingStage, GroundingSteps
from streams.stages.keyed import KeyedTable
from streams.stages.messages import MonitorStage, SessionSteps
from streams.stages.oracle import OracleStage
from streams.stages.packets import IngressSteps, PacketStage
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
from streams.wire.confluent import RegistryFraming, with_registry
from streams.worker import idle_release, watchdog
from streams.worker.guard import Step, log_key, run_guarded
from streams.worker.idle_release import IdleRelease, PartitionWait
from streams.worker.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from streams.worker.metrics import WorkerMetrics, look_or_none, readiness
from streams.worker.web_urls import announce_web_server
from streams.worker.wire import ConfluentOut
from streams.worker.write_behind import WriteBehind

log = get_logger("omega.worker")
STALL_CHECK_SECONDS = 10.0  # how often the stall watch looks (streams/worker/watchdog.py)
# A ledger or session is rewritten whole on every record, so its changelog grows with the square of the episode
# length (100,000 packets over 1,000 episodes wrote ~1.4 GB). Compaction only cleans closed segments, and the
# broker's default segment is 1 GB: nothing was ever compacted, and a restarted worker re-read everything
# (restarts of 1-2 min in tests/integration/test_under_fire). Small segments let the cleaner keep the
# changelog near one value per key.
WHOLE_VALUE_CHANGELOG: dict[str, Any] = {"segment.bytes": 16 * 1024 * 1024, "min.cleanable.dirty.ratio": 0.2}



@dataclass(frozen=True)
class OmegaApp:
    """The Faust app with handles on its topics and tables, for the CLI and tests; nothing is assigned after it is
    built."""

    app: faust.App
    settings: Settings
    outputs: Outputs  # the encoder every stage shares (records for their topics, dead letters)
    packet_stage: PacketStage
    topics: Mapping[str, Any]  # logical name -> faust topic
    episodes: KeyedTable  # correlation_id -> ledger; correlation_id NUL packet_id -> judgement (stages/episodes.py)
    sessions: KeyedTable  # session_id -> SessionState dict
    facts: KeyedTable  # DS005 corpus/fact id -> fact dict (co-partitioned with the questions by corpus)
    grounding_facts: KeyedTable  # corpus/§3.1 fact id -> fact JSON (co-partitioned with the requests by corpus)
    paragraphs: KeyedTable  # corpus/paragraph_id -> ParagraphState dict (beside the corpus's facts)
    processed: dict[tuple[str, int], int] = field(default_factory=dict)  # (topic, partition) -> next offset
    metrics: WorkerMetrics = field(default_factory=WorkerMetrics)
    spans: SpanSink | None = None  # OpenTelemetry export (kafka/otel.py), only when OTEL_EXPORTER_OTLP_ENDPOINT is set
    wire_out: ConfluentOut | None = None  # Schema Registry framing of Avro outputs (OMEGA_AVRO_WIRE=confluent)
    write_behind: tuple[WriteBehind, ...] = ()  # in batches: the tables written once per key per batch

    async def send_all(self, emits: Iterable[Emit], traceparent: str | None = None,
                       origin: Origin | None = None) -> None:
        """Send outputs in order, each a child span of `traceparent` when the input had one (kafka/tracing.py), and
        exported as a span when `origin` (the input's position) is given and a sink is on; the caller's offset is
        committed only after the stream step returns."""
        record = None if traceparent is None or origin is None or self.spans is None else \
            partial(self.spans.sent, traceparent, origin)
        for emit in emits:
            if emit.topic is DEAD_LETTERS:
                log.warning("dead_letter", source_topic=emit.record["source_topic"],
                            partition=emit.record["source_partition"], offset=emit.record["source_offset"],
                            error_class=emit.record["error_class"], reason=emit.record["reason"])
            else:
                log.debug("emit", topic=emit.topic.name, key=emit.key)
            child = None if traceparent is None else child_of(traceparent, emit.topic.name, emit.value)
            value = emit.value if self.wire_out is None else \
                await self.wire_out.frame(emit, topic_name(emit.topic, self.settings.topic_prefix))
            await self.topics[emit.topic.logical].send(
                key=emit.key.encode("utf-8"),
                value=value,
                timestamp=None if emit.timestamp_ms is None else emit.timestamp_ms / 1000,
                headers=None if child is None else [(TRACE_HEADER, child.encode("ascii"))],
            )
            if record is not None and child is not None:
                record(child, topic_name(emit.topic, self.settings.topic_prefix), emit.key, len(emit.value))


@dataclass(frozen=True)
class AgentSpec:
    """One agent: the topic it reads, its name (after the topic prefix), its step, and the log field its record key
    is bound to (None: the key says nothing worth logging)."""

    topic: TopicSpec
    name: str
    step: Step
    log_field: str | None = None


def broker_credentials(settings: Settings) -> faust.SASLCredentials | None:
    """Faust's broker credentials for `settings` (None for PLAINTEXT); the same options as our own clients."""
    if not settings.sasl:
        return None
    options = settings.kafka_client_options()
    return faust.SASLCredentials(username=options["sasl_plain_username"], password=options["sasl_plain_password"],
                                 mechanism=options["sasl_mechanism"], ssl_context=options.get("ssl_context"))


def _faust_app(settings: Settings) -> faust.App:
    return faust.App(
        settings.app_id,
        broker=f"kafka://{settings.bootstrap_servers}",
        broker_credentials=broker_credentials(settings),
        store=settings.store,
        datadir=str(settings.data_dir),
        topic_partitions=settings.partitions,
        key_serializer="raw",
        value_serializer="raw",
        # OMEGA_WEB_PORT > 0: /metrics, /healthz, /ready (worker/metrics.py); 0, the default: no web server at all
        web_enabled=settings.web_port > 0,
        web_port=settings.web_port or 6066,
        producer_acks=-1,
        # Linger lets one produce request carry many outputs (socket writes were ~13% of a worker); 20 ms by
        # measurement (settings.py). Faust's defaults below were measured against an alternative each, two workers,
        # Avro burst of 15,000, 3 alternated rounds (BENCHMARKS.md, Faust settings) and kept: none was better beyond
        # this machine's noise (+-40% between runs of the same code). Each can still be set by its Faust variable.
        producer_linger=settings.producer_linger_seconds,
        producer_max_batch_size=16_384,  # PRODUCER_MAX_BATCH_SIZE=65536: 0.82x
        broker_commit_interval=2.8,  # BROKER_COMMIT_INTERVAL=10: 1.38x, then 0.93x with the order swapped (1/1.07)
        stream_buffer_maxsize=4_096,  # STREAM_BUFFER_MAXSIZE=1024: 0.95x
        table_standby_replicas=settings.standbys,  # by the store (settings.py)
        topic_replication_factor=settings.replication_factor,  # changelogs, repartition and internal topics
        consumer_auto_offset_reset="earliest",
        topic_allow_declare=True,
    )


def _table(app: faust.App, settings: Settings, name: str, help_text: str, whole_value: bool = False) -> KeyedTable:
    configs = {**(WHOLE_VALUE_CHANGELOG if whole_value else {}), "min.insync.replicas": settings.min_insync}
    table: KeyedTable = app.Table(f"{settings.topic_prefix}{name}", default=None, partitions=settings.partitions,
                                  help=help_text, extra_topic_configs=configs)
    return table


def create_app(settings: Settings, registry: SchemaRegistry | None = None) -> OmegaApp:
    """Build the Faust app for `settings`; schemas are parsed here, once. Raises PolicyError for a bad
    `packet_auth_policy` (the validator agent then checks signatures with it)."""
    # every Avro input is read in both framings when a Schema Registry is set (wire/confluent.py)
    outputs = Outputs(with_registry(settings, registry), settings.max_event_bytes)
    packet_stage = PacketStage(outputs, policy_for(settings.packet_auth_policy))
    app = _faust_app(settings)
    probe = OffsetProbe(settings.bootstrap_servers, settings.kafka_client_options())
    # Faust builds its transport from the broker URL scheme and has no setting for a transport class: ours (bounded
    # long-poll, input order) is set on the Faust app before any agent or table starts, the one assignment after it
    transport = transport_class(settings.fetch_max_wait_ms, probe, settings.fetch_min_bytes)
    app.transport = transport(app.conf.broker_consumer, app)
    topics = {
        spec.logical: app.topic(topic_name(spec, settings.topic_prefix), key_type=bytes, value_type=bytes,
                                key_serializer="raw", value_serializer="raw", partitions=settings.partitions)
        for spec in ALL_TOPICS
    }
    metrics = WorkerMetrics()
    episodes = _table(app, settings, "episodes", "Episode ledger per correlation_id, and one judgement per judged "
                      "packet (stages/episodes.py; JSON).", whole_value=True)
    sessions = _table(app, settings, "sessions", "OMEGA-57 session state per session_id (JSON).", whole_value=True)
    # in batches, the two tables rewritten whole by every record are written once per key per batch
    behind = (WriteBehind(episodes), WriteBehind(sessions)) if settings.batch_max > 1 else ()
    omega = OmegaApp(
        app, settings, outputs, packet_stage, topics, metrics=metrics, spans=sink_from_environment(),
        wire_out=_wire_out(settings, outputs, metrics), write_behind=behind,
        episodes=behind[0] if behind else episodes, sessions=behind[1] if behind else sessions,
        facts=_table(app, settings, "facts", "DS005 validated facts by corpus/fact id (JSON, Fact.to_dict()), "
                     "co-partitioned with the questions."),
        grounding_facts=_table(app, settings, "grounding-facts", "Grounded-generation Atomic Facts by corpus/fact id "
                               "(JSON), co-partitioned with the paragraph requests."),
        paragraphs=_table(app, settings, "paragraphs", "Grounded-generation paragraph state (every version of every "
                          "sentence) by corpus/paragraph_id (JSON)."),
    )
    steps = EpisodeSteps(packet_stage, omega.episodes, partial(partition_of, partitions=settings.partitions),
                         lateness_ms=settings.max_lateness_ms)
    idle = IdleRelease(settings.idle_release_ms, settings.max_lateness_ms)
    for spec in _agent_rows(omega, steps, idle):
        app.agent(topics[spec.topic.logical], name=f"{settings.topic_prefix}{spec.name}")(_agent_loop(omega, spec))
    _register_ticks(omega, steps)
    packets_topic = topic_name(PACKETS, settings.topic_prefix)
    if idle.on:
        idle_release.install(app, packets_topic, steps, idle, partial(_send_tick, omega),
                             lambda partition: metrics.idle_releases.labels(str(partition)).inc(),
                             omega.processed, probe.first_at_or_after)
    if omega.spans is not None:
        _register_span_flush(app, omega.spans)
    watch = watchdog.install(app, omega.processed, settings.stall_seconds, every=STALL_CHECK_SECONDS,
                             stored=probe.first_at_or_after)
    if settings.web_port > 0:
        _register_pages(omega, watch, partial(idle_release.waiting, app, packets_topic, steps, idle), idle)
        announce_web_server(app)
    log.info("app_created", app_id=settings.app_id, topics=[t.name for t in ALL_TOPICS],
             prefix=settings.topic_prefix, dead_letters=DEAD_LETTERS.name)
    return omega


def _wire_out(settings: Settings, outputs: Outputs, metrics: WorkerMetrics) -> ConfluentOut | None:
    remote = outputs.registry.remote
    if settings.avro_wire != "confluent" or not isinstance(remote, RegistryFraming):
        return None
    return ConfluentOut(remote, on_fallback=lambda topic: metrics.registry_fallbacks.labels(topic).inc())


def _agent_rows(omega: OmegaApp, episodes: EpisodeSteps, idle: IdleRelease) -> list[AgentSpec]:
    """Every agent: the topic it reads and the step it runs (the same steps embedded replay runs, over dicts; the
    validator's, under a lateness, noting when each packet came for the idle release)."""
    outputs = omega.outputs
    answers = AnswersStage(outputs)
    facts_view = FactStoreView(omega.facts)
    grounding = GroundingSteps(GroundingStage(outputs), omega.grounding_facts, omega.paragraphs)
    return [
        AgentSpec(PACKETS_JSON, "ingress", IngressSteps(omega.packet_stage).record),
        AgentSpec(PACKETS, "validator", idle.watched(episodes.record, TICK_KEY.encode())
                  if episodes.lateness_ms > 0 else episodes.record, log_field="correlation_id"),
        AgentSpec(AGENT_MESSAGES_RAW, "monitor", SessionSteps(MonitorStage(outputs), omega.sessions).record,
                  log_field="session_id"),
        AgentSpec(ORACLE_REQUESTS, "oracle", OracleStage.from_default_config(outputs).request),
        AgentSpec(DOCUMENTS, "documents", answers.document),
        AgentSpec(FACTS, "facts", FactSteps(answers, omega.facts).record),
        AgentSpec(QUESTIONS, "questions", lambda raw, src: answers.question(raw, src, facts_view.store)),
        AgentSpec(GROUNDING_FACTS, "grounding-facts", grounding.fact),
        AgentSpec(GROUNDING_REQUESTS, "grounding", grounding.request),
    ]


def _agent_loop(omega: OmegaApp, spec: AgentSpec) -> Callable[[faust.StreamT[Any]], Awaitable[None]]:
    """The one loop every agent runs over its stream: record by record, or in batches (OMEGA_BATCH_MAX > 1) whose
    records go through the same steps in order, each under its own Faust event, the ledgers and sessions they
    rewrite stored once per key after the batch (worker/write_behind.py), the offsets acked after that."""
    settings = omega.settings

    async def agent(stream: faust.StreamT[Any]) -> None:
        if settings.batch_max <= 1:
            async for event in stream.events():
                await _record(omega, spec, event)
            return
        # faust-streaming has take_events, its StreamT stub does not
        async for events in stream.take_events(  # type: ignore[attr-defined]
                settings.batch_max, within=settings.batch_wait_seconds):
            for event in events:
                token = faust_current_event.set(weakref.ref(event))
                try:
                    await _record(omega, spec, event)
                finally:
                    faust_current_event.reset(token)
            for table in omega.write_behind:
                table.flush()
    return agent


async def _record(omega: OmegaApp, spec: AgentSpec, event: Any) -> None:
    """One record, in this order."""
    message = event.message
    # 1. admit: the partition's next record only (a rewind or gap is handled in kafka/input_order.py)
    if not await admitted(omega.app.consumer, message):
        return
    started = time.perf_counter()
    # 2. log context: this record's, and nothing of the record before it
    structlog.contextvars.clear_contextvars()
    key = key_text(message.key if isinstance(message.key, bytes) else None, "")
    if spec.log_field is not None and key and key != TICK_KEY:
        structlog.contextvars.bind_contextvars(**{spec.log_field: log_key(key)})
    # 3. step and 4. fit: an unexpected error, or an output too large to send, becomes a dead letter
    emits = await run_guarded(omega.outputs, event, spec.topic, spec.step)
    # 5. mark processed (for the stall watch, worker/watchdog.py)
    omega.processed[message.topic, message.partition] = message.offset + 1
    # 6. send the outputs (child spans of the input's traceparent, if any) before the offset is acknowledged:
    # Faust commits it after this iteration (at-least-once; output ids are derived from the input, so a
    # redelivery dedupes). With span export on, a traced input's outputs are also exported (kafka/otel.py).
    traceparent = parent_of(message.headers)
    origin = None
    if omega.spans is not None and traceparent is not None:
        # the wall-clock start of this record's processing: now less the monotonic time it took
        elapsed_ns = round((time.perf_counter() - started) * 1e9)
        origin = Origin(message.topic, message.partition, message.offset, time.time_ns() - elapsed_ns)
    await omega.send_all(emits, traceparent, origin)
    omega.metrics.observe(spec.topic.name, emits, time.perf_counter() - started)


def _register_pages(omega: OmegaApp, watch: watchdog.StallWatch | None,
                    waiting: Callable[[], dict[int, PartitionWait] | None], idle: IdleRelease) -> None:
    """/metrics (Prometheus text), /healthz (the loop answers; what waits under a lateness) and /ready (200 once
    partitions are assigned and tables recovered, else 503 with the reason) on Faust's web server."""
    app, metrics = omega.app, omega.metrics
    tables = {"episodes": omega.episodes, "sessions": omega.sessions, "facts": omega.facts,
              "grounding_facts": omega.grounding_facts, "paragraphs": omega.paragraphs}

    @app.page("/metrics")
    async def metrics_page(self: Any, request: Any) -> Any:
        progress = await look_or_none(app, omega.processed)
        if progress is not None:
            metrics.progress(progress, readiness(app, progress)[0])
        metrics.order_events(getattr(app.consumer, "order_events", {}))
        metrics.tables(tables)
        seen = waiting()
        if seen is not None:
            metrics.waiting(seen)
        return self.bytes(metrics.text(), content_type=METRICS_CONTENT_TYPE)

    @app.page("/healthz")
    async def healthz(self: Any, request: Any) -> Any:
        stall = None if watch is None else watch.state(app.loop.time())  # None: the stall watch is off
        seen = waiting()  # None mid-rebalance: the table is not whole yet
        return self.json({"status": "alive", "stall_watch": stall,
                          "lateness": None if seen is None else idle.totals(seen)})

    @app.page("/ready")
    async def ready(self: Any, request: Any) -> Any:
        ok, why = readiness(app, await look_or_none(app, omega.processed))
        return self.json({"ready": ok, "why": why}, status=200 if ok else 503)


def _register_span_flush(app: faust.App, spans: SpanSink) -> None:
    """Export the spans still queued when the worker stops (after its consumer stopped, so no new ones come)."""
    async def flush_spans(sender: Any, **kwargs: Any) -> None:
        await asyncio.to_thread(spans.shutdown)  # it joins the export thread: not on the event loop

    app.on_before_shutdown.connect(flush_spans)  # type: ignore[arg-type]  # mode types it narrowly


def _register_ticks(omega: OmegaApp, steps: EpisodeSteps) -> None:
    """The watermark timer, and the rebalance hook that makes the validator look up open episodes again."""
    app, settings = omega.app, omega.settings
    app.on_partitions_revoked.connect(steps.on_partitions_revoked)  # type: ignore[arg-type]  # mode types it narrowly

    @app.timer(interval=settings.tick_interval_seconds)  # type: ignore[untyped-decorator]  # faust is untyped
    async def watermark_ticks() -> None:
        """Append a tick to each owned packets partition whose watermark moved since the last tick."""
        owned = idle_release.owned(app, topic_name(PACKETS, settings.topic_prefix))
        for partition, mark in steps.due_ticks(owned):
            await _send_tick(omega, partition, mark)


async def _send_tick(omega: OmegaApp, partition: int, watermark_ms: int) -> None:
    """A watermark tick to packets partition `partition`, at `watermark_ms` (its record time too)."""
    await omega.topics[PACKETS.logical].send(key=TICK_KEY.encode(), value=omega.packet_stage.encode_tick(
        partition, watermark_ms), partition=partition, timestamp=watermark_ms / 1000)

