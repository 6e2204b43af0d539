"""Fixtures shared by the broker tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.worker import WorkerProcess


@pytest.fixture
def worker(kafka_bootstrap: str, tmp_path: Path) -> Iterator[WorkerProcess]:
    """One worker (memory store) under its own topic prefix, started and ready."""
    process = WorkerProcess(kafka_bootstrap, tmp_path)
    process.start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture
def two_workers(kafka_bootstrap: str, tmp_path: Path) -> Iterator[list[WorkerProcess]]:
    """Two workers, one topic prefix and app id (so one consumer group), each its own data dir."""
    first = WorkerProcess(kafka_bootstrap, tmp_path / "worker-1")
    workers = [first, WorkerProcess(kafka_bootstrap, tmp_path / "worker-2", prefix=first.prefix)]
    try:
        for worker in workers:
            worker.data_dir.mkdir()
            worker.start()
        yield workers
    finally:
        for worker in workers:
            worker.stop()
