"""The replay floor (issue 24) times each step replay-equals-live needs and reports `evolve`'s share of their sum.
A small run; nothing asserts on speed, only on what is timed and how the figures relate."""

from __future__ import annotations

import os

import pytest

from tests.bench import bench_replay_floor

STEPS = ["strict JSON parse", "JSON -> Avro datum", "packet's Avro bytes", "datum -> packet", "evolve",
         "outputs' Avro encode", "--out lines", "table entries and their measure"]


def test_the_floor_times_every_step_of_a_replayed_packet_and_evolves_share_is_of_their_sum(
        capsys: pytest.CaptureFixture[str]) -> None:
    cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    figures = bench_replay_floor.run(["--events", "300", "--episodes", "6", "--rounds", "1", "--workload", "mixed"])
    costs = figures["costs"]
    assert list(costs) == STEPS  # in the order a replay takes them
    assert all(us > 0 for us in costs.values())
    assert figures["floor_us"] == pytest.approx(sum(costs.values()))
    assert figures["evolve_share"] == pytest.approx(costs["evolve"] / figures["floor_us"])
    assert figures["replay_us"] > 0
    printed = capsys.readouterr().out
    assert all(step in printed for step in STEPS)
    assert "evolve / floor = " in printed
    if cpus is not None:
        assert os.sched_getaffinity(0) == cpus  # the pinning is undone
