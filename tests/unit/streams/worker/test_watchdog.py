"""The stall watch: waiting work that does not move for the window is a stall; moving or finished work is not.
Installed on an app, its timer logs `worker_stalled` and crashes the worker on a stall."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from types import SimpleNamespace
from typing import Any, NamedTuple

import pytest

from streams.worker import watchdog
from streams.worker.watchdog import (
    RECOVERY,
    Progress,
    StallWatch,
    Stored,
    WorkerStalled,
    install,
    next_offsets,
    without_empty_tails,
)


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


def test_its_state_shows_what_waits_and_for_how_long_unmoved() -> None:
    watch = StallWatch(stall_seconds=60)
    watch.observe(10, parts(p0=(100, 150), p1=(7, 7)))
    watch.observe(25, parts(p0=(100, 150), p1=(7, 7)))

    assert watch.state(40) == {"stall_seconds": 60, "waiting": {"p0": {"position": 100, "unmoved_seconds": 30.0}}}


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


# --- install: the timer on the app, driven tick by tick ------------------------------------------------------------


class FakeApp:
    """What `install` and `look` use of a Faust app: `timer` records the function it registers (`tick` runs it
    once), the clock is `now`, the consumer's high waters are `ends`, and `crash` records its reason."""

    def __init__(self, ends: dict[TP, int], inputs: tuple[str, ...] = ("in",)) -> None:
        self.ends, self.now = ends, 0.0
        self.timers: list[tuple[float, Callable[[], Coroutine[Any, Any, None]]]] = []
        self.crashes: list[BaseException] = []
        self.fail_looks: Exception | None = None
        self.recovery = SimpleNamespace(in_recovery=False, active_remaining_total=lambda: 0)
        self.agents = {"validator": SimpleNamespace(channel=SimpleNamespace(topics=inputs))}
        self.tables = SimpleNamespace(recovery=self.recovery)
        self.assignor = SimpleNamespace(assigned_actives=lambda: set(self.ends))
        self.consumer = SimpleNamespace(highwaters=self._highwaters, _committed_offset={})
        self.loop = SimpleNamespace(time=lambda: self.now)

    async def _highwaters(self, *tps: TP) -> dict[TP, int]:
        if self.fail_looks is not None:
            raise self.fail_looks
        return {tp: self.ends[tp] for tp in tps}

    def timer(self, interval: float) -> Callable[[Callable[[], Coroutine[Any, Any, None]]], Any]:
        def register(fun: Callable[[], Coroutine[Any, Any, None]]) -> Any:
            self.timers.append((interval, fun))
            return fun
        return register

    async def crash(self, reason: BaseException) -> None:
        self.crashes.append(reason)

    def tick(self, now: float) -> None:
        [(_, stall_watch)] = self.timers
        self.now = now
        asyncio.run(stall_watch())


class Logged:
    """Stands in for the watchdog's structlog logger: (level, event, fields) per call."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str, dict[str, Any]]] = []

    def __getattr__(self, level: str) -> Callable[..., None]:
        return lambda event, **fields: self.lines.append((level, event, fields))


@pytest.fixture
def logged(monkeypatch: pytest.MonkeyPatch) -> Logged:
    logger = Logged()
    monkeypatch.setattr(watchdog, "log", logger)
    return logger


def test_install_registers_one_timer_every_interval_and_waiting_work_unmoved_for_the_window_crashes_the_worker(
    logged: Logged,
) -> None:
    app = FakeApp({TP("in", 0): 150})
    install(app, {("in", 0): 100}, stall_seconds=60, every=10)
    assert [interval for interval, _ in app.timers] == [10]
    for now in (0, 30, 59):
        app.tick(now)
    assert app.crashes == []
    assert logged.lines == []
    app.tick(60)
    [crash] = app.crashes
    assert isinstance(crash, WorkerStalled)
    assert str(crash) == "in[0]: 50 records waiting from offset 100, none processed for 60 s"
    assert logged.lines == [("error", "worker_stalled", {"stalls": [str(crash)], "stall_seconds": 60})]


def test_a_table_recovery_that_reads_nothing_for_the_window_crashes_the_worker(logged: Logged) -> None:
    app = FakeApp({TP("in", 0): 150})
    app.recovery.in_recovery, app.recovery.active_remaining_total = True, lambda: 318
    install(app, {}, stall_seconds=60, every=10)
    app.tick(0)
    app.tick(60)
    assert [str(c) for c in app.crashes] == [f"{RECOVERY}: 318 changelog records still to read, unchanged for 60 s"]


def test_waiting_work_that_moves_never_crashes_the_worker(logged: Logged) -> None:
    app = FakeApp({TP("in", 0): 10_000})
    processed = {("in", 0): 100}
    install(app, processed, stall_seconds=60, every=10)
    for now in range(0, 600, 10):
        app.tick(now)
        processed[("in", 0)] += 1  # one record per look: slow, but moving
    assert app.crashes == []
    assert logged.lines == []


def test_a_stalled_partition_of_a_topic_no_agent_reads_never_crashes_the_worker(logged: Logged) -> None:
    app = FakeApp({TP("in", 0): 150, TP("elsewhere", 0): 150})
    install(app, {("in", 0): 150, ("elsewhere", 0): 100}, stall_seconds=60, every=10)
    for now in range(0, 200, 10):
        app.tick(now)
    assert app.crashes == []


def test_a_look_that_fails_skips_the_round_and_starts_the_window_afresh(logged: Logged) -> None:
    app = FakeApp({TP("in", 0): 150})
    install(app, {("in", 0): 100}, stall_seconds=60, every=10)
    app.tick(0)
    app.fail_looks = ConnectionError("broker away")
    app.tick(30)
    assert logged.lines == [("info", "stall_watch_skipped", {"error": "ConnectionError: broker away"})]
    app.fail_looks = None
    app.tick(60)  # 60 s after the first look, but the window restarted here
    app.tick(110)
    assert app.crashes == []
    app.tick(120)
    assert len(app.crashes) == 1


def test_with_stored_a_waiting_tail_that_holds_no_record_is_not_a_stall_and_one_that_does_is(logged: Logged) -> None:
    marker_only, has_records = FakeApp({TP("in", 0): 151}), FakeApp({TP("in", 0): 151})
    install(marker_only, {("in", 0): 150}, stall_seconds=60, every=10, stored=_stored_at({0: None}))
    install(has_records, {("in", 0): 150}, stall_seconds=60, every=10, stored=_stored_at({0: 150}))
    for now in (0, 60, 120):
        marker_only.tick(now)
    has_records.tick(0)
    has_records.tick(60)
    assert marker_only.crashes == []
    [crash] = has_records.crashes
    assert str(crash) == "in[0]: 1 records waiting from offset 150, none processed for 60 s"


@pytest.mark.parametrize("stall_seconds", [0, -1])
def test_a_stall_window_of_zero_or_less_installs_no_watch(stall_seconds: float) -> None:
    app = FakeApp({TP("in", 0): 150})
    install(app, {("in", 0): 100}, stall_seconds=stall_seconds, every=10)
    assert app.timers == []
