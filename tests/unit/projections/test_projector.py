"""The projector over the embedded store: determinism (same log, same hash; ids independent of positions and
of how topics interleave), batching, lazy loading and eviction, and a failed batch leaving no trace."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from projections import projector as projector_module
from projections.memories.consistency import check_consistency
from projections.memories.log_events import LogEvent
from projections.projector import Projector
from projections.store.sqlite import SqliteStore
from tests.unit.projections.factories import Log, episode_events, interleave, session_script, workload


def _log(partitions: int = 4, source_prefix: str = "", first_offset: int = 0) -> list[LogEvent]:
    log = Log(partitions=partitions, source_prefix=source_prefix, first_offset=first_offset)
    log.extend(interleave([
        session_script("s1") + session_script("s1", iteration=2, start=300, outcome=None),
        session_script("s2", start=5, outcome="FAILURE"),
        episode_events("ep-1", at=40),
    ]))
    return log.events


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with SqliteStore(tmp_path / "memories.sqlite") as s:
        yield s


def _hash(events: list[LogEvent], **kw: int) -> str:
    with SqliteStore(":memory:") as s:
        Projector(s, **kw).rebuild(events)
        return s.content_hash()


def test_rebuilding_twice_gives_the_same_hash(store: SqliteStore) -> None:
    events = _log()
    projector = Projector(store)
    projector.rebuild(events)
    first = store.content_hash()
    assert projector.rebuild(events).applied == len(events)
    assert store.content_hash() == first == _hash(events)


def test_ids_do_not_depend_on_log_positions() -> None:
    shifted = _log(partitions=1, source_prefix="file:/replays/day-1.jsonl#", first_offset=1000)
    assert [e.offset for e in shifted] != [e.offset for e in _log()]
    assert _hash(shifted) == _hash(_log())


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_the_hash_does_not_depend_on_how_topics_interleave(rnd: random.Random) -> None:
    events = _log()
    # A consumer keeps each (topic, partition) in order but may interleave them any way it likes.
    streams: dict[tuple[str, int], list[LogEvent]] = defaultdict(list)
    for e in events:
        streams[(e.topic, e.partition)].append(e)
    queues = {k: list(reversed(v)) for k, v in streams.items()}
    merged: list[LogEvent] = []
    while queues:
        key = rnd.choice(sorted(queues))
        merged.append(queues[key].pop())
        if not queues[key]:
            del queues[key]
    assert _hash(merged) == _hash(events)


@pytest.mark.parametrize("batch_size", [1, 7, 1000])
def test_batch_size_and_cache_size_do_not_change_the_result(batch_size: int) -> None:
    events = _log()
    with SqliteStore(":memory:") as s:
        projector = Projector(s, batch_size=batch_size, max_cached_sessions=1)
        projector.process(events)
        assert s.content_hash() == _hash(events)


def test_a_new_projector_resumes_from_the_store(store: SqliteStore) -> None:
    events = _log()
    half = len(events) // 2
    Projector(store).process(events[:half])
    resumed = Projector(store)  # empty cache: memories load lazily from the store
    result = resumed.process(events)
    assert (result.skipped, result.applied) == (half, len(events) - half)
    assert store.content_hash() == _hash(events)
    assert resumed.memories("s1") == Projector(store).memories("s1")


def test_replayed_events_change_nothing(store: SqliteStore) -> None:
    events = _log()
    projector = Projector(store)
    projector.process(events)
    before = store.content_hash()
    assert projector.process(events).skipped == len(events)
    assert store.content_hash() == before


def test_a_failed_batch_leaves_neither_store_nor_cache_changed(store: SqliteStore,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    events = _log()
    projector = Projector(store, batch_size=10)
    projector.process(events[:10])
    cached = projector.memories("s1")
    stored = store.content_hash()
    real = projector_module.apply_all
    calls = 0

    def failing(memories: projector_module.Memories, event: LogEvent) -> projector_module.Memories:
        nonlocal calls
        calls += 1
        if calls == 5:
            raise RuntimeError("reducer crashed mid-batch")
        return real(memories, event)

    monkeypatch.setattr(projector_module, "apply_all", failing)
    with pytest.raises(RuntimeError, match="mid-batch"):
        projector.process_batch(events[10:20])
    monkeypatch.setattr(projector_module, "apply_all", real)
    assert projector.memories("s1") is cached
    assert store.content_hash() == stored
    projector.process(events[10:])
    assert store.content_hash() == _hash(events)


def test_a_workload_projects_consistent_memories(store: SqliteStore) -> None:
    events = workload(1500, 12)
    Projector(store).rebuild(events, batch_size=400)
    sessions = store.sessions()
    assert len(sessions) == 12
    for sid in sessions:
        assert check_consistency(store.session(sid)) == [], sid


def test_events_that_no_memory_reads_still_advance_the_position(store: SqliteStore) -> None:
    ignored = [LogEvent("dead_letters", 0, 7, "s9", {"reason": "bad bytes"}),
               LogEvent("verdicts", 1, 3, "ep", {"verdict_id": "v", "correlation_id": "ep", "status": "ACCEPTED"})]
    result = Projector(store).process(ignored)
    assert (result.applied, result.documents) == (2, 0)
    assert store.sessions() == []
    assert (store.position("dead_letters", 0), store.position("verdicts", 1)) == (7, 3)
