"""The fixtures are honest: checked against the published v0.7 JSON Schemas with jsonschema (not with our
validator). Valid fixtures of the seven published types pass their own schema; the designed types pass
PacketBase (header + MCP). Each negative case's rejected packet passes its schema exactly when the case says
its mutation breaks only the rule under test."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from tests.conformance.omen import episodes as ep
from tests.conformance.omen.mutations import ALL_CASES, Case
from tests.conformance.omen.packets import Packet, budgets
from tests.external_data import OMEN_SCHEMAS, needs

REPO = Path(__file__).resolve().parents[3]
SCHEMA_DIR = OMEN_SCHEMAS
pytestmark = needs(OMEN_SCHEMAS)  # the published schemas: external data
PUBLISHED = ("ObservationPacket", "BeliefUpdatePacket", "DecisionPacket", "ToolAuthorizationToken",
             "TaskDirectivePacket", "TaskResultPacket", "EscalationPacket")

VALID_EPISODES: dict[str, Callable[[], list[Packet]]] = {
    "section_9_2_string_scope": lambda: [ep.section_9_2_observation()],
    "section_9_2_object_scope": lambda: [ep.section_9_2_observation({"system": "Tama", "domain": "intel_update"})],
    "section_15_2": lambda: [ep.canonical_decision()],
    "verify_loop": ep.verify_loop,
    "verify_loop_no_plan": lambda: ep.verify_loop(plan=False),
    "verify_loop_escalate": lambda: ep.verify_loop(final="ESCALATE"),
    "verify_loop_long_wait": lambda: ep.verify_loop(wait=3 * 3600),
    "verify_loop_tiny_obs_budget": lambda: ep.verify_loop(obs_budgets=budgets(tokens=10, calls=0, seconds=0)),
    "write": ep.write_episode,
    "degraded_escalation": ep.degraded_escalation,
    "degraded_act": lambda: [ep.degraded_act_decision()],
    "grounding": ep.grounding,
    "grounding_defer": lambda: ep.grounding("DEFER"),
    "read_only": ep.read_only_act,
    "escalation": ep.escalation_template,
    "partial_tools": ep.partial_tools_act,
    "pre_authorized": ep.pre_authorized_write,
    "budget_escalation": ep.budget_escalation,
    "contested": ep.contested_high_decision,
    "safe_mode_alert": lambda: [ep.safe_mode_alert("corr_x", "pkt_x_alert", 0, operator_note="paged")],
}


@cache
def _validators() -> dict[str, Draft202012Validator]:
    schemas = [json.loads(p.read_text()) for p in sorted(SCHEMA_DIR.rglob("*.schema.json"))]
    registry: Registry[Any] = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas)
    return {s["title"]: Draft202012Validator(s, registry=registry) for s in schemas}


def schema_errors(packet: Packet) -> list[str]:
    """The published schema's errors for `packet` (PacketBase for the three designed types)."""
    kind = packet["header"]["packet_type"]
    validator = _validators()[kind if kind in PUBLISHED else "PacketBase"]
    return [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(packet)]


def _fixtures() -> Iterator[tuple[str, Packet]]:
    for name, build in VALID_EPISODES.items():
        for packet in build():
            yield f"{name}:{packet['header']['packet_id']}", packet


FIXTURES = dict(_fixtures())


def test_schema_directory_holds_header_mcp_base_and_seven_payload_schemas() -> None:
    assert set(_validators()) == {"PacketHeader", "MCP", "PacketBase", *PUBLISHED}


@pytest.mark.parametrize("name", list(FIXTURES))
def test_valid_fixture_passes_its_published_schema(name: str) -> None:
    assert schema_errors(FIXTURES[name]) == []


def _timestamps(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("created_at", "timestamp", "expiry") and isinstance(item, str):
                yield f"{path}.{key}", item
            else:
                yield from _timestamps(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _timestamps(item, f"{path}.{i}")


@pytest.mark.parametrize("name", list(FIXTURES))
def test_valid_fixture_timestamps_are_iso_8601_with_offset(name: str) -> None:
    """`format: date-time` is not asserted by jsonschema without extra packages: checked here instead."""
    for path, stamp in _timestamps(FIXTURES[name]):
        assert datetime.fromisoformat(stamp).utcoffset() is not None, path


@pytest.mark.parametrize("name", list(VALID_EPISODES))
def test_valid_episode_timestamps_increase_and_ids_are_unique(name: str) -> None:
    packets = VALID_EPISODES[name]()
    stamps = [datetime.fromisoformat(p["header"]["created_at"]) for p in packets]
    assert stamps == sorted(stamps)
    assert len({p["header"]["packet_id"] for p in packets}) == len(packets)
    assert len({p["header"]["correlation_id"] for p in packets}) == 1


def test_canonical_decision_verbatim_misses_only_constraints_satisfied() -> None:
    """OMEN.md §15.2 as printed lacks payload.constraints_satisfied, which DecisionPacket.schema.json requires;
    the suite's `canonical_decision()` adds it (marked schema-complete)."""
    errors = list(_validators()["DecisionPacket"].iter_errors(ep.CANONICAL_DECISION_VERBATIM))
    assert [(e.validator, list(e.absolute_path)) for e in errors] == [("required", ["payload"])]
    assert "'constraints_satisfied' is a required property" in errors[0].message


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_negative_case_breaks_the_schema_only_when_it_says_so(case: Case) -> None:
    errors = schema_errors(case.rejected_packet)
    assert (errors == []) is case.schema_valid, errors


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_negative_case_timestamps_increase(case: Case) -> None:
    stamps = [datetime.fromisoformat(p["header"]["created_at"]) for p in case.packets]
    assert stamps == sorted(stamps)
