"""The OMEGA-57 monitor agent, driven with faust's `agent.test_context()`: raw agent output in, canonical
messages, dead letters, alerts and termination reports out, the session table reassigned per record."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from omega.agents.session import SessionState
from streams.topics import AGENT_MESSAGES, ALERTS, DEAD_LETTERS, ESCALATIONS, TERMINATIONS
from streams.wire.codec import SchemaRegistry
from streams.worker.app import OmegaApp
from tests.agents.support import agent_of, all_sends, sends, settle

REGISTRY = SchemaRegistry.from_directory()
SESSIONS = Path(__file__).resolve().parents[1] / "data" / "omega57"
KAFKA_TS = 1_766_400_000.5


def _documents(name: str) -> list[str]:
    """The session file's messages, one YAML text each (as an agent would publish them one by one)."""
    text = (SESSIONS / name).read_text(encoding="utf-8")
    return [yaml.safe_dump(doc, sort_keys=False) for doc in yaml.safe_load_all(text) if doc is not None]


def _decoded(omega: OmegaApp, logical: str) -> list[dict[str, object]]:
    return [REGISTRY.decode(s["value"])[1] for s in sends(omega, logical)]


async def test_monitor_republishes_accepted_messages_and_ends_a_clean_session_with_one_success_report(
    omega: OmegaApp,
) -> None:
    documents = _documents("clean_success.yaml")
    async with agent_of(omega, "monitor").test_context() as agent:
        for text in documents:
            await agent.put(text.encode(), key=b"sess-clean", timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, AGENT_MESSAGES.logical)) == len(documents))
        stored = omega.sessions["sess-clean"]

    assert set(all_sends(omega)) == {AGENT_MESSAGES.logical, TERMINATIONS.logical}
    assert {s["key"] for s in sends(omega, AGENT_MESSAGES.logical)} == {b"sess-clean"}
    [report] = _decoded(omega, TERMINATIONS.logical)
    assert (report["status"], report["session_id"]) == ("SUCCESS", "sess-clean")
    assert SessionState.from_dict(stored).session_id == "sess-clean"


async def test_monitor_turns_messy_input_into_dead_letters_and_agent_failures_and_goes_on(omega: OmegaApp) -> None:
    good = _documents("clean_success.yaml")
    messy = [
        b"message: {header: [unclosed",  # YAML syntax error
        b"\xff\xfe not text",  # not UTF-8
        good[1].replace("confidence: 0.", "confidence: 7.").encode(),  # out of range
    ]
    async with agent_of(omega, "monitor").test_context() as agent:
        await agent.put(good[0].encode(), key=b"sess-messy", timestamp=KAFKA_TS)
        for raw in messy:
            await agent.put(raw, key=b"sess-messy", timestamp=KAFKA_TS)
        await agent.put(good[1].encode(), key=b"sess-messy", timestamp=KAFKA_TS)
        await agent.put(good[2].encode(), key=None, timestamp=KAFKA_TS)  # no session id: cannot be attributed
        await settle(lambda: len(sends(omega, AGENT_MESSAGES.logical)) == 2
                     and len(sends(omega, DEAD_LETTERS.logical)) == 4)

    letters = _decoded(omega, DEAD_LETTERS.logical)
    assert [d["error_class"] for d in letters] == ["MESSAGE_REJECTED"] * 3 + ["NO_SESSION"]
    assert all(d["reason"] for d in letters)
    alerts = _decoded(omega, ALERTS.logical)
    # Every rejected message is an agent failure (QUARANTINED); the two that name no agent share one alert,
    # since the judge raises a signature once per agent, iteration and severity (no alert storms).
    assert [a["kind"] for a in alerts] == ["AGENT_FAILURE", "AGENT_FAILURE"]
    details = json.loads(str(alerts[1]["details"]))
    assert (details["facts"]["agent_id"], details["facts"]["failure"]) == (53, "QUARANTINED")  # attributed
    assert not sends(omega, ESCALATIONS.logical)


async def test_monitor_redelivery_re_emits_the_same_outputs_and_leaves_the_session_alone(omega: OmegaApp) -> None:
    first = _documents("clean_success.yaml")[0].encode()
    async with agent_of(omega, "monitor").test_context() as agent:
        await agent.put(first, key=b"sess-redo", timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, AGENT_MESSAGES.logical)) == 1)
        stored = omega.sessions["sess-redo"]
        await agent.put(first, key=b"sess-redo", timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, AGENT_MESSAGES.logical)) == 2)
        again = omega.sessions["sess-redo"]

    values = [s["value"] for s in sends(omega, AGENT_MESSAGES.logical)]
    assert values[0] == values[1]
    assert again == stored
