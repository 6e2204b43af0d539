"""The benchmark workloads, the CPU reader, the A/B figure parser and where the suite attaches the targets.
Structure only: nothing here asserts on speed."""

from __future__ import annotations

import itertools
import os
import re
from collections import Counter
from datetime import datetime

import pytest

from tests.bench import ab, bench_pipeline, suite


def test_factory_workload_gives_each_episode_its_own_timestamps() -> None:
    packets = bench_pipeline.workload(1_000, 10)
    stamps = Counter(p["header"]["created_at"] for p in packets)
    assert len(stamps) == 1_000  # no two packets of the 10 episodes share a timestamp
    first = [p for p in packets if p["header"]["correlation_id"] == "corr_ep00003"]
    times = [datetime.fromisoformat(p["header"]["created_at"].replace("Z", "+00:00")) for p in first]
    assert [(b - a).total_seconds() for a, b in itertools.pairwise(times)] == [1.0] * 99
    assert first[0]["header"]["created_at"] == "2025-12-21T11:00:00.003Z"


def test_shared_timestamps_variant_repeats_the_same_hundred_per_episode() -> None:
    packets = bench_pipeline.workload(1_000, 10, distinct_times=False)
    assert len({p["header"]["created_at"] for p in packets}) == 100


def test_cpu_seconds_reads_this_process_and_none_for_a_missing_one() -> None:
    sum(range(200_000))  # some CPU of our own
    mine = bench_pipeline.cpu_seconds(os.getpid())
    assert mine is not None
    assert mine > 0
    assert bench_pipeline.cpu_seconds(2**22 + 12345) is None  # above the default pid_max
    assert set(bench_pipeline.cpu_of({"me": os.getpid(), "gone": 2**22 + 12345})) == {"me"}


def test_ab_figure_is_the_first_match_without_thousands_separators() -> None:
    output = "evolve, factory workload   50,000 in 2.1 s =  23,456/s\nevolve, mixed workload 50,000 = 19,000/s\n"
    assert ab.figure_in(output, re.compile(r"=\s+([0-9,.]+)/s")) == 23_456.0
    assert ab.figure_in(output, re.compile(r"nothing (\d+)")) is None


def test_ab_new_env_pairs_split_at_the_first_equals_and_refuse_a_pair_without_one() -> None:
    assert ab.environment(["STREAM_BUFFER_MAXSIZE=512", "X=a=b", "EMPTY="]) == {
        "STREAM_BUFFER_MAXSIZE": "512", "X": "a=b", "EMPTY": ""}
    for bad in ("NOVALUE", "=5"):
        with pytest.raises(ValueError, match="NAME=VALUE"):
            ab.environment([bad])


def test_core_rows_each_carry_the_embedded_target_met_or_not() -> None:
    out = suite.Outcome("omen-core")
    with_resources = suite.Context(quick=True, resources=suite.Resources(None, None, use_postgres=False))
    cpus = os.sched_getaffinity(0)
    try:
        suite.bench_omen_core(with_resources, out)
    finally:
        os.sched_setaffinity(0, cpus)  # the bench pins its process; later tests and their brokers need both cores
    names = [f.label for f in out.figures]
    assert names == ["OMEN core `evolve`, factory workload, one core",
                     "OMEN core `evolve`, factory workload, shared timestamps, one core",
                     "OMEN core `evolve`, mixed workload, one core"]
    assert all(f.target is suite.CORE_TARGET for f in out.figures)
    assert all("verdicts ACCEPTED" in f.detail for f in out.figures)


def test_cpu_detail_sums_the_workers_and_names_the_rest() -> None:
    detail = suite._cpu({"cpu_ms_per_packet": {"worker 0": 0.4, "worker 1": 0.35, "broker": 0.2, "bench": 0.1}})
    assert detail == "; CPU per packet: workers 0.75 ms, broker 0.20 ms, bench 0.10 ms"
    assert suite._cpu({}) == ""
