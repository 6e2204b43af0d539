"""InputOrder: agents process each input partition's records in offset order, and commits never pass a record
that was not processed."""

from __future__ import annotations

from streams.kafka.input_order import InputOrder, Seen

TP0, TP1 = ("packets", 0), ("packets", 1)


def tracking(**committed: int | None) -> InputOrder:
    order = InputOrder(retry_seconds=5.0)
    order.reset({("packets", int(k[1:])): v for k, v in committed.items()})
    return order


def test_before_any_seek_every_record_is_processed() -> None:
    order = InputOrder()
    assert [order.see(TP0, o) for o in (5, 3, 9)] == [Seen.NEXT] * 3
    assert order.clamp({TP0: 100}) == {TP0: 100}


def test_records_from_the_committed_offset_on_are_processed_in_order() -> None:
    order = tracking(p0=10)
    assert [order.see(TP0, o) for o in (10, 11, 12)] == [Seen.NEXT] * 3
    assert order.expected[TP0] == 13


def test_a_record_below_the_expected_offset_was_processed_already() -> None:
    order = tracking(p0=10)
    order.see(TP0, 10)
    order.see(TP0, 11)
    assert order.see(TP0, 10) is Seen.DONE
    assert order.expected[TP0] == 12


def test_a_record_past_the_expected_offset_is_ahead_and_moves_nothing() -> None:
    order = tracking(p0=10)
    assert order.see(TP0, 12) is Seen.AHEAD
    assert order.expected[TP0] == 10
    assert order.see(TP0, 10) is Seen.NEXT


def test_a_partition_without_a_committed_offset_is_unplaced_until_its_start_is_known() -> None:
    order = tracking(p0=None)
    assert order.see(TP0, 7) is Seen.UNPLACED
    assert order.clamp({TP0: 9}) == {TP0: 9}
    order.start_at(TP0, 5)
    assert order.see(TP0, 7) is Seen.AHEAD  # reading began at 5: 5 and 6 were passed over
    assert order.see(TP0, 5) is Seen.NEXT


def test_commits_stop_at_the_first_record_not_processed() -> None:
    order = tracking(p0=10, p1=4)
    order.see(TP0, 10)
    assert order.clamp({TP0: 30, TP1: 3, ("other", 0): 8}) == {TP0: 11, TP1: 3, ("other", 0): 8}


def test_a_rewind_is_asked_once_until_it_is_overdue() -> None:
    order = tracking(p0=10)
    assert order.rewind_to(TP0, now=100.0) == 10
    assert order.rewind_to(TP0, now=102.0) is None  # its records are on their way
    assert order.rewind_to(TP0, now=105.5) == 10  # they never came: ask again


def test_a_rewind_is_asked_again_when_exactly_retry_seconds_have_passed() -> None:
    order = tracking(p0=10)  # retry_seconds=5.0
    assert order.rewind_to(TP0, now=100.0) == 10
    assert order.rewind_to(TP0, now=104.75) is None  # 4.75 s: still on its way
    assert order.rewind_to(TP0, now=105.0) == 10  # 5 s: overdue


def test_a_new_expected_offset_is_rewound_to_at_once() -> None:
    order = tracking(p0=10)
    order.rewind_to(TP0, now=100.0)
    order.see(TP0, 10)
    assert order.rewind_to(TP0, now=100.5) == 11


def test_a_reset_forgets_the_old_assignment() -> None:
    order = tracking(p0=10)
    order.see(TP0, 10)
    order.reset({TP1: 3})
    assert order.see(TP0, 40) is Seen.UNPLACED  # no committed offset given: its start must be placed again
    assert order.see(TP1, 3) is Seen.NEXT


def test_records_gone_from_the_log_are_skipped_to() -> None:
    order = tracking(p0=10)
    order.start_at(TP0, 15)
    assert order.see(TP0, 15) is Seen.NEXT


def test_after_an_assignment_no_record_is_processed_until_the_seek_resets() -> None:
    order = tracking(p0=10)
    order.see(TP0, 10)
    order.hold()  # partitions assigned: the fetcher may still deliver from a stale position
    assert [order.see(TP0, o) for o in (11, 6035)] == [Seen.HELD] * 2
    assert order.expected[TP0] == 11  # a held record moves nothing
    order.reset({TP0: 4739})
    assert order.see(TP0, 6035) is Seen.AHEAD
    assert order.see(TP0, 4739) is Seen.NEXT


def test_a_hold_before_any_seek_holds_too() -> None:
    order = InputOrder()
    order.hold()
    assert order.see(TP0, 0) is Seen.HELD
    order.reset({TP0: None})
    assert order.see(TP0, 0) is Seen.UNPLACED


def test_a_hold_is_overdue_a_limit_after_its_first_held_record_not_after_the_assignment() -> None:
    order = tracking(p0=10)
    order.hold()
    assert not order.hold_overdue(now=1000.0, limit=180.0)  # the first held record, after a long recovery
    assert not order.hold_overdue(now=1179.9, limit=180.0)
    assert order.hold_overdue(now=1180.0, limit=180.0)
    order.reset({TP0: 10})
    assert not order.hold_overdue(now=5000.0, limit=180.0)
