"""The projection runner on the real broker: rebuild determinism (twice, and live versus rebuild), crash safety
under SIGKILL (exactly once: nothing applied twice, nothing missing), and the read API and `omega memory show`
over a read model the runner filled.

How the crash test proves "no event applied twice and none missing": the killed-and-restarted projector runs
with `--audit`, so every batch also writes one `memory_applied` row per applied event IN THE SAME TRANSACTION as
its documents and positions (a killed batch leaves no rows). At the end
- none missing: every partition's tracking position is its high watermark - 1, and the audit trail holds every
  produced event's id;
- none twice: the audit trail has exactly as many rows as events produced and no (partition, offset) twice;
- and the content hash equals an uninterrupted in-process rebuild's from the same topics.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from click.testing import CliRunner
from fastapi.testclient import TestClient

from projections.http.app import read_model_api
from projections.store.sqlite import SqliteStore
from streams.cli.main import main
from streams.kafka.projection_source import PROJECTED
from streams.topics import topic_name
from tests.integration.projections.kafka_log import (
    events,
    fresh_prefix,
    produce_events,
    project_from_kafka,
    rebuild_hash,
)

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[3]


def test_rebuilding_twice_from_kafka_gives_the_same_hash(kafka_bootstrap: str, tmp_path: Path) -> None:
    prefix = fresh_prefix("det")
    asyncio.run(produce_events(kafka_bootstrap, prefix, events(3000, 40)))
    with SqliteStore(tmp_path / "a.sqlite") as store:
        first = asyncio.run(project_from_kafka(kafka_bootstrap, prefix, store))
        once = store.content_hash()
        second = asyncio.run(project_from_kafka(kafka_bootstrap, prefix, store))  # --rebuild over a full store
        assert (first.applied, second.applied) == (3000, 3000)
        assert store.content_hash() == once
    assert rebuild_hash(kafka_bootstrap, prefix, tmp_path / "b.sqlite") == once


def test_live_processing_gives_the_same_hash_as_a_rebuild(kafka_bootstrap: str, tmp_path: Path) -> None:
    prefix = fresh_prefix("live")
    log = events(4000, 40)

    async def live() -> int:
        await produce_events(kafka_bootstrap, prefix, log[:10])  # creates the topics before the runner starts
        with SqliteStore(tmp_path / "live.sqlite") as store:
            running = asyncio.create_task(project_from_kafka(kafka_bootstrap, prefix, store, until_idle=4.0,
                                                             batch_size=200))
            for start in range(10, len(log), 500):  # produced while the runner consumes
                await produce_events(kafka_bootstrap, prefix, log[start:start + 500])
                await asyncio.sleep(0.2)
            stats = await running
        return stats.applied

    assert asyncio.run(live()) == len(log)
    with SqliteStore(tmp_path / "live.sqlite") as projected:
        live_hash = projected.content_hash()
    assert live_hash == rebuild_hash(kafka_bootstrap, prefix, tmp_path / "rebuilt.sqlite")


# ------------------------------------------------------------------------------------------- crash safety
EVENTS = 50_000


def _progress(path: Path) -> int:
    """Events the store has committed (sum over partitions of position + 1), read as another process would."""
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as conn:
            rows = conn.execute("SELECT log_offset FROM memory_positions").fetchall()
    except sqlite3.OperationalError:
        return 0  # the tables are not created yet
    return sum(int(o) + 1 for (o,) in rows)


def _projector(bootstrap: str, prefix: str, store: Path, log: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "streams.cli.main", "project", "--bootstrap", bootstrap, "--prefix", prefix,
           "--store", f"sqlite:{store}", "--until-idle", "3", "--batch", "1000", "--audit",
           "--group-id", f"{prefix}projector"]
    with log.open("ab") as out:
        return subprocess.Popen(cmd, cwd=REPO, env={**os.environ, "PYTHONUNBUFFERED": "1"}, stdout=out,
                                stderr=subprocess.STDOUT)


async def _high_watermarks(bootstrap: str, prefix: str) -> dict[tuple[str, int], int]:
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        tps = [TopicPartition(topic_name(spec, prefix), p) for spec in PROJECTED for p in range(4)]
        ends = await consumer.end_offsets(tps)
    finally:
        await consumer.stop()
    return {(tp.topic, tp.partition): end for tp, end in ends.items() if end > 0}


def test_sigkill_three_times_while_consuming_loses_nothing_and_applies_nothing_twice(
        kafka_bootstrap: str, tmp_path: Path) -> None:
    prefix = fresh_prefix("crash")
    log = events(EVENTS, 500)
    assert len({e.event_id for e in log}) == EVENTS  # every event is distinguishable in the audit trail
    asyncio.run(produce_events(kafka_bootstrap, prefix, log))
    store, out = tmp_path / "crashed.sqlite", tmp_path / "projector.log"

    killed_at: list[int] = []
    for fraction in (0.20, 0.45, 0.70):
        process = _projector(kafka_bootstrap, prefix, store, out)
        deadline = time.monotonic() + 60
        while _progress(store) < fraction * EVENTS:
            assert process.poll() is None, f"projector exited early:\n{out.read_text()[-3000:]}"
            assert time.monotonic() < deadline, "projector made no progress"
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        killed_at.append(_progress(store))
    final = _projector(kafka_bootstrap, prefix, store, out)
    assert final.wait(timeout=120) == 0, out.read_text()[-3000:]
    assert killed_at == sorted(killed_at)
    assert killed_at[-1] < EVENTS

    ends = asyncio.run(_high_watermarks(kafka_bootstrap, prefix))
    assert sum(ends.values()) == EVENTS
    with SqliteStore(store) as crashed:
        # none missing: every partition applied up to its high watermark
        assert crashed.positions() == {where: end - 1 for where, end in ends.items()}
        trail = crashed.applied_events()
        # none twice: one audit row per produced record, no position twice, every event id present
        assert len(trail) == EVENTS
        assert Counter((s, p, o) for s, p, o, _ in trail).most_common(1)[0][1] == 1
        assert {e for *_, e in trail} == {e.event_id for e in log}
        crashed_hash = crashed.content_hash()
    assert crashed_hash == rebuild_hash(kafka_bootstrap, prefix, tmp_path / "uninterrupted.sqlite")


# ------------------------------------------------------------------------------------------- reading it back
def test_the_read_api_and_memory_show_serve_what_the_runner_projected(kafka_bootstrap: str, tmp_path: Path) -> None:
    prefix = fresh_prefix("read")
    asyncio.run(produce_events(kafka_bootstrap, prefix, events(800, 8)))
    path = tmp_path / "read.sqlite"
    with SqliteStore(path) as store:
        stats = asyncio.run(project_from_kafka(kafka_bootstrap, prefix, store))
        assert (stats.applied, stats.undecodable, stats.lag) == (800, 0, 0)
        client = TestClient(read_model_api(store))
        assert client.get("/sessions").json()["sessions"] == [f"sess-{i:05d}" for i in range(8)]
        session = client.get("/sessions/sess-00001/memory/session").json()
        assert session["document"]["session_id"] == "sess-00001"
        assert session["document"]["timeline"]
        assert client.get("/failures", params={"type": "REASONING"}).json()["count"] > 0
        assert client.get("/consistency").json()["consistent"] is True
        health = client.get("/health").json()
        assert health["status"] == "ok"
        assert sum(p["offset"] + 1 for p in health["positions"]) == 800

    result = CliRunner().invoke(main, ["memory", "show", "sess-00001", "--store", f"sqlite:{path}"])
    assert result.exit_code == 0, result.output
    assert "Session Memory of sess-00001" in result.output
    assert "Failure Memory" in result.output
    assert CliRunner().invoke(main, ["memory", "show", "nobody", "--store", f"sqlite:{path}"]).exit_code == 1
