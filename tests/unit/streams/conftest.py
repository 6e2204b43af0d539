"""Fixtures of the streams unit tests: the schema registry (parsed once per session) and a pipeline over it."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import structlog

from streams.stages.base import Outputs
from streams.stages.packets import PacketStage
from streams.wire.codec import SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter


@pytest.fixture(scope="session")
def registry() -> SchemaRegistry:
    """Every schema of schemas_avro/, as the worker loads them (tests must not register into it)."""
    return SchemaRegistry.from_directory()


@pytest.fixture(scope="session")
def converter(registry: SchemaRegistry) -> PacketConverter:
    """The packet dict <-> Avro datum converter compiled from the Packet schema."""
    return PacketConverter(registry.get(PACKET_SCHEMA).parsed)


@pytest.fixture
def pipeline(registry: SchemaRegistry) -> PacketStage:
    """A fresh pipeline over the shared registry (the pipeline itself is stateless)."""
    return PacketStage(Outputs(registry))


@pytest.fixture(autouse=True)
def isolated_logging() -> Iterator[None]:
    """`main` configures structlog and the root logger on the runner's streams, which close after each
    invocation; put both back so later tests never log into a closed stream."""
    config = structlog.get_config()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    structlog.configure(**config)
    root.handlers[:] = handlers
    root.setLevel(level)
