"""`summed`: a summary of counts and tallies added up from its parts, field by field."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pytest

from omega.counts import summed


@dataclass
class Tallies:
    events: int = 0
    statuses: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True, slots=True)
class Frozen:
    applied: int = 0
    skipped: int = 0


@dataclass
class WithText:
    count: int = 0
    note: str = ""


def test_ints_add_and_counters_merge_key_by_key() -> None:
    parts = [Tallies(2, Counter({"ACCEPTED": 2})), Tallies(3, Counter({"ACCEPTED": 1, "REJECTED": 2}))]
    assert summed(Tallies, parts) == Tallies(5, Counter({"ACCEPTED": 3, "REJECTED": 2}))


def test_the_parts_are_left_as_they_were() -> None:
    first = Tallies(1, Counter({"a": 1}))
    summed(Tallies, [first, Tallies(1, Counter({"a": 4}))])
    assert first == Tallies(1, Counter({"a": 1}))


def test_no_part_is_the_empty_summary_and_a_frozen_summary_sums_too() -> None:
    assert summed(Tallies, []) == Tallies(0, Counter())
    assert summed(Frozen, iter([Frozen(1, 2), Frozen(10, 20)])) == Frozen(11, 22)


def test_a_field_that_is_no_count_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match=r"WithText\.note is str"):
        summed(WithText, [WithText(1, "a")])
