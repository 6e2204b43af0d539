"""A worker taking over a departed worker's partitions, with and without standby replicas (issue 24).

    python -m tests.bench.bench_takeover [--bootstrap B] [--events 20000] [--rounds 2]

Per run: two workers in one consumer group judge a burst of `--events` Avro packets (the history their tables and
changelogs then hold); worker 1 then leaves (SIGTERM: the group rebalances at once instead of after a session
timeout) and the clock runs until worker 0 has synced the new generation and recovered its tables for it (Faust's
"Recovery complete"): until then the partitions it took over judge nothing. Runs alternate OMEGA_STANDBY_REPLICAS=1
(worker 0 has kept worker 1's tables hot by reading their changelogs) and 0 (it reads them now). Prints the takeover
time of each run and the changelog records behind it; never asserts on time. Without `--bootstrap` it starts a
broker of its own (deploy/kafka/kafka.sh, as the other benchmarks do).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from streams.wire.codec import SchemaRegistry
from tests.bench import bench_pipeline
from tests.bench.bench_anchor import live_workload
from tests.bench.bench_pipeline import WorkerProcess, clock


def takeover_seconds(bootstrap: str, registry: SchemaRegistry, events: int, standby: int,
                     timeout: float) -> float | None:
    """One run (module docstring): seconds from worker 1's SIGTERM to worker 0's recovered new generation."""
    app_id = f"takeover-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    os.environ["OMEGA_STANDBY_REPLICAS"] = str(standby)  # the workers' environment is this process's
    warmup, packets = live_workload(events)
    with tempfile.TemporaryDirectory(prefix="omega-bench-takeover-") as data_dir:
        workers = [WorkerProcess(bootstrap, f"{app_id}.", app_id, Path(data_dir) / f"worker-{n}", 4) for n in (0, 1)]
        try:
            if not all(w.wait_ready(timeout) for w in workers) or bench_pipeline.wait_settled(workers, timeout) is None:
                print("    the workers did not settle; worker 0's last log lines:\n      "
                      + "\n      ".join(workers[0].log))
                return None
            _, history = asyncio.run(bench_pipeline._drive(bootstrap, f"{app_id}.", registry, warmup, packets, 0.0,
                                                            timeout, True))
            if len(history.arrived_at) != len(packets):
                print(f"    only {len(history.arrived_at):,} of {len(packets):,} verdicts came")
                return None
            before = workers[0].generation
            started = clock()
            workers[1].proc.terminate()
            while clock() - started < timeout:
                if workers[0].recovered_generation > before:
                    return clock() - started
                if workers[0].proc.poll() is not None:
                    break
                time.sleep(0.05)
            print("    worker 0 did not recover the new generation in time; its last log lines:\n      "
                  + "\n      ".join(workers[0].log))
            return None
        finally:
            for worker in workers:
                worker.stop()
            try:
                changelog = asyncio.run(bench_pipeline._changelog_records(bootstrap, app_id))
                print(f"    changelog records of the run: {sum(changelog.values()):,}")
            except Exception as exc:  # noqa: BLE001 - a figure beside the others
                print(f"    could not count the run's changelog records: {exc!r}")
            bench_pipeline.delete_bench_topics(bootstrap, app_id, indent="    ")


def main(argv: Sequence[str] | None = None) -> int:
    cli = argparse.ArgumentParser(prog="python -m tests.bench.bench_takeover", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("--bootstrap", help="a broker to use (default: start one with deploy/kafka/kafka.sh)")
    cli.add_argument("--events", type=int, default=20_000, help="packets judged before the takeover")
    cli.add_argument("--rounds", type=int, default=2, help="rounds of (standby 1, standby 0), alternated")
    cli.add_argument("--timeout", type=float, default=180.0, help="seconds for readiness, the history and the takeover")
    args = cli.parse_args(argv)
    if min(args.events, args.rounds) < 1:
        cli.error("--events and --rounds must be positive")
    from tests.bench.suite import Resources

    registry = SchemaRegistry.from_directory()
    print(f"machine: {bench_pipeline.machine()}")
    print(f"two workers, {args.events:,} packets judged, then worker 1 leaves (SIGTERM); {args.rounds} round(s)")
    times: dict[int, list[float]] = {1: [], 0: []}
    resources = Resources(args.bootstrap, None, use_postgres=False)
    try:
        bootstrap = resources.bootstrap()
        for n in range(1, args.rounds + 1):
            for standby in (1, 0):
                seconds = takeover_seconds(bootstrap, registry, args.events, standby, args.timeout)
                print(f"  round {n}, OMEGA_STANDBY_REPLICAS={standby}: takeover "
                      + ("FAILED" if seconds is None else f"{seconds:.2f} s"))
                if seconds is not None:
                    times[standby].append(seconds)
    finally:
        resources.close()
    for standby, values in times.items():
        if values:
            print(f"  median takeover, OMEGA_STANDBY_REPLICAS={standby}: {statistics.median(values):.2f} s")
    return 0 if all(times.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
