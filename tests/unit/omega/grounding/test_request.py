"""Reading a paragraph request: embedded facts that cannot be read are refused with a reason naming them."""

from __future__ import annotations

import pytest

from omega.grounding.request import RequestError, parse_request


def test_embedded_facts_that_are_not_a_list_are_refused_with_the_reason() -> None:
    with pytest.raises(RequestError) as caught:
        parse_request({"paragraph_id": "p", "facts": {"F1": {}}, "sentences": []}, {})
    assert str(caught.value) == "facts must be a list of Atomic Facts"


def test_an_embedded_fact_breaking_the_schema_is_refused_naming_its_position_and_reason() -> None:
    good = {"id": "F1", "content": "c", "source_type": "PDF", "confidence": 0.5, "source_span": {"document_id": "d"}}
    with pytest.raises(RequestError) as caught:
        parse_request({"paragraph_id": "p", "facts": [good, good | {"source_type": "WEB"}], "sentences": []}, {})
    assert str(caught.value) == "fact 1: fact F1: source_type must be PDF or MANUAL, got 'WEB'"


GOOD_FACT = {"id": "F1", "content": "c", "source_type": "PDF", "confidence": 0.5, "source_span": {"document_id": "d"}}
ONE = [{"order": 1, "text": "a"}]


@pytest.mark.parametrize(("obj", "message"), [
    ([], "a paragraph must be a JSON object"),
    ({"sentences": ONE}, "paragraph_id must be a non-empty string"),
    ({"paragraph_id": "", "sentences": ONE}, "paragraph_id must be a non-empty string"),
    ({"paragraph_id": 7, "sentences": ONE}, "paragraph_id must be a non-empty string"),
    ({"paragraph_id": "p", "version": True, "sentences": ONE}, "version must be an integer"),
    ({"paragraph_id": "p", "version": "2", "sentences": ONE}, "version must be an integer"),
    ({"paragraph_id": "p", "version": 0, "sentences": ONE}, "version must be at least 1"),
    ({"paragraph_id": "p", "event_time": 5, "sentences": ONE},
     "event_time must be a string and paragraph_spec an object"),
    ({"paragraph_id": "p", "paragraph_spec": ["x"], "sentences": ONE},
     "event_time must be a string and paragraph_spec an object"),
    ({"paragraph_id": "p", "allowed_fact_ids": "F1", "sentences": ONE}, "allowed_fact_ids must be a list of strings"),
    ({"paragraph_id": "p", "allowed_fact_ids": ["F1", 2], "sentences": ONE},
     "allowed_fact_ids must be a list of strings"),
    ({"paragraph_id": "p", "paragraph_spec": {"x": float("nan")}, "sentences": ONE},
     "paragraph_spec is not JSON: Out of range float values are not JSON compliant"),
    ({"paragraph_id": "p", "expected_verified": "yes", "sentences": ONE},
     "expected_verified must be true, false or absent"),
    ({"paragraph_id": "p"}, "sentences must be a list of at most 200 objects"),
    ({"paragraph_id": "p", "sentences": {"order": 1}}, "sentences must be a list of at most 200 objects"),
    ({"paragraph_id": "p", "sentences": [{"order": i, "text": "a"} for i in range(201)]},
     "sentences must be a list of at most 200 objects"),
    ({"paragraph_id": "p", "sentences": [*ONE, "b"]}, "sentence 1 must be an object"),
    ({"paragraph_id": "p", "sentences": [{"text": "a"}]}, "sentence 0: order must be an integer"),
    ({"paragraph_id": "p", "sentences": [{"order": False, "text": "a"}]}, "sentence 0: order must be an integer"),
    ({"paragraph_id": "p", "sentences": [{"order": 1}]}, "sentence 0: text must be a string"),
    ({"paragraph_id": "p", "sentences": [{"order": 1, "text": "a", "edited_by_user": 1}]},
     "sentence 0: edited_by_user must be true, false or absent"),
    ({"paragraph_id": "p", "sentences": [{"order": 1, "text": "a", "expected_supported": "no"}]},
     "sentence 0: expected_supported must be true, false or absent"),
    ({"paragraph_id": "p", "sentences": [*ONE, {"order": 1, "text": "b"}]}, "sentence orders must be distinct"),
])
def test_a_request_that_cannot_be_read_is_refused_with_a_reason_naming_what_is_wrong(obj: object,
                                                                                    message: str) -> None:
    with pytest.raises(RequestError) as caught:
        parse_request(obj, {})
    assert str(caught.value) == message


def test_the_defaults_of_a_request_and_what_it_keeps() -> None:
    known = parse_request({"paragraph_id": "p", "facts": [GOOD_FACT], "sentences": ONE}, {}).facts[0]
    req = parse_request({"paragraph_id": "p", "sentences": [{"order": 3, "text": "b", "edited_by_user": True,
                                                              "expected_supported": False}, *ONE]}, {"F1": known})
    assert (req.paragraph_id, req.version, req.event_time, dict(req.paragraph_spec)) == (
        "p", 1, "1970-01-01T00:00:00+00:00", {})
    assert req.allowed_fact_ids == ("F1",)
    assert [(s.index, s.text, s.edited_by_user) for s in req.sentences] == [(1, "a", False), (3, "b", True)]
    assert (req.expected_supported, req.expected_verified) == ((None, False), None)
    assert parse_request({"paragraph_id": "p", "sentences": ONE}, {}, "2026-01-01T00:00:00+00:00").event_time \
        == "2026-01-01T00:00:00+00:00"
    assert len(parse_request({"paragraph_id": "p", "sentences": [{"order": i, "text": "a"} for i in range(200)]},
                             {}).sentences) == 200


def test_embedded_facts_take_precedence_and_allowed_ids_keep_their_first_order() -> None:
    known = parse_request({"paragraph_id": "p", "facts": [GOOD_FACT], "sentences": ONE}, {}).facts[0]
    embedded = GOOD_FACT | {"content": "embedded"}
    req = parse_request({"paragraph_id": "p", "version": 2, "event_time": "t", "paragraph_spec": {"s": 1},
                         "facts": [embedded], "allowed_fact_ids": ["F2", "F1", "F2"], "expected_verified": True,
                         "sentences": ONE}, {"F1": known})
    assert (req.version, req.event_time, dict(req.paragraph_spec), req.expected_verified) == (2, "t", {"s": 1}, True)
    assert req.allowed_fact_ids == ("F2", "F1")
    assert [(f.id, f.content) for f in req.facts] == [("F1", "embedded")]
    assert parse_request({"paragraph_id": "p", "facts": None, "sentences": ONE}, {"F1": known}).facts == (known,)
