"""`Judgements`: immutable versions sharing one append-only store, and judgements found behind `missing`."""

from __future__ import annotations

import pytest

from omega.packets.judgements import Judgements


def test_adding_returns_a_new_version_and_leaves_the_receiver_unchanged() -> None:
    first = Judgements({"a": 1})
    second = first.with_("b", 2)

    assert dict(first) == {"a": 1}
    assert first.get("b") is None
    assert dict(second) == {"a": 1, "b": 2}
    assert list(second) == ["a", "b"]


def test_adding_to_an_older_version_branches_without_touching_the_newer_one() -> None:
    base = Judgements[int]().with_("a", 1)
    newer = base.with_("b", 2)
    branch = base.with_("c", 3)

    assert dict(newer) == {"a": 1, "b": 2}
    assert dict(branch) == {"a": 1, "c": 3}
    assert branch.get("b") is None
    assert newer.get("c") is None


def test_replacing_a_key_moves_it_last_and_leaves_the_old_value_in_the_old_version() -> None:
    old = Judgements({"a": 1, "b": 2})
    new = old.with_("a", 9)

    assert list(new.items()) == [("b", 2), ("a", 9)]
    assert old["a"] == 1
    assert len(new) == 2


def test_added_since_lists_what_a_version_holds_beyond_the_one_it_grew_from_with_sequence_numbers() -> None:
    stored = Judgements[str](missing=lambda key: None, base=5)
    one = stored.with_("p1", "j1")
    two = one.with_("p2", "j2")

    assert two.added_since(one) == [(6, "p2", "j2")]
    assert two.added_since(stored) == [(5, "p1", "j1"), (6, "p2", "j2")]
    assert two.added_since(None) == [(5, "p1", "j1"), (6, "p2", "j2")]
    assert two.count == 7


def test_added_since_an_unrelated_version_lists_every_entry() -> None:
    one = Judgements({"a": 1}).with_("b", 2)

    assert one.added_since(Judgements({"a": 1})) == [(0, "a", 1), (1, "b", 2)]


def test_a_judgement_behind_missing_counts_only_when_the_stored_ledger_counts_it() -> None:
    table = {"p0": (0, "j0"), "p1": (1, "j1")}  # p1 was stored, its ledger (which would count 2) was not
    judgements = Judgements[str](missing=table.get, base=1)

    assert judgements.get("p0") == "j0"
    assert judgements.get("p1") is None  # judged again, from the ledger that was stored
    assert judgements.get("p9", "none") == "none"
    assert "p0" in judgements
    assert "p1" not in judgements


def test_in_memory_entries_win_over_missing_and_equal_mappings_compare_equal() -> None:
    judgements = Judgements[str](missing=lambda key: (0, "stale"), base=3).with_("p", "fresh")

    assert judgements["p"] == "fresh"
    assert Judgements({"a": 1}) == {"a": 1}
    assert Judgements({"a": 1}).with_("b", 2) == Judgements({"a": 1, "b": 2})


def test_an_older_version_has_no_sequence_number_for_a_key_added_after_it() -> None:
    first = Judgements({"a": 1})
    second = first.with_("b", 2)  # appended in place, in the store `first` shares

    assert first.sequence("b") is None
    assert second.sequence("b") == 1
    assert first.sequence("a") == second.sequence("a") == 0


def test_sequence_numbers_count_the_judgements_behind_missing_first() -> None:
    table = {"p0": (0, "j0"), "p1": (1, "j1")}  # p1 was stored, its ledger (which would count 2) was not
    judgements = Judgements[str](missing=table.get, base=1).with_("p2", "j2")

    assert judgements.sequence("p0") == 0
    assert judgements.sequence("p1") is None  # at base: not counted by the stored ledger
    assert judgements.sequence("p2") == 1  # the first in memory comes after the base's one
    assert judgements.sequence("p9") is None  # unknown to memory and to missing


def test_a_key_judged_nowhere_raises_a_key_error_naming_it() -> None:
    judgements = Judgements[str]({"a": "ja"}, missing=lambda key: None, base=0)

    with pytest.raises(KeyError) as raised:
        judgements["p9"]
    assert raised.value.args == ("p9",)
