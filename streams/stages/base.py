"""The base of every stage: where a record came from (`Source`), what a stage sends (`Emit`), input rejection,
strict JSON, and the bounds a dead letter and a table entry must keep.

Each stage takes the raw record and where it came from, and returns what to send where. Bad input is
data: any record that cannot be judged becomes a dead letter with its raw bytes and a readable reason.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from omega import strictjson
from omega.agents.records import TerminationReport
from omega.canonical import derived_id
from omega.events import Alert, Escalation
from omega.eventtime import to_iso, to_ms
from omega.packets.verdict import PacketVerdict
from streams.topics import ALERTS, DEAD_LETTERS, ESCALATIONS, TERMINATIONS, VERDICTS, TopicSpec
from streams.wire.codec import SchemaRegistry

# the topic of each kind of core output (its `topic_kind`)
OUTPUT_TOPICS = {"verdicts": VERDICTS, "alerts": ALERTS, "escalations": ESCALATIONS, "terminations": TERMINATIONS}

MAX_JSON_DEPTH = 64
# A dead letter must fit the dead-letter topic (the broker's default max is ~1 MB) whatever it reports on:
# values and keys beyond these bounds travel as an excerpt (plus the value's size and SHA-256), reasons are cut.
DEAD_LETTER_RAW_BYTES = 65_536
DEAD_LETTER_KEY_BYTES = 4_096
DEAD_LETTER_REASON_CHARS = 4_096
# A table entry (key + JSON value) must fit its changelog record: past this, the step stores nothing and the
# record is a dead letter (STATE_TOO_LARGE); a failed changelog send would stop the worker's producer.
MAX_TABLE_ENTRY_BYTES = 990_000


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
    """One output record: topic, key, encoded value, event time, and the record as a dict (for JSONL); in replay,
    the `traceparent` header the worker would send it with (streams/replay/replayer.py; the worker derives its own)."""

    topic: TopicSpec
    key: str
    value: bytes
    timestamp_ms: int | None
    record: Mapping[str, Any]
    traceparent: str | None = None


class InputRejected(Exception):
    """An input that cannot be judged; becomes a dead letter."""

    def __init__(self, error_class: str, reason: str) -> None:
        super().__init__(reason)
        self.error_class = error_class
        self.reason = reason


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
        value = strictjson.loads(text)
    except json.JSONDecodeError as exc:
        raise InputRejected("JSON_SYNTAX", f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    except ValueError as exc:
        raise InputRejected("JSON_SYNTAX", str(exc)) from exc
    if not isinstance(value, dict):
        raise InputRejected("NOT_AN_OBJECT", f"expected a JSON object, got {type(value).__name__}")
    if _SURROGATE_ESCAPE.search(text):  # only an escape can make a lone surrogate from UTF-8 text
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InputRejected("INVALID_UNICODE", "a string holds a lone surrogate (an unpaired \\uD800-\\uDFFF "
                                "escape), which no output can carry") from exc
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


# What Faust's json codec writes a table's keys and values with (faust/utils/json.py, orjson being installed)
CHANGELOG_JSON = orjson.OPT_NON_STR_KEYS | orjson.OPT_UTC_Z


def _changelog_size(item: object) -> int:
    try:
        return len(orjson.dumps(item, option=CHANGELOG_JSON))
    except TypeError:  # nothing a step stores today; measured as the json module would write it
        return len(json.dumps(item).encode("utf-8", "surrogatepass"))


def oversized_entry(key: str, value: object) -> str | None:
    """Why a table entry would not fit its changelog record, or None when it fits: its key and value measured as
    the changelog carries them (Faust's json codec: orjson, compact), 5-10 times faster than the json module."""
    size = _changelog_size(key) + _changelog_size(value)
    if size <= MAX_TABLE_ENTRY_BYTES:
        return None
    return f"the table entry it makes is {size} bytes, more than the limit of {MAX_TABLE_ENTRY_BYTES}"


def bounded_reason(reason: str) -> str:
    """A reason of at most DEAD_LETTER_REASON_CHARS characters (reasons may quote the input, which may be huge)."""
    if len(reason) <= DEAD_LETTER_REASON_CHARS:
        return reason
    return f"{reason[:DEAD_LETTER_REASON_CHARS - 40]}... ({len(reason)} characters in all)"



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




class Outputs:
    """The encoder every stage shares: output records for their topics, dead letters, core outputs."""

    def __init__(self, registry: SchemaRegistry, max_event_bytes: int = 1_048_576) -> None:
        self.registry = registry
        self.max_event_bytes = max_event_bytes

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

    def output(self, output: PacketVerdict | Alert | Escalation | TerminationReport, fallback_ms: int | None) -> Emit:
        """Encode a core output for its topic, timestamped with its event time."""
        topic = OUTPUT_TOPICS[output.topic_kind]
        return self.encode(topic, output.key, output.to_dict(), to_ms(output.event_time) or fallback_ms)
