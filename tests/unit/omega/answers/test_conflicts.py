"""§4.4 rule 1: with a query version, only that version's facts take part, wherever the other versions' facts
sit in source order."""

from __future__ import annotations

from typing import Any

from omega.answers.conflicts import detect_conflicts
from omega.answers.model import Fact, fact_from_dict
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB


def fact(obj: Any, version: str, chunk: str) -> Fact:
    return fact_from_dict({"span": {"start": 0, "end": 1}, "subject": "t", "predicate": "expires_after",
                           "object": obj, "source": {"docId": "d", "chunkId": chunk}, "polarity": "affirm",
                           "qualifiers": {"version": version}})


def test_a_fact_of_another_version_earlier_in_source_order_does_not_hide_a_conflict_of_the_asked_version() -> None:
    old, short, long = fact("60 minutes", "v1", "c0"), fact("15 minutes", "v2", "c1"), fact("30 minutes", "v2", "c2")
    assert detect_conflicts([long, old, short], VOCAB, "v2") == [
        (short, long, "VALUE_MISMATCH: t expires_after is '15 minutes' in c1 and '30 minutes' in c2 "
                      "(version 2 (written 'v2'))")]
    assert detect_conflicts([long, old, short], VOCAB, "v1") == []
