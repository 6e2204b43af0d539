"""Embedded replay: recorded events through the worker's own stages, with in-memory state.

Inputs are read in the order given (files, a directory's files by name, then lines or records), which is the order
of the log; gzip is read through, `-` is stdin, and a binary input is refused whole (InputError).
Outputs are JSON lines `{"topic", "key", "value"}`; replaying the same files twice gives the same bytes.

Trace context (issue 23): a recorded record with a `traceparent` (an envelope line, streams/replay/inputs.py) gives
its outputs the headers the worker sends them with, and their lines carry `"headers": {"traceparent"}`; outputs of
records without one have no `headers`, as live. The worker derives each output's span from its parent's and the
output's topic and bytes (kafka/tracing.py), hop by hop: a record of the JSON ingress makes a packet, the packet's
record is a child of it, and the validator's outputs are children of the packet's. Replay has no packets-topic
record, so it derives that middle hop the same way; a record read from the packets topic is that hop already.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import IO, Any

from omega.bytes_json import jsonable
from omega.canonical import canonical_json
from omega.packets.authenticity import AuthPolicy
from omega.packets.ledger import EpisodeLedger
from streams.kafka.partitioning import partition_of
from streams.kafka.tracing import HEADER as TRACE_HEADER
from streams.kafka.tracing import child_of
from streams.records import details_decoded, json_view
from streams.replay.inputs import InputRecord, Origin
from streams.stages.base import Emit, Outputs, Source
from streams.stages.episodes import EpisodeSteps
from streams.stages.messages import MonitorStage, SessionSteps
from streams.stages.packets import PacketRead, PacketStage
from streams.topics import AGENT_MESSAGES, DEAD_LETTERS, PACKETS, TERMINATIONS, VERDICTS
from streams.wire.omen_avro import PACKET_AS_SENT_SCHEMA, PACKET_SCHEMA


def _bytes_view(value: object) -> object:
    if isinstance(value, bytes):
        return jsonable(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# `canonical_json(jsonable(...))` in one pass: the C encoder calls `default` only for the bytes jsonable would turn
# into {"utf8"}/{"base64"} objects (and sorts their keys like any other), so the text is the same, without a walk
# that copies every record first (a tenth of replay's time).
_LINE_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False,
                                 default=_bytes_view)


def output_line(emit: Emit) -> str:
    """The JSON line `omega replay --out` writes for one output: `{"topic", "key", "value": json_view}`."""
    value = details_decoded(dict(emit.record))  # a shallow copy: only `details` is replaced
    line: dict[str, Any] = {"topic": emit.topic.name, "key": emit.key, "value": value}
    if emit.traceparent is not None:
        line["headers"] = {TRACE_HEADER: emit.traceparent}
    try:
        return _LINE_ENCODER.encode(line)
    except ValueError:  # NaN: the error canonical_json words the same on every Python
        return canonical_json({**line, "value": json_view(emit.record)})


@dataclass
class ReplaySummary:
    """Counts for the readable summary."""

    events_in: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)
    alerts: Counter[str] = field(default_factory=Counter)
    dead_letters: Counter[str] = field(default_factory=Counter)
    escalations: int = 0
    episodes: int = 0
    messages: int = 0
    terminations: Counter[str] = field(default_factory=Counter)
    sessions: int = 0

    def count(self, emit: Emit) -> None:
        """Add one output to the counts."""
        if emit.topic is VERDICTS:
            self.verdicts[str(emit.record["status"])] += 1
        elif emit.topic is DEAD_LETTERS:
            self.dead_letters[str(emit.record["error_class"])] += 1
        elif emit.topic.logical == "alerts":
            self.alerts[str(emit.record["kind"])] += 1
        elif emit.topic.logical == "escalations":
            self.escalations += 1
        elif emit.topic is AGENT_MESSAGES:
            self.messages += 1
        elif emit.topic is TERMINATIONS:
            self.terminations[str(emit.record["status"])] += 1


PACKETS_SOURCE = f"replay:{PACKETS.name}"  # the source topic of a record the ingress made (one partition, offset n)


class _NotingSteps(EpisodeSteps):
    """The episode steps, noting which packets-topic record each packet judged under a lateness came from: a record
    may then release the verdicts (and alerts) of packets that arrived before it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.noted: list[tuple[Source, list[Emit]]] = []

    def judge(self, src: Source, raw: bytes, key: str, read: PacketRead, late: bool = False) -> list[Emit]:
        emits = super().judge(src, raw, key, read, late)
        self.noted.append((src, emits))
        return emits


class Replayer:
    """Feeds recorded events through the worker's own steps (stages/episodes.py, stages/messages.py), with dicts
    for its tables: a record gives the same outputs here as live, a STATE_TOO_LARGE dead letter included.

    With `origins`, `self.origins` holds after each `feed` and `finish`, per output, where the record that caused
    it starts in its input (`Origin`; `omega check` prints it as `source`): the record fed, or under a lateness the
    record of the waiting packet the watermark released; None for an output of the end of the log that no record
    caused (an INV-011 timeout). The outputs themselves are the same either way."""

    def __init__(self, outputs: Outputs, max_lateness_ms: int = 0, partitions: int = 1,
                 origins: bool = False, auth_policy: AuthPolicy | None = None) -> None:
        """`partitions`: the worker's packets partitions; under a lateness each has its own watermark, as live
        (which packets are late depends on it); without one, or with 1, the log is one partition. `auth_policy`:
        the packet stage's, as the worker's (None: signatures are not checked)."""
        self.outputs = outputs
        self.packet_stage = PacketStage(outputs, auth_policy)
        self.episodes: dict[str, Any] = {}  # the episodes table: ledgers and judgements (stages/episodes.py)
        self.sessions: dict[str, Any] = {}  # the sessions table
        # the end of the log releases every waiting packet, as the worker's idle release does live
        self.partitions = partitions if max_lateness_ms > 0 else 1
        self._key_partitions: dict[str, int] = {}
        noting = origins and max_lateness_ms > 0
        self._noting = _NotingSteps(self.packet_stage, self.episodes, self._partition_of, max_lateness_ms) \
            if noting else None
        self.episode_steps = self._noting or EpisodeSteps(self.packet_stage, self.episodes, self._partition_of,
                                                          max_lateness_ms)
        self.session_steps = SessionSteps(MonitorStage(self.outputs), self.sessions)
        self.summary = ReplaySummary()
        self._packet_offsets: dict[int, int] = {}  # packets partition -> next offset
        self.episode_order: list[str] = []  # episodes with a stored ledger, in the order the table got them
        self._episode_keys: set[str] = set()
        self.origins: list[Origin | None] | None = [] if origins else None
        # under a lateness: (partition, offset) of each packets-topic record -> the origin of the record that made it
        self._packet_origins: dict[tuple[int, int], Origin] | None = {} if noting else None
        self._released: list[Origin | None] = []  # under a lateness: the origins of the outputs so far of this feed

    @property
    def watermark_ms(self) -> int | None:
        """The log's watermark: the largest event time of a packet judged so far (over every partition)."""
        return max(self.episode_steps.watermarks.values(), default=None)

    def ledgers(self) -> dict[str, EpisodeLedger]:
        """Every episode's ledger as stored now, decoded, by correlation_id."""
        return {key: ledger for key in sorted(self.episode_order)
                if (ledger := self.episode_steps.ledger(key)) is not None}

    def feed(self, record: InputRecord) -> list[Emit]:
        """All outputs of one recorded event, in order (the internal Avro hop is not an output)."""
        self.summary.events_in += 1
        parent = record.traceparent
        origin = record.origin() if self.origins is not None else None
        read: PacketRead | None = None  # the packet of the packets-topic record the ingress made, as read back
        if record.stage == "avro":
            stage_one, read = self._reencode(record)
        elif record.stage == "single":
            stage_one = self.packet_stage.single_packet(record.raw, record.source)
        elif record.stage == "message":
            return self._counted(_traced(self.session_steps.record(record.raw, record.source), parent), origin)
        elif record.stage == "refused":
            refused = self.outputs.dead_letter(record.raw, record.source, "UNREPLAYABLE_RECORD", str(record.datum))
            return self._counted(_traced([refused], parent), origin)
        else:
            stage_one, read = self.packet_stage.ingress_read(record.raw, record.source)
        outputs: list[Emit] = []
        for emit in stage_one:
            if emit.topic is PACKETS and read is not None:
                # the packets-topic record's own traceparent: the recorded one when it was read from that topic
                hop = parent if parent is None or record.topic == PACKETS.name else \
                    child_of(parent, PACKETS.name, emit.value)
                outputs.extend(_traced(self._packet(emit, read, origin), hop))
            else:
                outputs.extend(_traced([emit], parent))
                self._released.append(origin)
        return self._counted(outputs, origin, released=self._packet_origins is not None)

    def _counted(self, outputs: list[Emit], origin: Origin | None = None, released: bool = False) -> list[Emit]:
        """Count the outputs; with `origins`, note theirs: `origin` for each, or with `released` those `_released`
        gathered (under a lateness)."""
        for emit in outputs:
            self.summary.count(emit)
        self.summary.episodes = len(self.episode_order)
        self.summary.sessions = len(self.sessions)
        if self.origins is not None:
            self.origins = self._released if released else [origin] * len(outputs)
        if self._released:
            self._released = []
        return outputs

    def finish(self, watermark_ms: int | None = None) -> list[Emit]:
        """End of the log: every episode advances to the log's watermark (`watermark_ms` when given: the whole
        log's, when this replayer saw part of it), so quiet episodes' dangling directives time out just as the
        live timer makes them (INV-011)."""
        emits = self.episode_steps.finish(self.watermark_ms if watermark_ms is None else watermark_ms)
        if self._packet_origins is not None:
            self._released = self._origins_of(emits, None)
        return self._counted(emits, None, released=self._packet_origins is not None)

    def _reencode(self, record: InputRecord) -> tuple[list[Emit], PacketRead | None]:
        """An Avro container record becomes the packets-topic bytes the worker would read (and their packet)."""
        if record.schema_name == PACKET_AS_SENT_SCHEMA and isinstance(record.datum, dict):
            return self.packet_stage.ingress_read(str(record.datum.get("packet_json")).encode("utf-8"), record.source)
        if record.schema_name != PACKET_SCHEMA:
            reason = (f"container holds {record.schema_name or 'unnamed'} records, expected {PACKET_SCHEMA} or "
                      f"{PACKET_AS_SENT_SCHEMA}")
            return [self.outputs.dead_letter(record.raw, record.source, "WRONG_SCHEMA", reason)], None
        try:
            text = canonical_json(self.packet_stage.packets.from_avro(record.datum))  # NaN has no JSON form
        except (ValueError, KeyError, TypeError) as exc:
            return [self.outputs.dead_letter(record.raw, record.source, "AVRO_CONTENT", str(exc))], None
        return self.packet_stage.ingress_read(text.encode("utf-8"), record.source)

    def _packet(self, emit: Emit, read: PacketRead, origin: Origin | None = None) -> list[Emit]:
        """The packets-topic record the ingress made, judged as the validator agent judges it (on its key's
        partition)."""
        partition = self._partition_of(emit.key)
        offset = self._packet_offsets.get(partition, 0)
        self._packet_offsets[partition] = offset + 1
        source = Source(PACKETS_SOURCE, partition, offset, emit.key.encode(), emit.timestamp_ms)
        if self._packet_origins is not None and origin is not None:
            self._packet_origins[(partition, offset)] = origin
        outputs = self.episode_steps.packet(source, emit.value, emit.key, read)
        if emit.key in self.episodes and emit.key not in self._episode_keys:
            self._episode_keys.add(emit.key)
            self.episode_order.append(emit.key)
        if self._packet_origins is not None:
            self._released.extend(self._origins_of(outputs, origin))
        return outputs

    def _origins_of(self, outputs: list[Emit], otherwise: Origin | None) -> list[Origin | None]:
        """Under a lateness, each output's origin: that of the packet whose judgement made it (noted by
        `_NotingSteps`), else `otherwise` (the record fed; None at the end of the log)."""
        if self._noting is None or self._packet_origins is None:
            return [otherwise] * len(outputs)
        # every emit is alive here, so no two share an id
        judged = {id(e): (src.partition, src.offset) for src, emits in self._noting.noted for e in emits}
        self._noting.noted.clear()
        found = [self._packet_origins.get(judged[id(e)], otherwise) if id(e) in judged else otherwise
                 for e in outputs]
        for position in set(judged.values()):  # a packets-topic record is judged once
            self._packet_origins.pop(position, None)
        return found

    def _partition_of(self, key: str) -> int:
        if self.partitions <= 1:
            return 0
        partition = self._key_partitions.get(key)
        if partition is None:  # murmur2 in Python: once per episode, not once per packet
            partition = self._key_partitions[key] = partition_of(key, self.partitions)
        return partition

    def run(self, records: Iterable[InputRecord], out: IO[str] | None = None) -> ReplaySummary:
        """Replay everything, writing each output as one JSON line to `out`."""
        for record in records:
            self._write(self.feed(record), out)
        self._write(self.finish(), out)
        return self.summary

    @staticmethod
    def _write(emits: list[Emit], out: IO[str] | None) -> None:
        if out is not None and emits:
            out.write("".join(output_line(emit) + "\n" for emit in emits))


def _traced(emits: list[Emit], parent: str | None) -> list[Emit]:
    """`emits` with the traceparent the worker sends each with, as a child of `parent` (none without one)."""
    if parent is None:
        return emits
    return [replace(emit, traceparent=child_of(parent, emit.topic.name, emit.value)) for emit in emits]
