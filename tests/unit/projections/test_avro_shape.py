"""The factories build records exactly as the Avro contract shapes them: each validates against its schema,
with every cross-file named type resolved, and survives a binary round trip unchanged."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import fastavro
import pytest
from fastavro.schema import load_schema
from fastavro.validation import validate

from tests.unit.projections.factories import (
    alert,
    episode_events,
    escalation,
    message,
    session_script,
    termination,
    verdict,
)

SCHEMA_DIR = Path(__file__).resolve().parents[3] / "schemas_avro"


@pytest.fixture(scope="module")
def schemas() -> dict[str, Any]:
    """Every .avsc parsed once, sharing one named-type registry (cross-file references resolve through it)."""
    named: dict[str, Any] = {}
    return {path.stem: load_schema(str(path), named_schemas=named) for path in sorted(SCHEMA_DIR.glob("*.avsc"))}


def _round_trip(schema: Any, record: dict[str, Any]) -> Any:
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, schema, record)
    buf.seek(0)
    return fastavro.schemaless_reader(buf, schema, schema)


@pytest.mark.parametrize(("name", "record"), [
    ("omega.agents.AgentMessage", message("s1", 1, 57, "[DEPLOY] go", content={"problem": {"classification": "X"}},
                                          flag_extras={"breakthrough": True}, extras={"brilliant": {"idea": "i"}},
                                          inputs_used=(1,), references=[{"type": "SUPPORTS", "source_agent": 1}])),
    ("omega.agents.AgentMessage", message("s1", 2, 35, "[CONTRADICTS] no", contradiction_with=27,
                                          responding_to=27, message_id=None)),
    ("omega.agents.TerminationReport", termination("s1", "SUCCESS", at=5, answer="a", confidence=0.8)),
    ("omega.agents.TerminationReport", termination("s1", "FAILURE", at=5, failure_type="ABORT", why_failed="w")),
    ("omega.events.Alert", alert("s1", "CONTRADICTION_CASCADE", "CRITICAL", "m", source_event_id="x", at=1,
                                 details={"facts": {"fatal": 4}})),
    ("omega.events.PacketVerdict", verdict("ep", "p1", "REJECTED", at=1, violations=[("INV-003", "ERROR", "m")])),
    ("omega.events.Escalation", escalation("s1", "L5", "halt", source_event_id="x", at=1)),
])
def test_factory_records_validate_against_the_avro_contract(schemas: dict[str, Any], name: str,
                                                            record: dict[str, Any]) -> None:
    schema = schemas[name]
    assert validate(record, schema, raise_errors=True)
    assert _round_trip(schema, record) == record


def test_every_record_of_a_whole_session_validates(schemas: dict[str, Any]) -> None:
    by_topic = {"agent_messages": "omega.agents.AgentMessage", "alerts": "omega.events.Alert",
                "terminations": "omega.agents.TerminationReport", "verdicts": "omega.events.PacketVerdict",
                "escalations": "omega.events.Escalation"}
    for topic, record in [*session_script("s1"), *episode_events("ep-1")]:
        assert validate(record, schemas[by_topic[topic]], raise_errors=True)
