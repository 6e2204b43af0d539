"""Throughput of the memory projections: the pure reducers, and a rebuild into SQLite (and PostgreSQL).

    python -m tests.bench.bench_projections [--events N] [--sessions M] [--postgres URL] [--live-batch B]
                                           [--sqlite PATH] [--profile] [--kafka BOOTSTRAP [--kafka-only]
                                           [--rounds R]]

It prints figures and never asserts on time. The workload is `tests.unit.projections.factories.workload`:
N events over M sessions (default 50,000 over 500: 100 per session, i.e. about six iterations of a 15-message
session script with its alerts and escalation, and a termination), interleaved round-robin the way a shared
log carries concurrent sessions, so every batch touches every session. The process is pinned to one CPU
(SQLite runs in-process; the PostgreSQL server is another process and is not pinned). Figures:
    reducers          the four reducers over every event, no store (collector paused, as in a batch)
    rebuild           `Projector.rebuild` (reset + replay; transactions of `REBUILD_BATCH` events)
    live batches      `Projector.process` in transactions of --live-batch events (a runner's polls)
    kafka rebuild     (--kafka) the runner from a real broker: the workload produced as single-object Avro to
                      fresh 4-partition topics (not timed), then `Runner.run(rebuild=True)` with a KafkaSource
                      (fetch, decode, project; transactions of at most 1,000, then 20,000 events) until the last
                      batch commits; each round first times the in-process rebuild of the same events into the same
                      kind of store (the anchor: Kafka / in process is that round's ratio; median over --rounds)
Events are generated before the clock starts and frozen out of the garbage collector's sight: a runner
decodes them as it goes, so they are not part of its heap. Every timed run through the projector gets fresh copies
of them (`unmemoized`, made before its clock starts): a `LogEvent` caches what the reducers derive from it (its id,
session, time, message view), so events already projected once would be rebuilt from faster than any source
delivers them (about 1.5x here), and the in-process anchor would measure less work than the Kafka rebuild.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import gc
import platform
import pstats
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from projections.memories.combined import EMPTY, Memories, apply_all
from projections.memories.documents import canonical
from projections.memories.log_events import LogEvent
from projections.projector import DEFAULT_BATCH, REBUILD_BATCH, Projector
from projections.runner import Runner, RunStats
from projections.store.base import SqlStore
from projections.store.sqlite import SqliteStore
from tests.bench.pinning import pin_to_one_core
from tests.unit.projections.factories import workload

clock = time.perf_counter


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:>10,.0f} events/s  ({seconds:6.2f} s)"


def figure(count: int, seconds: float) -> dict[str, float]:
    """A rate as data: `count`, `seconds`, `per_second`."""
    return {"count": count, "seconds": seconds, "per_second": count / seconds if seconds > 0 else float("nan")}


def reducers_only(events: Sequence[LogEvent]) -> tuple[float, dict[str, Memories]]:
    memories: dict[str, Memories] = {}
    gc.disable()  # as the projector does within a batch (see projections.projector.collector_paused)
    try:
        start = clock()
        for event in events:
            memories[event.session_id] = apply_all(memories.get(event.session_id, EMPTY), event)
        return clock() - start, memories
    finally:
        gc.enable()


def unmemoized(events: Sequence[LogEvent]) -> list[LogEvent]:
    """Fresh copies of `events` (same records, nothing derived cached yet: a source's events as delivered),
    frozen out of the collector's sight like the originals."""
    copies = [dataclasses.replace(event) for event in events]
    gc.collect()
    gc.freeze()
    return copies


def timed(store: SqlStore, run: Callable[[Projector], object]) -> float:
    projector = Projector(store)
    start = clock()
    run(projector)
    return clock() - start


def timed_rebuild(store: SqlStore, events: Sequence[LogEvent]) -> float:
    """Seconds of `Projector.rebuild` of fresh copies of `events` (see `unmemoized`) into `store`."""
    fresh = unmemoized(events)
    return timed(store, lambda p: p.rebuild(fresh))


def bench_store(
    name: str, make: Callable[[], SqlStore], events: Sequence[LogEvent], live_batch: int
) -> dict[str, Any]:
    """Rebuild, then live batches from scratch, into fresh stores made by `make`; returns `rebuild` and `live`
    (see `figure`), `live_batch`, `hash` (the content hash of the rebuild) and `same_hash` (live == rebuild)."""
    with make() as store:
        seconds = timed_rebuild(store, events)
        print(f"  {name:<10} rebuild (batches of {REBUILD_BATCH:,}) {rate(len(events), seconds)}")
        digest = store.content_hash()
        figures: dict[str, Any] = {"rebuild": figure(len(events), seconds), "live_batch": live_batch, "hash": digest}
    with make() as store:
        store.reset()
        fresh = unmemoized(events)
        seconds = timed(store, lambda p: p.process(fresh, batch_size=live_batch))
        print(f"  {name:<10} live batches of {live_batch:<13,} {rate(len(events), seconds)}")
        figures.update(live=figure(len(events), seconds), same_hash=store.content_hash() == digest)
        if not figures["same_hash"]:
            print(f"  {name:<10} WARNING: live and rebuild content hashes differ")
    print(f"  {name:<10} content hash {digest}")
    return figures


def bench_kafka(
    bootstrap: str, events: Sequence[LogEvent], stores: dict[str, Callable[[], SqlStore]], rounds: int = 1
) -> dict[str, Any]:
    """Produce the workload to fresh topics, then per store and round, alternated: the in-process rebuild of the
    same events (`Projector.rebuild`, the anchor) and a rebuild from the broker per batch bound. Returns, per store
    name and batch bound, the median rate (see `figure`) with `lag`, `undecodable`, `in_process` (the anchor's
    median events/s) and `ratio` (the median over rounds of Kafka / in-process, each pair from one round)."""
    import asyncio

    from tests.integration.projections.kafka_log import fresh_prefix, produce_events

    prefix = fresh_prefix("bench")
    start = clock()
    asyncio.run(produce_events(bootstrap, prefix, events))
    print(f"  {'kafka':<10} produced to {prefix}* in {clock() - start:.1f} s (not timed below)")
    figures: dict[str, Any] = {}
    for name, make in stores.items():
        anchors: list[float] = []
        runs: dict[int, list[tuple[float, RunStats]]] = {DEFAULT_BATCH: [], REBUILD_BATCH: []}
        digests = set()
        for n in range(rounds):
            with make() as store:
                seconds = timed_rebuild(store, events)
                anchors.append(len(events) / seconds)
                print(f"  {name:<10} in-process rebuild (anchor)     {rate(len(events), seconds)}")
                digests.add(store.content_hash())
            for batch, done in runs.items():
                with make() as store:
                    seconds, stats = _kafka_rebuild(bootstrap, prefix, store, batch, f"{prefix}{name}-{batch}-{n}")
                    done.append((seconds, stats))
                    print(f"  {name:<10} kafka rebuild, batches <= {batch:<6,} {rate(stats.applied, seconds)}; "
                          f"lag {stats.lag}, undecodable {stats.undecodable}; "
                          f"{stats.applied / seconds / anchors[-1]:.0%} of in process")
                    digests.add(store.content_hash())
        for batch, done in runs.items():
            seconds, stats = sorted(done, key=lambda run: run[0])[len(done) // 2]
            ratios = [stats_.applied / s / anchor for (s, stats_), anchor in zip(done, anchors, strict=True)]
            figures.setdefault(name, {})[batch] = {
                **figure(stats.applied, seconds), "lag": stats.lag, "undecodable": stats.undecodable,
                "in_process": statistics.median(anchors), "ratio": statistics.median(ratios)}
            print(f"  {name:<10} kafka rebuild, batches <= {batch:<6,} median {stats.applied / seconds:,.0f} events/s,"
                  f" {statistics.median(ratios):.0%} of in process (median of {rounds} round(s))")
        print(f"  {name:<10} content hash {' '.join(sorted(digests))}"
              + ("" if len(digests) == 1 else "  WARNING: the rebuilds differ"))
    return figures


def _kafka_rebuild(bootstrap: str, prefix: str, store: SqlStore, batch: int, group: str) -> tuple[float, RunStats]:
    """Seconds from start to the last committed batch (the idle wait that ends the run is not work)."""
    import asyncio

    from streams.kafka.projection_source import KafkaSource

    last = clock()

    def committed(_: RunStats) -> None:
        nonlocal last
        last = clock()

    source = KafkaSource(bootstrap, prefix=prefix, group_id=group, max_fetch=batch)
    runner = Runner(Projector(store, batch_size=batch), source, batch_size=batch, until_idle=3.0, on_batch=committed)
    start = clock()
    stats = asyncio.run(runner.run(rebuild=True))
    return last - start, stats


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the figures `argv` asks for, printing them; returns `reducers` (see `figure`), `sqlite` and
    `postgres` (see `bench_store`), `kafka` (see `bench_kafka`): only those that ran."""
    parser = argparse.ArgumentParser(prog="python -m tests.bench.bench_projections", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=50_000, help="events to project (default 50,000)")
    parser.add_argument("--sessions", type=int, default=500, help="sessions they are spread over (default 500)")
    parser.add_argument("--live-batch", type=int, default=1000, help="events per transaction when live (1000)")
    parser.add_argument("--sqlite", type=Path, help="SQLite file to use (default: a temporary one)")
    parser.add_argument("--postgres", metavar="URL", help="also bench PostgreSQL at URL (a throwaway schema)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the SQLite rebuild")
    parser.add_argument("--kafka", metavar="BOOTSTRAP", help="also bench a rebuild from this broker")
    parser.add_argument("--kafka-only", action="store_true",
                        help="with --kafka: skip the other figures (the in-process rebuild still runs as the anchor)")
    parser.add_argument("--rounds", type=int, default=1, help="with --kafka: alternated rounds (median; default 1)")
    args = parser.parse_args(argv)

    print(f"{platform.processor() or platform.machine()}; Python {platform.python_version()}; {pin_to_one_core()}")
    start = clock()
    events = workload(args.events, args.sessions)
    generated = clock() - start
    size = sum(len(canonical(dict(e.record))) for e in events)
    print(f"workload: {len(events):,} events over {args.sessions:,} sessions, {size / len(events):,.0f} bytes "
          f"of JSON per event on average (generated in {generated:.1f} s)")
    gc.collect()
    gc.freeze()
    try:
        return _measure(args, events)
    finally:
        gc.unfreeze()  # the process may go on (`tests.bench.suite`)


def _measure(args: argparse.Namespace, events: Sequence[LogEvent]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    if args.kafka and args.kafka_only:
        with tempfile.TemporaryDirectory(prefix="bench-projections-") as tmp:
            stores: dict[str, Callable[[], SqlStore]] = {"sqlite": lambda: SqliteStore(Path(tmp) / "kafka.sqlite")}
            schemas: list[str] = []
            if args.postgres:
                from projections.store.postgres import PostgresStore

                def postgres() -> SqlStore:
                    schemas.append(f"bench_{uuid.uuid4().hex[:12]}")
                    return PostgresStore(args.postgres, schema=schemas[-1])

                stores["postgres"] = postgres
            try:
                figures["kafka"] = bench_kafka(args.kafka, events, stores, args.rounds)
            finally:
                _drop_schemas(args.postgres, schemas)
        return figures

    seconds, memories = reducers_only(events)
    stored = sum(len(canonical(d)) for m in memories.values() for d in m.documents().values())
    print(f"  {'reducers':<10} no store {'':<19} {rate(len(events), seconds)}; read model {stored / 1e6:,.1f} MB")
    figures["reducers"] = figure(len(events), seconds)
    del memories

    with tempfile.TemporaryDirectory(prefix="bench-projections-") as tmp:
        path = args.sqlite or Path(tmp) / "memories.sqlite"
        figures["sqlite"] = bench_store("sqlite", lambda: SqliteStore(path), events, args.live_batch)
        digest = figures["sqlite"]["hash"]
        print(f"  {'sqlite':<10} file {path.stat().st_size / 1e6:,.1f} MB")
        if args.profile:
            profile = cProfile.Profile()
            with SqliteStore(path) as store:
                profile.runcall(Projector(store).rebuild, events)
            pstats.Stats(profile, stream=sys.stdout).sort_stats("cumulative").print_stats(25)

    if args.postgres:
        from projections.store.postgres import PostgresStore  # psycopg only when asked for

        schema = f"bench_{uuid.uuid4().hex[:12]}"
        try:
            figures["postgres"] = bench_store("postgres", lambda: PostgresStore(args.postgres, schema=schema),
                                              events, args.live_batch)
            print(f"  {'postgres':<10} same content hash as SQLite: {figures['postgres']['hash'] == digest}")
        finally:
            _drop_schemas(args.postgres, [schema])
    return figures


def _drop_schemas(url: str | None, schemas: Sequence[str]) -> None:
    if not url or not schemas:
        return
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as conn:
        for schema in schemas:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))


def main(argv: Sequence[str] | None = None) -> int:
    run(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
