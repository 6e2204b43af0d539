"""Two workers on a 3-broker cluster beside the same two workers on one broker, in one run (issue 23).

    python -m tests.bench.bench_cluster [--events 30000] [--rounds 2]      (make bench-cluster)

Starts a single broker (`deploy/kafka/kafka.sh up`) and a 3-node cluster (`up --brokers 3`), each in a temporary
directory on ports of its own, and runs bench_pipeline's live Avro burst (two workers, one consumer group) against
each in turn, alternated round by round so the machine's drift falls on both alike. On the cluster the workers run
with OMEGA_REPLICATION_FACTOR=3 and OMEGA_MIN_INSYNC_REPLICAS=2 (every output and changelog write waits for two
more replicas); on the single broker with 1. Prints verdicts/s and latency per run and the cluster/single ratio
per round; never asserts on time. Both brokers run at once on this 2-core machine (4 JVMs), so the single-broker
figures here sit below the suite's own.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tests.bench import bench_pipeline
from tests.bench.suite import KAFKA_SH, free_port

REPLICATED = {"OMEGA_REPLICATION_FACTOR": "3", "OMEGA_MIN_INSYNC_REPLICAS": "2"}
SINGLE = {"OMEGA_REPLICATION_FACTOR": "1", "OMEGA_MIN_INSYNC_REPLICAS": "1"}


def kafka_sh(env: dict[str, str], *args: str) -> str:
    """Run kafka.sh; returns the bootstrap line it printed."""
    done = subprocess.run(["bash", str(KAFKA_SH), *args], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"kafka.sh {' '.join(args)} failed (exit {done.returncode}): {done.stderr[-2000:]}")
    return next((line.split("=", 1)[1] for line in done.stdout.splitlines() if line.startswith("bootstrap=")), "")


@contextlib.contextmanager
def brokers(tmp: Path) -> Iterator[dict[str, str]]:
    """{'single': bootstrap, 'cluster': bootstrap}, both stopped on the way out."""
    single = {**os.environ, "OMEGA_KAFKA_DIR": str(tmp / "single"), "OMEGA_KAFKA_PORT": str(free_port()),
              "OMEGA_KAFKA_CONTROLLER_PORT": str(free_port())}
    # three consecutive client ports and three controller ports: fixed, away from the suite's
    cluster = {**os.environ, "OMEGA_KAFKA_CLUSTER_DIR": str(tmp / "cluster"), "OMEGA_KAFKA_CLUSTER_PORT": "39792",
               "OMEGA_KAFKA_CLUSTER_CONTROLLER_PORT": "39892"}
    try:
        found = {"single": kafka_sh(single, "up"), "cluster": kafka_sh(cluster, "up", "--brokers", "3")}
        print(f"brokers: {found}", flush=True)
        yield found
    finally:
        for env, args in ((single, ("down",)), (cluster, ("down", "--brokers", "3"))):
            with contextlib.suppress(RuntimeError):
                kafka_sh(env, *args)


def burst(bootstrap: str, events: int, env: dict[str, str]) -> dict[str, Any]:
    """One live Avro burst of `events` packets through two workers; the measured phase's figures."""
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the bench's workers inherit this process's environment
    try:
        live = bench_pipeline.run(["--skip-codec", "--skip-replay", "--live", bootstrap, "--live-workers", "2",
                                   "--live-avro", "--live-events", str(events), "--live-timeout", "600"])["live"]
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return dict(live.get("measured") or {}, ok=live.get("ok", False))


def main(argv: Sequence[str] | None = None) -> int:
    cli = argparse.ArgumentParser(prog="python -m tests.bench.bench_cluster", description=__doc__,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("--events", type=int, default=30_000, help="packets per burst")
    cli.add_argument("--rounds", type=int, default=2, help="single/cluster pairs, alternated")
    args = cli.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="omega-bench-cluster-"))
    rows: list[tuple[int, str, dict[str, Any]]] = []
    try:
        with brokers(tmp) as found:
            for n in range(args.rounds):
                order = ("single", "cluster") if n % 2 == 0 else ("cluster", "single")
                for where in order:
                    print(f"\nround {n + 1}: {where} ({found[where]})", flush=True)
                    rows.append((n, where, burst(found[where], args.events,
                                                 REPLICATED if where == "cluster" else SINGLE)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\ntwo workers, Avro burst of {args.events:,} packets; cluster: 3 brokers, RF 3, min ISR 2")
    print(f"{'round':>5} {'where':>8} {'verdicts/s':>11} {'p50 ms':>8} {'p99 ms':>8} {'all verdicts':>13}")
    ratios = []
    for n, where, fig in rows:
        print(f"{n + 1:>5} {where:>8} {fig.get('per_second', float('nan')):>11,.0f} {fig.get('p50_ms', 0):>8.0f}"
              f" {fig.get('p99_ms', 0):>8.0f} {fig['ok']!s:>13}")
    for n in range(args.rounds):
        by = {where: fig.get("per_second") for m, where, fig in rows if m == n}
        if by.get("single") and by.get("cluster"):
            ratios.append(by["cluster"] / by["single"])
    if ratios:
        print(f"cluster / single throughput by round: {', '.join(f'{r:.2f}' for r in ratios)};"
              f" median {statistics.median(ratios):.2f}")
    return 0 if all(fig["ok"] for _, _, fig in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
