"""The read-model store contract, written once and run against every backend (SQLite file, PostgreSQL):
documents and tracking positions commit together or not at all, a store resumes after its position and skips
what it already applied, and the same events give the same content hash on every backend and on rebuild."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pytest

from projections.batches import apply_batch
from projections.memories.documents import JSONObject
from projections.memories.log_events import LogEvent
from projections.memories.pattern_memory import pattern_id
from projections.projector import Projector
from projections.store.base import SqlStore
from projections.store.protocol import DocKey
from projections.store.sqlite import SqliteStore
from tests.unit.projections.factories import Log, episode_events, interleave, session_script

StoreFactory = Callable[[], SqlStore]
EMPTY_HASH = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"  # SHA-256 of nothing


def _events() -> list[LogEvent]:
    log = Log(partitions=2)
    log.extend(interleave([
        session_script("s1") + session_script("s1", iteration=2, start=300, outcome=None),
        session_script("s2", start=5, outcome="FAILURE"),
        episode_events("ep-1", at=40),
    ]))
    return log.events


def _reference(events: list[LogEvent]) -> SqliteStore:
    store = SqliteStore(":memory:")
    store.open()
    Projector(store).rebuild(events)
    return store


def _echo(event: LogEvent) -> Mapping[DocKey, JSONObject]:
    """A trivial reducer: one document per event key, naming the event's offset."""
    return {(event.key, "session"): {"offset": event.offset, "topic": event.topic}}


def test_a_new_store_is_empty_and_open_is_idempotent(make_store: StoreFactory) -> None:
    store = make_store()
    store.open()
    assert (store.positions(), store.sessions(), store.failures(), store.successes()) == ({}, [], [], [])
    assert store.content_hash() == EMPTY_HASH
    assert store.get("nobody", "session") is None
    with pytest.raises(ValueError, match="unknown memory kind"):
        store.get("s1", "sessions")


def test_documents_are_stored_per_session_and_kind(make_store: StoreFactory) -> None:
    store = make_store()
    projector = Projector(store)
    events = _events()
    result = projector.process(events)
    assert (result.applied, result.skipped) == (len(events), 0)
    assert store.sessions() == ["ep-1", "s1", "s2"]
    for sid in store.sessions():
        expected = projector.memories(sid).documents()
        assert store.session(sid) == expected
        assert all(store.get(sid, kind) == doc for kind, doc in expected.items())
    assert set(store.session("ep-1")) == {"session", "pattern", "failure"}  # no success: no document


def test_positions_are_the_last_applied_offsets(make_store: StoreFactory) -> None:
    store = make_store()
    events = _events()
    apply_batch(store, events, _echo)
    last: dict[tuple[str, int], int] = {}
    for e in events:
        last[(e.position_source, e.partition)] = e.offset
    assert store.positions() == last
    source, partition = next(iter(last))
    assert store.position(source, partition) == last[(source, partition)]
    assert store.position("no-such-topic", 0) is None
    assert make_store().positions() == last  # committed: another connection reads them


def test_a_batch_failing_in_the_reducer_leaves_neither_change_nor_position(make_store: StoreFactory) -> None:
    store = make_store()
    events = _events()
    apply_batch(store, events[:5], _echo)
    before, positions = store.content_hash(), store.positions()
    seen = 0

    def crashing(event: LogEvent) -> Mapping[DocKey, JSONObject]:
        nonlocal seen
        seen += 1
        if seen == 3:
            raise RuntimeError("reducer crashed")
        return {(f"new-{event.offset}", "session"): {"x": 1}}

    with pytest.raises(RuntimeError, match="reducer crashed"):
        apply_batch(store, events[5:15], crashing)
    assert (store.content_hash(), store.positions()) == (before, positions)
    reopened = make_store()
    assert (reopened.content_hash(), reopened.positions()) == (before, positions)


def test_a_batch_failing_in_the_write_leaves_neither_change_nor_position(make_store: StoreFactory,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    store = make_store()
    events = _events()
    Projector(store).process(events[:20])
    before, positions = store.content_hash(), store.positions()
    real = store._executemany

    def failing(sql: str, rows: object) -> None:
        if "memory_positions" in sql:  # the last step: documents and index rows are already written
            raise OSError("disk gone")
        real(sql, rows)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "_executemany", failing)
    with pytest.raises(OSError, match="disk gone"):
        Projector(store).process(events[20:40])
    monkeypatch.undo()
    assert (store.content_hash(), store.positions()) == (before, positions)
    reopened = make_store()
    assert (reopened.content_hash(), reopened.positions()) == (before, positions)
    Projector(reopened).process(events[20:])  # and the store goes on from where it was
    assert reopened.content_hash() == _reference(events).content_hash()


def test_an_unencodable_document_fails_the_batch(make_store: StoreFactory) -> None:
    store = make_store()
    with pytest.raises(TypeError):
        apply_batch(store, _events()[:3], lambda e: {(e.key, "session"): {"bad": {1, 2}}})
    assert (store.content_hash(), store.positions()) == (EMPTY_HASH, {})


def test_resume_after_the_stored_position(make_store: StoreFactory) -> None:
    events = _events()
    half = len(events) // 2
    first = make_store()
    Projector(first, batch_size=9).process(events[:half])
    first.close()
    resumed = make_store()  # a restart: new connection, positions read back, memories loaded lazily
    result = Projector(resumed, batch_size=9).process(events)
    assert (result.skipped, result.applied) == (half, len(events) - half)
    assert resumed.content_hash() == _reference(events).content_hash()


def test_replayed_events_are_recognised_and_skipped(make_store: StoreFactory) -> None:
    store = make_store()
    events = [e for e in _events() if (e.topic, e.partition) == (_events()[0].topic, _events()[0].partition)][:15]
    assert apply_batch(store, events[:10], _echo).applied == 10
    before = store.content_hash()
    result = apply_batch(store, events[5:15], _echo)
    assert (result.applied, result.skipped) == (5, 5)
    again = apply_batch(store, [events[14], events[14]], _echo)  # a redelivery, twice in one batch
    assert (again.applied, again.skipped) == (0, 2)
    assert store.content_hash() != before  # the five new events did land
    assert store.position(events[0].position_source, events[0].partition) == events[14].offset


def test_the_content_hash_is_equal_between_backends(make_store: StoreFactory) -> None:
    events = _events()
    store = make_store()
    Projector(store, batch_size=13).process(events)
    reference = _reference(events)
    assert store.content_hash() == reference.content_hash()
    for sid in reference.sessions():
        assert store.session(sid) == reference.session(sid)


def test_rebuild_is_reset_and_replay(make_store: StoreFactory) -> None:
    events = _events()
    store = make_store()
    projector = Projector(store, batch_size=5)
    projector.process(events)
    incremental = store.content_hash()
    store.reset()
    assert (store.sessions(), store.positions(), store.content_hash()) == ([], {}, EMPTY_HASH)
    assert projector.rebuild(events).applied == len(events)
    assert store.content_hash() == incremental
    assert Projector(make_store()).rebuild(events).applied == len(events)  # from a fresh connection too
    assert store.content_hash() == incremental


def test_failures_and_successes_across_sessions(make_store: StoreFactory) -> None:
    events = _events()
    store = make_store()
    Projector(store).process(events)
    contradictions = store.failures(pattern="CONTRADICTION")
    assert {f["session_id"] for f in contradictions} == {"s1", "s2"}
    assert store.failures(pattern=pattern_id("failure", "CONTRADICTION")) == contradictions
    times = [f["occurred_at"] for f in store.failures()]
    assert times == sorted(times)
    assert {f["session_id"] for f in store.failures(pattern="PACKET_REJECTED")} == {"ep-1"}
    assert all(f["failure_type"] == "APPROACH" for f in store.failures(failure_type="APPROACH"))
    assert store.failures(pattern="CONTRADICTION", failure_type="PROCESS") == []
    assert {s["session_id"] for s in store.successes(pattern="QC_APPROVAL")} == {"s1", "s2"}
    ideas = store.successes(success_type="BRILLIANT_IDEA")
    assert len(ideas) == 3
    assert all("idea" in i for i in ideas)
    reference = _reference(events)
    assert store.failures() == reference.failures()
    assert store.successes() == reference.successes()
