"""The worker's Avro framing at its edges (issue 26), beside the steps, which see single-object bytes only.

In: a Schema Registry frame on an Avro input topic (0x00, schema id, body) is resolved before its step runs: the
writer schema is fetched by id once (off the event loop) and cached by `RegistryFraming`, so the step's decode
reads it as our own framing. While the registry cannot be reached the record waits and is tried again, as a table
that is not ready is; after REGISTRY_RETRIES the step runs anyway and its decode makes the REGISTRY_UNAVAILABLE
dead letter (the raw record kept: nothing is lost). An unknown id or a schema that does not resolve against ours
is a dead letter at once (the step's decode names it).

Out: with OMEGA_AVRO_WIRE=confluent every Avro output goes out under the registry's header. Only those 5 bytes
depend on the registry: the body, the output's id and its traceparent (derived from our bytes, kafka/tracing.py)
do not, so replay against the same registry gives the same bytes. A subject the registry refuses (an
incompatible schema) or cannot serve is sent in our own framing, which every reader of ours takes, logged as an
error, and asked again after RETRY_SECONDS: an output is never dropped or held back for the registry.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from streams.logs import get_logger
from streams.stages.base import Emit
from streams.wire.codec import CONFLUENT_MAGIC, DecodeError, SchemaRegistry
from streams.wire.confluent import RegistryError, RegistryFraming

log = get_logger("omega.worker.wire")
REGISTRY_RETRIES = 20  # x REGISTRY_RETRY_WAIT_SECONDS: how long an input waits for an unreachable registry
REGISTRY_RETRY_WAIT_SECONDS = 0.5
RETRY_SECONDS = 30.0  # how long an output subject the registry failed stays in our own framing before asking again


async def resolve_input(registry: SchemaRegistry, raw: bytes, topic: str) -> None:
    """Look up the writer schema of a registry-framed input (no-op for any other record or without a registry)."""
    remote = registry.remote
    if raw[:1] != CONFLUENT_MAGIC or not isinstance(remote, RegistryFraming) or remote.knows(raw):
        return
    for attempt in range(REGISTRY_RETRIES + 1):
        try:
            await asyncio.to_thread(remote.to_single_object, raw)  # HTTP: never on the event loop
            return
        except DecodeError as exc:
            if exc.error_class != "REGISTRY_UNAVAILABLE" or attempt == REGISTRY_RETRIES:
                return  # the step's own decode raises it again, as its dead letter
            log.warning("registry_unavailable", topic=topic, attempt=attempt + 1, reason=str(exc))
            await asyncio.sleep(REGISTRY_RETRY_WAIT_SECONDS)


class ConfluentOut:
    """Registry framing of the Avro outputs (OMEGA_AVRO_WIRE=confluent), with our own framing as the fallback."""

    def __init__(self, framing: RegistryFraming, clock: Callable[[], float] = time.monotonic,
                 on_fallback: Callable[[str], None] | None = None) -> None:
        self.framing, self.clock, self.on_fallback = framing, clock, on_fallback
        self._failed_until: dict[str, float] = {}  # topic -> when to ask the registry again
        self.fallbacks = 0  # outputs sent in our own framing because the registry failed

    async def frame(self, emit: Emit, topic: str) -> bytes:
        """`emit.value` under the registry's header (JSON outputs and fallbacks: as they are)."""
        if emit.topic.value_schema is None:
            return emit.value
        known = self.framing.framed_if_known(emit.value, topic)
        if known is not None:
            return known
        if self._failed_until.get(topic, 0.0) > self.clock():
            return self._fallback(emit, topic)
        try:
            framed = await asyncio.to_thread(self.framing.to_confluent, emit.value, topic)
        except RegistryError as exc:
            self._failed_until[topic] = self.clock() + RETRY_SECONDS
            log.error("registry_framing_failed", topic=topic, error_class=exc.error_class, reason=str(exc),
                      sent_as="single-object", retry_in_seconds=RETRY_SECONDS)
            return self._fallback(emit, topic)
        return framed

    def _fallback(self, emit: Emit, topic: str) -> bytes:
        self.fallbacks += 1
        if self.on_fallback is not None:
            self.on_fallback(topic)  # counted in /metrics: omega_registry_fallbacks_total{topic}
        return emit.value
