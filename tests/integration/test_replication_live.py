"""Replication settings on a real broker (issue 23): contract topics are created with the replication factor and
`min.insync.replicas` asked for, and existing topics whose replication factor differs are named (the worker
prints them in one warning line, never using them silently). A single broker can hold only one replica, so a
topic there asked to have 3 is reported as having 1."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

from streams.kafka.clients import ensure_topics, replication_mismatches

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
