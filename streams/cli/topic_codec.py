"""The codecs of `omega publish` and `omega tail`: a recorded event -> the (key, value) bytes its topic carries, and a
topic record -> the JSON line `omega tail` prints (or `omega replay` / `omega project --from` read back)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omega.bytes_json import jsonable
from omega.canonical import canonical_json
from streams.kafka.tracing import HEADER as TRACE_HEADER
from streams.kafka.tracing import parent_of
from streams.records import json_view, key_text
from streams.replay.inputs import InputRecord, input_stem
from streams.stages.base import InputRejected
from streams.stages.keys import natural_key
from streams.stages.packets import PacketStage
from streams.topics import PACKETS, PACKETS_JSON, TopicSpec
from streams.wire.codec import CONFLUENT_MAGIC, MARKER
from streams.wire.omen_avro import PACKET_AS_SENT_SCHEMA, PACKET_SCHEMA


def encode_for_topic(packet_stage: PacketStage, record: InputRecord, spec: TopicSpec | None,
                     session_id: str | None = None) -> tuple[bytes | None, bytes]:
    """(key, value) to publish: verbatim bytes for JSON topics, single-object Avro for Avro topics, keyed by the
    record's natural key (stages/keys.py; agent output: `session_id`, else its file's stem).

    Records of an Avro container file are turned back into the packet JSON a producer would send first.
    """
    raw = record.raw
    if record.stage == "avro" and record.schema_name == PACKET_AS_SENT_SCHEMA and isinstance(record.datum, dict):
        raw = str(record.datum.get("packet_json")).encode("utf-8")
    elif record.stage == "avro":
        if record.schema_name != PACKET_SCHEMA:
            raise ValueError(f"container holds {record.schema_name} records, not {PACKET_SCHEMA}")
        raw = canonical_json(packet_stage.packets.from_avro(record.datum)).encode("utf-8")
    if spec is None or spec.value_schema is None:
        # a session file's record is keyed by its stem already (read_inputs); a line of a JSONL file by its file's name
        stem = input_stem(Path(record.source.topic.removeprefix("file:")))
        session = session_id or (None if record.source.key else stem)
        return natural_key(spec, raw, record.source.key, session), raw
    if spec is not PACKETS:
        raise ValueError(f"publishing to {spec.name} ({spec.value_schema}) is not supported")
    [emit] = packet_stage.ingress(raw, record.source)
    if emit.topic is not PACKETS:
        raise ValueError(str(emit.record["reason"]))
    return emit.key.encode("utf-8"), emit.value


def decode_record(packet_stage: PacketStage, value: bytes | None) -> Any:
    """A topic record as JSON: Avro decoded (packets back to their JSON form), anything else as text; a value that
    does not decode is shown as `{"undecodable": why, "raw": ...}`."""
    if value is None:
        return None
    if value[:2] == MARKER or value[:1] == CONFLUENT_MAGIC:  # single-object, or a Schema Registry frame
        try:
            name, datum = packet_stage.outputs.registry.decode(value)
            if name in (PACKET_SCHEMA, PACKET_AS_SENT_SCHEMA):  # a packet as its JSON, whichever record carries it
                return packet_stage.packet_of(name, datum)
            return json_view(datum)
        except ValueError as exc:
            return {"undecodable": str(exc), "raw": jsonable(value)}
        except InputRejected as exc:
            return {"undecodable": exc.reason, "raw": jsonable(value)}
    return jsonable(value)


def replay_line(spec: TopicSpec | None, name: str, partition: int, offset: int, key: bytes | None, value: Any,
                headers: Sequence[tuple[str, bytes]] = ()) -> str:
    """A tailed record as `omega replay` reads it back (a packet topic: the packet's JSON, one per line) or as
    `omega project --from` does (any other topic: the line `Replayer` writes, under the topic's unprefixed name).

    A record with a valid `traceparent` header keeps it: a packet's line is then the envelope `omega replay` reads
    (`{"topic", "key", "value", "headers"}`), so a replay gives the outputs the worker's headers."""
    traceparent = parent_of(headers)
    if (spec is PACKETS or spec is PACKETS_JSON) and traceparent is None:
        return canonical_json(value) if not isinstance(value, dict) or "utf8" not in value else str(value["utf8"])
    text = key_text(key, "")
    line = {"topic": spec.name if spec is not None else name, "key": text, "value": value}
    if traceparent is not None:
        line["headers"] = {TRACE_HEADER: traceparent}
    return canonical_json(line)
