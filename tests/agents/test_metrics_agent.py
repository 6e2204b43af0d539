"""The worker's counters move in the agent loop (streams/worker/metrics.py): one input record of the packets topic
counts once under its topic, its verdict under its status, its alert under kind and severity, and its time in the
latency histogram; a dead letter counts under its error class."""

from __future__ import annotations

from pathlib import Path

from streams.stages.base import Source
from streams.worker.app import OmegaApp
from tests.agents.support import agent_of, all_sends, settle

EXAMPLE = Path(__file__).parents[2] / "examples" / "omen" / "budget_overrun.jsonl"
KEY = b"corr_budget_overrun_0001"


def _value(omega: OmegaApp, name: str, **labels: str) -> float:
    return omega.metrics.registry.get_sample_value(name, labels) or 0.0


async def test_the_validator_counts_its_records_verdicts_alerts_and_latency(omega: OmegaApp) -> None:
    lines = EXAMPLE.read_text().splitlines()
    packets = [omega.packet_stage.ingress(line.encode(), Source("t", 0, n))[0].value for n, line in enumerate(lines)]
    async with agent_of(omega, "validator").test_context() as agent:
        for raw in packets:
            await agent.put(raw, key=KEY)
        await settle(lambda: all_sends(omega).get("verdicts", 0) == len(packets))

    assert _value(omega, "omega_events_in_total", topic="omen.packets") == len(packets) == 9
    # budget_overrun.jsonl: the 7th packet overruns the tokens (rejected: overrun alert, safe mode, escalation),
    # the 8th is rejected in safe mode, the rest are accepted
    assert _value(omega, "omega_verdicts_total", status="ACCEPTED") == 7
    assert _value(omega, "omega_verdicts_total", status="REJECTED") == 2
    assert _value(omega, "omega_alerts_total", kind="BUDGET_OVERRUN", severity="CRITICAL") == 1
    assert _value(omega, "omega_alerts_total", kind="SAFE_MODE_VIOLATION", severity="HIGH") == 1
    assert _value(omega, "omega_escalations_total", level="LAYER1") == 1
    assert _value(omega, "omega_processing_seconds_count") == 9


async def test_a_dead_letter_counts_under_its_error_class(omega: OmegaApp) -> None:
    async with agent_of(omega, "ingress").test_context() as agent:
        await agent.put(b"\xff\xfe", key=None)
        await settle(lambda: bool(all_sends(omega)))

    assert _value(omega, "omega_dead_letters_total", error_class="INVALID_UTF8") == 1
    assert _value(omega, "omega_events_in_total", topic="omen.packets.json") == 1

