"""The OMEN packet stage (`PacketStage`): JSON packet -> Avro (ingress), Avro packet -> validator `evolve` -> verdicts,
alerts and escalations; watermark ticks; dead letters (encoded by the `Outputs` every stage shares).

Every attributable packet is judged (issue 41): one whose `header.packet_id`, `packet_type` and `correlation_id`
are strings but which the lossless `omega.omen.Packet` record cannot carry (a null, a wrong type or shape, an
unknown enum value or packet type) goes to the packets topic as an `omega.omen.PacketAsSent` record, its JSON text
as sent, and the validator judges it like any other (its schema errors become SCHEMA violations). Dead letters are
left for what cannot be attributed: not JSON, not an object, no readable identity, bytes that do not decode.

Shared unchanged by the Faust agents and embedded replay; state is passed in and returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from omega.canonical import content_hash
from omega.eventtime import to_iso, to_ms
from omega.packets.authenticity import AuthPolicy
from omega.packets.ledger import EpisodeLedger
from omega.packets.validator import advance, evolve_single
from omega.packets.validator import evolve as evolve_packet
from streams.logs import get_logger
from streams.records import key_text
from streams.stages.base import (
    Emit,
    InputRejected,
    Outputs,
    Source,
    bounded_reason,
    parse_json_object,
)
from streams.topics import PACKETS
from streams.wire.avro_json import ConversionError
from streams.wire.codec import DecodeError
from streams.wire.omen_avro import PACKET_AS_SENT_SCHEMA, PACKET_SCHEMA, PacketConverter

TICK_SCHEMA = "omega.events.WatermarkTick"
_IDENTITY = ("packet_id", "packet_type", "correlation_id")  # what makes a packet attributable
log = get_logger("omega.ingress")


@dataclass(frozen=True)
class WatermarkTick:
    """A watermark tick of the packets topic: the packets partition it advances, to its watermark."""

    partition: int
    watermark_ms: int | None


@dataclass(frozen=True)
class DecodedPacket:
    """A packet as the validator judges it, decoded once; its id, event time and content hash read when asked."""

    packet: dict[str, Any]

    @cached_property
    def packet_id(self) -> str | None:
        """`header.packet_id` when it is a string (else no watermark can place the packet)."""
        header = self.packet.get("header")
        packet_id = header.get("packet_id") if isinstance(header, dict) else None
        return packet_id if isinstance(packet_id, str) else None

    @cached_property
    def created_ms(self) -> int | None:
        """`header.created_at` in ms, None when absent or not a time."""
        header = self.packet.get("header")
        return to_ms(header.get("created_at")) if isinstance(header, dict) else None

    @cached_property
    def digest(self) -> str:
        """The packet's content hash."""
        return content_hash(self.packet)


@dataclass(frozen=True)
class Undecodable:
    """A packets-topic record that holds no packet, and why: its dead letter's error class and reason."""

    error_class: str
    reason: str


PacketRead = DecodedPacket | Undecodable  # one packets-topic record's packet, read once


class PacketStage:
    """The packet stage's functions over the shared `Outputs` (its schema registry and size bound); state is passed
    in and returned."""

    def __init__(self, outputs: Outputs, auth_policy: AuthPolicy | None = None) -> None:
        self.outputs = outputs
        self.auth_policy = auth_policy  # None: packet signatures are not checked (issue 9)
        self.packets = PacketConverter(outputs.registry.get(PACKET_SCHEMA).parsed)

    def ingress(self, raw: bytes, source: Source) -> list[Emit]:
        """JSON packet as a producer emitted it -> Avro on the packets topic, or a dead letter."""
        return self.ingress_read(raw, source)[0]

    def ingress_read(self, raw: bytes, source: Source) -> tuple[list[Emit], PacketRead | None]:
        """`ingress`, and the packet its packets-topic record carries as the validator reads it back (None for a dead
        letter): embedded replay judges that, without decoding the bytes just written."""
        try:
            packet = parse_json_object(raw, self.outputs.max_event_bytes)
            datum = self.packets.to_avro(packet)
        except InputRejected as exc:
            return [self.outputs.dead_letter(raw, source, exc.error_class, exc.reason)], None
        except ConversionError as exc:
            if not attributable(packet):
                return [self.outputs.dead_letter(raw, source, exc.error_class, str(exc))], None
            header = packet["header"]
            as_sent = {"packet_json": raw.decode("utf-8"), "not_carried": bounded_reason(f"{exc.error_class}: {exc}")}
            value = self.outputs.registry.encode(PACKET_AS_SENT_SCHEMA, as_sent)
            emit = Emit(PACKETS, header["correlation_id"], value, to_ms(header.get("created_at")), packet)
            return [emit], self.packet_read(PACKET_AS_SENT_SCHEMA, as_sent)
        header = packet["header"]
        value = self.outputs.registry.encode(PACKET_SCHEMA, datum)
        ts = to_ms(header.get("created_at"))
        # What a reader of `value` gets is `datum`, but for union branches named as (name, datum) tuples, which
        # `PacketConverter.from_avro` reads alike (tests/unit/streams/replay/test_replayer.py pins the judged
        # packet equal).
        return [Emit(PACKETS, header["correlation_id"], value, ts, packet)], self.packet_read(PACKET_SCHEMA, datum)

    def read(self, raw: bytes) -> WatermarkTick | PacketRead:
        """A packets-topic record decoded once: a watermark tick, a packet, or why it is neither (never raises)."""
        try:
            name, datum = self.outputs.registry.decode(raw)
        except DecodeError as exc:
            return Undecodable(exc.error_class, str(exc))
        if name == TICK_SCHEMA:
            return WatermarkTick(int(datum["partition"]), to_ms(datum["watermark"]))
        return self.packet_read(name, datum)

    def read_packet(self, raw: bytes) -> PacketRead:
        """A packet's Avro bytes (a Packet or a PacketAsSent record) decoded once, or why they are not one."""
        try:
            return DecodedPacket(self.decode_packet(raw))
        except InputRejected as exc:
            return Undecodable(exc.error_class, exc.reason)

    def packet_read(self, name: str, datum: Any) -> PacketRead:
        """The packet a decoded packets-topic record of type `name` carries, or why it carries none."""
        try:
            return DecodedPacket(self.packet_of(name, datum))
        except InputRejected as exc:
            return Undecodable(exc.error_class, exc.reason)

    def encode_tick(self, partition: int, watermark_ms: int) -> bytes:
        """A watermark tick for the packets topic."""
        return self.outputs.registry.encode(TICK_SCHEMA, {"partition": partition, "watermark": to_iso(watermark_ms)})

    def decode_packet(self, raw: bytes) -> dict[str, object]:
        """Avro single-object bytes (a Packet or a PacketAsSent record) -> packet dict; raises InputRejected."""
        try:
            name, datum = self.outputs.registry.decode(raw)
        except DecodeError as exc:
            raise InputRejected(exc.error_class, str(exc)) from exc
        return self.packet_of(name, datum)

    def packet_of(self, name: str, datum: Any) -> dict[str, object]:
        """The packet dict a packets-topic record carries, by its record type; raises InputRejected."""
        if name == PACKET_AS_SENT_SCHEMA:
            packet = parse_json_object(str(datum["packet_json"]).encode("utf-8"), self.outputs.max_event_bytes)
            if not attributable(packet):
                raise InputRejected("AVRO_CONTENT", "the packet's JSON has no readable packet_id, packet_type and "
                                                    "correlation_id")
            return packet
        if name != PACKET_SCHEMA:
            raise InputRejected("WRONG_SCHEMA", f"expected {PACKET_SCHEMA} or {PACKET_AS_SENT_SCHEMA}, got {name}")
        try:
            return self.packets.from_avro(datum)
        except (ValueError, KeyError) as exc:
            raise InputRejected("AVRO_CONTENT", f"undecodable JSON text inside the record: {exc}") from exc

    def judge(self, ledger: EpisodeLedger | None, read: PacketRead, raw: bytes, source: Source, late: bool = False
              ) -> tuple[EpisodeLedger | None, list[Emit]]:
        """A packet read from `raw` -> validator `evolve` -> verdict records; one that did not decode -> a dead
        letter of `raw`."""
        if isinstance(read, Undecodable):
            return ledger, [self.outputs.dead_letter(raw, source, read.error_class, read.reason)]
        new_ledger, outputs = evolve_packet(ledger, read.packet, self.auth_policy, late)
        return new_ledger, [self.outputs.output(o, source.timestamp_ms) for o in outputs]

    def packet(
        self, ledger: EpisodeLedger | None, raw: bytes, source: Source, late: bool = False
    ) -> tuple[EpisodeLedger | None, list[Emit]]:
        """Avro packet bytes -> `judge` (for a caller holding only the bytes)."""
        return self.judge(ledger, self.read_packet(raw), raw, source, late)

    def single_packet(self, raw: bytes, source: Source) -> list[Emit]:
        """A lone packet without episode context: ingress checks, then schema and per-packet invariants."""
        emits, read = self.ingress_read(raw, source)
        if read is None:
            return emits
        if isinstance(read, Undecodable):
            raise InputRejected(read.error_class, read.reason)
        verdict = evolve_single(read.packet, self.auth_policy)
        return [self.outputs.output(verdict, source.timestamp_ms)]

    def tick(self, ledger: EpisodeLedger, watermark_ms: int | None,
             again: bool = False) -> tuple[EpisodeLedger, list[Emit]]:
        """Advance one episode to a watermark: timeouts of directives that went quiet (INV-011). `again`: the
        tick may be a redelivery, so what this very watermark timed out is raised again (see `advance`)."""
        new_ledger, outputs = advance(ledger, watermark_ms, again)
        return new_ledger, [self.outputs.output(o, watermark_ms) for o in outputs]


def attributable(packet: dict[str, Any]) -> bool:
    """Whether the packet's `header.packet_id`, `packet_type` and `correlation_id` are strings: then it is judged,
    whatever else is wrong with it."""
    header = packet.get("header")
    return isinstance(header, dict) and all(isinstance(header.get(k), str) for k in _IDENTITY)


class IngressSteps:
    """The ingress agent's step: `PacketStage.ingress`, counting the records whose Kafka key is not their natural key
    (the packet's correlation_id). Such a record is judged all the same (the ingress re-keys it), but its episode's
    packets may have been spread over partitions and so judged out of order: it is logged, at the 1st, 10th, 100th...
    occurrence, so that a keyless or mis-keyed producer shows without one log line per record."""

    def __init__(self, packet_stage: PacketStage) -> None:
        self.packet_stage = packet_stage
        self.misskeyed = 0  # records so far whose key was not their correlation_id

    def record(self, raw: bytes, src: Source) -> list[Emit]:
        """One JSON packet record -> its Avro packets-topic record (or a dead letter), the key checked."""
        emits = self.packet_stage.ingress(raw, src)
        if emits[0].topic is PACKETS and src.key != emits[0].key.encode("utf-8"):
            self.misskeyed += 1
            if power_of_ten(self.misskeyed):
                log.warning("ingress_key_not_correlation_id", records=self.misskeyed, topic=src.topic,
                            partition=src.partition, offset=src.offset,
                            key=key_text(None if src.key is None else src.key[:256]), correlation_id=emits[0].key[:256])
        return emits


def power_of_ten(n: int) -> bool:
    """1, 10, 100, ...: the occurrences a rate-limited log line is written at."""
    while n % 10 == 0:
        n //= 10
    return n == 1
