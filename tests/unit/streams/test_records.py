"""The JSON views of records (streams/records.py)."""

from __future__ import annotations

from streams.records import json_view


def test_json_views_show_details_as_the_object_the_avro_text_encodes() -> None:
    record = {"alert_id": "alr_1", "details": '{"rule":"INV-011","task_id":"t1"}'}
    assert json_view(record)["details"] == {"rule": "INV-011", "task_id": "t1"}
    assert json_view({"details": "not json"})["details"] == "not json"  # kept as it came
    assert json_view({"details": None})["details"] is None
    assert record["details"] == '{"rule":"INV-011","task_id":"t1"}'  # the record itself is not changed
