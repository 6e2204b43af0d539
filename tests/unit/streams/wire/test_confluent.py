"""Schema Registry framing (issue 26) against confluent-kafka's own serializer and its `mock://` registry: header
bytes by hand, byte-identity with `AvroSerializer`, registry framing -> single-object -> decode, writer evolution,
the failure classes, subject naming per topic, and the settings that switch it on."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient, topic_record_subject_name_strategy
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.serialization import MessageField, SerializationContext
from fastavro.schema import parse_schema, to_parsing_canonical_form

from streams.settings import Settings, SettingsError
from streams.stages.packets import TICK_SCHEMA
from streams.topics import ALL_TOPICS, PACKETS
from streams.wire.codec import HEADER_SIZE, MARKER, DecodeError, SchemaRegistry, crc64_avro_fingerprint
from streams.wire.confluent import (
    CONFLUENT,
    SINGLE_OBJECT,
    RegistryError,
    RegistryFraming,
    confluent_frame,
    confluent_schema_id,
    framing_from_settings,
    framing_of,
    is_confluent,
    registry_client,
    schema_json,
    subject_name,
    topic_records,
    topic_subjects,
)
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from tests.factories import packet as factory_packet

TICK = {"partition": 3, "watermark": "w"}
TICK_BODY = b"\x06\x02w"  # int 3 zig-zag -> 6; string "w": length 1 zig-zag -> 2, then the byte
VERDICTS = "omen.verdicts"


@pytest.fixture(scope="module")
def local() -> SchemaRegistry:
    return SchemaRegistry.from_directory()


@pytest.fixture
def client() -> SchemaRegistryClient:
    return registry_client({"url": "mock://test"})


def _serializer(client: SchemaRegistryClient, schema_str: str, *, by_record: bool) -> AvroSerializer:
    conf = {"subject.name.strategy": topic_record_subject_name_strategy} if by_record else {}
    serializer: AvroSerializer = AvroSerializer(client, schema_str, conf=conf)
    return serializer


def _produce(client: SchemaRegistryClient, schema: dict[str, Any] | str, datum: Any, topic: str, *,
             by_record: bool) -> bytes:
    """What a plain confluent-kafka producer with its AvroSerializer writes."""
    text = schema if isinstance(schema, str) else json.dumps(schema)
    framed = _serializer(client, text, by_record=by_record)(datum, SerializationContext(topic, MessageField.VALUE))
    assert framed is not None
    return framed


# ------------------------------------------------------------------ the bytes
def test_the_first_bytes_tell_the_two_framings_apart() -> None:
    assert framing_of(b"\x00\x00\x00\x00\x07" + TICK_BODY) == CONFLUENT
    assert framing_of(MARKER + bytes(8) + TICK_BODY) == SINGLE_OBJECT
    assert framing_of(b'{"header": {}}') is None
    assert framing_of(b"\x00\x00\x01") is None  # too short for the 5-byte header
    assert framing_of(b"\xc3\x01\x00") is None
    assert is_confluent(b"\x00\x00\x00\x00\x00")
    assert not is_confluent(MARKER + bytes(8))


def test_a_frame_is_magic_zero_the_id_big_endian_then_the_body() -> None:
    assert confluent_frame(7, TICK_BODY) == b"\x00\x00\x00\x00\x07\x06\x02w"
    assert confluent_frame(0x01020304, b"") == b"\x00\x01\x02\x03\x04"
    assert confluent_schema_id(b"\x00\x00\x00\x01\x00" + TICK_BODY) == 256
    with pytest.raises(ValueError, match="4 unsigned bytes"):
        confluent_frame(2**32, b"")


def test_single_object_bytes_are_not_read_as_a_schema_id() -> None:
    with pytest.raises(DecodeError) as info:
        confluent_schema_id(MARKER + bytes(8))
    assert info.value.error_class == "NOT_CONFLUENT"


# ------------------------------------------------------------------ out: byte-identical to AvroSerializer
def test_a_tick_framed_by_us_is_the_serializers_frame_byte_for_byte(local: SchemaRegistry,
                                                                    client: SchemaRegistryClient) -> None:
    schema_str = schema_json(local.get(TICK_SCHEMA).parsed)
    theirs = _produce(client, schema_str, TICK, PACKETS.name, by_record=True)
    ours = RegistryFraming(local, client).to_confluent(local.encode(TICK_SCHEMA, TICK), PACKETS.name)
    assert ours == theirs == b"\x00\x00\x00\x00\x01" + TICK_BODY  # the mock's first id is 1


def test_a_packet_framed_by_us_is_the_serializers_frame_and_keeps_our_body(local: SchemaRegistry,
                                                                          client: SchemaRegistryClient) -> None:
    datum = PacketConverter(local.get(PACKET_SCHEMA).parsed).to_avro(factory_packet(3, 7))
    single = local.encode(PACKET_SCHEMA, datum)
    ours = RegistryFraming(local, client).to_confluent(single, PACKETS.name)
    theirs = _produce(client, schema_json(local.get(PACKET_SCHEMA).parsed), datum, PACKETS.name, by_record=True)
    assert ours == theirs
    assert ours[5:] == single[HEADER_SIZE:]
    assert client.get_latest_version(f"{PACKETS.name}-{PACKET_SCHEMA}").schema_id == confluent_schema_id(ours)


def test_on_a_one_record_topic_the_subject_is_topic_value_as_the_serializers_default(
        local: SchemaRegistry, client: SchemaRegistryClient) -> None:
    single = local.encode(TICK_SCHEMA, TICK)  # the record type does not matter to the subject here
    ours = RegistryFraming(local, client).to_confluent(single, VERDICTS)
    assert ours == _produce(client, schema_json(local.get(TICK_SCHEMA).parsed), TICK, VERDICTS, by_record=False)
    assert client.get_subjects() == [f"{VERDICTS}-value"]


def test_the_id_is_registered_once_per_subject_and_schema(local: SchemaRegistry) -> None:
    counting = _Counting(registry_client({"url": "mock://count"}))
    framing = RegistryFraming(local, counting)  # type: ignore[arg-type]
    single = local.encode(TICK_SCHEMA, TICK)
    first = framing.to_confluent(single, PACKETS.name)
    assert framing.to_confluent(single, PACKETS.name) == first
    other_topic = framing.to_confluent(single, VERDICTS)
    assert counting.calls == {"register_schema": 2}
    assert other_topic[5:] == first[5:]


def test_without_auto_registration_an_unregistered_schema_is_a_registry_error(local: SchemaRegistry,
                                                                             client: SchemaRegistryClient) -> None:
    framing = RegistryFraming(local, client, auto_register=False)
    with pytest.raises(RegistryError) as info:
        framing.to_confluent(local.encode(TICK_SCHEMA, TICK), PACKETS.name)
    assert info.value.error_class == "SCHEMA_NOT_REGISTERED"
    schema_id = client.register_schema(f"{PACKETS.name}-{TICK_SCHEMA}",
                                       Schema(schema_json(local.get(TICK_SCHEMA).parsed), "AVRO"))
    assert confluent_schema_id(framing.to_confluent(local.encode(TICK_SCHEMA, TICK), PACKETS.name)) == schema_id


@pytest.mark.parametrize(("failure", "error_class"), [
    (SchemaRegistryError(409, 409, "Incompatible"), "SCHEMA_INCOMPATIBLE"),
    (SchemaRegistryError(503, -1, "down"), "REGISTRY_UNAVAILABLE"),
    (httpx.ConnectError("connection refused"), "REGISTRY_UNAVAILABLE"),
])
def test_a_registry_that_refuses_or_fails_on_output_is_a_named_registry_error(
        local: SchemaRegistry, failure: Exception, error_class: str) -> None:
    framing = RegistryFraming(local, _Failing(failure))  # type: ignore[arg-type]
    with pytest.raises(RegistryError) as info:
        framing.to_confluent(local.encode(TICK_SCHEMA, TICK), PACKETS.name)
    assert info.value.error_class == error_class


def test_output_that_is_not_single_object_is_refused(local: SchemaRegistry, client: SchemaRegistryClient) -> None:
    with pytest.raises(DecodeError) as info:
        RegistryFraming(local, client).to_confluent(b'{"not": "avro"}', VERDICTS)
    assert info.value.error_class == "NOT_SINGLE_OBJECT"


# ------------------------------------------------------------------ in: registry framing -> single-object
def test_a_producers_frame_becomes_our_single_object_record_and_decodes_to_the_datum(
        local: SchemaRegistry, client: SchemaRegistryClient) -> None:
    converter = PacketConverter(local.get(PACKET_SCHEMA).parsed)
    packet = factory_packet(2, 5)
    framed = _produce(client, schema_json(local.get(PACKET_SCHEMA).parsed), converter.to_avro(packet),
                      PACKETS.name, by_record=True)
    single = RegistryFraming(local, client).to_single_object(framed)
    assert single == local.encode(PACKET_SCHEMA, converter.to_avro(packet))
    name, datum = local.decode(single)
    assert name == PACKET_SCHEMA
    assert converter.from_avro(datum) == packet


def test_a_writer_with_an_extra_defaulted_field_in_another_order_is_read_into_our_schema(
        client: SchemaRegistryClient) -> None:
    local = SchemaRegistry.from_directory()  # its own: the new writer version is added to it
    writer = {"type": "record", "name": "WatermarkTick", "namespace": "omega.events", "fields": [
        {"name": "watermark", "type": "string"},
        {"name": "source", "type": "string", "default": "timer"},
        {"name": "partition", "type": "int"},
    ]}
    framed = _produce(client, writer, {"watermark": "w", "source": "s", "partition": 3}, PACKETS.name,
                      by_record=True)
    single = RegistryFraming(local, client).to_single_object(framed)
    assert single[HEADER_SIZE:] == framed[5:]  # the body is never re-encoded
    assert single[2:HEADER_SIZE] == crc64_avro_fingerprint(to_parsing_canonical_form(parse_schema(writer)))
    assert local.decode(single) == (TICK_SCHEMA, TICK)
    assert local.get(TICK_SCHEMA).fingerprint != single[2:HEADER_SIZE]  # still written with our own schema


def test_a_writer_our_reader_cannot_resolve_fails_at_decode_as_schema_resolution(
        client: SchemaRegistryClient) -> None:
    local = SchemaRegistry.from_directory()
    writer = {"type": "record", "name": "WatermarkTick", "namespace": "omega.events",
              "fields": [{"name": "partition", "type": "string"}, {"name": "watermark", "type": "string"}]}
    framed = _produce(client, writer, {"partition": "p", "watermark": "w"}, PACKETS.name, by_record=True)
    with pytest.raises(DecodeError) as info:
        local.decode(RegistryFraming(local, client).to_single_object(framed))
    assert info.value.error_class == "SCHEMA_RESOLUTION"


def test_an_unknown_schema_id_is_unknown_schema_id(local: SchemaRegistry, client: SchemaRegistryClient) -> None:
    with pytest.raises(DecodeError) as info:
        RegistryFraming(local, client).to_single_object(confluent_frame(42, TICK_BODY))
    assert info.value.error_class == "UNKNOWN_SCHEMA_ID"


@pytest.mark.parametrize(("schema", "schema_type"), [
    ('{"type": "object"}', "JSON"),
    (json.dumps({"type": "record", "name": "Other", "namespace": "acme", "fields": []}), "AVRO"),
    ('"string"', "AVRO"),
    ("{not json", "AVRO"),
])
def test_a_schema_that_is_not_avro_or_none_of_our_types_is_unknown_schema(
        local: SchemaRegistry, client: SchemaRegistryClient, schema: str, schema_type: str) -> None:
    schema_id = client.register_schema("other-value", Schema(schema, schema_type))
    with pytest.raises(DecodeError) as info:
        RegistryFraming(local, client).to_single_object(confluent_frame(schema_id, b""))
    assert info.value.error_class == "UNKNOWN_SCHEMA"


@pytest.mark.parametrize("failure", [SchemaRegistryError(500, 50001, "storage"), httpx.ConnectTimeout("slow")])
def test_a_registry_out_of_reach_on_input_is_registry_unavailable(local: SchemaRegistry, failure: Exception) -> None:
    framing = RegistryFraming(local, _Failing(failure))  # type: ignore[arg-type]
    with pytest.raises(DecodeError) as info:
        framing.to_single_object(confluent_frame(1, TICK_BODY))
    assert info.value.error_class == "REGISTRY_UNAVAILABLE"


def test_a_schema_id_is_fetched_once(local: SchemaRegistry) -> None:
    counting = _Counting(registry_client({"url": "mock://fetch-once"}))
    framed = _produce(counting.inner, schema_json(local.get(TICK_SCHEMA).parsed), TICK, PACKETS.name, by_record=True)
    framing = RegistryFraming(local, counting)  # type: ignore[arg-type]
    assert framing.to_single_object(framed) == framing.to_single_object(framed) == local.encode(TICK_SCHEMA, TICK)
    assert counting.calls == {"get_schema": 1}


# ------------------------------------------------------------------ subjects
def test_the_packets_topic_uses_topic_record_names_and_the_others_topic_value() -> None:
    subjects = topic_subjects("p.")
    assert ("p.omen.packets", "omega.omen.Packet", "p.omen.packets-omega.omen.Packet") in subjects
    assert ("p.omen.packets", "omega.events.WatermarkTick", "p.omen.packets-omega.events.WatermarkTick") in subjects
    assert ("p.omen.verdicts", "omega.events.PacketVerdict", "p.omen.verdicts-value") in subjects
    assert ("p.omega.deadletters", "omega.events.DeadLetter", "p.omega.deadletters-value") in subjects
    assert not any(topic.endswith(".json") for topic, _, _ in subjects)  # JSON topics carry no Avro
    assert len({s for _, _, s in subjects}) == len(subjects)


def test_only_the_packets_topic_carries_several_record_types_and_they_are_the_stages_names() -> None:
    several = [spec.logical for spec in ALL_TOPICS if len(topic_records(spec)) > 1]
    assert several == ["packets"]
    assert topic_records(PACKETS) == (PACKETS.value_schema, "omega.omen.PacketAsSent", TICK_SCHEMA)


def test_the_subject_follows_the_prefixed_topic(local: SchemaRegistry, client: SchemaRegistryClient) -> None:
    framing = RegistryFraming(local, client, "t1.")
    assert framing.subject_for("t1.omen.packets", TICK_SCHEMA) == "t1.omen.packets-omega.events.WatermarkTick"
    assert framing.subject_for("t1.omen.verdicts", "omega.events.PacketVerdict") == "t1.omen.verdicts-value"
    assert subject_name("x", "a.B", several_records=True) == "x-a.B"
    assert subject_name("x", "a.B", several_records=False) == "x-value"


def test_schema_json_is_key_sorted_and_parses_back_to_the_same_fingerprint(local: SchemaRegistry) -> None:
    for name in local.names():
        entry = local.get(name)
        text = schema_json(entry.parsed)
        assert "__fastavro" not in text
        assert "__named" not in text
        reparsed = parse_schema(json.loads(text))
        assert crc64_avro_fingerprint(to_parsing_canonical_form(reparsed)) == entry.fingerprint, name
    assert schema_json({"type": "record", "name": "a.B", "fields": [{"type": "int", "name": "z"}]}) == \
        '{"fields":[{"name":"z","type":"int"}],"name":"a.B","type":"record"}'


# ------------------------------------------------------------------ settings
def test_avro_wire_defaults_to_single_object_and_a_bad_value_is_named() -> None:
    assert Settings.from_env({}).avro_wire == "single-object"
    with pytest.raises(SettingsError, match="OMEGA_AVRO_WIRE='avro'"):
        Settings.from_env({"OMEGA_AVRO_WIRE": "avro"})


def test_confluent_wire_without_a_registry_url_is_refused() -> None:
    with pytest.raises(SettingsError, match="OMEGA_SCHEMA_REGISTRY_URL"):
        Settings.from_env({"OMEGA_AVRO_WIRE": "confluent"})


def test_the_registry_settings_become_the_clients_configuration() -> None:
    env = {"OMEGA_AVRO_WIRE": "confluent", "OMEGA_SCHEMA_REGISTRY_URL": "https://sr:8081",
           "OMEGA_SCHEMA_REGISTRY_BASIC_AUTH_USER_INFO": "u:p", "OMEGA_SCHEMA_REGISTRY_SSL_CA_LOCATION": "/ca.pem",
           "OMEGA_SCHEMA_REGISTRY_SSL_CERTIFICATE_LOCATION": "/c.pem",
           "OMEGA_SCHEMA_REGISTRY_SSL_KEY_LOCATION": "/k.pem"}
    settings = Settings.from_env(env)
    assert settings.avro_wire == "confluent"
    assert settings.schema_registry_config() == {
        "url": "https://sr:8081", "basic.auth.user.info": "u:p", "ssl.ca.location": "/ca.pem",
        "ssl.certificate.location": "/c.pem", "ssl.key.location": "/k.pem"}
    assert "u:p" not in repr(settings)
    assert Settings.from_env({"OMEGA_SCHEMA_REGISTRY_URL": "http://sr"}).schema_registry_config() == {
        "url": "http://sr"}


def test_the_framing_is_built_only_with_a_registry_url(local: SchemaRegistry) -> None:
    assert framing_from_settings(Settings.from_env({}), local) is None
    settings = Settings.from_env({"OMEGA_SCHEMA_REGISTRY_URL": "mock://from-settings", "OMEGA_TOPIC_PREFIX": "p."})
    framing = framing_from_settings(settings, local)
    assert framing is not None
    assert framing.subject_for("p.omen.packets", TICK_SCHEMA) == "p.omen.packets-omega.events.WatermarkTick"


# ------------------------------------------------------------------ test doubles
class _Counting:
    """Counts the registry calls that go over the wire."""

    def __init__(self, inner: SchemaRegistryClient) -> None:
        self.inner = inner
        self.calls: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        self.calls[name] = self.calls.get(name, 0) + 1
        return getattr(self.inner, name)


class _Failing:
    """A registry every call to which fails with `failure`."""

    def __init__(self, failure: Exception) -> None:
        self.failure = failure

    def _fail(self, *_args: Any, **_kwargs: Any) -> Any:
        raise self.failure

    get_schema = register_schema = lookup_schema = _fail
