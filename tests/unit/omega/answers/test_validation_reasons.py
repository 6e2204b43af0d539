"""`validate_and_filter` reasons as users read them: every §4.1 schema reason with its code, message and field,
the §4.2 and §4.3 reasons, and where a rejection is filed (the candidate's source, else the chunk, else given)."""

from __future__ import annotations

from typing import Any

import pytest

from omega.answers.extraction import Unparseable
from omega.answers.model import Chunk, Fact
from omega.answers.validation import validate_and_filter, validate_one
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB
from tests.unit.omega.answers.support import PARAGRAPH, SENTENCES, first_facts

CHUNK = Chunk("doc/c0", "doc", None, 0, 0, PARAGRAPH)
SESSION = first_facts(1, {"docId": "doc", "chunkId": "doc/c0"})[0]


def S(message: str, field: str) -> tuple[str, str, str]:
    return ("SCHEMA_INVALID", message, field)


SPAN = S("span must be {start, end} integers", "span")
SOURCE = S("source must be {docId, chunkId} strings", "source")


@pytest.mark.parametrize(("change", "reasons"), [
    ({"span": {"start": 0, "end": "9"}}, [SPAN]),
    ({"span": [0, 9]}, [SPAN]),
    ({"subject": ""}, [S("subject must be a non-empty string", "subject")]),
    ({"predicate": None}, [S("predicate must be a non-empty string", "predicate")]),
    ({"object": [15]}, [S("object must be a string, number or boolean", "object")]),
    ({"object": None}, [S("object must be a string, number or boolean", "object")]),
    ({"source": {"docId": "doc"}}, [SOURCE]),
    ({"source": {"docId": 5, "chunkId": "doc/c0"}}, [SOURCE]),
    ({"source": {"docId": "doc", "chunkId": ""}}, [SOURCE]),
    ({"source": "doc/c0"}, [SOURCE]),
    ({"polarity": "maybe"}, [S("polarity must be affirm or negate", "polarity")]),
    ({"qualifiers": ["v1"]}, [S("qualifiers must be an object", "qualifiers")]),
    ({"qualifiers": {"version": 2}}, [S("qualifiers.version must be a string", "qualifiers.version")]),
    ({"confidence": 1.5}, [("CONFIDENCE_OUT_OF_RANGE", "confidence 1.5 is not a number in [0, 1]", "confidence")]),
    ({"confidence": True}, [("CONFIDENCE_OUT_OF_RANGE", "confidence True is not a number in [0, 1]", "confidence")]),
    ({"confidence": "0.5"}, [("CONFIDENCE_OUT_OF_RANGE", "confidence '0.5' is not a number in [0, 1]",
                              "confidence")]),
    ({"span": None, "subject": 3, "object": {}, "source": None, "polarity": 1, "qualifiers": 2},
     [SPAN, S("subject must be a non-empty string", "subject"), S("object must be a string, number or boolean",
                                                                   "object"),
      SOURCE, S("polarity must be affirm or negate", "polarity"), S("qualifiers must be an object", "qualifiers")]),
])
def test_each_schema_fault_is_one_reason_with_its_code_message_and_field(change: dict[str, Any],
                                                                         reasons: list[Any]) -> None:
    assert validate_one({**SESSION, **change}, CHUNK, VOCAB) == reasons


def test_a_candidate_that_is_not_an_object_names_its_type() -> None:
    assert validate_one(["fact"], CHUNK, VOCAB) == [("SCHEMA_INVALID", "a fact is a JSON object, got list", None)]


def test_vocabulary_source_and_span_reasons() -> None:
    assert validate_one({**SESSION, "predicate": "lasts"}, CHUNK, VOCAB) == [
        ("UNKNOWN_PREDICATE", "'lasts' is not in the predicate vocabulary", "predicate")]
    source_reason = ("SOURCE_MISMATCH", "source is not chunk doc/c0 of doc", "source")
    assert validate_one({**SESSION, "source": {"docId": "other", "chunkId": "doc/c0"}}, CHUNK, VOCAB) == \
        [source_reason]
    assert validate_one({**SESSION, "source": {"docId": "doc", "chunkId": "doc/c1"}}, CHUNK, VOCAB) == \
        [source_reason]
    assert validate_one({**SESSION, "span": {"start": 5, "end": 5}}, CHUNK, VOCAB) == [
        ("SPAN_OUT_OF_RANGE", f"span [5, 5) is outside the chunk (length {len(PARAGRAPH)})", "span")]
    assert validate_one({**SESSION, "subject": "api_key"}, CHUNK, VOCAB) == [
        ("SUBJECT_NOT_IN_SPAN", "subject 'api_key' does not appear in the span", "subject")]
    assert validate_one({**SESSION, "predicate": "has_value", "object": "3 and 4"}, CHUNK, VOCAB) == [
        ("NUMBER_NOT_VERBATIM", "number(s) 3, 4 not written in the span", "object")]


def test_a_polarity_that_disagrees_with_the_span_says_which_way() -> None:
    assert validate_one({**SESSION, "polarity": "negate"}, CHUNK, VOCAB) == [
        ("POLARITY_MISMATCH", "the span does not negate but polarity is negate", "polarity")]
    text = "Guest accounts do not require MFA."
    guest = Chunk("g/c0", "g", None, 0, 0, text)
    candidate = {"span": {"start": 0, "end": len(text)}, "subject": "guest_account", "predicate": "requires",
                 "object": "mfa", "source": {"docId": "g", "chunkId": "g/c0"}}
    assert validate_one(candidate, guest, VOCAB) == [
        ("POLARITY_MISMATCH", "the span negates but polarity is affirm", "polarity")]
    assert isinstance(validate_one({**candidate, "polarity": "negate"}, guest, VOCAB), Fact)


def test_a_candidates_own_fact_id_is_never_trusted() -> None:
    honest = validate_one(SESSION, CHUNK, VOCAB)
    forged = validate_one({**SESSION, "factId": "fact_forged"}, CHUNK, VOCAB)
    assert isinstance(honest, Fact)
    assert isinstance(forged, Fact)
    assert forged.fact_id == honest.fact_id != "fact_forged"


def test_a_rejection_keeps_the_candidate_and_is_filed_under_its_source_else_the_chunk_else_the_given_place() -> None:
    unknown = {**SESSION, "predicate": "lasts", "source": {"docId": "elsewhere", "chunkId": "elsewhere/c4"}}
    sourceless = {k: v for k, v in SESSION.items() if k != "source"}
    junk = Unparseable("not json", "Expecting value")
    _, rejected = validate_and_filter([unknown, sourceless, junk, SENTENCES[0]], CHUNK, VOCAB)
    assert [(r.candidate, r.doc_id, r.chunk_id) for r in rejected] == [
        (unknown, "elsewhere", "elsewhere/c4"), (sourceless, "doc", "doc/c0"), ("not json", "doc", "doc/c0"),
        (SENTENCES[0], "doc", "doc/c0")]
    assert rejected[2].reasons == (("UNPARSEABLE", "Expecting value", None),)
    _, [alone] = validate_and_filter(["fact"], None, VOCAB)
    assert alone.to_dict() == {"candidate": "fact", "source": {"docId": "", "chunkId": ""},
                               "reasons": [{"code": "SCHEMA_INVALID", "message": "a fact is a JSON object, got str",
                                            "field": None}]}
    _, [given] = validate_and_filter(["fact"], None, VOCAB, "d", "d/c9")
    assert (given.doc_id, given.chunk_id) == ("d", "d/c9")


@pytest.mark.parametrize("confidence", [0, 0.0, 1, 1.0, 0.5])
def test_a_confidence_anywhere_in_the_closed_interval_0_1_is_accepted(confidence: float) -> None:
    fact = validate_one({**SESSION, "confidence": confidence}, CHUNK, VOCAB)
    assert isinstance(fact, Fact)
    assert fact.confidence == confidence
