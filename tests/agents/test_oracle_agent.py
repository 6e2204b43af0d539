"""The Phase Q oracle agent, driven with faust's `agent.test_context()`: test-set lines (JSON) in, Avro
OracleVerdicts out keyed by case id, bad input dead-lettered, a redelivery byte-identical."""

from __future__ import annotations

import json
from pathlib import Path

from omega.oracle.evidence import verify_chain
from streams.topics import DEAD_LETTERS, ORACLE_VERDICTS
from streams.wire.codec import SchemaRegistry
from streams.worker.app import OmegaApp
from tests.agents.support import agent_of, all_sends, sends, settle

REGISTRY = SchemaRegistry.from_directory()
CASES = Path(__file__).resolve().parents[2] / "examples" / "oracle" / "cases.ndjson"  # ours, with expectations
KAFKA_TS = 1_766_400_000.5


def _lines() -> list[bytes]:
    return [line.encode() for line in CASES.read_text(encoding="utf-8").split("\n") if line.strip()]


def _decoded(omega: OmegaApp, logical: str) -> list[dict[str, object]]:
    return [REGISTRY.decode(s["value"])[1] for s in sends(omega, logical)]


async def test_oracle_agent_publishes_one_verdict_per_case_agreeing_with_the_expectations(omega: OmegaApp) -> None:
    lines = _lines()
    async with agent_of(omega, "oracle").test_context() as agent:
        for raw in lines:
            await agent.put(raw, key=None, timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, ORACLE_VERDICTS.logical)) == len(lines))

    assert set(all_sends(omega)) == {ORACLE_VERDICTS.logical}
    verdicts = _decoded(omega, ORACLE_VERDICTS.logical)
    expected = {json.loads(raw)["id"]: json.loads(raw)["expected"]["verdict"] for raw in lines}
    assert {str(v["id"]): v["verdict"] for v in verdicts} == expected
    assert [s["key"] for s in sends(omega, ORACLE_VERDICTS.logical)] == [k.encode() for k in expected]
    assert all(s["timestamp"] == KAFKA_TS for s in sends(omega, ORACLE_VERDICTS.logical))
    assert all(verify_chain(v["evidence_chain"]) for v in verdicts)  # type: ignore[arg-type]


async def test_oracle_agent_dead_letters_bad_input_and_goes_on(omega: OmegaApp) -> None:
    good = _lines()[0]
    async with agent_of(omega, "oracle").test_context() as agent:
        await agent.put(b"{not json", key=None, timestamp=KAFKA_TS)
        await agent.put(b'{"id": "X", "category": "precision"}', key=None, timestamp=KAFKA_TS)
        await agent.put(good, key=None, timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, ORACLE_VERDICTS.logical)) == 1
                     and len(sends(omega, DEAD_LETTERS.logical)) == 2)

    letters = _decoded(omega, DEAD_LETTERS.logical)
    assert [d["error_class"] for d in letters] == ["JSON_SYNTAX", "INVALID_CASE"]
    assert letters[0]["raw"] == b"{not json"


async def test_oracle_agent_redelivery_gives_a_byte_identical_verdict(omega: OmegaApp) -> None:
    raw = _lines()[1]
    async with agent_of(omega, "oracle").test_context() as agent:
        await agent.put(raw, key=None, timestamp=KAFKA_TS)
        await agent.put(raw, key=None, timestamp=KAFKA_TS)
        await settle(lambda: len(sends(omega, ORACLE_VERDICTS.logical)) == 2)

    first, second = (s["value"] for s in sends(omega, ORACLE_VERDICTS.logical))
    assert first == second
