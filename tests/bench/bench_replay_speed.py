"""Embedded replay against the pure core, on the same packets: `evolve` alone, `omega replay --jobs 1` and
`--jobs 2` (issue 24).

    python -m tests.bench.bench_replay_speed [--events N] [--episodes M] [--rounds R] [--workload factory|mixed]

The three are measured in alternated rounds (core, jobs 1, jobs 2, core, ...) so that a noisy machine weighs on all
alike; it prints each round, the median rates, the ratios replay/core and jobs2/jobs1, and the SHA-256 of the
`--out` files of jobs 1 and jobs 2, which must be equal. It never asserts on time. The core and jobs 1 run pinned to
one CPU (tests/bench/pinning.py); jobs 2 gets the CPUs the process had.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from streams.replay import jobs as replay_jobs
from streams.stages.base import Outputs
from streams.wire.codec import SchemaRegistry
from tests.bench.bench_pipeline import judge_all, machine, mixed_workload, to_json_bytes, workload, write_jsonl
from tests.bench.pinning import pin_to_one_core

clock = time.perf_counter


@contextmanager
def one_core() -> Iterator[str]:
    """Pinned to one CPU inside, the process's CPUs restored after (the jobs of `--jobs 2` inherit them)."""
    if not hasattr(os, "sched_getaffinity"):
        yield "not pinned (no sched_setaffinity)"
        return
    before = os.sched_getaffinity(0)
    try:
        yield pin_to_one_core()
    finally:
        os.sched_setaffinity(0, before)


def core_rate(packets: list[dict[str, Any]]) -> float:
    """Packets per second of `evolve` over pre-parsed dicts (tests/bench/bench_pipeline.py's core figure)."""
    parsed = [json.loads(to_json_bytes(p)) for p in packets]
    start = clock()
    judge_all(parsed)
    return len(parsed) / (clock() - start)


def replay_rate(path: Path, registry: SchemaRegistry, jobs: int, out_path: Path) -> tuple[float, str, int]:
    """(records per second, SHA-256 of the --out file, events in) of `omega replay PATH --out OUT --jobs N`."""
    outputs = Outputs(registry)
    start = clock()
    with out_path.open("w", encoding="utf-8") as out:
        summary = replay_jobs.replay([path], outputs, 0, jobs, out)
    elapsed = clock() - start
    return summary.events_in / elapsed, hashlib.sha256(out_path.read_bytes()).hexdigest(), summary.events_in


def workload_arguments(prog: str, doc: str | None, argv: Sequence[str] | None
                       ) -> tuple[argparse.Namespace, list[dict[str, Any]]]:
    """The replay benchmarks' command line (`--events --episodes --rounds --workload`) parsed, and its packets."""
    cli = argparse.ArgumentParser(prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_argument("--events", type=int, default=20_000)
    cli.add_argument("--episodes", type=int, default=500)
    cli.add_argument("--rounds", type=int, default=3)
    cli.add_argument("--workload", choices=("factory", "mixed"), default="factory")
    args = cli.parse_args(argv)
    if args.events < 1 or args.episodes < 1 or args.rounds < 1:
        cli.error("--events, --episodes and --rounds must be positive")
    return args, (workload if args.workload == "factory" else mixed_workload)(args.events, args.episodes)


def run(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Measure and print; returns the median rates (`core`, `jobs1`, `jobs2`), the ratios and the hashes."""
    args, packets = workload_arguments("python -m tests.bench.bench_replay_speed", __doc__, argv)
    registry = SchemaRegistry.from_directory()
    print(f"machine: {machine()}")
    print(f"{len(packets):,} packets over {args.episodes:,} episodes ({args.workload} workload), "
          f"{args.rounds} alternated round(s)")
    rates: dict[str, list[float]] = {"core": [], "jobs1": [], "jobs2": []}
    hashes: dict[str, set[str]] = {"jobs1": set(), "jobs2": set()}
    with tempfile.TemporaryDirectory(prefix="omega-bench-") as tmp:
        path = Path(tmp) / "episodes.jsonl"
        write_jsonl(path, packets)
        for n in range(1, args.rounds + 1):
            with one_core() as pinned:
                rates["core"].append(core_rate(packets))
                rate, digest, _ = replay_rate(path, registry, 1, Path(tmp) / "out1.jsonl")
                rates["jobs1"].append(rate)
                hashes["jobs1"].add(digest)
            rate, digest, _ = replay_rate(path, registry, 2, Path(tmp) / "out2.jsonl")
            rates["jobs2"].append(rate)
            hashes["jobs2"].add(digest)
            print(f"  round {n} ({pinned} for core and jobs 1): core {rates['core'][-1]:9,.0f}/s   "
                  f"replay --jobs 1 {rates['jobs1'][-1]:8,.0f}/s   --jobs 2 {rates['jobs2'][-1]:8,.0f}/s")
    median = {name: statistics.median(values) for name, values in rates.items()}
    figures: dict[str, Any] = {
        **median,
        "replay_over_core": median["jobs1"] / median["core"],
        "jobs2_over_jobs1": median["jobs2"] / median["jobs1"],
        "sha256_jobs1": sorted(hashes["jobs1"]),
        "sha256_jobs2": sorted(hashes["jobs2"]),
    }
    print(f"  median: core evolve {median['core']:,.0f}/s, replay --jobs 1 {median['jobs1']:,.0f}/s, "
          f"--jobs 2 {median['jobs2']:,.0f}/s")
    print(f"  replay --jobs 1 / core = {figures['replay_over_core']:.1%}; "
          f"--jobs 2 / --jobs 1 = {figures['jobs2_over_jobs1']:.2f}x")
    same = hashes["jobs1"] == hashes["jobs2"] and len(hashes["jobs1"]) == 1
    print(f"  sha256 --out jobs 1: {' '.join(figures['sha256_jobs1'])}")
    print(f"  sha256 --out jobs 2: {' '.join(figures['sha256_jobs2'])}  ({'identical' if same else 'DIFFERENT'})")
    figures["identical"] = same
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    return 0 if run(argv)["identical"] else 1


if __name__ == "__main__":
    sys.exit(main())
