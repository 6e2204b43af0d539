"""The OMEGA-57 session monitor stage: raw agent output -> validated messages -> session `evolve` -> outputs.

Shared unchanged by the Faust monitor agent and embedded replay. A record is the text an agent emitted
(YAML or JSON, one or several messages), keyed by its session id. Accepted messages are republished in
canonical Avro for the projections; a rejected one becomes a dead letter and, through the session judge,
an AGENT_FAILURE (its output QUARANTINED, §4.2.1). Nothing an agent sends can stop the stage.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from omega.agents.messages import message_record, parse_messages
from omega.agents.model import AgentMessage, MessageRejected, SessionEvent
from omega.agents.session import SessionState, evolve
from omega.agents.termination import TerminationReport
from omega.canonical import derived_id
from omega.events import Alert, Escalation
from omega.eventtime import to_ms
from streams.records import key_text
from streams.stages.base import Emit, Outputs, Source
from streams.stages.keyed import DecodedCache, KeyedTable, put_checked
from streams.topics import AGENT_MESSAGES

MESSAGE_SCHEMA = "omega.agents.AgentMessage"
MAX_SESSION_ID_BYTES = 1024  # a session id keys the sessions table and every output: a huge key would not fit


@dataclass(frozen=True)
class MessageStep:
    """What one record did: the session state after it, what to send, and each message's outcome."""

    state: SessionState | None
    emits: list[Emit]
    events: list[SessionEvent]


class MonitorStage:
    """The monitor's per-record work over the shared `Outputs` (schema registry, size bound); state is passed in
    and returned."""

    def __init__(self, outputs: Outputs) -> None:
        self.outputs = outputs

    def messages(self, state: SessionState | None, raw: bytes, source: Source, session_id: str) -> MessageStep:
        """Judge every message of one record of session `session_id`, in order."""
        events = self._parse(raw, source, session_id)
        emits: list[Emit] = []
        for index, event in enumerate(events):
            if isinstance(event, AgentMessage):
                emits.append(self._accepted(event))
            else:
                emits.append(self._dead_letter(raw, source, index, event))
            state, outputs = evolve(state, event)
            emits.extend(self.output(o, source.timestamp_ms) for o in outputs)
        return MessageStep(state, emits, events)

    def output(self, output: Alert | Escalation | TerminationReport, fallback_ms: int | None) -> Emit:
        """Encode a session judge output for its topic, timestamped with its event time."""
        return self.outputs.output(output, fallback_ms)

    def _parse(self, raw: bytes, source: Source, session_id: str) -> list[SessionEvent]:
        """The record's messages; bytes that are not text of a sane size are one rejected message."""
        digest = derived_id("msg_", session_id, hashlib.sha256(raw).hexdigest())
        if len(raw) > self.outputs.max_event_bytes:
            reason = f"OVERSIZED: {len(raw)} bytes exceeds the limit of {self.outputs.max_event_bytes}"
            return [MessageRejected(session_id, digest, (reason,))]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return [MessageRejected(session_id, digest, (f"INVALID_UTF8: not UTF-8 at byte {exc.start}",))]
        # No position in the reasons: they reach alerts, which must not depend on where the log was read
        # (the dead letter carries the position).
        return list(parse_messages(text, session_id))

    def _accepted(self, message: AgentMessage) -> Emit:
        record = message_record(message)
        return self.outputs.encode(AGENT_MESSAGES, message.session_id, record, to_ms(message.timestamp))

    def _dead_letter(self, raw: bytes, source: Source, index: int, event: MessageRejected) -> Emit:
        return self.outputs.dead_letter(raw, source, "MESSAGE_REJECTED", "; ".join(event.reasons), part=index)


class SessionSteps:
    """The monitor's work per record over the sessions table: the session state, the stage, the checked put."""

    def __init__(self, stage: MonitorStage, sessions: KeyedTable) -> None:
        self.stage, self.sessions = stage, sessions
        self.cache: DecodedCache[SessionState] = DecodedCache(lambda _key, stored: SessionState.from_dict(stored))

    def record(self, raw: bytes, src: Source) -> list[Emit]:
        """One record of the session its key names; a record without a session id cannot be attributed: a dead
        letter."""
        key = key_text(src.key, "")
        if not key:
            return [self.stage.outputs.dead_letter(raw, src, "NO_SESSION", "the record has no key (session id)")]
        if len(key.encode("utf-8")) > MAX_SESSION_ID_BYTES:  # it keys the table and every output: bounded
            return [self.stage.outputs.dead_letter(
                raw, src, "INVALID_SESSION", f"the session id (key) is {len(key.encode('utf-8'))} bytes, more than "
                f"the limit of {MAX_SESSION_ID_BYTES}")]
        stored = self.sessions.get(key)
        state = self.cache.get(key, stored)
        step = self.stage.messages(state, raw, src, key)
        if step.state is not None and step.state is not state:
            value = step.state.to_dict()
            refused = put_checked(self.sessions, [(key, value)], raw, src, self.stage.outputs)
            if refused is not None:
                return [refused]
            self.cache.put(key, value, step.state)
        return step.emits
