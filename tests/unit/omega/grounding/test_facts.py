"""§3.1 Atomic Facts: what a fact states (content and qualifiers) and its record round trip."""

from __future__ import annotations

from typing import Any

import pytest

from omega.grounding.facts import FactError, fact_from_record, parse_fact
from tests.unit.omega.grounding.support import judge

RAW = {"id": "F", "content": "Drug A lowered blood pressure.", "source_type": "PDF", "confidence": 0.5,
       "source_span": {"document_id": "d"}}


def test_the_event_time_of_a_fact_survives_its_record() -> None:
    fact = parse_fact(RAW | {"event_time": "2026-01-02T03:04:05+00:00"})
    record = fact.to_record()
    assert record["event_time"] == "2026-01-02T03:04:05+00:00"
    back = fact_from_record(record)
    assert back.event_time == "2026-01-02T03:04:05+00:00"
    assert back == fact


def test_a_fact_statement_holds_its_content_and_its_qualifier_values_as_text() -> None:
    fact = parse_fact(RAW | {"qualifiers": {"population": "adults", "dose_mg": 40, "arms": ["A", "placebo"]}})
    assert fact.statement == 'Drug A lowered blood pressure. adults 40 ["A","placebo"]'


@pytest.mark.parametrize(("change", "message"), [
    ({"id": None}, "fact id must be a non-empty string without brackets"),
    ({"id": " "}, "fact id must be a non-empty string without brackets"),
    ({"id": "F[1"}, "fact id must be a non-empty string without brackets"),
    ({"id": "F1]"}, "fact id must be a non-empty string without brackets"),
    ({"content": None}, "fact F: content must be a non-empty string"),
    ({"content": " \n"}, "fact F: content must be a non-empty string"),
    ({"source_type": "WEB"}, "fact F: source_type must be PDF or MANUAL, got 'WEB'"),
    ({"source_type": None}, "fact F: source_type must be PDF or MANUAL, got None"),
    ({"source_span": "d"}, "fact F: source_span must be an object with a document_id string"),
    ({"source_span": {"document_id": 4}}, "fact F: source_span must be an object with a document_id string"),
    ({"source_span": {"document_id": "d", "quote": 4}}, "fact F: source_span.quote must be a string or null"),
    ({"qualifiers": ["adults"]}, "fact F: qualifiers must be a JSON object"),
    ({"qualifiers": {"dose": float("inf")}},
     "fact F: qualifiers are not JSON: Out of range float values are not JSON compliant"),
    ({"confidence": None}, "fact F: confidence must be a number in [0, 1]"),
    ({"confidence": "0.5"}, "fact F: confidence must be a number in [0, 1]"),
    ({"confidence": False}, "fact F: confidence must be a number in [0, 1]"),
    ({"confidence": float("inf")}, "fact F: confidence must be a number in [0, 1]"),
    ({"confidence": -0.01}, "fact F: confidence must be a number in [0, 1]"),
    ({"confidence": 1.01}, "fact F: confidence must be a number in [0, 1]"),
    ({"event_time": 5}, "fact F: event_time must be a string or null"),
    ({"source_span": {"document_id": "d", "page": True}}, "source_span.page must be an integer or null"),
    ({"source_span": {"document_id": "d", "start_char": 1.0}}, "source_span.start_char must be an integer or null"),
    ({"source_span": {"document_id": "d", "end_char": "9"}}, "source_span.end_char must be an integer or null"),
])
def test_a_fact_breaking_the_schema_is_refused_with_a_reason_naming_the_fact_and_field(
        change: dict[str, Any], message: str) -> None:
    with pytest.raises(FactError) as caught:
        parse_fact({**RAW, "id": "F"} | change)
    assert str(caught.value) == message


def test_a_fact_that_is_not_an_object_is_refused_naming_what_it_is() -> None:
    with pytest.raises(FactError) as caught:
        parse_fact(["F"])
    assert str(caught.value) == "a fact must be an object, got list"


def test_a_valid_fact_keeps_every_field_its_span_and_its_extras() -> None:
    fact = parse_fact({"id": "F", "content": "c", "source_type": "MANUAL", "confidence": 1,
                       "source_span": {"document_id": "d", "page": 2, "start_char": 0, "end_char": 9, "quote": "q",
                                       "bbox": [1, 2]}, "qualifiers": {"population": "x"}, "extractor": "llm"})
    assert (fact.id, fact.content, fact.source_type, fact.confidence, dict(fact.qualifiers), fact.event_time) == (
        "F", "c", "MANUAL", 1.0, {"population": "x"}, None)
    assert isinstance(fact.confidence, float)
    span = fact.source_span
    assert (span.document_id, span.page, span.start_char, span.end_char, span.quote, span.extras) == (
        "d", 2, 0, 9, "q", {"bbox": [1, 2]})
    assert fact.extras == {"extractor": "llm"}
    bare = parse_fact({**RAW, "confidence": 0})
    assert (dict(bare.qualifiers), bare.confidence, bare.source_span.page, bare.source_span.quote) == ({}, 0.0, None,
                                                                                                      None)
    assert (bare.source_span.extras, bare.extras) == (None, None)


def test_a_cited_fact_covers_the_words_of_its_qualifiers_too() -> None:
    qualified = parse_fact(RAW | {"qualifiers": {"population": "older adults", "setting": "rural clinics"}})
    assert {"older", "adult", "rural", "clinic"} <= qualified.analysis.tokens
    assert judge("Drug A lowered blood pressure in older adults in rural clinics. [F]", qualified).outcome == "PASS"
