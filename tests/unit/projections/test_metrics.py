"""`omega project`'s metrics (projections/metrics.py): after a run over a replay file the counters equal the run's
own figures, a second observation adds only the growth, and the HTTP server answers with them."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx

from projections.metrics import ProjectorMetrics
from projections.projector import Projector
from projections.runner import FileSource, Runner, RunStats
from projections.store.sqlite import SqliteStore
from tests.unit.projections.test_runner import LOGICAL, _events, _write_replay


def _value(metrics: ProjectorMetrics, name: str) -> float:
    return metrics.registry.get_sample_value(name) or 0.0


def test_after_a_run_the_counters_equal_the_runs_figures(tmp_path: Path) -> None:
    path = tmp_path / "replay.jsonl"
    events = _events()
    _write_replay(path, events, extra=["not json"])
    metrics = ProjectorMetrics()
    with SqliteStore(":memory:") as store:
        runner = Runner(Projector(store, batch_size=10), FileSource([path], LOGICAL), batch_size=10,
                        on_batch=metrics.observe)
        stats = asyncio.run(runner.run())
    metrics.observe(stats)  # the run's end: its undecodable count is final only now (what `omega project` does)

    # every event, and the placeholder of the undecodable line (it advances the position)
    assert _value(metrics, "omega_project_records_applied_total") == stats.applied == len(events) + 1
    assert _value(metrics, "omega_project_batches_total") == stats.batches == 5
    assert _value(metrics, "omega_project_undecodable") == 1


def test_a_second_observation_adds_only_the_growth() -> None:
    metrics = ProjectorMetrics()
    metrics.observe(RunStats(applied=10, skipped=2, batches=1, undecodable=1))
    metrics.observe(RunStats(applied=25, skipped=2, batches=2, undecodable=3))

    assert _value(metrics, "omega_project_records_applied_total") == 25
    assert _value(metrics, "omega_project_records_skipped_total") == 2
    assert _value(metrics, "omega_project_batches_total") == 2
    assert _value(metrics, "omega_project_undecodable") == 3


def test_the_metrics_are_served_over_http() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    metrics = ProjectorMetrics()
    metrics.observe(RunStats(applied=4, batches=1))
    metrics.serve(port, address="127.0.0.1")

    assert "omega_project_records_applied_total 4.0" in httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
