"""Shared harness of the agent tests: a fresh app per test with tables in memory, every topic's `send`
replaced by an AsyncMock (what the producer would see: key bytes, Avro value bytes, timestamp in seconds)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest.mock import AsyncMock, patch

import pytest

from streams.settings import Settings
from streams.topics import ALL_TOPICS
from streams.wire.codec import SchemaRegistry
from streams.worker.app import OmegaApp, create_app

REGISTRY = SchemaRegistry.from_directory()


@pytest.fixture
async def omega() -> AsyncIterator[OmegaApp]:
    """A fresh app per test, tables in memory, every topic's send captured."""
    async for app in fresh_app():
        yield app


async def fresh_app(**settings: Any) -> AsyncIterator[OmegaApp]:
    """The app of `omega`, with other settings (e.g. batch_max)."""
    app = create_app(Settings(app_id="omega-agent-test", store="memory://", topic_prefix="t.", **settings), REGISTRY)
    app.app.finalize()
    with captured_sends(app):
        yield app
    # Iterating a stream makes the app build its Kafka consumer, whose thread gets an event loop of its
    # own; test_context never starts that thread, so nothing would ever close the loop.
    consumer = app.app._consumer
    if consumer is not None:
        consumer._thread.thread_loop.close()  # type: ignore[attr-defined]


@contextmanager
def captured_sends(app: OmegaApp) -> Iterator[None]:
    patches = [patch.object(app.topics[spec.logical], "send", new=AsyncMock(name=spec.logical)) for spec in ALL_TOPICS]
    for p in patches:
        p.start()
    try:
        yield
    finally:
        for p in reversed(patches):
            p.stop()


def sends(app: OmegaApp, logical: str) -> list[dict[str, Any]]:
    """The keyword arguments of every send to one topic, in order."""
    mock: AsyncMock = app.topics[logical].send
    return [dict(call.kwargs) for call in mock.await_args_list]


def all_sends(app: OmegaApp) -> dict[str, int]:
    return {spec.logical: app.topics[spec.logical].send.await_count for spec in ALL_TOPICS
            if app.topics[spec.logical].send.await_count}


async def settle(done: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait until `done()`; then a few more loop turns, so that any extra output would show up too.

    `put(wait=True)` returns once the event is handed to a non-yielding agent, not once it is processed."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not done():
        assert loop.time() < deadline, "the agent produced nothing in time"
        await asyncio.sleep(0.001)
    for _ in range(20):
        await asyncio.sleep(0)


def agent_of(app: OmegaApp, name: str) -> Any:
    return app.app.agents[f"{app.settings.topic_prefix}{name}"]


