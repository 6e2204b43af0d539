"""The projection runner without a broker: the file source (`omega replay --out` JSONL back to log events), and
the runner loop over a fake source (batches as transactions, stop conditions, rebuild, resume, offsets)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from omega.bytes_json import jsonable
from omega.canonical import canonical_json
from projections.memories.log_events import LogEvent
from projections.projector import Projector
from projections.runner import UNDECODABLE, FileSource, ProgressLog, Runner, RunStats
from projections.store.postgres import PostgresStore
from projections.store.protocol import Position
from projections.store.sqlite import SqliteStore
from projections.store.urls import open_store
from tests.unit.projections.factories import Log, episode_events, interleave, session_script

PHYSICAL = {"agent_messages": "omega57.messages", "alerts": "omega.alerts", "terminations": "omega57.terminations",
            "verdicts": "omen.verdicts", "escalations": "omega.escalations"}
LOGICAL = {v: k for k, v in PHYSICAL.items()}


def _events() -> list[LogEvent]:
    log = Log()
    log.extend(interleave([session_script("s1"), session_script("s2", start=5, outcome="FAILURE"),
                           episode_events("ep-1", at=40)]))
    return log.events


def _write_replay(path: Path, events: Sequence[LogEvent], extra: Sequence[str] = ()) -> None:
    """The events as `omega replay --out` writes them: physical topic names, jsonable values."""
    lines = [canonical_json({"topic": PHYSICAL[e.topic], "key": e.key, "value": jsonable(dict(e.record))})
             for e in events]
    path.write_text("\n".join([*lines, *extra]) + "\n", encoding="utf-8")


def _hash(events: Sequence[LogEvent]) -> str:
    with SqliteStore(":memory:") as store:
        Projector(store).rebuild(events)
        return store.content_hash()


def _project(path: Path, store: SqliteStore, *, rebuild: bool = False, batch: int = 1000) -> RunStats:
    runner = Runner(Projector(store, batch_size=batch), FileSource([path], LOGICAL), batch_size=batch)
    return asyncio.run(runner.run(rebuild=rebuild))


def test_a_replay_file_projects_the_same_memories_as_the_log_itself(tmp_path: Path) -> None:
    events = _events()
    _write_replay(tmp_path / "replay.jsonl", events)
    with SqliteStore(tmp_path / "m.sqlite") as store:
        stats = _project(tmp_path / "replay.jsonl", store, rebuild=True, batch=7)
        assert (stats.applied, stats.undecodable, stats.stopped_by) == (len(events), 0, "end of input")
        assert stats.batches == -(-len(events) // 7)
        # positions are (file:PATH, 0, line number)
        assert store.positions() == {(f"file:{tmp_path / 'replay.jsonl'}", 0): len(events)}
        assert store.content_hash() == _hash(events)


def test_undecodable_lines_are_counted_skipped_and_still_advance_the_position(tmp_path: Path) -> None:
    events = _events()
    path = tmp_path / "replay.jsonl"
    _write_replay(path, events, extra=["{not json", '{"topic": "omega.alerts"}'])
    with SqliteStore(tmp_path / "m.sqlite") as store:
        stats = _project(path, store)
        assert (stats.applied, stats.undecodable) == (len(events) + 2, 2)
        assert store.position(f"file:{path}", 0) == len(events) + 2
        assert store.content_hash() == _hash(events)


def test_a_second_run_resumes_after_the_stored_line_and_rebuild_starts_over(tmp_path: Path) -> None:
    events = _events()
    path = tmp_path / "replay.jsonl"
    half = len(events) // 2
    _write_replay(path, events[:half])
    with SqliteStore(tmp_path / "m.sqlite") as store:
        assert _project(path, store).applied == half
        assert _project(path, store).applied == 0  # nothing new: lines at or before the position are not re-read
        _write_replay(path, events)  # the file grew
        assert _project(path, store).applied == len(events) - half
        resumed = store.content_hash()
        assert _project(path, store, rebuild=True).applied == len(events)
        assert store.content_hash() == resumed == _hash(events)


# ------------------------------------------------------------------------------------------- a fake source
class FakeSource:
    """Hands out prepared polls; then idles forever (a live log), or ends (`finite`)."""

    def __init__(self, polls: Sequence[Sequence[LogEvent]], *, finite: bool = False) -> None:
        self.polls = [list(p) for p in polls]
        self.finite = finite
        self.undecodable = 0
        self.started_with: dict[Position, int] | None = None
        self.commits: list[dict[Position, int]] = []
        self.stopped = False

    async def start(self, positions: Mapping[Position, int]) -> None:
        self.started_with = dict(positions)

    async def poll(self, max_events: int, timeout: float) -> list[LogEvent]:
        if not self.polls:
            return []
        head = self.polls[0]
        taken, self.polls[0] = head[:max_events], head[max_events:]
        if not self.polls[0]:
            self.polls.pop(0)
        return taken

    def exhausted(self) -> bool:
        return self.finite and not self.polls

    async def lag(self, positions: Mapping[Position, int]) -> int | None:
        return 0

    async def commit(self, positions: Mapping[Position, int]) -> None:
        self.commits.append(dict(positions))

    async def stop(self) -> None:
        self.stopped = True


def test_until_idle_stops_a_live_source_and_everything_was_applied() -> None:
    events = _events()
    source = FakeSource([events[:10], events[10:]])
    with SqliteStore(":memory:") as store:
        stats = asyncio.run(Runner(Projector(store), source, batch_size=1000, until_idle=0.0,
                                   poll_timeout=0.0).run())
        assert (stats.applied, stats.stopped_by, stats.lag) == (len(events), "idle", 0)
        assert stats.batches == 1  # the second poll topped the first up: one transaction
        assert source.stopped
        assert source.commits[-1] == store.positions()
        assert store.content_hash() == _hash(events)


def test_request_stop_finishes_the_batch_in_hand_and_commits_it() -> None:
    events = _events()
    source = FakeSource([events])
    with SqliteStore(":memory:") as store:
        runner = Runner(Projector(store), source, batch_size=10)
        runner.on_batch = lambda stats: runner.request_stop()  # as SIGTERM would, mid-run
        stats = asyncio.run(runner.run())
        assert (stats.applied, stats.batches, stats.stopped_by) == (10, 1, "signal")
        assert sum(o + 1 for o in store.positions().values()) == 10  # the batch and its positions committed


def test_the_source_starts_after_the_stored_positions_unless_rebuilding() -> None:
    events = _events()
    with SqliteStore(":memory:") as store:
        asyncio.run(Runner(Projector(store), FakeSource([events], finite=True)).run())
        resumed = FakeSource([events], finite=True)
        stats = asyncio.run(Runner(Projector(store), resumed).run())
        assert resumed.started_with == store.positions()
        assert stats.skipped == len(events)
        rebuilt = FakeSource([events], finite=True)
        stats = asyncio.run(Runner(Projector(store), rebuilt).run(rebuild=True))
        assert rebuilt.started_with == {}
        assert stats.applied == len(events)


def test_undecodable_placeholders_reach_no_memory() -> None:
    placeholder = LogEvent(UNDECODABLE, 0, 0, "k", {"reason": "AVRO_DECODE"}, source="t")
    with SqliteStore(":memory:") as store:
        result = Projector(store).process([placeholder])
        assert (result.applied, result.documents, store.sessions()) == (1, 0, [])


@pytest.mark.parametrize(("url", "kind"), [
    ("sqlite:out/m.sqlite", SqliteStore), ("sqlite:///tmp/m.sqlite", SqliteStore),
    ("postgresql://u@h/db", PostgresStore), ("postgres://u@h/db", PostgresStore)])
def test_store_urls(url: str, kind: type) -> None:
    assert isinstance(open_store(url), kind)


@pytest.mark.parametrize("url", ["mysql://x", "sqlite:", "memories.sqlite"])
def test_unknown_store_urls_are_refused(url: str) -> None:
    with pytest.raises(ValueError, match="sqlite"):
        open_store(url)


# ------------------------------------------------------------------------------------------- files, one at a time
def test_file_source_opens_each_file_when_it_is_reached_through_the_opener(tmp_path: Path) -> None:
    events = _events()
    first, second = tmp_path / "1.jsonl", tmp_path / "2.jsonl"
    _write_replay(first, events[:5])
    _write_replay(second, events[5:])
    opened: list[str] = []
    closed: list[str] = []

    @contextmanager
    def opener(path: Path) -> Iterator[Iterable[bytes]]:
        opened.append(path.name)
        try:
            yield path.read_bytes().splitlines(keepends=True)
        finally:
            closed.append(path.name)

    source = FileSource([first, second], LOGICAL, opener=opener)
    asyncio.run(source.start({}))
    assert len(asyncio.run(source.poll(3, 0.0))) == 3
    assert (opened, closed) == (["1.jsonl"], [])
    assert len(asyncio.run(source.poll(3, 0.0))) == 3
    assert (opened, closed) == (["1.jsonl", "2.jsonl"], ["1.jsonl"])
    rest = asyncio.run(source.poll(1000, 0.0))
    assert len(rest) == len(events) - 6
    assert rest[-1].source == f"file:{second}"
    assert source.exhausted()
    assert closed == ["1.jsonl", "2.jsonl"]


def test_stopping_a_file_source_closes_the_file_in_hand(tmp_path: Path) -> None:
    path = tmp_path / "1.jsonl"
    _write_replay(path, _events())
    closed: list[str] = []

    @contextmanager
    def opener(p: Path) -> Iterator[Iterable[bytes]]:
        yield p.read_bytes().splitlines(keepends=True)
        closed.append(p.name)

    source = FileSource([path], LOGICAL, opener=opener)
    asyncio.run(source.start({}))
    asyncio.run(source.poll(2, 0.0))
    asyncio.run(source.stop())
    assert closed == ["1.jsonl"]
    assert source.exhausted()


# ------------------------------------------------------------------------------------------- progress
class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _logged() -> tuple[list[tuple[str, dict[str, object]]], Callable[..., None]]:
    lines: list[tuple[str, dict[str, object]]] = []
    return lines, lambda event, **fields: lines.append((event, fields))


def test_progress_is_logged_at_most_every_five_seconds_with_the_rate_since_the_last_line() -> None:
    clock = Clock()
    lines, log = _logged()
    progress = ProgressLog(log, clock=clock)
    progress.begin()
    at = LogEvent("agent_messages", 0, 120, "k", {}, source="file:in/a.jsonl")
    stats = RunStats(applied=400, skipped=100)
    clock.now = 104.9
    progress.batch_done(stats, at, dict)
    assert lines == []  # not yet 5 s
    clock.now = 105.0
    progress.batch_done(stats, at, dict)
    assert lines == [("project_progress", {"records": 500, "records_per_second": 100, "file": "in/a.jsonl",
                                           "line": 120})]
    stats.applied = 900
    clock.now = 109.0
    progress.batch_done(stats, at, dict)
    assert len(lines) == 1  # 4 s after the last line
    stats.applied = 1400
    clock.now = 110.0
    progress.batch_done(stats, at, dict)
    assert lines[-1][1]["records"] == 1500
    assert lines[-1][1]["records_per_second"] == 200  # 1,000 records in the 5 s since the last line


def test_progress_from_a_log_names_the_last_offset_of_every_topic_and_partition() -> None:
    clock = Clock()
    lines, log = _logged()
    progress = ProgressLog(log, clock=clock)
    progress.begin()
    clock.now = 110.0
    positions = {("omen.verdicts", 1): 7, ("omega.alerts", 0): 3, ("omen.verdicts", 0): 41}
    progress.batch_done(RunStats(applied=50), LogEvent("verdicts", 0, 41, "k", {}), lambda: positions)
    assert lines == [("project_progress", {"records": 50, "records_per_second": 5, "offsets": {
        "omega.alerts": {0: 3}, "omen.verdicts": {0: 41, 1: 7}}})]


def test_the_runner_reports_progress_after_its_batches() -> None:
    events = _events()
    clock = Clock()
    lines, log = _logged()

    def tick(stats: RunStats) -> None:
        clock.now += 3.0  # each batch takes 3 s

    with SqliteStore(":memory:") as store:
        polls = [events[:10], events[10:20], events[20:30], events[30:40]]
        runner = Runner(Projector(store), FakeSource(polls, finite=True), batch_size=10,
                        progress=ProgressLog(log, clock=clock), on_batch=tick)
        asyncio.run(runner.run())
    # read after each batch, before its tick: 0 s, 3 s, 6 s (a line: 30 records, 5/s), 9 s (3 s since the line)
    assert [(fields["records"], fields["records_per_second"]) for _, fields in lines] == [(30, 5)]


# ------------------------------------------------------------------------------------------- overlapped batches
@pytest.mark.parametrize("overlap", [True, False])
def test_overlapped_batches_commit_the_same_read_model_in_the_same_transactions(overlap: bool) -> None:
    events = _events()
    polls = [events[i:i + 7] for i in range(0, len(events), 7)]
    with SqliteStore(":memory:") as store:
        source = FakeSource(polls, finite=True)
        stats = asyncio.run(Runner(Projector(store), source, batch_size=7, overlap=overlap).run(rebuild=True))
        assert (stats.applied, stats.batches, stats.stopped_by) == (len(events), len(polls), "end of input")
        assert source.commits[-1] == store.positions()
        assert store.content_hash() == _hash(events)


def test_a_stop_while_overlapped_commits_the_batch_in_hand_and_not_the_one_read_ahead() -> None:
    events = _events()
    with SqliteStore(":memory:") as store:
        source = FakeSource([events[:10], events[10:20], events[20:]])
        runner = Runner(Projector(store), source, batch_size=10, overlap=True)
        runner.on_batch = lambda stats: runner.request_stop()
        stats = asyncio.run(runner.run(rebuild=True))
        assert (stats.applied, stats.batches, stats.stopped_by) == (10, 1, "signal")
        assert sum(o + 1 for o in store.positions().values()) == 10  # events[10:20] were read, never applied
        assert source.stopped
        resumed = FakeSource([events])
        stats = asyncio.run(Runner(Projector(store), resumed, until_idle=0.0, poll_timeout=0.0).run())
        assert (stats.skipped, stats.applied) == (10, len(events) - 10)
        assert store.content_hash() == _hash(events)


def test_a_batch_failing_in_the_worker_thread_commits_nothing_and_stops_the_source(
        monkeypatch: pytest.MonkeyPatch) -> None:
    events = _events()
    with SqliteStore(":memory:") as store:
        projector = Projector(store)
        real = projector.process_batch
        calls = 0

        def failing(batch: Sequence[LogEvent]) -> object:
            nonlocal calls
            calls += 1
            if calls == 2:
                raise RuntimeError("store failed mid-run")
            return real(batch)

        monkeypatch.setattr(projector, "process_batch", failing)
        source = FakeSource([events[:10], events[10:20], events[20:]])
        with pytest.raises(RuntimeError, match="mid-run"):
            asyncio.run(Runner(projector, source, batch_size=10, overlap=True).run(rebuild=True))
        assert source.stopped
        assert sum(o + 1 for o in store.positions().values()) == 10
        assert store.content_hash() == _hash(events[:10])


def test_the_collector_resumes_when_the_last_overlapping_pause_ends() -> None:
    import gc
    import threading

    from projections.projector import collector_paused

    assert gc.isenabled()
    inside, release = threading.Event(), threading.Event()

    def worker() -> None:
        with collector_paused():
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=worker)
    thread.start()
    inside.wait(5)
    with collector_paused():
        release.set()
        thread.join(5)
        assert not gc.isenabled()  # the worker's pause ended first: this one still holds
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # the caller's setting is kept
    finally:
        gc.enable()


@pytest.mark.parametrize("overlap", [False, True])
def test_the_heap_is_frozen_after_each_batch_before_the_collector_resumes(monkeypatch: pytest.MonkeyPatch,
                                                                         overlap: bool) -> None:
    # Resumed before the freeze, the collector would first scan the batch's allocations on its own, then the
    # freeze's collection would scan them again.
    import gc

    from projections import runner as runner_module

    collector_on_at_freeze: list[bool] = []
    monkeypatch.setattr(runner_module, "_freeze_heap", lambda: collector_on_at_freeze.append(gc.isenabled()))
    events = _events()
    with SqliteStore(":memory:") as store:
        source = FakeSource([events[:10], events[10:20], events[20:]], finite=True)
        stats = asyncio.run(Runner(Projector(store), source, batch_size=10, overlap=overlap).run(rebuild=True))
        assert stats.batches >= 3
        assert collector_on_at_freeze == [False] * stats.batches
        assert store.content_hash() == _hash(events)
    assert gc.isenabled()
