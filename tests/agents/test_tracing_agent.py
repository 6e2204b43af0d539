"""The agent loop carries an input's W3C traceparent to its outputs as child spans (streams/kafka/tracing.py)."""

from __future__ import annotations

from pathlib import Path

from streams.worker.app import OmegaApp
from tests.agents.support import agent_of, all_sends, sends, settle

EXAMPLE = Path(__file__).parents[2] / "examples" / "omen" / "budget_overrun.jsonl"
KEY = b"corr_budget_overrun_0001"


async def test_outputs_of_a_traced_input_carry_child_traceparents_and_of_an_untraced_one_none(
        omega: OmegaApp) -> None:
    parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    lines = EXAMPLE.read_text().splitlines()
    async with agent_of(omega, "ingress").test_context() as agent:
        await agent.put(lines[0].encode(), key=KEY, headers=[("traceparent", parent.encode())])
        await agent.put(lines[1].encode(), key=KEY)
        await settle(lambda: all_sends(omega).get("packets", 0) == 2)

    traced, untraced = sends(omega, "packets")
    [(name, value)] = traced["headers"]
    assert name == "traceparent"
    assert value.decode().startswith("00-4bf92f3577b34da6a3ce929d0e0e4736-")
    assert value.decode() != parent
    assert untraced["headers"] is None
