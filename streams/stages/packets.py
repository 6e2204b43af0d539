"""The OMEN packet stage, and the encoder every stage shares (`Pipeline`): JSON packet -> Avro (ingress), Avro
packet -> validator `evolve` -> verdicts, alerts and escalations; watermark ticks; dead letters.

Shared unchanged by the Faust agents and embedded replay; state is passed in and returned.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from omega.canonical import derived_id
from omega.events import Alert, Escalation
from omega.eventtime import to_iso, to_ms
from omega.packets.authenticity import AuthPolicy
from omega.packets.ledger import EpisodeLedger
from omega.packets.validator import advance, evolve_single
from omega.packets.validator import evolve as evolve_packet
from omega.packets.verdict import PacketVerdict
from streams.stages.base import (
    DEAD_LETTER_KEY_BYTES,
    DEAD_LETTER_RAW_BYTES,
    Emit,
    InputRejected,
    Source,
    bounded_reason,
    parse_json_object,
)
from streams.topics import ALERTS, DEAD_LETTERS, ESCALATIONS, PACKETS, VERDICTS, TopicSpec
from streams.wire.avro_json import ConversionError
from streams.wire.codec import DecodeError, SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter

OUTPUT_TOPICS = {"verdicts": VERDICTS, "alerts": ALERTS, "escalations": ESCALATIONS}

TICK_SCHEMA = "omega.events.WatermarkTick"


class Pipeline:
    """Stateless stage functions over one schema registry; state is passed in and returned."""

    def __init__(self, registry: SchemaRegistry, max_event_bytes: int = 1_048_576,
                 auth_policy: AuthPolicy | None = None) -> None:
        self.registry = registry
        self.max_event_bytes = max_event_bytes
        self.auth_policy = auth_policy  # None: packet signatures are not checked (issue 9)
        self.packets = PacketConverter(registry.get(PACKET_SCHEMA).parsed)

    def encode(self, topic: TopicSpec, key: str, record: Mapping[str, Any], timestamp_ms: int | None) -> Emit:
        """Encode an output record for its topic."""
        assert topic.value_schema is not None
        return Emit(topic, key, self.registry.encode(topic.value_schema, record), timestamp_ms, record)

    def dead_letter(self, raw: bytes, source: Source, error_class: str, reason: str, part: int = 0) -> Emit:
        """A dead letter for `raw`, with an id derived from its source position (and `part`, the message's
        index when one record holds several)."""
        position = (source.topic, str(source.partition), str(source.offset)) + ((str(part),) if part else ())
        whole = len(raw) <= DEAD_LETTER_RAW_BYTES
        key = source.key if source.key is None else bytes(source.key[:DEAD_LETTER_KEY_BYTES])
        record = {
            "dead_letter_id": derived_id("dl_", *position),
            "source_topic": source.topic,
            "source_partition": source.partition,
            "source_offset": source.offset,
            "source_key": key,
            "raw": bytes(raw[:DEAD_LETTER_RAW_BYTES]),
            "error_class": error_class,
            "reason": bounded_reason(reason),
            "event_time": to_iso(source.timestamp_ms),
            "raw_size": None if whole else len(raw),
            "raw_sha256": None if whole else hashlib.sha256(raw).hexdigest(),
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
        ts = to_ms(header.get("created_at"))
        return [Emit(PACKETS, header["correlation_id"], value, ts, packet)]

    def decode_tick(self, raw: bytes) -> int | None:
        """The partition of a watermark tick, or None when `raw` is not one."""
        try:
            if self.registry.writer_of(raw).name != TICK_SCHEMA:  # the header names it: no body decode
                return None
            _, datum = self.registry.decode(raw)
        except DecodeError:
            return None
        return int(datum["partition"])

    def encode_tick(self, partition: int, watermark_ms: int) -> bytes:
        """A watermark tick for the packets topic."""
        return self.registry.encode(TICK_SCHEMA, {"partition": partition, "watermark": to_iso(watermark_ms)})

    def tick_watermark(self, raw: bytes) -> int | None:
        """The watermark a tick carries."""
        _, datum = self.registry.decode(raw)
        return to_ms(datum["watermark"])

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
        new_ledger, outputs = evolve_packet(ledger, packet, self.auth_policy)
        return new_ledger, [self.output(o, source.timestamp_ms) for o in outputs]

    def output(self, output: PacketVerdict | Alert | Escalation, fallback_ms: int | None) -> Emit:
        """Encode a core output for its topic, timestamped with its event time."""
        topic = OUTPUT_TOPICS[output.topic_kind]
        return self.encode(topic, output.key, output.to_dict(), to_ms(output.event_time) or fallback_ms)

    def single_packet(self, raw: bytes, source: Source) -> list[Emit]:
        """A lone packet without episode context: ingress checks, then schema and per-packet invariants."""
        emits = self.ingress(raw, source)
        if emits[0].topic is not PACKETS:
            return emits
        verdict = evolve_single(self.decode_packet(emits[0].value), self.auth_policy)
        return [self.output(verdict, source.timestamp_ms)]

    def tick(self, ledger: EpisodeLedger, watermark_ms: int | None,
             again: bool = False) -> tuple[EpisodeLedger, list[Emit]]:
        """Advance one episode to a watermark: timeouts of directives that went quiet (INV-011). `again`: the
        tick may be a redelivery, so what this very watermark timed out is raised again (see `advance`)."""
        new_ledger, outputs = advance(ledger, watermark_ms, again)
        return new_ledger, [self.output(o, watermark_ms) for o in outputs]
