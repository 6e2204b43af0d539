"""The stages that move bytes around the pure core, shared unchanged by the Faust agents and embedded replay.

Each stage takes the raw record and where it came from, and returns what to send where. Bad input is
data: any record that cannot be judged becomes a dead letter with its raw bytes and a readable reason.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from omega.canonical import derived_id
from omega.packets.ledger import EpisodeLedger
from omega.packets.validator import evolve as evolve_packet
from streams.avro_json import ConversionError
from streams.codec import DecodeError, SchemaRegistry
from streams.omen_avro import PACKET_SCHEMA, PacketConverter
from streams.topics import DEAD_LETTERS, PACKETS, VERDICTS, TopicSpec

MAX_JSON_DEPTH = 64


@dataclass(frozen=True)
class Source:
    """Where a record came from: a Kafka position, or `file:PATH` with the record number as offset."""

    topic: str
    partition: int
    offset: int
    key: bytes | None = None
    timestamp_ms: int | None = None


@dataclass(frozen=True)
class Emit:
    """One output record: topic, key, encoded value, event time, and the record as a dict (for JSONL)."""

    topic: TopicSpec
    key: str
    value: bytes
    timestamp_ms: int | None
    record: Mapping[str, Any]


class InputRejected(Exception):
    """An input that cannot be judged; becomes a dead letter."""

    def __init__(self, error_class: str, reason: str) -> None:
        super().__init__(reason)
        self.error_class = error_class
        self.reason = reason


def event_time_ms(iso: object) -> int | None:
    """Milliseconds since the epoch of an ISO-8601 event time (naive means UTC); None when unparseable."""
    if not isinstance(iso, str):
        return None
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


def _iso(ms: int | None) -> str | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat()


def parse_json_object(raw: bytes, max_bytes: int) -> dict[str, Any]:
    """Strict JSON: size bound, UTF-8, no NaN/Infinity, bounded nesting, an object at the top."""
    if len(raw) > max_bytes:
        raise InputRejected("OVERSIZED", f"{len(raw)} bytes exceeds the limit of {max_bytes}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputRejected("INVALID_UTF8", f"not UTF-8 at byte {exc.start}: {exc.reason}") from exc
    if _nesting_depth(text) > MAX_JSON_DEPTH:
        raise InputRejected("TOO_DEEP", f"JSON nesting deeper than {MAX_JSON_DEPTH}")
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputRejected("JSON_SYNTAX", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    except ValueError as exc:
        raise InputRejected("JSON_SYNTAX", str(exc)) from exc
    if not isinstance(value, dict):
        raise InputRejected("NOT_AN_OBJECT", f"expected a JSON object, got {type(value).__name__}")
    return value


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _nesting_depth(text: str) -> int:
    """Deepest bracket nesting outside JSON strings (brackets in text are data, not structure)."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return 0  # cannot be too deep: skip the per-character scan (most packets)
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


class Pipeline:
    """Stateless stage functions over one schema registry; state is passed in and returned."""

    def __init__(self, registry: SchemaRegistry, max_event_bytes: int = 1_048_576) -> None:
        self.registry = registry
        self.max_event_bytes = max_event_bytes
        self.packets = PacketConverter(registry.get(PACKET_SCHEMA).parsed)

    def encode(self, topic: TopicSpec, key: str, record: Mapping[str, Any], timestamp_ms: int | None) -> Emit:
        """Encode an output record for its topic."""
        assert topic.value_schema is not None
        return Emit(topic, key, self.registry.encode(topic.value_schema, record), timestamp_ms, record)

    def dead_letter(self, raw: bytes, source: Source, error_class: str, reason: str) -> Emit:
        """A dead letter for `raw`, with an id derived from its source position."""
        record = {
            "dead_letter_id": derived_id("dl_", source.topic, str(source.partition), str(source.offset)),
            "source_topic": source.topic,
            "source_partition": source.partition,
            "source_offset": source.offset,
            "source_key": source.key,
            "raw": bytes(raw),
            "error_class": error_class,
            "reason": reason,
            "event_time": _iso(source.timestamp_ms),
        }
        return self.encode(DEAD_LETTERS, source.topic, record, source.timestamp_ms)

    def ingress(self, raw: bytes, source: Source) -> list[Emit]:
        """JSON packet as a producer emitted it -> Avro on the packets topic, or a dead letter."""
        try:
            packet = parse_json_object(raw, self.max_event_bytes)
            datum = self.packets.to_avro(packet)
        except InputRejected as exc:
            return [self.dead_letter(raw, source, exc.error_class, exc.reason)]
        except ConversionError as exc:
            return [self.dead_letter(raw, source, exc.error_class, str(exc))]
        header = packet["header"]
        value = self.registry.encode(PACKET_SCHEMA, datum)
        ts = event_time_ms(header.get("created_at"))
        return [Emit(PACKETS, header["correlation_id"], value, ts, packet)]

    def decode_packet(self, raw: bytes) -> dict[str, object]:
        """Avro single-object bytes -> packet dict; raises InputRejected."""
        try:
            name, datum = self.registry.decode(raw)
        except DecodeError as exc:
            raise InputRejected(exc.error_class, str(exc)) from exc
        if name != PACKET_SCHEMA:
            raise InputRejected("WRONG_SCHEMA", f"expected {PACKET_SCHEMA}, got {name}")
        try:
            return self.packets.from_avro(datum)
        except (ValueError, KeyError) as exc:
            raise InputRejected("AVRO_CONTENT", f"undecodable JSON text inside the record: {exc}") from exc

    def packet(
        self, ledger: EpisodeLedger | None, raw: bytes, source: Source
    ) -> tuple[EpisodeLedger | None, list[Emit]]:
        """Avro packet -> validator `evolve` -> verdict records; undecodable bytes -> dead letter."""
        try:
            packet = self.decode_packet(raw)
        except InputRejected as exc:
            return ledger, [self.dead_letter(raw, source, exc.error_class, exc.reason)]
        new_ledger, verdicts = evolve_packet(ledger, packet)
        emits = [
            self.encode(VERDICTS, v.key, v.to_dict(), event_time_ms(v.event_time) or source.timestamp_ms)
            for v in verdicts
        ]
        return new_ledger, emits
