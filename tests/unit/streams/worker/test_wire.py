"""The worker's framing edges (issue 26, streams/worker/wire.py and the codec's dual read): registry frames are read
by every decode once a registry is attached and named clearly without one; an input waits out an unreachable
registry; Avro outputs go out under the registry's header with the body untouched, and fall back to our own framing
(counted, retried later) when the registry refuses."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient, topic_record_subject_name_strategy
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.serialization import MessageField, SerializationContext

from streams.stages.base import Emit, Outputs, Source
from streams.stages.packets import PacketStage
from streams.topics import PACKETS_JSON, VERDICTS
from streams.wire.codec import DecodeError, SchemaRegistry
from streams.wire.confluent import RegistryFraming, registry_client, schema_json
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from streams.worker import wire
from streams.worker.wire import ConfluentOut, resolve_input
from tests.factories import packet as factory_packet

TOPIC = "p.omen.packets"


def _framed_packet(client: SchemaRegistryClient, local: SchemaRegistry) -> tuple[dict[str, Any], bytes]:
    packet = factory_packet(1, 1)
    serializer = AvroSerializer(client, schema_json(local.get(PACKET_SCHEMA).parsed),
                                conf={"subject.name.strategy": topic_record_subject_name_strategy})
    datum = PacketConverter(local.get(PACKET_SCHEMA).parsed).to_avro(packet)
    value = serializer(datum, SerializationContext(TOPIC, MessageField.VALUE))
    assert value is not None
    return packet, value


def test_a_registry_frame_without_a_registry_is_a_decode_error_naming_the_setting_and_the_id() -> None:
    local = SchemaRegistry.from_directory()
    with pytest.raises(DecodeError) as info:
        local.decode(b"\x00\x00\x00\x01\x2c\x02")
    assert info.value.error_class == "REGISTRY_FRAMED"
    assert "schema id 300" in str(info.value)  # 0x0000012c
    assert "OMEGA_SCHEMA_REGISTRY_URL" in str(info.value)


def test_the_validator_step_judges_a_registry_framed_packet_as_the_same_packet_in_our_framing() -> None:
    local = SchemaRegistry.from_directory()
    client = registry_client({"url": "mock://wire-step"})
    local.remote = RegistryFraming(local, client, "p.")
    packet, framed = _framed_packet(client, local)
    pipeline = PacketStage(Outputs(local))
    ours = local.encode(PACKET_SCHEMA, PacketConverter(local.get(PACKET_SCHEMA).parsed).to_avro(packet))
    source = Source(TOPIC, 0, 0, b"corr")
    _, from_framed = pipeline.packet(None, framed, source)
    _, from_ours = pipeline.packet(None, ours, source)
    assert [e.value for e in from_framed] == [e.value for e in from_ours]
    assert from_framed[0].topic is VERDICTS
    assert from_framed[0].record["packet_id"] == packet["header"]["packet_id"]


class _FlakyClient:
    """A registry client that cannot be reached for its first `failures` lookups."""

    def __init__(self, inner: SchemaRegistryClient, failures: int) -> None:
        self.inner, self.failures, self.calls = inner, failures, 0

    def get_schema(self, schema_id: int) -> Any:
        self.calls += 1
        if self.calls <= self.failures:
            raise httpx.ConnectError("connection refused")
        return self.inner.get_schema(schema_id)


def test_an_input_waits_out_an_unreachable_registry_then_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire, "REGISTRY_RETRY_WAIT_SECONDS", 0.0)
    local = SchemaRegistry.from_directory()
    inner = registry_client({"url": "mock://wire-flaky"})
    packet, framed = _framed_packet(inner, local)
    flaky = _FlakyClient(inner, failures=3)
    local.remote = RegistryFraming(local, flaky, "p.")  # type: ignore[arg-type]  # duck-typed client
    asyncio.run(resolve_input(local, framed, TOPIC))
    assert flaky.calls == 4  # three refused, the fourth answered
    assert local.remote.knows(framed)
    assert local.decode(framed)[1]["header"]["packet_id"] == packet["header"]["packet_id"]


def test_an_input_gives_up_after_the_retries_and_the_decode_names_the_outage(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire, "REGISTRY_RETRY_WAIT_SECONDS", 0.0)
    local = SchemaRegistry.from_directory()
    inner = registry_client({"url": "mock://wire-down"})
    _, framed = _framed_packet(inner, local)
    down = _FlakyClient(inner, failures=10**6)
    local.remote = RegistryFraming(local, down, "p.")  # type: ignore[arg-type]
    asyncio.run(resolve_input(local, framed, TOPIC))
    assert down.calls == wire.REGISTRY_RETRIES + 1
    with pytest.raises(DecodeError) as info:
        local.decode(framed)
    assert info.value.error_class == "REGISTRY_UNAVAILABLE"


def _verdict_emit(local: SchemaRegistry) -> Emit:
    pipeline = PacketStage(Outputs(local))
    _, emits = pipeline.packet(None, local.encode(PACKET_SCHEMA, PacketConverter(
        local.get(PACKET_SCHEMA).parsed).to_avro(factory_packet(1, 1))), Source(TOPIC, 0, 0, b"corr"))
    return emits[0]


def test_avro_outputs_go_out_under_the_registrys_header_with_the_same_body_and_json_ones_as_they_are() -> None:
    local = SchemaRegistry.from_directory()
    client = registry_client({"url": "mock://wire-out"})
    out = ConfluentOut(RegistryFraming(local, client, "p."))
    verdict = _verdict_emit(local)
    framed = asyncio.run(out.frame(verdict, "p.omen.verdicts"))
    schema_id = client.get_latest_version("p.omen.verdicts-value").schema_id
    assert framed == b"\x00" + schema_id.to_bytes(4, "big") + verdict.value[10:]
    assert asyncio.run(out.frame(verdict, "p.omen.verdicts")) == framed  # cached
    raw = Emit(PACKETS_JSON, "k", b'{"a": 1}', None, {})
    assert asyncio.run(out.frame(raw, "p.omen.packets.json")) == b'{"a": 1}'
    assert out.fallbacks == 0


class _RefusingClient:
    def __init__(self) -> None:
        self.calls = 0

    def register_schema(self, subject: str, schema: Any) -> int:
        self.calls += 1
        raise SchemaRegistryError(409, 409, "Incompatible artifact")


def test_a_refused_subject_is_sent_in_our_framing_counted_and_asked_again_only_after_the_wait() -> None:
    local = SchemaRegistry.from_directory()
    refusing = _RefusingClient()
    now = [1000.0]
    counted: list[str] = []
    out = ConfluentOut(RegistryFraming(local, refusing, "p."), clock=lambda: now[0],  # type: ignore[arg-type]
                       on_fallback=counted.append)
    verdict = _verdict_emit(local)
    assert asyncio.run(out.frame(verdict, "p.omen.verdicts")) == verdict.value
    assert asyncio.run(out.frame(verdict, "p.omen.verdicts")) == verdict.value
    assert (refusing.calls, out.fallbacks) == (1, 2)  # the second one did not ask
    now[0] += wire.RETRY_SECONDS + 1
    assert asyncio.run(out.frame(verdict, "p.omen.verdicts")) == verdict.value
    assert (refusing.calls, out.fallbacks) == (2, 3)
    assert counted == ["p.omen.verdicts"] * 3  # each one reaches /metrics
