"""Embedded replay: recorded events through the same pipeline stages as the worker, with in-memory state.

Inputs are read in the order given (files, then lines or records), which is the order of the log.
Outputs are JSON lines `{"topic", "key", "value"}`; replaying the same files twice gives the same bytes.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import fastavro

from omega import strictjson
from omega.canonical import canonical_json
from omega.packets.ledger import EpisodeLedger
from streams.stages.base import Emit, Source
from streams.stages.episodes import EpisodeSteps
from streams.stages.messages import MonitorStage, SessionSteps
from streams.stages.packets import Pipeline
from streams.topics import AGENT_MESSAGES, DEAD_LETTERS, PACKETS, TERMINATIONS, VERDICTS, TopicSpec
from streams.wire.omen_avro import PACKET_SCHEMA

JSON_SUFFIXES = {".json"}
AVRO_SUFFIXES = {".avro"}
MESSAGE_SUFFIXES = {".yaml", ".yml"}


@dataclass(frozen=True)
class InputRecord:
    """One recorded event: its position, its bytes, and which stage it enters (`json` or `avro`)."""

    source: Source
    raw: bytes
    stage: str
    datum: Any = None
    schema_name: str | None = None


def read_inputs(paths: Iterable[Path]) -> Iterator[InputRecord]:
    """Events of JSON (one packet or an array), JSONL, or Avro object container files, and OMEGA-57 sessions
    (.yaml/.yml), in log order."""
    for path in paths:
        suffix = path.suffix.lower()
        topic = f"file:{path}"
        if suffix in AVRO_SUFFIXES:
            with path.open("rb") as handle:
                reader = fastavro.reader(handle)
                writer = reader.writer_schema
                name = str(writer.get("name", "")) if isinstance(writer, dict) else ""
                for n, datum in enumerate(reader):
                    # Avro doubles may hold NaN, which canonical JSON refuses: the raw text keeps it readable
                    raw = json.dumps(jsonable(datum), sort_keys=True, separators=(",", ":"),
                                     ensure_ascii=False).encode("utf-8")
                    yield InputRecord(Source(topic, 0, n), raw, "avro", datum, name)
        elif suffix in MESSAGE_SUFFIXES:
            # An OMEGA-57 session recorded as one YAML stream: the file is the session, its stem the session id.
            yield InputRecord(Source(topic, 0, 0, path.stem.encode("utf-8")), path.read_bytes(), "message")
        elif suffix in JSON_SUFFIXES:
            yield from _read_json_document(path, topic)
        else:
            with path.open("rb") as handle:
                for n, line in enumerate(handle, start=1):
                    if line.strip():
                        yield InputRecord(Source(topic, 0, n), line.rstrip(b"\r\n"), "json")


def _read_json_document(path: Path, topic: str) -> Iterator[InputRecord]:
    raw = path.read_bytes()
    try:
        document = strictjson.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        yield InputRecord(Source(topic, 0, 0), raw, "json")  # the ingress stage names the error
        return
    if not isinstance(document, list):  # a lone object has no episode context
        yield InputRecord(Source(topic, 0, 0), canonical_json(document).encode("utf-8"), "single")
        return
    for n, item in enumerate(document):
        yield InputRecord(Source(topic, 0, n), canonical_json(item).encode("utf-8"), "json")



def jsonable(value: Any) -> Any:
    """A record as JSON: bytes become `{"utf8": ...}` when they are text, else `{"base64": ...}`."""
    if isinstance(value, bytes):
        try:
            return {"utf8": value.decode("utf-8")}
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


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


class Replayer:
    """Feeds recorded events through the worker's own steps (stages/episodes.py, stages/messages.py), with dicts
    for its tables: a record gives the same outputs here as live, a STATE_TOO_LARGE dead letter included."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        self.episodes: dict[str, Any] = {}  # the episodes table: ledgers and judgements (stages/episodes.py)
        self.sessions: dict[str, Any] = {}  # the sessions table
        self.episode_steps = EpisodeSteps(pipeline, self.episodes)
        self.session_steps = SessionSteps(MonitorStage(pipeline), self.sessions)
        self.summary = ReplaySummary()
        self._packet_offset = 0
        self._episode_keys: set[str] = set()  # episodes with a stored ledger (the table also holds judgements)

    @property
    def watermark_ms(self) -> int | None:
        """The log's watermark: the largest event time of a packet judged so far (one replayed partition)."""
        return self.episode_steps.watermarks.get(0)

    def ledgers(self) -> dict[str, EpisodeLedger]:
        """Every episode's ledger as stored now, decoded, by correlation_id."""
        return {key: ledger for key in sorted(self._episode_keys)
                if (ledger := self.episode_steps.ledger(key)) is not None}

    def feed(self, record: InputRecord) -> list[Emit]:
        """All outputs of one recorded event, in order (the internal Avro hop is not an output)."""
        self.summary.events_in += 1
        if record.stage == "avro":
            stage_one = self._reencode(record)
        elif record.stage == "single":
            stage_one = self.pipeline.single_packet(record.raw, record.source)
        elif record.stage == "message":
            return self._counted(self.session_steps.record(record.raw, record.source))
        else:
            stage_one = self.pipeline.ingress(record.raw, record.source)
        outputs: list[Emit] = []
        for emit in stage_one:
            if emit.topic is PACKETS:
                outputs.extend(self._packet(emit))
            else:
                outputs.append(emit)
        return self._counted(outputs)

    def _counted(self, outputs: list[Emit]) -> list[Emit]:
        for emit in outputs:
            self.summary.count(emit)
        self.summary.episodes = len(self._episode_keys)
        self.summary.sessions = len(self.sessions)
        return outputs

    def finish(self) -> list[Emit]:
        """End of the log: every episode advances to the log's watermark, so quiet episodes' dangling
        directives time out just as the live timer makes them (INV-011)."""
        return self._counted(self.episode_steps.finish(self.watermark_ms))

    def _reencode(self, record: InputRecord) -> list[Emit]:
        """An Avro container record becomes the packets-topic bytes the worker would read."""
        if record.schema_name != PACKET_SCHEMA:
            reason = f"container holds {record.schema_name or 'unnamed'} records, expected {PACKET_SCHEMA}"
            return [self.pipeline.dead_letter(record.raw, record.source, "WRONG_SCHEMA", reason)]
        try:
            text = canonical_json(self.pipeline.packets.from_avro(record.datum))  # NaN has no JSON form
        except (ValueError, KeyError, TypeError) as exc:
            return [self.pipeline.dead_letter(record.raw, record.source, "AVRO_CONTENT", str(exc))]
        return self.pipeline.ingress(text.encode("utf-8"), record.source)

    def _packet(self, emit: Emit) -> list[Emit]:
        """The packets-topic record the ingress made, judged as the validator agent judges it (one partition)."""
        source = Source(f"replay:{PACKETS.name}", 0, self._packet_offset, emit.key.encode(), emit.timestamp_ms)
        self._packet_offset += 1
        outputs = self.episode_steps.record(emit.value, source)
        if emit.key in self.episodes:
            self._episode_keys.add(emit.key)
        return outputs

    def run(self, records: Iterable[InputRecord], out: IO[str] | None = None) -> ReplaySummary:
        """Replay everything, writing each output as one JSON line to `out`."""
        for record in records:
            self._write(self.feed(record), out)
        self._write(self.finish(), out)
        return self.summary

    @staticmethod
    def _write(emits: list[Emit], out: IO[str] | None) -> None:
        if out is not None:
            for emit in emits:
                line = {"topic": emit.topic.name, "key": emit.key, "value": jsonable(dict(emit.record))}
                out.write(canonical_json(line) + "\n")


# ------------------------------------------------------------------ recorded events <-> topic bytes (publish, tail)
def encode_for_topic(pipeline: Pipeline, record: InputRecord, spec: TopicSpec | None) -> tuple[bytes | None, bytes]:
    """(key, value) to publish: verbatim bytes for JSON topics, single-object Avro for Avro topics.

    Records of an Avro container file are turned back into the packet JSON a producer would send first.
    """
    raw = record.raw
    if record.stage == "avro":
        if record.schema_name != PACKET_SCHEMA:
            raise ValueError(f"container holds {record.schema_name} records, not {PACKET_SCHEMA}")
        raw = canonical_json(pipeline.packets.from_avro(record.datum)).encode("utf-8")
    if spec is None or spec.value_schema is None:
        return record.source.key, raw
    if spec is not PACKETS:
        raise ValueError(f"publishing to {spec.name} ({spec.value_schema}) is not supported")
    [emit] = pipeline.ingress(raw, record.source)
    if emit.topic is not PACKETS:
        raise ValueError(str(emit.record["reason"]))
    return emit.key.encode("utf-8"), emit.value


def decode_record(pipeline: Pipeline, value: bytes | None) -> Any:
    """A topic record as JSON: Avro decoded (packets back to their JSON form), anything else as text; a value that
    does not decode is shown as `{"undecodable": why, "raw": ...}`."""
    if value is None:
        return None
    if value[:2] == b"\xc3\x01":
        try:
            name, datum = pipeline.registry.decode(value)
            return pipeline.packets.from_avro(datum) if name == PACKET_SCHEMA else jsonable(datum)
        except ValueError as exc:
            return {"undecodable": str(exc), "raw": jsonable(value)}
    return jsonable(value)
