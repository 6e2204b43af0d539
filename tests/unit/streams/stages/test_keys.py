"""streams/stages/keys.py: the natural key of each input topic's records (issue 22), by hand from the topic contract."""

from __future__ import annotations

import json

import pytest

from streams.stages.keys import natural_key
from streams.topics import (
    AGENT_MESSAGES_RAW,
    DOCUMENTS,
    GROUNDING_FACTS,
    GROUNDING_REQUESTS,
    ORACLE_REQUESTS,
    PACKETS,
    PACKETS_JSON,
    QUESTIONS,
)


def _raw(value: object) -> bytes:
    return json.dumps(value).encode()


def test_an_omen_packet_is_keyed_by_its_correlation_id() -> None:
    raw = _raw({"header": {"correlation_id": "corr_ep00001", "packet_id": "p1"}})
    assert natural_key(PACKETS_JSON, raw, None) == b"corr_ep00001"
    assert natural_key(PACKETS_JSON, raw, b"whatever") == b"corr_ep00001"


@pytest.mark.parametrize("raw", [b"not json", b"[1, 2]", _raw({"header": "x"}), _raw({"header": {}}),
                                 _raw({"header": {"correlation_id": 7}}), _raw({"header": {"correlation_id": ""}})])
def test_a_packet_whose_correlation_id_cannot_be_read_keeps_the_key_it_was_given(raw: bytes) -> None:
    assert natural_key(PACKETS_JSON, raw, b"given") == b"given"
    assert natural_key(PACKETS_JSON, raw, None) is None


def test_agent_output_is_keyed_by_the_session_id_given() -> None:
    assert natural_key(AGENT_MESSAGES_RAW, b"agent_id: a1\n", None, "clean_success") == b"clean_success"
    assert natural_key(AGENT_MESSAGES_RAW, b"agent_id: a1\n", b"stem", None) == b"stem"


def test_a_phase_q_request_is_keyed_by_its_case_id() -> None:
    assert natural_key(ORACLE_REQUESTS, _raw({"id": "Q-PREC-001", "input": {}}), None) == b"Q-PREC-001"


@pytest.mark.parametrize("spec", [DOCUMENTS, QUESTIONS, GROUNDING_FACTS, GROUNDING_REQUESTS])
def test_corpus_topics_are_keyed_by_the_corpus_default_when_absent(spec: object) -> None:
    assert natural_key(spec, _raw({"corpus": "hr-policies", "x": 1}), b"doc-1") == b"hr-policies"
    assert natural_key(spec, _raw({"x": 1}), None) == b"default"
    assert natural_key(spec, _raw({"corpus": "a/b"}), b"given") == b"given"


def test_a_topic_without_a_natural_key_here_keeps_the_given_key() -> None:
    assert natural_key(PACKETS, b"\xc3\x01...", b"given") == b"given"
    assert natural_key(None, _raw({"header": {"correlation_id": "c"}}), b"given") == b"given"
