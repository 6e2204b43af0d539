"""The OMEGA-57 monitor on the real broker: every simulated session, one message per record and messy input
between them, gives the same accepted messages, alerts, escalations and termination reports as the
embedded judge, and the worker goes on after every bad record."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import yaml

from omega.canonical import canonical_json
from streams.stages.base import Outputs, Source
from streams.stages.messages import MonitorStage
from streams.topics import AGENT_MESSAGES, AGENT_MESSAGES_RAW, ALERTS, DEAD_LETTERS, ESCALATIONS, TERMINATIONS
from streams.wire.codec import SchemaRegistry
from tests.integration.worker import WorkerProcess, consume_until, produce

pytestmark = pytest.mark.integration

SESSIONS = Path(__file__).resolve().parents[1] / "data" / "omega57"
MESSY = [
    b"message:\n  header: {agent_id: 3\n",  # YAML syntax error
    b"\xc3\x28 invalid utf-8",
    b"[1, 2, 3]",  # JSON, but not a message
    b"---\n---\n",  # empty documents only
    b"a: &x [*x, *x]",  # an alias bomb's seed
]
OUTPUTS = (AGENT_MESSAGES, ALERTS, ESCALATIONS, TERMINATIONS)


def _session_records() -> dict[str, list[bytes]]:
    """Each session file split into one record per message, as agents publish them."""
    sessions = {}
    for path in sorted(SESSIONS.glob("*.yaml")):
        docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None]
        sessions[path.stem] = [yaml.safe_dump(d, sort_keys=False).encode() for d in docs]
    return sessions


def _interleaved(sessions: dict[str, list[bytes]]) -> list[tuple[bytes, bytes]]:
    """Round-robin across sessions (each session stays in order), a messy record after every 25th."""
    records: list[tuple[bytes, bytes]] = []
    queues = {k: list(v) for k, v in sessions.items()}
    while any(queues.values()):
        for key, queue in queues.items():
            if queue:
                records.append((key.encode(), queue.pop(0)))
                if len(records) % 25 == 0:
                    records.append((key.encode(), MESSY[len(records) // 25 % len(MESSY)]))
    return records


def _embedded(records: list[tuple[bytes, bytes]], registry: SchemaRegistry) -> dict[str, set[str]]:
    """What the embedded judge emits for the same records, per output topic, as canonical JSON."""
    stage, states = MonitorStage(Outputs(registry)), {}
    found: dict[str, set[str]] = {spec.logical: set() for spec in OUTPUTS}
    for offset, (key, raw) in enumerate(records):
        session = key.decode()
        step = stage.messages(states.get(session), raw, Source("embedded", 0, offset), session)
        states[session] = step.state
        for emit in step.emits:
            if emit.topic.logical in found:
                found[emit.topic.logical].add(canonical_json(_plain(registry.decode(emit.value)[1])))
    return found


def _plain(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in ("key", "partition", "offset", "timestamp")}


def test_live_monitor_equals_the_embedded_judge_and_survives_messy_input(
    worker: WorkerProcess, kafka_bootstrap: str
) -> None:
    registry = SchemaRegistry.from_directory()
    sessions = _session_records()
    records = _interleaved(sessions)
    expected = _embedded(records, registry)
    assert expected[TERMINATIONS.logical]  # the sessions exercise the judge
    assert expected[ALERTS.logical]

    asyncio.run(produce(kafka_bootstrap, worker.topic(AGENT_MESSAGES_RAW), records))
    topics = {worker.topic(spec): spec.logical for spec in (*OUTPUTS, DEAD_LETTERS)}
    want = {spec.logical: len(expected[spec.logical]) for spec in OUTPUTS}

    def done(found: dict[str, list[dict[str, Any]]]) -> bool:
        # Distinct records: delivery is at least once, so a redelivered output must not stand in for a missing one.
        return all(len({canonical_json(_plain(r)) for r in found[t]}) >= want[logical]
                   for t, logical in topics.items() if logical in want)

    found = asyncio.run(consume_until(kafka_bootstrap, list(topics), registry, done, 180))
    live = {logical: {canonical_json(_plain(r)) for r in found[t]} for t, logical in topics.items() if logical in want}

    for spec in OUTPUTS:
        assert live[spec.logical] == expected[spec.logical], (spec.logical, worker.log_tail())
    assert worker.alive()
    messy_letters = [r for r in found[worker.topic(DEAD_LETTERS)] if r["raw"] in MESSY]
    assert all(r["error_class"] == "MESSAGE_REJECTED" and r["reason"] for r in messy_letters)
    assert len(messy_letters) == sum(1 for _, raw in records if raw in MESSY)
