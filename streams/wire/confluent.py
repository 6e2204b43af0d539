"""The Confluent Schema Registry wire format beside our Avro single-object encoding (issue 26).

Confluent framing: magic byte 0x00, the schema id (4 bytes, big-endian), the Avro body. Single-object: C3 01, the
8-byte CRC-64-AVRO fingerprint, the body. The first byte tells them apart (0x00 vs 0xC3): they never collide. Both
carry the same Avro binary body, so `RegistryFraming` converts one into the other without re-encoding it; only the
header depends on the registry.

Subjects (the registry's name for a schema's version history), per topic as actually named (with its prefix):
  - TopicRecordNameStrategy, `<topic>-<record full name>`, on a topic that carries several record types:
    `omen.packets` carries `omega.omen.Packet`, `omega.omen.PacketAsSent` (an attributable packet Packet cannot
    carry, as sent) and the worker's `omega.events.WatermarkTick` control records, so its subjects are
    `omen.packets-omega.omen.Packet`, `omen.packets-omega.omen.PacketAsSent` and
    `omen.packets-omega.events.WatermarkTick`;
  - TopicNameStrategy, `<topic>-value`, on every other Avro topic (e.g. `omen.verdicts-value`).
Keys are plain strings, never framed. confluent-kafka is imported only where a registry is used: without one, the
framing functions here need nothing beyond the standard library.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from fastavro.schema import SchemaParseException, parse_schema, to_parsing_canonical_form

from streams.settings import Settings, SettingsError
from streams.topics import ALL_TOPICS, PACKETS, TopicSpec, topic_name
from streams.wire.codec import (
    HEADER_SIZE,
    MARKER,
    DecodeError,
    RegisteredSchema,
    SchemaRegistry,
    crc64_avro_fingerprint,
)

if TYPE_CHECKING:
    from confluent_kafka.schema_registry import Schema, SchemaRegistryClient

MAGIC = b"\x00"
CONFLUENT_HEADER_SIZE = 5
SINGLE_OBJECT = "single-object"
CONFLUENT = "confluent"

# The record types of each Avro topic where there is more than its `value_schema` (the tick's name is
# streams.stages.packets.TICK_SCHEMA; the wire room imports no stage, a unit test pins that they agree).
TOPIC_RECORDS: Mapping[str, tuple[str, ...]] = {
    PACKETS.logical: ("omega.omen.Packet", "omega.omen.PacketAsSent", "omega.events.WatermarkTick")}


class RegistryError(RuntimeError):
    """The registry refused or could not serve an output schema (`error_class` names which); no record was framed."""

    def __init__(self, error_class: str, message: str) -> None:
        super().__init__(message)
        self.error_class = error_class


# ------------------------------------------------------------------ the bytes
def framing_of(data: bytes) -> str | None:
    """`confluent` (0x00 + 4-byte id), `single-object` (C3 01 + fingerprint), or None for anything else."""
    if len(data) >= CONFLUENT_HEADER_SIZE and data[:1] == MAGIC:
        return CONFLUENT
    if len(data) >= HEADER_SIZE and data[:2] == MARKER:
        return SINGLE_OBJECT
    return None


def is_confluent(data: bytes) -> bool:
    """Whether `data` starts with the Confluent header (it cannot be single-object then)."""
    return framing_of(data) == CONFLUENT


def confluent_frame(schema_id: int, body: bytes) -> bytes:
    """Magic 0x00, the schema id big-endian, then the Avro body as given."""
    if not 0 <= schema_id < 2**32:
        raise ValueError(f"a schema id is 4 unsigned bytes, not {schema_id}")
    return MAGIC + schema_id.to_bytes(4, "big") + body


def confluent_schema_id(data: bytes) -> int:
    """The schema id of a Confluent-framed record; anything else: `DecodeError("NOT_CONFLUENT")`."""
    if not is_confluent(data):
        raise DecodeError("NOT_CONFLUENT", "not the Confluent wire format (magic 0x00 + 4-byte schema id missing)")
    return int.from_bytes(data[1:CONFLUENT_HEADER_SIZE], "big")


# ------------------------------------------------------------------ schemas and subjects
def schema_json(parsed: Any) -> str:
    """The full JSON of a fastavro-parsed schema: named types inlined at first use, full names, defaults and docs
    kept (a registry judges compatibility on them); fastavro's own bookkeeping keys dropped."""
    # sorted keys: fastavro's key order varies with the string hash seed, and a registry (or our cache) keyed by the
    # text would hand out another id per process; list order (fields, symbols, branches) is meaning and stays
    return json.dumps(_clean(parsed), separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def _clean(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _clean(v) for k, v in node.items() if not k.startswith("__")}
    if isinstance(node, list):
        return [_clean(v) for v in node]
    return node


def topic_records(spec: TopicSpec) -> tuple[str, ...]:
    """The Avro record types a topic carries (none for a JSON topic)."""
    if spec.value_schema is None:
        return ()
    return TOPIC_RECORDS.get(spec.logical, (spec.value_schema,))


def subject_name(topic: str, record_name: str, several_records: bool) -> str:
    """TopicRecordNameStrategy (`<topic>-<record>`) where a topic carries several record types, else
    TopicNameStrategy (`<topic>-value`)."""
    return f"{topic}-{record_name}" if several_records else f"{topic}-value"


def topic_subjects(prefix: str = "") -> list[tuple[str, str, str]]:
    """`(topic, record full name, subject)` for every Avro record type on every topic, topics under `prefix`."""
    found = []
    for spec in ALL_TOPICS:
        records = topic_records(spec)
        topic = topic_name(spec, prefix)
        found += [(topic, record, subject_name(topic, record, len(records) > 1)) for record in records]
    return found


# ------------------------------------------------------------------ the framing converter
class RegistryFraming:
    """Converts between our single-object records and registry-framed ones through a Schema Registry; ids and
    subjects are cached for the life of the object (a registry never changes what an id names)."""

    def __init__(self, local: SchemaRegistry, client: SchemaRegistryClient, topic_prefix: str = "", *,
                 auto_register: bool = True) -> None:
        self._local = local
        self._client = client
        self._auto_register = auto_register
        self._several = {topic_name(s, topic_prefix) for s in ALL_TOPICS if len(topic_records(s)) > 1}
        self._fingerprint_by_id: dict[int, bytes] = {}
        self._id_by_subject: dict[tuple[str, bytes], int] = {}

    def close(self) -> None:
        """Close the registry client's HTTP connections (the caches go with the object)."""
        self._client.close()

    def subject_for(self, topic: str, record_name: str) -> str:
        """The subject of a record type on a topic (the physical, prefixed name)."""
        return subject_name(topic, record_name, topic in self._several)

    # ---- in: registry framing -> single-object
    def knows(self, data: bytes) -> bool:
        """Whether the schema id of a registry frame was looked up already (converting it needs no HTTP)."""
        return len(data) >= CONFLUENT_HEADER_SIZE and confluent_schema_id(data) in self._fingerprint_by_id

    def to_single_object(self, data: bytes) -> bytes:
        """The same body under our single-object header; a writer schema we did not have is added as a non-current
        version of our type of that name, so decoding resolves it into our reader schema."""
        schema_id = confluent_schema_id(data)
        fingerprint = self._fingerprint_by_id.get(schema_id)
        if fingerprint is None:
            fingerprint = self._writer_fingerprint(schema_id)
            self._fingerprint_by_id[schema_id] = fingerprint
        return MARKER + fingerprint + data[CONFLUENT_HEADER_SIZE:]

    def _writer_fingerprint(self, schema_id: int) -> bytes:
        schema = self._fetch(schema_id)
        if (schema.schema_type or "AVRO").upper() != "AVRO":
            raise DecodeError("UNKNOWN_SCHEMA", f"schema id {schema_id} is {schema.schema_type}, not Avro")
        if schema.references:
            raise DecodeError("UNKNOWN_SCHEMA", f"schema id {schema_id} uses schema references, which we do not "
                                                "resolve: register it fully expanded")
        try:
            parsed = parse_schema(json.loads(schema.schema_str or ""))
        except (ValueError, TypeError, KeyError, SchemaParseException) as exc:
            raise DecodeError("UNKNOWN_SCHEMA", f"schema id {schema_id} is not a valid Avro schema: {exc}") from exc
        name = parsed.get("name") if isinstance(parsed, dict) else None
        if not isinstance(parsed, dict) or name not in set(self._local.names()):
            raise DecodeError("UNKNOWN_SCHEMA", f"schema id {schema_id} writes {name or 'an unnamed type'!s}, "
                                                "which is none of our record types")
        fingerprint = crc64_avro_fingerprint(to_parsing_canonical_form(parsed))
        try:
            self._local.writer_of(MARKER + fingerprint)
        except DecodeError:  # a writer version we do not have: read through Avro schema resolution
            self._local.register(parsed, current=False)
        return fingerprint

    def _fetch(self, schema_id: int) -> Schema:
        import httpx
        from confluent_kafka.schema_registry.error import SchemaRegistryError

        try:
            return self._client.get_schema(schema_id)
        except SchemaRegistryError as exc:
            if exc.http_status_code == 404:
                raise DecodeError("UNKNOWN_SCHEMA_ID", f"the registry has no schema id {schema_id}") from exc
            raise DecodeError("REGISTRY_UNAVAILABLE", f"schema id {schema_id}: the registry answered {exc}") from exc
        except httpx.HTTPError as exc:  # refused, timed out, TLS, DNS: the registry is out of reach
            raise DecodeError("REGISTRY_UNAVAILABLE", f"schema id {schema_id}: registry unreachable: {exc!r}") from exc

    # ---- out: single-object -> registry framing
    def _writer_and_key(self, value: bytes, topic: str) -> tuple[RegisteredSchema, tuple[str, bytes]]:
        """The writer schema of `value`, and its id cache key: (the topic's subject for it, its fingerprint)."""
        writer = self._local.writer_of(value)
        return writer, (self.subject_for(topic, writer.name), writer.fingerprint)

    def framed_if_known(self, value: bytes, topic: str) -> bytes | None:
        """`to_confluent` when the subject's id for this writer is cached already (no HTTP), else None."""
        schema_id = self._id_by_subject.get(self._writer_and_key(value, topic)[1])
        return None if schema_id is None else confluent_frame(schema_id, value[HEADER_SIZE:])

    def to_confluent(self, value: bytes, topic: str) -> bytes:
        """The same body under the registry's header: the writer schema's id under the topic's subject, registered
        there (or, without auto-registration, looked up). Registry failures: `RegistryError`."""
        writer, key = self._writer_and_key(value, topic)
        schema_id = self._id_by_subject.get(key)
        if schema_id is None:
            schema_id = self._schema_id(key[0], schema_json(writer.parsed))
            self._id_by_subject[key] = schema_id
        return confluent_frame(schema_id, value[HEADER_SIZE:])

    def _schema_id(self, subject: str, schema_str: str) -> int:
        import httpx
        from confluent_kafka.schema_registry import Schema
        from confluent_kafka.schema_registry.error import SchemaRegistryError

        schema = Schema(schema_str, "AVRO")
        try:
            if self._auto_register:
                return int(self._client.register_schema(subject, schema))
            return int(self._client.lookup_schema(subject, schema).schema_id or 0)
        except SchemaRegistryError as exc:
            if exc.http_status_code == 409:
                raise RegistryError("SCHEMA_INCOMPATIBLE", f"{subject}: the registry refused the schema: "
                                                           f"{exc.error_message}") from exc
            if exc.http_status_code == 404:
                raise RegistryError("SCHEMA_NOT_REGISTERED", f"{subject}: not registered (auto-registration is "
                                                             f"off; run `omega schemas register`)") from exc
            raise RegistryError("REGISTRY_UNAVAILABLE", f"{subject}: the registry answered {exc}") from exc
        except httpx.HTTPError as exc:  # refused, timed out, TLS, DNS: the registry is out of reach
            raise RegistryError("REGISTRY_UNAVAILABLE", f"{subject}: registry unreachable: {exc!r}") from exc


def registry_client(config: Mapping[str, str]) -> SchemaRegistryClient:
    """confluent-kafka's client for `config` (a `mock://...` URL: its in-memory mock, one store per client);
    SettingsError when the `registry` extra is not installed."""
    try:
        from confluent_kafka.schema_registry import SchemaRegistryClient
    except ImportError as exc:
        raise SettingsError("OMEGA_SCHEMA_REGISTRY_URL is set, but confluent-kafka is not installed: "
                            "pip install 'omega-stream-verifier[registry]'") from exc
    return SchemaRegistryClient.new_client(dict(config))


def framing_from_settings(settings: Settings, local: SchemaRegistry) -> RegistryFraming | None:
    """The framing converter for `OMEGA_SCHEMA_REGISTRY_URL` and the topic prefix; None without a registry."""
    config = settings.schema_registry_config()
    if config is None:
        return None
    return RegistryFraming(local, registry_client(config), settings.topic_prefix)


@contextmanager
def closing_remote(registry: SchemaRegistry) -> Iterator[None]:
    """Close the registry client behind `registry` (if any) when the block ends."""
    try:
        yield
    finally:
        if isinstance(registry.remote, RegistryFraming):
            registry.remote.close()


def with_registry(settings: Settings, local: SchemaRegistry | None = None) -> SchemaRegistry:
    """Our schemas (`local`, else `schemas_avro/`) reading registry-framed records too when
    `OMEGA_SCHEMA_REGISTRY_URL` is set (every Kafka reader: worker, tail, projector, watch)."""
    registry = local or SchemaRegistry.from_directory()
    if registry.remote is None:
        registry.remote = framing_from_settings(settings, registry)
    return registry
