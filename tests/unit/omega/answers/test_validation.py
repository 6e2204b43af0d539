"""validate_and_filter: each §4.1-§4.3 rule accepts good candidates and rejects bad ones with its code."""

from __future__ import annotations

from typing import Any

import pytest

from omega.answers.chunking import chunk
from omega.answers.extraction import Unparseable, parse_facts
from omega.answers.validation import validate_and_filter
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB

TEXT = "Session tokens expire after 15 minutes. Guest accounts do not require MFA."
CHUNK = chunk(TEXT, "d", "v1")[0]


def _fact(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"span": {"start": 0, "end": 39}, "subject": "session_token", "predicate": "expires_after",
                            "object": "15 minutes", "source": {"docId": "d", "chunkId": CHUNK.chunk_id}}
    return {**base, **over}


def _codes(candidate: Any) -> list[str]:
    facts, rejections = validate_and_filter([candidate], CHUNK, VOCAB)
    return [] if facts else [code for code, _, _ in rejections[0].reasons]


NEGATED = {"span": {"start": 40, "end": 74}, "subject": "guest_account", "predicate": "requires", "object": "mfa",
           "polarity": "negate"}


@pytest.mark.parametrize("candidate", [_fact(), _fact(**NEGATED), _fact(confidence=0.9), _fact(object="15 min")])
def test_valid_candidates_become_facts_with_the_chunk_version(candidate: dict[str, Any]) -> None:
    facts, rejections = validate_and_filter([candidate], CHUNK, VOCAB)
    assert rejections == []
    assert facts[0].version == "v1"


@pytest.mark.parametrize(("candidate", "code"), [
    (Unparseable("nope", "not JSON"), "UNPARSEABLE"),
    (parse_facts("{not json")[0], "UNPARSEABLE"),
    ("a string", "SCHEMA_INVALID"),
    ({k: v for k, v in _fact().items() if k != "span"}, "SCHEMA_INVALID"),
    (_fact(polarity="maybe"), "SCHEMA_INVALID"),
    (_fact(confidence=1.5), "CONFIDENCE_OUT_OF_RANGE"),
    (_fact(confidence=-0.1), "CONFIDENCE_OUT_OF_RANGE"),
    (_fact(predicate="owned_by"), "UNKNOWN_PREDICATE"),
    (_fact(predicate="expire"), "UNKNOWN_PREDICATE"),
    (_fact(object="soon"), "ARG_TYPE_MISMATCH"),
    (_fact(subject="Session Tokens"), "ARG_TYPE_MISMATCH"),
    (_fact(span={"start": 0, "end": 500}), "SPAN_OUT_OF_RANGE"),
    (_fact(span={"start": 10, "end": 5}), "SPAN_OUT_OF_RANGE"),
    (_fact(subject="refresh_token"), "SUBJECT_NOT_IN_SPAN"),
    (_fact(**{**NEGATED, "subject": "admin_account"}), "SUBJECT_NOT_IN_SPAN"),
    (_fact(object="20 minutes"), "NUMBER_NOT_VERBATIM"),
    (_fact(object="1.5 minutes"), "NUMBER_NOT_VERBATIM"),
    (_fact(polarity="negate"), "POLARITY_MISMATCH"),
    (_fact(**{**NEGATED, "polarity": "affirm"}), "POLARITY_MISMATCH"),
    (_fact(source={"docId": "other", "chunkId": "x"}), "SOURCE_MISMATCH"),
])
def test_invalid_candidates_are_rejected_with_the_reason(candidate: Any, code: str) -> None:
    assert code in _codes(candidate)


def test_rejections_are_reported_not_dropped_and_order_is_kept() -> None:
    facts, rejections = validate_and_filter([_fact(predicate="owned_by"), _fact(), _fact()], CHUNK, VOCAB)
    assert len(facts) == 1  # the duplicate merges on its derived id
    assert len(rejections) == 1
    assert rejections[0].to_dict()["source"] == {"docId": "d", "chunkId": CHUNK.chunk_id}
