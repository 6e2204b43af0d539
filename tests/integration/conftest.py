"""Fixtures shared by the broker tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.worker import WorkerProcess, worker_pair


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
    """Two workers in one consumer group (`worker_pair`)."""
    with worker_pair(kafka_bootstrap, tmp_path) as workers:
        yield workers
