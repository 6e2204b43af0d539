"""Trace context live and in replay (issue 23): packets published with W3C `traceparent` headers are judged by a
worker, the input topic is recorded with `omega tail --format replay`, and `omega replay` of that recording gives
every verdict, alert and escalation the very `traceparent` the worker sent it with; outputs of untraced packets
carry none in both.

The examples left out: dangling_directive (its TASK_TIMEOUT alerts fire live on a watermark tick, which carries no
trace, and in replay at the end of the log: when they fire is not the same, so neither is who caused them).
Dead letters are compared by count only: their record names the source position (a Kafka offset live, a line of
the recording in replay), so their bytes, and with them their span ids, differ by design.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaProducer
from click.testing import CliRunner

from streams.cli.main import main
from streams.topics import ALERTS, DEAD_LETTERS, ESCALATIONS, PACKETS_JSON, VERDICTS
from streams.wire.codec import SchemaRegistry
from tests.integration.worker import WorkerProcess, drain

pytestmark = pytest.mark.integration

EXAMPLES = Path(__file__).parents[2] / "examples" / "omen"
# trace ids by hand, one per traced file; the second is unsampled (flags 00), which is carried as it is
TRACES = {
    "budget_overrun": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "safe_mode": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00",
    "escalation": "00-11111111111111111111111111111111-2222222222222222-01",
    "token_revoked": "00-abcdefabcdefabcdefabcdefabcdef01-0123456789abcdef-01",
    "malformed": "00-99999999999999999999999999999999-8888888888888888-01",
}
UNTRACED = ("write_act", "token_exhausted", "verify_loop")
ID_FIELD = {VERDICTS.name: "verdict_id", ALERTS.name: "alert_id", ESCALATIONS.name: "escalation_id"}


def _records() -> list[tuple[bytes | None, bytes, str | None]]:
    records = []
    for stem in [*TRACES, *UNTRACED]:
        for line in (EXAMPLES / f"{stem}.jsonl").read_bytes().splitlines():
            if line.strip():
                try:
                    key = json.loads(line)["header"]["correlation_id"].encode()
                except (ValueError, KeyError, TypeError, AttributeError):
                    key = None  # malformed lines: no episode to key them by
                records.append((key, line, TRACES.get(stem)))
    return records


async def _produce(bootstrap: str, topic: str, records: Iterable[tuple[bytes | None, bytes, str | None]]) -> None:
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=True)
    await producer.start()
    try:
        futures = [await producer.send(topic, value=value, key=key,
                                       headers=None if trace is None else [("traceparent", trace.encode())])
                   for key, value, trace in records]
        for future in futures:
            await future
    finally:
        await producer.stop()


def _invoke(runner: CliRunner, args: list[str]) -> str:
    result = runner.invoke(main, args)
    # replay exits 1 when a packet was rejected, as some of these are
    assert result.exit_code in ((0, 1) if args[0] == "replay" else (0,)), result.output
    return result.stdout


def _traces(lines: Iterable[dict[str, Any]], topic: str) -> dict[str, str | None]:
    """output id -> its traceparent (None: sent without one)."""
    return {line["value"][ID_FIELD[topic]]: (line.get("headers") or {}).get("traceparent") for line in lines}


def test_replay_of_a_recorded_topic_gives_every_output_the_traceparent_the_worker_sent(
    worker: WorkerProcess, kafka_bootstrap: str, tmp_path: Path
) -> None:
    records = _records()
    runner = CliRunner()
    # the expected counts, from a plain replay of the same lines (no headers there)
    plain = tmp_path / "plain.jsonl"
    plain.write_bytes(b"".join(value + b"\n" for _, value, _ in records))
    expected = [json.loads(line) for line in _invoke(runner, ["replay", str(plain), "--out", "-"]).splitlines()
                if line.startswith("{")]
    counts = {t: sum(1 for line in expected if line["topic"] == t) for t in (*ID_FIELD, DEAD_LETTERS.name)}
    assert counts[ALERTS.name]
    assert counts[ESCALATIONS.name]
    assert counts[DEAD_LETTERS.name]
    assert not any("headers" in line for line in expected)

    asyncio.run(_produce(kafka_bootstrap, worker.topic(PACKETS_JSON), records))
    found = asyncio.run(drain(kafka_bootstrap, {worker.prefix + t: n for t, n in counts.items() if n},
                              SchemaRegistry.from_directory(), 120))
    assert all(len(found[worker.prefix + t]) >= n for t, n in counts.items()), worker.log_tail()

    bootstrap = ["--bootstrap", kafka_bootstrap, "--prefix", worker.prefix]
    recording = tmp_path / "recorded.jsonl"
    recording.write_text(_invoke(runner, ["tail", "packets_json", "--format", "replay", "--timeout", "3",
                                          *bootstrap]), encoding="utf-8")
    recorded = recording.read_text(encoding="utf-8").splitlines()
    assert len(recorded) == len(records)
    assert sum(1 for line in recorded if line.startswith('{"headers"')) == sum(1 for r in records if r[2])

    replayed = [json.loads(line) for line in
                _invoke(runner, ["replay", str(recording), "--jobs", "2", "--out", "-"]).splitlines()
                if line.startswith("{")]
    untraced = 0
    for topic in ID_FIELD:
        live = [json.loads(line) for line in
                _invoke(runner, ["tail", topic, "--timeout", "3", *bootstrap]).splitlines() if line.startswith("{")]
        live_traces = _traces(live, topic)
        replay_traces = _traces((line for line in replayed if line["topic"] == topic), topic)
        assert len(live_traces) == counts[topic], topic
        assert live_traces == replay_traces, topic
        traced = [trace for trace in live_traces.values() if trace is not None]
        untraced += len(live_traces) - len(traced)
        assert traced, topic
        trace_ids = {trace.split("-")[1] for trace in traced}
        assert trace_ids <= {trace.split("-")[1] for trace in TRACES.values()}, topic
    assert untraced  # outputs of untraced packets: no header live, none in replay
    letters = [line for line in replayed if line["topic"] == DEAD_LETTERS.name]
    assert len(letters) == counts[DEAD_LETTERS.name]
    malformed_trace = TRACES["malformed"].split("-")[1]
    assert all(line["headers"]["traceparent"].split("-")[1] == malformed_trace for line in letters)
