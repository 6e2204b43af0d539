"""The document helpers the memory reducers share: sorted inserts, derived rules, edits that copy only on change."""

from __future__ import annotations

from typing import Any

from projections.memories.documents import Draft, by_id, by_time, derive, edited


def test_by_time_orders_by_time_then_id_and_puts_the_untimed_last() -> None:
    entries = [{"id": "b", "at": "2026-01-01T00:00:02.000Z"}, {"id": "c", "at": None},
               {"id": "a", "at": "2026-01-01T00:00:02.000Z"}, {"id": "d", "at": "2026-01-01T00:00:01.000Z"}]
    assert [e["id"] for e in sorted(entries, key=by_time("at"))] == ["d", "a", "b", "c"]


def test_draft_insert_places_a_new_entry_in_order_and_refuses_one_whose_key_is_there() -> None:
    base = {"items": [{"id": "a"}, {"id": "c"}]}
    draft = Draft(base)
    assert draft.insert("items", {"id": "b"}, by_id)
    assert not draft.insert("items", {"id": "c", "other": 1}, by_id)
    assert draft.doc["items"] == [{"id": "a"}, {"id": "b"}, {"id": "c"}]
    assert base["items"] == [{"id": "a"}, {"id": "c"}]  # the current version is untouched


def test_derive_starts_a_rule_at_one_source_and_counts_each_further_source_once() -> None:
    draft = Draft({"rules": []})
    rule = {"id": "r1", "rule": "When x: y"}
    derive(draft, "rules", rule, "f2", "caught", uncounted=1)
    assert draft.doc["rules"] == [{"id": "r1", "rule": "When x: y", "derived_from": ["f2"], "caught": 0}]
    derive(draft, "rules", rule, "f1", "caught", uncounted=1)
    derive(draft, "rules", rule, "f1", "caught", uncounted=1)  # a redelivery counts nothing more
    assert draft.doc["rules"] == [{"id": "r1", "rule": "When x: y", "derived_from": ["f1", "f2"], "caught": 1}]


def test_derive_keeps_the_list_sorted_by_id_and_counts_every_source_when_none_is_uncounted() -> None:
    draft = Draft({"heuristics": [{"id": "h2", "derived_from": ["s1"], "uses": 1}]})
    derive(draft, "heuristics", {"id": "h1"}, "s9", "uses", uncounted=0)
    derive(draft, "heuristics", {"id": "h2"}, "s3", "uses", uncounted=0)
    assert draft.doc["heuristics"] == [{"id": "h1", "derived_from": ["s9"], "uses": 1},
                                       {"id": "h2", "derived_from": ["s1", "s3"], "uses": 2}]


def _append(draft: Draft, value: Any) -> bool:
    if value in draft.read("seen"):
        return False
    draft.list("seen").append(value)
    return True


def test_edited_applies_each_edit_to_its_signals_in_order() -> None:
    current = {"seen": ["a"]}
    assert edited(current, (_append, ["b", "c"]), (_append, ["d"])) == {"seen": ["a", "b", "c", "d"]}
    assert current == {"seen": ["a"]}


def test_edited_gives_the_current_document_itself_when_nothing_changed_or_nothing_was_signalled() -> None:
    current = {"seen": ["a"]}
    assert edited(current, (_append, ["a"])) is current
    assert edited(current, (_append, []), (_append, ())) is current
