"""One record's step, guarded (the agent loop of worker/app.py calls it per record): the record's position and
bytes from its Faust event, a Schema Registry frame resolved first, the step run, and whatever goes wrong turned
into a dead letter instead of killing the worker: an unexpected error, an output too large to send, and (after
waiting for it) a table whose changelog is not in the consumer's metadata yet.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from faust.exceptions import PartitionsMismatch

from streams.logs import get_logger
from streams.stages.base import Emit, Outputs, Source
from streams.topics import TopicSpec
from streams.worker.wire import resolve_input

Step = Callable[[bytes, Source], list[Emit]]  # one record (raw bytes, where it came from) -> what to send

log = get_logger("omega.worker")
TABLE_NOT_READY_RETRIES = 40  # x 0.25 s: how long a step waits for a table's changelog metadata after start-up
TABLE_NOT_READY_WAIT_SECONDS = 0.25
MAX_OUTPUT_BYTES = 990_000  # key + value of one output: under the producer's max_request_size (Faust: 1,000,000)
OUTPUT_PART_BASE = 1_000_000


def log_key(key: str, limit: int = 256) -> str:
    """A record key as bound into every log line of its step: cut, so a huge key cannot bloat each line."""
    return key if len(key) <= limit else f"{key[:limit]}...({len(key)} characters)"


def _source(event: Any) -> Source:
    message = event.message
    timestamp = getattr(message, "timestamp", None)
    return Source(
        topic=message.topic,
        partition=message.partition,
        offset=message.offset,
        key=message.key,
        # Faust hands back the broker's milliseconds divided by 1000: int() would cut some by 1 ms
        timestamp_ms=None if timestamp is None else round(timestamp * 1000),
    )


def _raw(event: Any) -> bytes:
    value = event.message.value
    return value if isinstance(value, bytes) else bytes(value or b"")


async def run_guarded(outputs: Outputs, event: Any, spec: TopicSpec, step: Step) -> list[Emit]:
    """Run one step on one record and fit its outputs; an unexpected error becomes a dead letter instead of killing
    the worker.

    Just after start-up a table's changelog may be missing from the consumer's metadata ("0 partitions",
    PartitionsMismatch): the step wrote nothing (every step assigns its table last), so it waits and runs again.
    """
    source, raw = _source(event), _raw(event)
    if spec.value_schema is not None:  # a Schema Registry frame: its writer schema looked up first (worker/wire.py)
        await resolve_input(outputs.registry, raw, spec.name)
    for attempt in range(TABLE_NOT_READY_RETRIES + 1):
        try:
            return fitting(outputs, raw, source, step(raw, source))
        except PartitionsMismatch as exc:
            if attempt < TABLE_NOT_READY_RETRIES:
                log.warning("table_not_ready", topic=spec.name, partition=source.partition, offset=source.offset)
                await asyncio.sleep(TABLE_NOT_READY_WAIT_SECONDS)
                continue
            log.exception("stage_failed", topic=spec.name, partition=source.partition, offset=source.offset)
            return [outputs.dead_letter(raw, source, "INTERNAL", f"{type(exc).__name__}: {exc}")]
        except Exception as exc:
            log.exception("stage_failed", topic=spec.name, partition=source.partition, offset=source.offset)
            return [outputs.dead_letter(raw, source, "INTERNAL", f"{type(exc).__name__}: {exc}")]
    raise AssertionError("unreachable")


def fitting(outputs: Outputs, raw: bytes, source: Source, emits: list[Emit]) -> list[Emit]:
    """The outputs, each one too large for the producer (a valid input of up to `max_event_bytes` may give a larger
    output, e.g. its huge id in both key and value) replaced by a dead letter of its source record: sending it
    would raise and stop the agent."""
    out = []
    for index, emit in enumerate(emits):
        size = len(emit.value) + len(emit.key.encode("utf-8"))
        if size <= MAX_OUTPUT_BYTES:
            out.append(emit)
            continue
        reason = f"the {emit.topic.name} record it gives is {size} bytes, more than the limit of {MAX_OUTPUT_BYTES}"
        # parts past any a stage numbers (messages, rejected facts), so the dead letter's id is its own
        out.append(outputs.dead_letter(raw, source, "OUTPUT_TOO_LARGE", reason, part=OUTPUT_PART_BASE + index))
    return out
