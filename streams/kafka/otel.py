"""Optional OpenTelemetry export of the worker's spans (issue 23): on only when OTEL_EXPORTER_OTLP_ENDPOINT is set
and the `otel` extra is installed; otherwise nothing is built and the worker's hot path does not change.

One span per output, not one per processed record with the outputs as children: the span exported for an output
is exactly the span its `traceparent` header names (trace id and span id from `tracing.child_of`, parent the
input's span id), so the exported tree is the one the Kafka headers already describe and a downstream consumer's
spans hang under a span that exists. A per-record span would need a span id no header carries, invented here.
Its kind is PRODUCER: its context is the output message's creation context (OTel messaging conventions).

The SDK's tracer draws span ids from its `IdGenerator` (the SDK's documented extension point, TracerProvider's
`id_generator`); ours hands out the id we pin just before each `start_span`, which runs synchronously on the
event loop, so no other span can take it. Using the tracer (not hand-built ReadableSpans, which the SDK says not
to create) keeps the SDK's sampler (parent-based: an input whose flags say "not sampled" exports nothing), span
limits and resource. Spans go through a BatchSpanProcessor, whose bounded queue drops rather than blocks, and are
exported on its own thread; `shutdown` flushes them when the worker stops. Span times are wall-clock: only the
exported spans carry them, never the Kafka headers, which stay deterministic.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from streams.logs import get_logger

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

ENDPOINT_VARIABLE = "OTEL_EXPORTER_OTLP_ENDPOINT"
DEFAULT_SERVICE_NAME = "omega-worker"  # when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one
INSTRUMENTATION_NAME = "omega.worker"
INSTALL_HINT = "pip install 'omega-stream-verifier[otel]'"

log = get_logger("omega.otel")


@dataclass(frozen=True)
class Origin:
    """The input record whose outputs are being sent: where it was read and when its processing began (wall ns)."""

    topic: str
    partition: int
    offset: int
    started_ns: int


class _PinnedSpanId:
    """The span id the next `start_span` must use, set just before it (read by the SDK IdGenerator below)."""

    def __init__(self) -> None:
        self.value: int | None = None


class SpanSink:
    """Records one PRODUCER span per output of a traced input, with the ids of the output's `traceparent`."""

    def __init__(self, provider: TracerProvider, pinned: _PinnedSpanId) -> None:
        self._provider = provider
        self._tracer = provider.get_tracer(INSTRUMENTATION_NAME)
        self._pinned = pinned

    def sent(self, parent: str, origin: Origin, child: str, topic: str, key: str, size: int) -> None:
        """Record the span of one output sent to `topic`: `child` is its traceparent, `parent` its input's. A failure
        here is logged, never raised: telemetry must not stop the agent."""
        try:
            self._start_and_end(parent, origin, child, topic, key, size)
        except Exception as exc:  # noqa: BLE001  # any SDK error: the output is sent, only its span is lost
            log.warning("otel_span_failed", topic=topic, error=f"{type(exc).__name__}: {exc}")
        finally:
            self._pinned.value = None  # a span started without a pinned id (none here) gets a random one

    def _start_and_end(self, parent: str, origin: Origin, child: str, topic: str, key: str, size: int) -> None:
        from opentelemetry import trace

        _, trace_id, parent_span, flags = parent.split("-")
        remote = trace.SpanContext(int(trace_id, 16), int(parent_span, 16), is_remote=True,
                                   trace_flags=trace.TraceFlags(int(flags, 16)))
        self._pinned.value = int(child.split("-")[2], 16)
        span = self._tracer.start_span(
            f"send {topic}",
            context=trace.set_span_in_context(trace.NonRecordingSpan(remote)),
            kind=trace.SpanKind.PRODUCER,
            attributes={
                "messaging.system": "kafka",
                "messaging.operation.type": "send",
                "messaging.operation.name": "send",
                "messaging.destination.name": topic,
                "messaging.kafka.message.key": key,
                "messaging.message.body.size": size,
                # the semantic conventions name no source of a send; the record that caused it, in our namespace
                "omega.source.topic": origin.topic,
                "omega.source.partition": origin.partition,
                "omega.source.offset": origin.offset,
            },
            start_time=origin.started_ns,
        )
        span.end(end_time=time.time_ns())  # the shell's wall clock, for the exported span only

    def shutdown(self) -> None:
        """Export what is queued and stop the export thread (blocks up to the processor's timeout)."""
        self._provider.shutdown()


def sink_over(exporter: SpanExporter, service_name: str | None = None) -> SpanSink:
    """A sink exporting through `exporter` in batches (the SDK must be installed); `service_name` None: from the
    environment (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES), else DEFAULT_SERVICE_NAME."""
    from opentelemetry.sdk.resources import SERVICE_NAME, OTELResourceDetector, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from opentelemetry.sdk.trace.id_generator import IdGenerator, RandomIdGenerator

    pinned = _PinnedSpanId()

    class PinnedIdGenerator(IdGenerator):
        """Span ids as pinned by `SpanSink.sent`; trace ids never used (every span has a remote parent)."""

        def __init__(self) -> None:
            self._random = RandomIdGenerator()

        def generate_span_id(self) -> int:
            span_id, pinned.value = pinned.value, None
            return self._random.generate_span_id() if span_id is None else span_id

        def generate_trace_id(self) -> int:
            return self._random.generate_trace_id()

    configured = OTELResourceDetector().detect().attributes.get(SERVICE_NAME)
    name = service_name or (str(configured) if configured else DEFAULT_SERVICE_NAME)
    # shutdown_on_exit off: the worker's stop hook shuts it down, and a test's provider must not outlive the test
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: name}), id_generator=PinnedIdGenerator(),
                              shutdown_on_exit=False)
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return SpanSink(provider, pinned)


def sink_from_environment() -> SpanSink | None:
    """The OTLP/HTTP sink when OTEL_EXPORTER_OTLP_ENDPOINT is set (the exporter reads it and the other OTEL_*
    variables itself); None when unset, or, with one warning, when the `otel` extra is not installed."""
    endpoint = os.environ.get(ENDPOINT_VARIABLE, "").strip()
    if not endpoint:
        return None
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        sink = sink_over(OTLPSpanExporter())
    except ImportError as exc:
        log.warning("otel_export_off", reason=f"{ENDPOINT_VARIABLE} is set but OpenTelemetry is not installed "
                    f"({exc}); the worker runs without span export", hint=INSTALL_HINT)
        return None
    log.info("otel_export_on", endpoint=endpoint)
    return sink
