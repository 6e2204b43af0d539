"""Replication settings on a real broker (issue 23): contract topics are created with the replication factor and
`min.insync.replicas` asked for, and existing topics whose replication factor differs are named (the worker
prints them in one warning line, never using them silently). A single broker can hold only one replica, so a
topic there asked to have 3 is reported as having 1."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

from streams.kafka.clients import ensure_topics, replication_mismatches
from streams.topics import ALL_TOPICS, topic_name
from tests.integration.worker import REPO

pytestmark = pytest.mark.integration


async def _config(bootstrap: str, name: str, key: str) -> str:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        [response] = await admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, name, None)])
        return {n: v for n, v, *_ in response.resources[0][4]}[key]
    finally:
        await admin.close()


def test_topics_get_the_replication_asked_for_and_others_are_named(kafka_bootstrap: str) -> None:
    name = f"replication-{uuid.uuid4().hex[:8]}.omen.verdicts"
    assert asyncio.run(ensure_topics(kafka_bootstrap, [name], 2, 1, min_insync=1)) == [name]

    assert asyncio.run(_config(kafka_bootstrap, name, "min.insync.replicas")) == "1"
    assert asyncio.run(replication_mismatches(kafka_bootstrap, [name], 1)) == {}
    assert asyncio.run(replication_mismatches(kafka_bootstrap, [name], 3)) == {name: 1}
    assert asyncio.run(ensure_topics(kafka_bootstrap, [name], 2, 3, min_insync=2)) == []  # exists: kept as it is


def test_the_check_describes_only_topics_that_exist_so_it_creates_none(kafka_bootstrap: str) -> None:
    missing = f"replication-{uuid.uuid4().hex[:8]}-episodes-changelog"
    assert asyncio.run(replication_mismatches(kafka_bootstrap, [missing], 3)) == {}

    async def exists() -> bool:
        admin = AIOKafkaAdminClient(bootstrap_servers=kafka_bootstrap)
        await admin.start()
        try:
            return missing in await admin.list_topics()
        finally:
            await admin.close()

    assert not asyncio.run(exists())  # a broker with auto.create.topics.enable would have made it with its defaults


def test_worker_start_names_a_changelog_with_another_replication_factor(kafka_bootstrap: str, tmp_path: Path) -> None:
    prefix = f"repl-{uuid.uuid4().hex[:8]}."
    app_id = f"{prefix}app"
    changelog = f"{app_id}-{prefix}episodes-changelog"
    contract = [topic_name(t, prefix) for t in ALL_TOPICS]
    # everything exists with one replica (a single broker holds no more), so the worker asked for 2 keeps them all
    asyncio.run(ensure_topics(kafka_bootstrap, [*contract, changelog], 4, 1, min_insync=1))
    env = {**os.environ, "OMEGA_REPLICATION_FACTOR": "2", "OMEGA_MIN_INSYNC_REPLICAS": "1",
           "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap}
    with subprocess.Popen([sys.executable, "-m", "streams.cli.main", "worker", "--prefix", prefix, "--app-id", app_id,
                           "--data-dir", str(tmp_path / "data")], env=env, cwd=REPO, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True) as worker:
        try:
            assert worker.stderr is not None
            line = next((line for line in worker.stderr if line.startswith("warning: OMEGA_REPLICATION_FACTOR")), "")
        finally:
            worker.kill()
    assert line.startswith("warning: OMEGA_REPLICATION_FACTOR=2, but ")
    named = dict(part.rsplit(" has ", 1) for part in line.strip().split(", but ", 1)[1].split(", "))
    assert named == dict.fromkeys([*contract, changelog], "1")
