"""The DS005 stages: documents (JSON) -> validated facts (Avro); facts -> the fact table; questions (JSON) ->
answer contracts (Avro).

Shared by the Faust agents. A document is `{"docId", "version"?, "text", "facts"?, "corpus"?}` (`facts`: manual
facts, validated against the document's own chunks); a question is `{"id"?, "question", "plan"?, "version"?,
"corpus"?}`. The corpus (default "default") is the Kafka key of facts and questions: a question must meet every
fact of its corpus, so both are keyed (partitioned) by it, and a question keyed otherwise is re-published once
keyed by its corpus. (A GlobalTable would give every worker every fact, but Faust's GlobalTable does not
reliably replicate writes between workers: faust-streaming issue 283; our two-worker test showed it.)
Event times come from the record timestamp (the epoch when there is none), and every id is derived from
content, so a redelivered document or question gives byte-identical outputs. Rejected facts are dead
letters (FACT_REJECTED, one per rejection), never silently dropped; so is any input that cannot be read, a
document with nothing to ingest (blank text and no manual facts: INVALID_DOCUMENT) and a document from which
no fact came (NO_FACTS): every document is answered by at least one record.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from omega.answers.answer import answer
from omega.answers.extraction import Extractor, rule_extract
from omega.answers.ingest import ingest, ingest_manual
from omega.answers.model import Fact, PlanError, QueryPlan, Rejection, fact_from_dict, plan_from_dict
from omega.answers.planner import plan_question
from omega.answers.records import (
    EPOCH,
    FACT_SCHEMA,
    answer_to_record,
    fact_from_record,
    fact_to_record,
)
from omega.answers.store import FactStore
from omega.answers.versions import same_version
from omega.answers.vocabulary import DEFAULT_VOCABULARY, Vocabulary
from omega.canonical import canonical_json, derived_id
from omega.eventtime import to_iso
from streams.records import key_text
from streams.stages.base import Emit, InputRejected, Outputs, Source, parse_json_object
from streams.stages.corpus import DEFAULT_CORPUS, corpus_of, fact_key, keyed_by
from streams.stages.keyed import KeyedTable, put_checked
from streams.topics import ANSWERS, FACTS, QUESTIONS
from streams.wire.codec import DecodeError


class AnswersStage:
    """Ingest and answering over the shared `Outputs` (schema registry, size limit), extractor and vocabulary."""

    def __init__(self, outputs: Outputs, extractor: Extractor = rule_extract,
                 vocabulary: Vocabulary = DEFAULT_VOCABULARY) -> None:
        self.outputs, self.extractor, self.vocabulary = outputs, extractor, vocabulary

    def document(self, raw: bytes, source: Source) -> list[Emit]:
        """One document -> one FACTS record per validated fact (keyed by corpus), one dead letter per rejection."""
        try:
            doc = parse_json_object(raw, self.outputs.max_event_bytes)
            doc_id, version, text, manual = _document_fields(doc)
            corpus = corpus_of(doc)
            done = ingest(text, {"docId": doc_id, "version": version}, self.extractor, self.vocabulary)
            extra = ingest_manual(manual, done.chunks, self.vocabulary)
        except InputRejected as exc:
            return [self.outputs.dead_letter(raw, source, exc.error_class, exc.reason)]
        event_time = to_iso(source.timestamp_ms) or EPOCH
        emits: list[Emit] = []
        seen: set[str] = set()
        for fact in (*done.facts, *extra.facts):
            if fact.fact_id in seen:  # a manual fact may restate an extracted one: same content, same id
                continue
            seen.add(fact.fact_id)
            emits.append(self.outputs.encode(FACTS, corpus, fact_to_record(fact.to_dict(), event_time),
                                              source.timestamp_ms))
        for index, rejection in enumerate((*done.rejections, *extra.rejections), start=1):
            emits.append(self.outputs.dead_letter(raw, source, "FACT_REJECTED", _rejected(rejection), part=index))
        if not emits:  # never silent: a document that adds nothing to its corpus says so
            emits.append(self.outputs.dead_letter(
                raw, source, "NO_FACTS", f"document {doc_id!r}: no fact extracted from its {len(done.chunks)}"
                " chunk(s) and no manual fact"))
        return emits

    def fact(self, raw: bytes, source: Source) -> tuple[Fact | None, list[Emit]]:
        """One FACTS record -> the fact to store, or a dead letter when it does not decode to a fact."""
        try:
            name, datum = self.outputs.registry.decode(raw)
        except DecodeError as exc:
            return None, [self.outputs.dead_letter(raw, source, exc.error_class, str(exc))]
        if name != FACT_SCHEMA:
            return None, [self.outputs.dead_letter(raw, source, "WRONG_SCHEMA", f"expected {FACT_SCHEMA}, got {name}")]
        try:
            return fact_from_dict(fact_from_record(datum)), []
        except (ValueError, KeyError, TypeError) as exc:
            return None, [self.outputs.dead_letter(raw, source, "INVALID_FACT", f"{type(exc).__name__}: {exc}")]

    def question(self, raw: bytes, source: Source, stores: Callable[[str], FactStore]) -> list[Emit]:
        """One question -> its plan (given, else planned from the text) -> one ANSWERS record keyed by its id;
        a question not keyed by its corpus is first re-published to QUESTIONS keyed by it (so it meets its facts)."""
        try:
            value = parse_json_object(raw, self.outputs.max_event_bytes)
            corpus = corpus_of(value)
            if not keyed_by(corpus, source.key):
                return [Emit(QUESTIONS, corpus, bytes(raw), source.timestamp_ms, value)]
            question_id, plan = _question_plan(value, stores(corpus))
        except InputRejected as exc:
            return [self.outputs.dead_letter(raw, source, exc.error_class, exc.reason)]
        store = stores(corpus)
        contract = answer(plan, store, self.vocabulary).to_dict()
        record = answer_to_record(contract, question_id, plan.to_dict(), to_iso(source.timestamp_ms))
        return [self.outputs.encode(ANSWERS, question_id, record, source.timestamp_ms)]


def _document_fields(doc: Mapping[str, Any]) -> tuple[str, str | None, str, list[Any]]:
    doc_id, version, text, manual = doc.get("docId"), doc.get("version"), doc.get("text"), doc.get("facts")
    if not isinstance(doc_id, str) or not doc_id.strip():
        raise InputRejected("INVALID_DOCUMENT", "docId must be a non-empty string")
    if version is not None and not isinstance(version, str):
        raise InputRejected("INVALID_DOCUMENT", "version must be a string or absent")
    if not isinstance(text, str):
        raise InputRejected("INVALID_DOCUMENT", "text must be a string")
    if manual is not None and not isinstance(manual, list):
        raise InputRejected("INVALID_DOCUMENT", "facts must be a list of manual facts or absent")
    if not text.strip() and not manual:
        raise InputRejected("INVALID_DOCUMENT", "text is empty and there are no manual facts: nothing to ingest")
    return doc_id, version, text, list(manual or [])


def _rejected(rejection: Rejection) -> str:
    reasons = "; ".join(f"{code}: {message}" for code, message, _ in rejection.reasons)
    return f"FACT_REJECTED: {reasons} (chunk {rejection.chunk_id}, candidate {canonical_json(rejection.candidate)})"


def _question_plan(value: Mapping[str, Any], store: FactStore) -> tuple[str, QueryPlan]:
    """The question id (given, else derived from the question's content) and the plan to answer. A question's
    `version` overrides the plan's when both name one version, in any spelling (DS005 §5.1: a free string;
    compared in canonical form, `omega.answers.versions`); two different versions are refused."""
    text, version, given = value.get("question"), value.get("version"), value.get("plan")
    if not isinstance(text, str) or not text.strip():
        raise InputRejected("INVALID_QUESTION", "question must be a non-empty string")
    if version is not None and not isinstance(version, str):
        raise InputRejected("INVALID_QUESTION", "version must be a string or absent")
    qid = value.get("id")
    if qid is not None and (not isinstance(qid, str) or not qid):
        raise InputRejected("INVALID_QUESTION", "id must be a non-empty string or absent")
    try:
        plan = plan_question(text, store.subjects()) if given is None else plan_from_dict(given)
    except PlanError as exc:
        raise InputRejected("INVALID_PLAN", str(exc)) from exc
    if version is not None:
        # one version in two spellings (`v2.0` and a planned `2.0`) is no contradiction: compare canonical forms
        if plan.version is not None and not same_version(plan.version, version):
            raise InputRejected("INVALID_QUESTION", f"version {version!r} contradicts the plan's {plan.version!r}")
        plan = dataclasses.replace(plan, version=version)
    question_id = qid or derived_id("q_", text, canonical_json(given), version or "")
    return question_id, plan


class FactStoreView:
    """FactStores per corpus over a table of fact dicts (`corpus/fact id` -> `Fact.to_dict()`), rebuilt only when
    the table grew: fact ids are content hashes, so entries are only ever added and the size is the version."""

    def __init__(self, table: Any, size: Callable[[Any], int] = len) -> None:
        self.table, self._size = table, size
        self._stores: dict[str, tuple[int, FactStore]] = {}

    def store(self, corpus: str = DEFAULT_CORPUS) -> FactStore:
        """The corpus's current store; rebuilt from the table when its size differs from the cached one."""
        version = self._size(self.table)
        cached = self._stores.get(corpus)
        if cached is None or cached[0] != version:
            prefix = f"{corpus}/"
            cached = (version, FactStore(_facts(v for k, v in self.table.items() if str(k).startswith(prefix))))
            self._stores[corpus] = cached
        return cached[1]


def _facts(values: Iterable[Any]) -> list[Fact]:
    return [fact_from_dict(v) for v in values if v]


class FactSteps:
    """The facts agent's work per record: a validated fact stored once under `corpus/fact id` (ids are content
    hashes: a stored id is the same fact)."""

    def __init__(self, stage: AnswersStage, facts: KeyedTable) -> None:
        self.stage, self.facts = stage, facts

    def record(self, raw: bytes, src: Source) -> list[Emit]:
        """Store one fact of the corpus its key names (the default corpus when keyless); return its outputs."""
        fact, emits = self.stage.fact(raw, src)
        if fact is None:
            return emits
        key = fact_key(key_text(src.key) or DEFAULT_CORPUS, fact.fact_id)
        if self.facts.get(key) is None:
            refused = put_checked(self.facts, [(key, fact.to_dict())], raw, src, self.stage.outputs)
            if refused is not None:
                return [refused]
        return emits
