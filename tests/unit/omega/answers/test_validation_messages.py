"""validate_and_filter as a user reads it: whole rejections (candidate, source, every reason's code, message and
field) on small hand-worked candidates, and the boundaries of the §4.1 types."""

from __future__ import annotations

from typing import Any

from omega.answers.extraction import Unparseable
from omega.answers.model import Chunk
from omega.answers.validation import validate_and_filter
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB

# "Session tokens expire after 15 minutes." is [0, 39); "Guest accounts do not require MFA." is [40, 74)
TEXT = "Session tokens expire after 15 minutes. Guest accounts do not require MFA."
CHUNK = Chunk("c1", "doc", "v1", 0, 0, TEXT)


def _good(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"span": {"start": 0, "end": 39}, "subject": "session_token", "predicate": "expires_after",
                            "object": "15 minutes", "source": {"docId": "doc", "chunkId": "c1"}}
    return {**base, **over}


def _rejected(candidate: Any, chunk: Chunk | None = CHUNK, **where: str) -> dict[str, Any]:
    facts, rejections = validate_and_filter([candidate], chunk, VOCAB, **where)
    assert facts == []
    [rejection] = rejections
    return rejection.to_dict()


def _reasons(*triples: tuple[str, str, str | None]) -> list[dict[str, Any]]:
    return [{"code": c, "message": m, "field": f} for c, m, f in triples]


def test_every_schema_fault_of_a_candidate_is_reported_with_its_message_and_field() -> None:
    candidate = {"span": {"start": 0}, "subject": 5, "predicate": "", "object": None,
                 "source": {"docId": "", "chunkId": "c1"}, "polarity": "maybe", "qualifiers": "v2",
                 "confidence": True}
    assert _rejected(candidate) == {"candidate": candidate, "source": {"docId": "doc", "chunkId": "c1"},
                                    "reasons": _reasons(
        ("SCHEMA_INVALID", "span must be {start, end} integers", "span"),
        ("SCHEMA_INVALID", "subject must be a non-empty string", "subject"),
        ("SCHEMA_INVALID", "predicate must be a non-empty string", "predicate"),
        ("SCHEMA_INVALID", "object must be a string, number or boolean", "object"),
        ("SCHEMA_INVALID", "source must be {docId, chunkId} strings", "source"),
        ("SCHEMA_INVALID", "polarity must be affirm or negate", "polarity"),
        ("SCHEMA_INVALID", "qualifiers must be an object", "qualifiers"),
        ("CONFIDENCE_OUT_OF_RANGE", "confidence True is not a number in [0, 1]", "confidence"),
    )}


def test_a_source_missing_a_chunk_id_is_a_schema_fault() -> None:
    candidate = _good(source={"docId": "doc"})
    assert _rejected(candidate)["reasons"] == _reasons(
        ("SCHEMA_INVALID", "source must be {docId, chunkId} strings", "source"))


def test_a_non_string_version_and_an_out_of_range_confidence_are_both_reported() -> None:
    candidate = _good(qualifiers={"version": 2}, confidence=1.5)
    assert _rejected(candidate)["reasons"] == _reasons(
        ("SCHEMA_INVALID", "qualifiers.version must be a string", "qualifiers.version"),
        ("CONFIDENCE_OUT_OF_RANGE", "confidence 1.5 is not a number in [0, 1]", "confidence"),
    )


def test_confidence_accepts_both_ends_of_the_closed_interval() -> None:
    facts, rejections = validate_and_filter([_good(confidence=0.0), _good(confidence=1.0, object="15 min")],
                                            CHUNK, VOCAB)
    assert rejections == []
    assert [f.confidence for f in facts] == [0.0, 1.0]


def test_an_empty_span_is_out_of_range() -> None:
    assert _rejected(_good(span={"start": 0, "end": 0}))["reasons"] == _reasons(
        ("SPAN_OUT_OF_RANGE", "span [0, 0) is outside the chunk (length 74)", "span"))


def test_span_hygiene_reports_subject_numbers_and_an_unnegated_span() -> None:
    candidate = _good(subject="refresh_token", predicate="has_value", object="3 or 4", polarity="negate")
    assert _rejected(candidate)["reasons"] == _reasons(
        ("SUBJECT_NOT_IN_SPAN", "subject 'refresh_token' does not appear in the span", "subject"),
        ("NUMBER_NOT_VERBATIM", "number(s) 3, 4 not written in the span", "object"),
        ("POLARITY_MISMATCH", "the span does not negate but polarity is negate", "polarity"),
    )


def test_a_negated_span_with_no_polarity_is_read_as_affirm_and_refused() -> None:
    candidate = _good(span={"start": 40, "end": 74}, subject="guest_account", predicate="requires", object="mfa")
    assert _rejected(candidate)["reasons"] == _reasons(
        ("POLARITY_MISMATCH", "the span negates but polarity is affirm", "polarity"))


def test_an_unknown_predicate_names_the_predicate_field() -> None:
    assert _rejected(_good(predicate="owns"))["reasons"] == _reasons(
        ("UNKNOWN_PREDICATE", "'owns' is not in the predicate vocabulary", "predicate"))


def test_a_source_naming_another_document_is_refused_and_the_rejection_keeps_that_source() -> None:
    candidate = _good(source={"docId": "other", "chunkId": "c1"})
    assert _rejected(candidate) == {"candidate": candidate, "source": {"docId": "other", "chunkId": "c1"},
                                    "reasons": _reasons(("SOURCE_MISMATCH", "source is not chunk c1 of doc",
                                                         "source"))}


def test_a_source_naming_another_chunk_is_refused_and_the_rejection_keeps_that_chunk() -> None:
    candidate = _good(source={"docId": "doc", "chunkId": "c9"})
    assert _rejected(candidate)["source"] == {"docId": "doc", "chunkId": "c9"}


def test_a_non_object_candidate_without_chunk_or_ids_is_rejected_with_empty_source() -> None:
    assert _rejected("a string", None) == {
        "candidate": "a string", "source": {"docId": "", "chunkId": ""},
        "reasons": _reasons(("SCHEMA_INVALID", "a fact is a JSON object, got str", None))}


def test_an_unparseable_output_is_rejected_with_its_raw_text() -> None:
    assert _rejected(Unparseable("nope", "not JSON: boom"), None, doc_id="d", chunk_id="c") == {
        "candidate": "nope", "source": {"docId": "d", "chunkId": "c"},
        "reasons": _reasons(("UNPARSEABLE", "not JSON: boom", None))}


def test_a_candidate_cannot_choose_its_own_fact_id() -> None:
    facts, _ = validate_and_filter([_good(factId="mine"), _good()], CHUNK, VOCAB)
    assert len(facts) == 1  # the same fact: its id is derived from its content, not taken from the candidate
    assert facts[0].fact_id.startswith("fact_")
