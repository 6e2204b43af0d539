"""The envelope: ids from the record's natural id (never the position), JSON-text readers, message views."""

from __future__ import annotations

import pytest

from projections.memories.log_events import (
    AGENT_MESSAGES,
    ALERTS,
    VERDICTS,
    LogEvent,
    normalise_time,
    number,
    read_extras,
    read_json,
    truthy,
    verdict_tag,
)
from tests.unit.projections.factories import alert, message, verdict


def test_event_id_derives_from_topic_key_and_natural_id_not_the_position() -> None:
    record = message("s1", 1, 27, "[SUPPORTS] holds")
    a = LogEvent(AGENT_MESSAGES, 0, 10, "s1", record)
    b = LogEvent(AGENT_MESSAGES, 3, 99_999, "s1", record, source="file:/data/replay.jsonl")
    assert a.event_id == b.event_id
    assert a.event_id.startswith("ev_")
    assert LogEvent(ALERTS, 0, 10, "s1", record).event_id != a.event_id  # the logical topic is part of it


def test_a_record_without_its_id_is_identified_by_its_canonical_content() -> None:
    record = message("s1", 1, 27, "[SUPPORTS] holds", message_id=None)
    a = LogEvent(AGENT_MESSAGES, 0, 1, "s1", record)
    b = LogEvent(AGENT_MESSAGES, 1, 7, "s1", dict(reversed(list(record.items()))))
    assert a.natural_id.startswith("sha256:")
    assert a.event_id == b.event_id


def test_position_source_defaults_to_the_topic() -> None:
    record = message("s1", 1, 27, "x")
    assert LogEvent(AGENT_MESSAGES, 0, 1, "s1", record).position_source == AGENT_MESSAGES
    assert LogEvent(AGENT_MESSAGES, 0, 1, "s1", record, source="file:a.jsonl").position_source == "file:a.jsonl"


def test_session_comes_from_the_record_and_falls_back_to_the_key() -> None:
    assert LogEvent(VERDICTS, 0, 1, "k", verdict("ep-1", "p1", "REJECTED", at=0)).session_id == "ep-1"
    assert LogEvent(ALERTS, 0, 1, "k", {"alert_id": "a"}).session_id == "k"


def test_only_rejected_verdicts_and_known_topics_are_relevant() -> None:
    assert not LogEvent(VERDICTS, 0, 1, "e", verdict("e", "p", "ACCEPTED", at=0)).relevant
    assert LogEvent(VERDICTS, 0, 1, "e", verdict("e", "p", "REJECTED", at=0)).relevant
    assert not LogEvent("dead_letters", 0, 1, "e", {}).relevant
    assert LogEvent(ALERTS, 0, 1, "s", alert("s", "X", "INFO", "m", source_event_id="m1", at=0)).relevant


def test_json_text_readers() -> None:
    assert read_json('{"a":[1,2]}') == {"a": [1, 2]}
    assert read_json(None) is None
    assert read_json("not json") == "not json"
    assert read_extras({"breakthrough": "true", "note": '"x"'}) == {"breakthrough": True, "note": "x"}
    assert read_extras(None) == {}


@pytest.mark.parametrize(("value", "expected"), [
    (True, True), (False, False), (None, False), ("yes", True), ("false", False), (" No ", False), ("", False),
    (0, False), (1, True), ({}, False), ({"a": 1}, True), ([], False), ([0], True),
])
def test_truthy_reads_producer_signals(value: object, expected: bool) -> None:
    assert truthy(value) is expected


def test_times_normalise_to_sortable_utc_text() -> None:
    assert normalise_time("2026-01-26T10:00:00+01:00") == "2026-01-26T09:00:00.000Z"
    assert normalise_time("2026-01-26T09:00:00.123456Z") == "2026-01-26T09:00:00.123Z"
    assert normalise_time("2026-01-26T09:00:00") == "2026-01-26T09:00:00.000Z"  # naive means UTC
    assert normalise_time("yesterday") is None
    assert normalise_time(None) is None


def test_verdict_tags_and_numbers() -> None:
    assert verdict_tag("[SHIP_WITH_CAVEATS] fine") == "SHIP WITH CAVEATS"
    assert verdict_tag("  [ reject ] no") == "REJECT"
    assert verdict_tag("no tag [SHIP]") is None
    assert number("80%") == 0.8
    assert number(True) is None
    assert number(float("nan")) is None


def test_message_view_reads_every_block() -> None:
    record = message("s1", 3, 35, "[CONTRADICTS] no", contradiction_with=27, blocks_progress=True,
                     content={"hypothesis": ["a", None, "b"]}, flag_extras={"failure": "oops"},
                     extras={"brilliant": False}, inputs_used=(27,),
                     references=[{"type": "contradicts", "source_agent": 27, "source_element": "claim"}])
    view = LogEvent(AGENT_MESSAGES, 0, 0, "s1", record).message
    assert view is not None
    assert (view.agent_id, view.tag, view.contradiction_with, view.blocks_progress) == (35, "CONTRADICTS", 27, True)
    assert view.items("hypothesis", "hypotheses") == ["a", "b"]
    assert view.signal("failure") == "oops"
    assert view.signal("brilliant") is None
    assert view.inputs_used == (27,)
    assert view.references[0].type == "CONTRADICTS"


def test_memo_computes_once_per_event() -> None:
    event = LogEvent(AGENT_MESSAGES, 0, 0, "s1", message("s1", 1, 1, "x"))
    calls: list[int] = []

    def compute(e: LogEvent) -> int:
        calls.append(1)
        return e.offset

    assert event.memo("n", compute) == event.memo("n", compute) == 0
    assert calls == [1]
