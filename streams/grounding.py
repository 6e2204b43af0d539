"""The grounding verifier stage: Atomic Facts (JSON) into the facts table; paragraph requests (JSON) ->
sentence verdicts, paragraph verdict (GroundingVerdict) and a §10 audit event (GroundingAuditEvent), both Avro.

Shared by the Faust agents and `omega check grounding`. Facts live in a GlobalTable keyed by fact id: every
worker holds every fact, so a request on any partition sees them all (a plain table read from the requests
agent would only see the facts of the partitions assigned to this worker). A request may also embed its facts;
embedded facts win. The facts used are copied into the request before judgement, so the verdict, its id and
the audit event are functions of the resolved request, and the audit records exactly what was judged.

The paragraph state (every version of every sentence, §7.2) is a table keyed by paragraph_id, which is also
the requests topic's key: a request keyed otherwise cannot be co-partitioned with its state and is a dead
letter. Anything that cannot be judged at all is a dead letter; a sentence that cannot be judged is a FAIL.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from omega.eventtime import to_iso, to_ms
from omega.grounding.audit import audit_record
from omega.grounding.facts import AtomicFact, FactError, parse_fact
from omega.grounding.judge import EntailmentJudge
from omega.grounding.paragraph import ParagraphState, ParagraphVerdict, evolve
from omega.grounding.request import EPOCH, ParagraphRequest, RequestError, parse_request
from streams.pipeline import Emit, InputRejected, Pipeline, Source, parse_json_object
from streams.topics import GROUNDING_AUDIT, GROUNDING_VERDICTS


@dataclass(frozen=True)
class GroundingStep:
    """What one request did: the paragraph state after it, what to send, and the verdict (None: dead letter)."""

    state: ParagraphState | None
    emits: list[Emit]
    verdict: ParagraphVerdict | None


class GroundingStage:
    """Facts in, paragraphs judged; state and the facts table are passed in."""

    def __init__(self, pipeline: Pipeline, judge: EntailmentJudge | None = None) -> None:
        self.pipeline, self.judge = pipeline, judge

    def fact(self, raw: bytes, source: Source) -> tuple[AtomicFact | None, list[Emit]]:
        """One Atomic Fact record -> the fact to store under its id, or a dead letter."""
        try:
            return parse_fact(parse_json_object(raw, self.pipeline.max_event_bytes)), []
        except InputRejected as exc:
            return None, [self.pipeline.dead_letter(raw, source, exc.error_class, exc.reason)]
        except FactError as exc:
            return None, [self.pipeline.dead_letter(raw, source, "INVALID_FACT", str(exc))]

    def request(self, state: ParagraphState | None, raw: bytes, source: Source, key: str | None,
                facts: Mapping[str, Any]) -> GroundingStep:
        """One paragraph request against the stored facts (fact id -> fact JSON) -> verdict and audit event."""
        try:
            obj = parse_json_object(raw, self.pipeline.max_event_bytes)
            known = stored_facts(facts, obj.get("allowed_fact_ids"))
            request = parse_request(obj, known, to_iso(source.timestamp_ms) or EPOCH)
        except InputRejected as exc:
            return GroundingStep(state, [self.pipeline.dead_letter(raw, source, exc.error_class, exc.reason)], None)
        except RequestError as exc:
            return GroundingStep(state, [self.pipeline.dead_letter(raw, source, "INVALID_REQUEST", str(exc))], None)
        if key is not None and key != request.paragraph_id:
            reason = f"record key {key!r} is not the paragraph_id {request.paragraph_id!r} (the state's key)"
            return GroundingStep(state, [self.pipeline.dead_letter(raw, source, "KEY_MISMATCH", reason)], None)
        new_state, verdict = self.judge_request(state, request)
        return GroundingStep(new_state, self.outputs(verdict, source.timestamp_ms), verdict)

    def judge_request(self, state: ParagraphState | None, request: ParagraphRequest) -> tuple[
            ParagraphState, ParagraphVerdict]:
        """The pure `evolve`, with this stage's judge."""
        return evolve(state, request, self.judge)

    def outputs(self, verdict: ParagraphVerdict, fallback_ms: int | None) -> list[Emit]:
        """The verdict and its audit event, keyed by paragraph id, timestamped with the request's event time."""
        key, ts = verdict.request.paragraph_id, to_ms(verdict.request.event_time) or fallback_ms
        return [self.pipeline.encode(GROUNDING_VERDICTS, key, verdict.to_record(), ts),
                self.pipeline.encode(GROUNDING_AUDIT, key, audit_record(verdict), ts)]


def stored_facts(table: Mapping[str, Any], allowed: object) -> dict[str, AtomicFact]:
    """The stored facts a request may use: its allowed ids, or every stored fact when it names none. A stored
    value that no longer parses is skipped (its citations then fail as UNKNOWN_FACT)."""
    ids = [i for i in allowed if isinstance(i, str)] if isinstance(allowed, list) else list(table.keys())
    found: dict[str, AtomicFact] = {}
    for fact_id in ids:
        value = table.get(fact_id)
        if value is None:
            continue
        try:
            found[fact_id] = parse_fact(value)
        except FactError:
            continue
    return found


class GroundingSteps:
    """The grounding agents' work per record: the facts GlobalTable, the paragraphs table, the reassignment."""

    def __init__(self, stage: GroundingStage, facts: Any, paragraphs: Any) -> None:
        self.stage, self.facts, self.paragraphs = stage, facts, paragraphs

    def fact(self, src: Source, raw: bytes) -> list[Emit]:
        """Store one fact under its id (a later record for the same id replaces it)."""
        fact, emits = self.stage.fact(raw, src)
        if fact is not None:
            self.facts[fact.id] = fact.to_json()  # reassigned, never mutated: Faust logs only this
        return emits

    def request(self, src: Source, raw: bytes, key: str) -> list[Emit]:
        """Judge one request of paragraph `key`; a request without a key cannot find its state: a dead letter."""
        if not key:
            return [self.stage.pipeline.dead_letter(raw, src, "NO_KEY", "the record has no key (paragraph_id)")]
        stored = self.paragraphs.get(key)
        state = ParagraphState.from_dict(stored) if stored else None
        step = self.stage.request(state, raw, src, key, self.facts)
        if step.state is not None and step.state is not state:
            self.paragraphs[key] = step.state.to_dict()  # reassigned, never mutated
        return step.emits
