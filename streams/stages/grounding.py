"""The grounding verifier stage: Atomic Facts (JSON) into the facts table; paragraph requests (JSON) ->
sentence verdicts, paragraph verdict (GroundingVerdict) and a §10 audit event (GroundingAuditEvent), both Avro.

Shared by the Faust agents and `omega check grounding`. Facts and requests belong to a corpus (their optional
`corpus` field, default "default"), which is the Kafka key of both topics: a request must meet every fact of
its corpus, so facts live in a table keyed `corpus/fact id` co-partitioned with the requests, and a fact or a
request keyed otherwise is re-published once keyed by its corpus. (Faust's GlobalTable would give every worker
every fact, but it does not reliably replicate writes between workers: faust-streaming issue 283.) The price is
that one corpus is judged on one partition. A request may also embed its facts; embedded facts win. The facts
used are copied into the request before judgement, so the verdict, its id and the audit event are functions of
the resolved request, and the audit records exactly what was judged.

The paragraph state (every version of every sentence, §7.2) is keyed `corpus/paragraph_id`, beside the facts.
Anything that cannot be judged at all is a dead letter; a sentence that cannot be judged is a FAIL.
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
from streams.stages.base import Emit, InputRejected, Outputs, Source, parse_json_object
from streams.stages.corpus import CorpusView, corpus_of, fact_key, keyed_by
from streams.stages.keyed import KeyedTable, put_checked
from streams.topics import GROUNDING_AUDIT, GROUNDING_FACTS, GROUNDING_REQUESTS, GROUNDING_VERDICTS


@dataclass(frozen=True)
class GroundingStep:
    """What one request did: the paragraph state after it, what to send, and the verdict (None: dead letter)."""

    state: ParagraphState | None
    emits: list[Emit]
    verdict: ParagraphVerdict | None


class GroundingStage:
    """Facts in, paragraphs judged; state and the facts table are passed in."""

    def __init__(self, outputs: Outputs, judge: EntailmentJudge | None = None) -> None:
        self.outputs, self.judge = outputs, judge

    def fact(self, raw: bytes, source: Source) -> tuple[AtomicFact | None, str, list[Emit]]:
        """One Atomic Fact record -> the fact and its corpus (the `corpus` field is routing, not content), or a
        dead letter."""
        try:
            obj = parse_json_object(raw, self.outputs.max_event_bytes)
            corpus = corpus_of(obj)
            return parse_fact({k: v for k, v in obj.items() if k != "corpus"}), corpus, []
        except InputRejected as exc:
            return None, "", [self.outputs.dead_letter(raw, source, exc.error_class, exc.reason)]
        except FactError as exc:
            return None, "", [self.outputs.dead_letter(raw, source, "INVALID_FACT", str(exc))]

    def request(self, state: ParagraphState | None, obj: Mapping[str, Any], raw: bytes, source: Source,
                facts: Mapping[str, Any]) -> GroundingStep:
        """One paragraph request (its parsed JSON) against the stored facts (fact id -> fact JSON) -> verdict and
        audit event."""
        try:
            known = stored_facts(facts, obj.get("allowed_fact_ids"))
            request = parse_request(obj, known, to_iso(source.timestamp_ms) or EPOCH)
        except RequestError as exc:
            return GroundingStep(state, [self.outputs.dead_letter(raw, source, "INVALID_REQUEST", str(exc))], None)
        new_state, verdict = self.judge_request(state, request)
        return GroundingStep(new_state, self.verdict_records(verdict, source.timestamp_ms), verdict)

    def judge_request(self, state: ParagraphState | None, request: ParagraphRequest) -> tuple[
            ParagraphState, ParagraphVerdict]:
        """The pure `evolve`, with this stage's judge."""
        return evolve(state, request, self.judge)

    def verdict_records(self, verdict: ParagraphVerdict, fallback_ms: int | None) -> list[Emit]:
        """The verdict and its audit event, keyed by paragraph id, timestamped with the request's event time."""
        key, ts = verdict.request.paragraph_id, to_ms(verdict.request.event_time) or fallback_ms
        return [self.outputs.encode(GROUNDING_VERDICTS, key, verdict.to_record(), ts),
                self.outputs.encode(GROUNDING_AUDIT, key, audit_record(verdict), ts)]


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
    """The grounding agents' work per record: the corpus-keyed facts and paragraphs tables, the re-keying."""

    def __init__(self, stage: GroundingStage, facts: KeyedTable, paragraphs: KeyedTable) -> None:
        self.stage, self.facts, self.paragraphs = stage, facts, paragraphs

    def fact(self, raw: bytes, src: Source) -> list[Emit]:
        """Store one fact under `corpus/id` (a later record for the same id replaces it); a fact not keyed by its
        corpus is re-published keyed by it."""
        fact, corpus, emits = self.stage.fact(raw, src)
        if fact is None:
            return emits
        if not keyed_by(corpus, src.key):
            return [Emit(GROUNDING_FACTS, corpus, bytes(raw), src.timestamp_ms, fact.to_json())]
        refused = put_checked(self.facts, [(fact_key(corpus, fact.id), fact.to_json())], raw, src, self.stage.outputs)
        return emits if refused is None else [refused]

    def request(self, raw: bytes, src: Source) -> list[Emit]:
        """Judge one paragraph request beside its corpus's facts; one not keyed by its corpus is re-published."""
        outputs = self.stage.outputs
        try:
            obj = parse_json_object(raw, outputs.max_event_bytes)
            corpus = corpus_of(obj)
        except InputRejected as exc:
            return [outputs.dead_letter(raw, src, exc.error_class, exc.reason)]
        if not keyed_by(corpus, src.key):
            return [Emit(GROUNDING_REQUESTS, corpus, bytes(raw), src.timestamp_ms, obj)]
        paragraph_id = obj.get("paragraph_id")
        key = fact_key(corpus, paragraph_id) if isinstance(paragraph_id, str) else None
        stored = self.paragraphs.get(key) if key is not None else None
        state = ParagraphState.from_dict(stored) if stored else None
        step = self.stage.request(state, obj, raw, src, CorpusView(self.facts, corpus))
        if key is not None and step.state is not None and step.state is not state:
            # checked whatever the request's size: a paragraph's state grows with every version of every sentence.
            # Nothing stored: the verdict of a version that is not recorded is not sent.
            refused = put_checked(self.paragraphs, [(key, step.state.to_dict())], raw, src, outputs)
            if refused is not None:
                return [refused]
        return step.emits
