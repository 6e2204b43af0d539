"""Optional OpenTelemetry export (streams/kafka/otel.py, wired in streams/worker/app.py): a traced input's outputs
are exported as spans whose ids are exactly those of the outputs' `traceparent` headers, parented on the input's
span; an untraced input exports nothing; the sink exists only when OTEL_EXPORTER_OTLP_ENDPOINT is set, and without
the SDK the worker logs one warning and runs without it."""

from __future__ import annotations

import asyncio
import hashlib
import sys
import time
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any, cast

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from streams.kafka import otel
from streams.settings import Settings
from streams.stages.base import Emit
from streams.stages.packets import PacketStage
from streams.topics import ALERTS, ALL_TOPICS, DOCUMENTS, VERDICTS
from streams.worker.app import AgentSpec, OmegaApp, _agent_loop
from tests.unit.streams.log_capture import captured

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"  # the W3C Trace Context spec's own example
PARENT_SPAN = "00f067aa0ba902b7"
PARENT = f"00-{TRACE_ID}-{PARENT_SPAN}-01"
PREFIX = "t1."
VERDICT, ALERT = b"verdict bytes", b"alert bytes"


def _span_id_by_hand(topic: str, value: bytes) -> str:
    """tracing.child_of's definition: the first 16 hex digits of sha256(topic NUL value), unprefixed topic name."""
    return hashlib.sha256(topic.encode() + b"\x00" + value).hexdigest()[:16]


class FakeTopic:
    """A Faust topic that keeps what is sent to it."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send(self, **kwargs: Any) -> None:
        self.sent.append(kwargs)


def _omega(pipeline: PacketStage, spans: otel.SpanSink | None) -> OmegaApp:
    topics = {spec.logical: FakeTopic() for spec in ALL_TOPICS}
    tables = cast(Any, {})
    app = cast(Any, SimpleNamespace(consumer=object()))  # a consumer without `admit`: every record is admitted
    return OmegaApp(app, Settings(topic_prefix=PREFIX), pipeline.outputs, pipeline, topics, tables, tables, tables,
                    tables, tables, spans=spans)


def _outputs() -> list[Emit]:
    return [Emit(VERDICTS, "corr-1", VERDICT, None, {}), Emit(ALERTS, "episode-1", ALERT, None, {})]


class FakeStream:
    """A Faust stream of one record read from partition 3, offset 41 of the documents topic."""

    def __init__(self, headers: Any) -> None:
        self.message = SimpleNamespace(topic=f"{PREFIX}{DOCUMENTS.name}", partition=3, offset=41, key=b"doc-1",
                                       value=b"{}", timestamp=1.5, headers=headers)

    async def events(self) -> AsyncIterator[Any]:
        yield SimpleNamespace(message=self.message)


def _run_agent(omega: OmegaApp, headers: Any) -> None:
    spec = AgentSpec(DOCUMENTS, "documents", lambda raw, src: _outputs())
    agent = _agent_loop(omega, spec)(cast(Any, FakeStream(headers)))
    asyncio.run(cast(Any, agent))  # an async def's coroutine, typed Awaitable by the loop's signature


def _sent_header(omega: OmegaApp, logical: str) -> Any:
    [sent] = cast(FakeTopic, omega.topics[logical]).sent
    return sent["headers"]


def _exported(exporter: InMemorySpanExporter, sink: otel.SpanSink) -> dict[str, ReadableSpan]:
    sink.shutdown()  # what the worker's stop hook does: flush the batch processor
    return {span.name: span for span in exporter.get_finished_spans()}


def test_each_output_of_a_traced_record_is_exported_with_the_ids_of_its_header(pipeline: PacketStage) -> None:
    exporter = InMemorySpanExporter()
    sink = otel.sink_over(exporter, service_name="omega-test")
    omega = _omega(pipeline, sink)
    before = time.time_ns()
    _run_agent(omega, [("traceparent", PARENT.encode())])
    after = time.time_ns()
    spans = _exported(exporter, sink)
    assert set(spans) == {f"send {PREFIX}{VERDICTS.name}", f"send {PREFIX}{ALERTS.name}"}
    for spec, value, key in ((VERDICTS, VERDICT, "corr-1"), (ALERTS, ALERT, "episode-1")):
        span_id = _span_id_by_hand(spec.name, value)
        assert _sent_header(omega, spec.logical) == [("traceparent", f"00-{TRACE_ID}-{span_id}-01".encode())]
        span = spans[f"send {PREFIX}{spec.name}"]
        assert span.context is not None
        assert span.parent is not None
        assert (f"{span.context.trace_id:032x}", f"{span.context.span_id:016x}") == (TRACE_ID, span_id)
        assert (f"{span.parent.trace_id:032x}", f"{span.parent.span_id:016x}") == (TRACE_ID, PARENT_SPAN)
        assert span.parent.is_remote
        assert span.context.trace_flags.sampled
        assert span.kind is SpanKind.PRODUCER
        assert dict(span.attributes or {}) == {
            "messaging.system": "kafka", "messaging.operation.type": "send", "messaging.operation.name": "send",
            "messaging.destination.name": f"{PREFIX}{spec.name}", "messaging.kafka.message.key": key,
            "messaging.message.body.size": len(value), "omega.source.topic": f"{PREFIX}{DOCUMENTS.name}",
            "omega.source.partition": 3, "omega.source.offset": 41,
        }
        assert span.start_time is not None
        assert span.end_time is not None
        assert before <= span.start_time <= span.end_time <= after  # the processing's wall-clock times
        assert span.resource.attributes["service.name"] == "omega-test"


def test_a_record_without_a_traceparent_exports_nothing_and_sends_no_header(pipeline: PacketStage) -> None:
    exporter = InMemorySpanExporter()
    sink = otel.sink_over(exporter)
    omega = _omega(pipeline, sink)
    _run_agent(omega, [("other", b"x")])
    assert _exported(exporter, sink) == {}
    assert _sent_header(omega, VERDICTS.logical) is None


def test_an_input_not_sampled_keeps_its_header_but_exports_nothing(pipeline: PacketStage) -> None:
    exporter = InMemorySpanExporter()
    sink = otel.sink_over(exporter)
    omega = _omega(pipeline, sink)
    _run_agent(omega, [("traceparent", f"00-{TRACE_ID}-{PARENT_SPAN}-00".encode())])
    assert _exported(exporter, sink) == {}  # the SDK's parent-based sampler honours the caller's decision
    span_id = _span_id_by_hand(VERDICTS.name, VERDICT)
    assert _sent_header(omega, VERDICTS.logical) == [("traceparent", f"00-{TRACE_ID}-{span_id}-00".encode())]


def test_without_a_sink_a_traced_record_still_carries_its_header(pipeline: PacketStage) -> None:
    omega = _omega(pipeline, None)
    _run_agent(omega, [("traceparent", PARENT.encode())])
    span_id = _span_id_by_hand(ALERTS.name, ALERT)
    assert _sent_header(omega, ALERTS.logical) == [("traceparent", f"00-{TRACE_ID}-{span_id}-01".encode())]


def test_send_all_exports_only_when_given_the_inputs_origin(pipeline: PacketStage) -> None:
    exporter = InMemorySpanExporter()
    sink = otel.sink_over(exporter)
    omega = _omega(pipeline, sink)
    asyncio.run(omega.send_all(_outputs(), PARENT))  # no origin: the caller did not ask for spans
    assert _exported(exporter, sink) == {}


def test_the_service_name_defaults_to_omega_worker_and_follows_otel_service_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    default = otel.sink_over(InMemorySpanExporter())
    monkeypatch.setenv("OTEL_SERVICE_NAME", "omega-eu-1")
    named = otel.sink_over(InMemorySpanExporter())
    for sink in (default, named):
        sink.shutdown()
    assert default._provider.resource.attributes["service.name"] == "omega-worker"
    assert named._provider.resource.attributes["service.name"] == "omega-eu-1"


@pytest.mark.parametrize("value", [None, "", "  "])
def test_no_endpoint_no_sink(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    else:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", value)
    with captured(otel) as events:
        assert otel.sink_from_environment() is None
    assert events == []


def test_an_endpoint_builds_an_otlp_sink(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
    sink = otel.sink_from_environment()
    assert sink is not None
    sink.shutdown()  # nothing queued: no request is made


@pytest.mark.parametrize("missing", ["opentelemetry.exporter.otlp.proto.http.trace_exporter",
                                     "opentelemetry.sdk.trace"])
def test_an_endpoint_without_the_packages_warns_once_and_gives_no_sink(
    monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
    monkeypatch.setitem(sys.modules, missing, None)  # `import` of a None entry raises ImportError
    with captured(otel) as events:
        assert otel.sink_from_environment() is None
    [warning] = events
    assert warning["log_level"] == "warning"
    assert warning["event"] == "otel_export_off"
    assert warning["hint"] == "pip install 'omega-stream-verifier[otel]'"


def test_a_failing_span_is_logged_and_never_raised(pipeline: PacketStage, monkeypatch: pytest.MonkeyPatch) -> None:
    exporter = InMemorySpanExporter()
    sink = otel.sink_over(exporter)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("sdk bug")

    monkeypatch.setattr(sink._tracer, "start_span", broken)
    omega = _omega(pipeline, sink)
    with captured(otel) as events:
        _run_agent(omega, [("traceparent", PARENT.encode())])
    assert [e["event"] for e in events] == ["otel_span_failed", "otel_span_failed"]
    assert _sent_header(omega, VERDICTS.logical) is not None  # the outputs were sent all the same
    assert sink._pinned.value is None  # no pinned id left over for an unrelated span
    sink.shutdown()

