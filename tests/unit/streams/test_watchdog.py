"""The stall watch: waiting work that does not move for the window is a stall; moving or finished work is not."""

from __future__ import annotations

import asyncio
from typing import NamedTuple

from streams.watchdog import RECOVERY, Progress, StallWatch, Stored, next_offsets, without_empty_tails


class TP(NamedTuple):
    topic: str
    partition: int


def parts(**positions: tuple[int, int]) -> Progress:
    return Progress(in_recovery=False, recovery_remaining=0, partitions=positions)


def test_a_partition_with_records_waiting_and_no_progress_for_the_window_is_a_stall() -> None:
    watch = StallWatch(stall_seconds=60)
    assert watch.observe(0, parts(p0=(100, 150))) == []
    assert watch.observe(59, parts(p0=(100, 150))) == []
    [stall] = watch.observe(60, parts(p0=(100, 150)))
    assert stall == "p0: 50 records waiting from offset 100, none processed for 60 s"


def test_progress_restarts_the_window() -> None:
    watch = StallWatch(stall_seconds=60)
    watch.observe(0, parts(p0=(100, 150)))
    assert watch.observe(50, parts(p0=(101, 150))) == []
    assert watch.observe(100, parts(p0=(101, 150))) == []
    assert watch.observe(110, parts(p0=(101, 150))) != []


def test_a_partition_read_to_its_end_never_stalls_however_long_it_is_idle() -> None:
    watch = StallWatch(stall_seconds=60)
    for now in range(0, 1000, 10):
        assert watch.observe(now, parts(p0=(150, 150), p1=(7, 7))) == []


def test_work_that_finished_and_came_back_starts_a_new_window() -> None:
    watch = StallWatch(stall_seconds=60)
    watch.observe(0, parts(p0=(100, 150)))
    watch.observe(30, parts(p0=(150, 150)))
    watch.observe(40, parts(p0=(150, 160)))
    assert watch.observe(90, parts(p0=(150, 160))) == []
    assert watch.observe(100, parts(p0=(150, 160))) != []


def test_a_recovery_that_reads_nothing_for_the_window_is_a_stall_and_paused_partitions_are_not() -> None:
    watch = StallWatch(stall_seconds=60)
    stuck = Progress(in_recovery=True, recovery_remaining=318, partitions={"p0": (100, 150)})
    assert watch.observe(0, stuck) == []
    assert watch.observe(60, stuck) == [f"{RECOVERY}: 318 changelog records still to read, unchanged for 60 s"]


def test_a_recovery_that_advances_is_not_a_stall_and_the_partitions_window_starts_when_it_ends() -> None:
    watch = StallWatch(stall_seconds=60)
    for now, remaining in ((0, 2000), (40, 1500), (80, 900), (120, 10)):
        assert watch.observe(now, Progress(True, remaining, {"p0": (100, 150)})) == []
    assert watch.observe(130, parts(p0=(100, 150))) == []  # the partition's window begins here, not at 0
    assert watch.observe(189, parts(p0=(100, 150))) == []
    assert watch.observe(190, parts(p0=(100, 150))) != []


def test_forget_starts_every_window_afresh() -> None:
    watch = StallWatch(stall_seconds=60)
    watch.observe(0, parts(p0=(100, 150)))
    watch.forget()
    assert watch.observe(60, parts(p0=(100, 150))) == []
    assert watch.observe(120, parts(p0=(100, 150))) != []


def test_next_offsets_prefers_what_this_worker_processed_and_else_faust_s_committed_offset() -> None:
    a, b, c = TP("in", 0), TP("in", 1), TP("in", 2)
    offsets = next_offsets({("in", 0): 41, ("in", 1): 5}, {a: 30, b: 9, c: None}, [a, b, c])
    assert offsets == {("in", 0): 41, ("in", 1): 10, ("in", 2): 0}


def _stored_at(first: dict[int, int | None]) -> Stored:
    async def stored(topic: str, partition: int, offset: int, timeout_ms: int) -> int | None:
        return first[partition]
    return stored


def test_a_partition_whose_tail_holds_no_record_is_read_to_its_end_and_others_keep_waiting() -> None:
    progress = Progress(False, 0, {"p0": (150, 151), "p1": (100, 150), "p2": (7, 9), "p3": (3, 3)},
                        where={"p0": ("in", 0), "p1": ("in", 1), "p2": ("in", 2), "p3": ("in", 3)})
    # p0: a last commit marker; p1: records from 100 on; p2: nothing came (the probe timed out)
    checked = asyncio.run(without_empty_tails(progress, _stored_at({0: None, 1: 100, 2: None, 3: 3})))
    assert checked.partitions == {"p0": (151, 151), "p1": (100, 150), "p2": (9, 9), "p3": (3, 3)}


def test_a_commit_marker_at_the_end_never_makes_a_stall_once_checked() -> None:
    watch = StallWatch(stall_seconds=60)
    progress = Progress(False, 0, {"p0": (150, 151)}, where={"p0": ("in", 0)})
    watch.observe(0, progress)
    assert watch.observe(60, progress) != []
    checked = asyncio.run(without_empty_tails(progress, _stored_at({0: None})))
    assert watch.observe(60, checked) == []
