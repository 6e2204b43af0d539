"""The input envelope of the memory projections and the readers of its JSON-text fields.

A `LogEvent` is one decoded record as the runner hands it over: the logical topic (which record type it is),
its log position and key, and the record as fastavro decodes it (nested records as dicts, `omega.json`
logical-type fields as canonical JSON text, extras maps of JSON text or None).

Identity rules (so a rebuild from any log position, or from a file instead of Kafka, gives the same ids):
- `event_id` derives from the logical topic, the key and the record's natural id (message_id, alert_id,
  report_id, verdict_id, escalation_id), never from the offset; a record without one is identified by the
  hash of its canonical form.
- The position (`position_source`, partition, offset) only serves the tracking record; `source` defaults to
  the topic and is e.g. "file:PATH" for a file source.

Times are normalised to UTC `YYYY-MM-DDTHH:MM:SS.mmmZ`, which sorts as text in time order: the memories keep
their time-ordered collections sorted by (time, id) without reparsing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC
from functools import cached_property
from typing import Any, TypeVar, cast

import orjson

from omega import strictjson
from omega.agents.message_reading import verdict_tag
from omega.canonical import content_hash, derived_id
from omega.eventtime import parse_iso

AGENT_MESSAGES = "agent_messages"
ALERTS = "alerts"
TERMINATIONS = "terminations"
VERDICTS = "verdicts"
ESCALATIONS = "escalations"
TOPICS = (AGENT_MESSAGES, ALERTS, TERMINATIONS, VERDICTS, ESCALATIONS)

NATURAL_ID = {AGENT_MESSAGES: "message_id", ALERTS: "alert_id", TERMINATIONS: "report_id",
              VERDICTS: "verdict_id", ESCALATIONS: "escalation_id"}
SESSION_FIELD = {AGENT_MESSAGES: "session_id", ALERTS: "subject_id", TERMINATIONS: "session_id",
                 VERDICTS: "correlation_id", ESCALATIONS: "subject_id"}
TIME_FIELD = {ALERTS: "event_time", TERMINATIONS: "event_time", VERDICTS: "event_time", ESCALATIONS: "event_time"}

PHI = 57
CONFLICT_RESOLVER = 50
QUALITY_CONTROLLER = 52

T = TypeVar("T")

LAST = "\uffff"
"""Sort key of an entry without a usable time: after every timed one, so the order stays total."""


# ------------------------------------------------------------------------------------------- JSON text
def read_json(text: object) -> Any:
    """The value of an `omega.json` text; None stays None, and text that is not JSON is kept as the text."""
    if text is None:
        return None
    if not isinstance(text, str | bytes):
        return text  # already decoded (a test or a JSON ingress handed the value itself)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    try:
        # The stdlib reads what orjson refuses (integers past 64 bits); NaN and Infinity stay refused.
        return strictjson.loads(text)
    except ValueError:
        return text if isinstance(text, str) else text.decode("utf-8", "replace")


def read_extras(extras: object) -> dict[str, Any]:
    """An extras map (JSON text per key, or None) as a dict of values; an empty dict when there is none."""
    if not isinstance(extras, dict):
        return {}
    return {str(k): read_json(v) for k, v in extras.items()}


def truthy(value: Any) -> bool:
    """Whether a producer's signal value means "yes": true, a non-empty text or container, a non-zero number.

    The texts "false", "no", "none", "null" and "0" mean no: LLM producers write booleans as text.
    """
    if value is None or value is False:
        return False
    if value is True:
        return True
    if isinstance(value, str):
        return value.strip().casefold() not in {"", "false", "no", "none", "null", "0"}
    if isinstance(value, int | float):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, dict | list | tuple):
        return len(value) > 0
    return True


def text_of(value: Any, default: str = "") -> str:
    """A display text for a JSON value: a string as is, anything else as compact canonical JSON."""
    if value is None:
        return default
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")
    except TypeError:
        return str(value)


def number(value: Any) -> float | None:
    """A finite float from a JSON number (or numeric text), else None; booleans are not numbers."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip().rstrip("%")) / (100 if value.strip().endswith("%") else 1)
        except ValueError:
            return None
    if isinstance(value, int | float):
        result = float(value)
        return result if math.isfinite(result) else None
    return None


def normalise_statement(text: str) -> str:
    """Case and whitespace folded text: how a later message names the same hypothesis or commitment."""
    return " ".join(text.casefold().split())


def normalise_time(value: object) -> str | None:
    """ISO-8601 text as UTC `YYYY-MM-DDTHH:MM:SS.mmmZ` (naive means UTC); None when it is not a time."""
    moment = parse_iso(value)
    if moment is None:
        return None
    moment = moment.astimezone(UTC)
    if moment.year < 1000:  # %Y does not zero-pad everywhere, and the text must sort
        return None
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


def time_key(value: str | None) -> str:
    """Sort key of a normalised time (untimed last)."""
    return LAST if value is None else value


# ------------------------------------------------------------------------------------------- messages


@dataclass(frozen=True, slots=True)
class Reference:
    """A §2.2 reference, as far as the memories use it."""

    type: str
    source_agent: int
    source_element: str


@dataclass(frozen=True, slots=True)
class MessageView:
    """An accepted AgentMessage record read once for all four reducers (content and extras decoded)."""

    message_id: str
    agent_id: int
    agent_name: str
    agent_tier: str
    timestamp: str | None
    iteration: int
    responding_to: int | str
    verdict: str
    tag: str | None
    confidence: float | None
    confidence_basis: str
    tier: int
    content: Any
    contradiction_detected: bool
    contradiction_with: int | None
    requires_resolution: bool
    blocks_progress: bool
    confidence_critical: bool
    inputs_used: tuple[int, ...]
    references: tuple[Reference, ...]
    signals: Mapping[str, Any]

    def get(self, name: str) -> Any:
        """A key of the content object, or None when the content is not an object or lacks it."""
        return self.content.get(name) if type(self.content) is dict else None

    def items(self, singular: str, plural: str | None = None) -> list[Any]:
        """Content entries under `singular` (one value or a list) and `plural` (a list), in that order."""
        content = self.content
        # Hot path: a dozen lookups per message, nearly all of keys the content does not have.
        if type(content) is not dict or (singular not in content and (plural is None or plural not in content)):
            return []
        out: list[Any] = []
        for name in (singular, plural):
            value = content.get(name) if name is not None else None
            if isinstance(value, list):
                out.extend(v for v in value if v is not None)
            elif value is not None:
                out.append(value)
        return out

    def signal(self, name: str) -> Any:
        """A producer signal (e.g. `failure`, `breakthrough`, `brilliant`): the first truthy value among the
        content key, the message extras, the flag extras, the body extras and the summary extras."""
        value = self.get(name)
        if truthy(value):
            return value
        value = self.signals.get(name)
        return value if truthy(value) else None


def _signals(record: Mapping[str, Any]) -> dict[str, Any]:
    """Extras of every block, merged with the first block winning: message, flags, body, summary, header."""
    merged: dict[str, Any] = {}
    blocks = (record, record.get("flags"), record.get("body"), record.get("summary"), record.get("header"))
    for block in blocks:
        if isinstance(block, dict):
            for key, value in read_extras(block.get("extras")).items():
                if key not in merged or not truthy(merged[key]):
                    merged[key] = value
    return merged


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def message_view(record: Mapping[str, Any], natural_id: str) -> MessageView:
    """Read an AgentMessage record dict (missing blocks read as empty, so a test's sparse record works)."""
    header = record.get("header") or {}
    summary = record.get("summary") or {}
    body = record.get("body") or {}
    flags = record.get("flags") or {}
    deps = record.get("dependencies") or {}
    verdict = str(summary.get("verdict") or "")
    agent_id = _int_or_none(header.get("agent_id"))
    refs = tuple(
        Reference(str(r.get("type", "")).upper(), int(r["source_agent"]), str(r.get("source_element", "")))
        for r in (record.get("references") or ()) if isinstance(r, dict) and _int_or_none(r.get("source_agent"))
    )
    responding = header.get("responding_to")
    return MessageView(
        message_id=natural_id,
        agent_id=agent_id if agent_id is not None else 0,
        agent_name=str(header.get("agent_name") or ""),
        agent_tier=str(header.get("agent_tier") or ""),
        timestamp=normalise_time(header.get("timestamp")),
        iteration=_int_or_none(header.get("iteration")) or 0,
        responding_to=responding if isinstance(responding, int | str) else "",
        verdict=verdict,
        tag=verdict_tag(verdict),
        confidence=number(summary.get("confidence")),
        confidence_basis=str(summary.get("confidence_basis") or ""),
        tier=_int_or_none(body.get("tier")) or 0,
        content=read_json(body.get("content")),
        contradiction_detected=flags.get("contradiction_detected") is True,
        contradiction_with=_int_or_none(flags.get("contradiction_with")),
        requires_resolution=flags.get("requires_resolution") is True,
        blocks_progress=flags.get("blocks_progress") is True,
        confidence_critical=flags.get("confidence_critical") is True,
        inputs_used=tuple(i["agent_id"] for i in (deps.get("inputs_used") or ())
                          if isinstance(i, dict) and _int_or_none(i.get("agent_id")) is not None),
        references=refs,
        signals=_signals(record),
    )


# ------------------------------------------------------------------------------------------- the envelope
@dataclass(frozen=True)
class LogEvent:
    """One record of the log, as the runner hands it to the projector.

    `topic` is the logical name (one of `TOPICS`); `source` is the position's source (the Kafka topic, or
    "file:PATH"), by default the topic. `record` is the decoded record with its nested records and JSON
    objects as plain dicts (as fastavro and orjson give them). Derived views are computed once per event and
    shared by the four reducers (`cached_property` writes the instance dict directly, so the dataclass stays
    frozen).
    """

    topic: str
    partition: int
    offset: int
    key: str
    record: Mapping[str, Any]
    source: str | None = None

    def memo(self, name: str, compute: Callable[[LogEvent], T]) -> T:
        """`compute(self)`, computed once per event: what several reducers derive alike (the failures an
        event reports feed both Failure and Pattern Memory). Only pure functions of the event belong here."""
        key = "memo:" + name
        cache = self.__dict__
        if key not in cache:
            cache[key] = compute(self)
        return cast(T, cache[key])

    @property
    def position_source(self) -> str:
        """The source half of the tracking position (the topic unless `source` names another)."""
        return self.topic if self.source is None else self.source

    @cached_property
    def natural_id(self) -> str:
        """The record's own id, or `sha256:` + the hash of its canonical form when it has none."""
        name = NATURAL_ID.get(self.topic)
        value = self.record.get(name) if name else None
        if isinstance(value, str) and value:
            return value
        return "sha256:" + content_hash(self.record)

    @cached_property
    def event_id(self) -> str:
        """The event's identity in every memory: logical topic, key and natural id (never the offset)."""
        return derived_id("ev_", self.topic, self.key, self.natural_id)

    @cached_property
    def session_id(self) -> str:
        """The session (or OMEN episode) the event belongs to: the record's own field, else the key."""
        name = SESSION_FIELD.get(self.topic)
        value = self.record.get(name) if name else None
        return value if isinstance(value, str) and value else self.key

    @cached_property
    def timestamp(self) -> str | None:
        """Normalised event time: the message header's timestamp, or the record's event_time."""
        if self.topic == AGENT_MESSAGES:
            return self.message.timestamp if self.message is not None else None
        name = TIME_FIELD.get(self.topic)
        return normalise_time(self.record.get(name)) if name else None

    @cached_property
    def message(self) -> MessageView | None:
        """The decoded agent message, for the agent_messages topic only."""
        if self.topic != AGENT_MESSAGES:
            return None
        return message_view(self.record, self.natural_id)

    @cached_property
    def relevant(self) -> bool:
        """Whether any memory reads this event. Only REJECTED packet verdicts matter (one per OMEN packet
        otherwise), and topics the projections do not know are positions to advance over, nothing more."""
        if self.topic == VERDICTS:
            return self.record.get("status") == "REJECTED"
        return self.topic in TOPICS
