"""The structural check agrees with OMEN's published JSON Schemas and with docs/omen-extra-packets.md."""

from __future__ import annotations

import copy
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from omega.packets.schema import PACKET_TYPES, check_schema
from omega.violations import Severity
from tests.conformance.omen.episodes import CANONICAL_DECISION_VERBATIM
from tests.external_data import OMEN_SCHEMAS, needs
from tests.omen_spec import DESIGNED_TYPES, PUBLISHED_TYPES
from tests.omen_spec import PACKET_TYPES as STRATEGY_PACKET_TYPES
from tests.omen_strategies import (
    MUTATION_KINDS,
    Accepted,
    Mutation,
    accepted_breaks,
    accepted_sites,
    equivalent_variants,
    mutation_sites,
    mutations,
    valid_packet,
    valid_packets,
)

REPO = Path(__file__).resolve().parents[4]
SCHEMA_DIR = OMEN_SCHEMAS
pytestmark = needs(OMEN_SCHEMAS)  # the published schemas are the oracle: external data
EXAMPLES = REPO / "examples" / "omen"
BASE_ID = "https://omen.ace-framework.org/schema/v0.7"
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --------------------------------------------------------------------------- the oracle
def _designed(title: str, payload: dict[str, Any]) -> dict[str, Any]:
    """A draft 2020-12 schema written here from docs/omen-extra-packets.md, shaped like the published ones
    except that the payload is open (no `additionalProperties: false`): no schema is published for it."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{BASE_ID}/packets/{title}.schema.json",
        "title": title,
        "allOf": [{"$ref": "./PacketBase.schema.json"}],
        "properties": {
            "header": {"properties": {"packet_type": {"const": title}}},
            "payload": {"type": "object", **payload},
        },
    }


# The doc's types, nothing more: its enums, patterns and ranges are suggestions, not constraints.
_STR: dict[str, Any] = {"type": "string"}
_INT: dict[str, Any] = {"type": "integer"}
_STRS: dict[str, Any] = {"type": "array", "items": _STR}


def _open(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


DESIGNED_SCHEMAS = [
    _designed(
        "VerificationPlanPacket",
        {
            "properties": {
                "plan_id": _STR,
                "verification_requirement": _STR,
                "verification_targets": {
                    "type": "array",
                    "items": _open(
                        assumption=_STR,
                        method=_STR,
                        success_criteria=_STR,
                        tool_id=_STR,
                        load_bearing={"type": "boolean"},
                    ),
                },
                "decision_packet_id": _STR,
                "max_tool_calls": _INT,
                "deadline_seconds": _INT,
            },
        },
    ),
    _designed(
        "IntegrityAlertPacket",
        {
            "required": ["severity"],
            "properties": {
                "alert_type": _STR,
                "severity": {"type": "string", "minLength": 1},
                "description": _STR,
                "action_taken": _STR,
                "revoked_token_ids": _STRS,
                "affected_packet_ids": _STRS,
                "override_rationale": _STR,
                "tools_state": _STR,
                "metrics": {},
            },
        },
    ),
    _designed(
        "QueueUpdatePacket",
        {
            "properties": {
                "queue_id": _STR,
                "operation": _STR,
                "item": _open(item_id=_STR, item_type=_STR, priority=_INT, description=_STR),
                "queue_depth": _INT,
                "reason": _STR,
            },
        },
    ),
]


def _load_validators() -> tuple[dict[str, Draft202012Validator], dict[str, Draft202012Validator]]:
    published = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(SCHEMA_DIR.rglob("*.schema.json"))]
    everything = published + DESIGNED_SCHEMAS
    registry: Registry[Any] = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in everything)

    def validators(schemas: list[dict[str, Any]]) -> dict[str, Draft202012Validator]:
        return {s["title"]: Draft202012Validator(s, registry=registry) for s in schemas if s["title"] in PACKET_TYPES}

    return validators(published), validators(DESIGNED_SCHEMAS)


PUBLISHED, DESIGNED = _load_validators()
ORACLE = {**PUBLISHED, **DESIGNED}


def _oracle_for(packet: Any, generated_as: str) -> Draft202012Validator:
    """The schema of the packet's own type when it names one, else of the type it was generated as."""
    header = packet.get("header") if isinstance(packet, dict) else None
    named = header.get("packet_type") if isinstance(header, dict) else None
    return ORACLE[named] if isinstance(named, str) and named in ORACLE else ORACLE[generated_as]


def _agrees(packet: Any, generated_as: str) -> None:
    """No ERROR of ours exactly when jsonschema accepts the packet once its nulls on optional fields are removed;
    and each such null is one WARNING of ours, on its path."""
    violations = check_schema(packet)
    oracle = _oracle_for(packet, generated_as)
    stripped, nulls = _optional_nulls_removed(oracle, packet)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in oracle.iter_errors(stripped)]
    ours = [v for v in violations if v.severity is Severity.ERROR]
    assert (ours == []) == (errors == []), f"ours={violations}\njsonschema={errors}"
    if not errors:
        assert sorted(v.field or "" for v in violations if v.severity is Severity.WARNING) == sorted(nulls)


def _optional_nulls_removed(oracle: Draft202012Validator, packet: Any) -> tuple[Any, list[str]]:
    """`packet` without the nulls jsonschema refuses on a field it does not require (found with jsonschema alone:
    a null is dropped, and restored when jsonschema then says the field is required), and their dotted paths."""
    current, removed, kept = copy.deepcopy(packet), [], set()
    while True:
        nulls = [tuple(e.absolute_path) for e in oracle.iter_errors(current)
                 if e.instance is None and e.validator in ("type", "oneOf") and e.absolute_path
                 and isinstance(e.absolute_path[-1], str) and tuple(e.absolute_path) not in kept]
        if not nulls:
            return current, removed
        path = nulls[0]
        parent = current
        for step in path[:-1]:
            parent = parent[step]
        del parent[path[-1]]
        required = any(e.validator == "required" and tuple(e.absolute_path) == path[:-1]
                       and repr(path[-1]) in e.message for e in oracle.iter_errors(current))
        if required:
            parent[path[-1]] = None
            kept.add(path)
        else:
            removed.append("".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in path).lstrip("."))


# --------------------------------------------------------------------------- the oracle itself
def test_packet_types_are_the_ten_of_the_spec_in_order() -> None:
    assert PACKET_TYPES == STRATEGY_PACKET_TYPES
    assert len(set(PACKET_TYPES)) == 10
    assert set(PUBLISHED) == set(PUBLISHED_TYPES)
    assert set(DESIGNED) == set(DESIGNED_TYPES)


# --------------------------------------------------------------------------- properties
@PROPERTY
@given(valid_packets())
def test_generated_valid_packets_pass_both(packet: dict[str, Any]) -> None:
    assert check_schema(packet) == []
    assert _oracle_for(packet, packet["header"]["packet_type"]).is_valid(packet)


def _candidates(packet_type: str) -> st.SearchStrategy[tuple[str, Any]]:
    def variants(packet: dict[str, Any]) -> st.SearchStrategy[Any]:
        broken = mutations(packet).map(lambda m: m.packet)
        loose = accepted_breaks(packet).map(lambda a: a.packet)
        return st.one_of(st.just(packet), broken, broken, equivalent_variants(packet), loose)

    return valid_packet(packet_type).flatmap(variants).map(lambda p: (packet_type, p))


@PROPERTY
@given(st.sampled_from(PUBLISHED_TYPES).flatmap(_candidates))
def test_agrees_with_the_published_json_schemas(case: tuple[str, Any]) -> None:
    packet_type, packet = case
    _agrees(packet, packet_type)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(DESIGNED_TYPES).flatmap(_candidates))
def test_agrees_with_json_schemas_written_from_the_design_doc(case: tuple[str, Any]) -> None:
    packet_type, packet = case
    _agrees(packet, packet_type)


@PROPERTY
@given(valid_packets().flatmap(mutations))
def test_each_mutation_gives_one_violation_naming_its_field(mutation: Mutation) -> None:
    violations = check_schema(mutation.packet)
    assert [v.field for v in violations] == [mutation.field], mutation.detail
    assert all(v.rule == "SCHEMA" and v.severity is Severity.ERROR and v.message for v in violations)


# Payload-level mutation kinds of each designed type, in a full packet (every optional field present; the
# payload object itself included). The closed design rejected all of CLOSED_DESIGN_KINDS; the open contract
# rejects only REJECTED_KINDS (a payload that is missing or not an object, a named field of the wrong JSON
# type, a missing or empty IntegrityAlertPacket severity) and accepts ACCEPTED_KINDS (the same breaks where
# the contract leaves them open: an extra key, an off-suggestion value, a dropped optional field, an
# unbounded integer, an empty string / array / object, any `metrics` value).
_COMMON_KINDS = {"drop_required", "wrong_type", "bad_enum", "empty_string", "extra_property"}
CLOSED_DESIGN_KINDS = {
    "VerificationPlanPacket": set(MUTATION_KINDS) - {"empty_object"},
    "IntegrityAlertPacket": {*_COMMON_KINDS, "bad_pattern"},
    "QueueUpdatePacket": {*_COMMON_KINDS, "out_of_range"},
}
REJECTED_KINDS = {
    "VerificationPlanPacket": {"drop_required", "wrong_type"},  # drop_required: only the payload itself
    "IntegrityAlertPacket": {"drop_required", "wrong_type", "empty_string"},
    "QueueUpdatePacket": {"drop_required", "wrong_type"},  # drop_required: only the payload itself
}
ACCEPTED_KINDS = {
    "VerificationPlanPacket": set(MUTATION_KINDS) - {"wrong_type"},
    "IntegrityAlertPacket": {*_COMMON_KINDS, "bad_pattern", "empty_array"},
    "QueueUpdatePacket": {*_COMMON_KINDS, "out_of_range", "empty_object"} - {"wrong_type"},
}


@pytest.mark.parametrize("packet_type", DESIGNED_TYPES)
def test_designed_mutation_kinds_are_the_expected_ones(packet_type: str) -> None:
    assert CLOSED_DESIGN_KINDS[packet_type] <= REJECTED_KINDS[packet_type] | ACCEPTED_KINDS[packet_type]

    @settings(max_examples=5, deadline=None)
    @given(valid_packet(packet_type, full=True))
    def check(packet: dict[str, Any]) -> None:
        assert {kind for kind, _ in mutation_sites(packet, under="payload")} == REJECTED_KINDS[packet_type]
        assert {kind for kind, _ in accepted_sites(packet, under="payload")} == ACCEPTED_KINDS[packet_type]

    check()


@pytest.mark.parametrize(
    ("packet_type", "kind"),
    [(t, k) for t in DESIGNED_TYPES for k in MUTATION_KINDS if k in REJECTED_KINDS[t] | ACCEPTED_KINDS[t]],
)
def test_designed_payload_mutations_name_the_field(packet_type: str, kind: str) -> None:
    """Where the open contract still rejects `kind`, the one violation names the field; where it leaves the
    field open (an extra key, an off-suggestion value, ...), the change is accepted: no violation at all."""

    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(valid_packet(packet_type, full=True).flatmap(lambda p: mutations(p, (kind,), under="payload")))
    def rejected(mutation: Mutation) -> None:
        assert mutation.field is not None
        assert mutation.field.startswith("payload")
        assert [v.field for v in check_schema(mutation.packet)] == [mutation.field], mutation.detail

    @settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(valid_packet(packet_type, full=True).flatmap(lambda p: accepted_breaks(p, (kind,), under="payload")))
    def accepted(change: Accepted) -> None:
        assert change.path.startswith("payload")
        assert check_schema(change.packet) == [], change.detail
        assert DESIGNED[packet_type].is_valid(change.packet), change.detail

    if kind in REJECTED_KINDS[packet_type]:
        rejected()
    if kind in ACCEPTED_KINDS[packet_type]:
        accepted()


# --------------------------------------------------------------------------- pinned examples
CANONICAL_DECISION: dict[str, Any] = CANONICAL_DECISION_VERBATIM  # OMEN.md §15.2, transcribed once
CONSTRAINTS = {"constitutional_check": True, "budget_check": True, "tier_check": True}


def _decision(**payload_extra: Any) -> dict[str, Any]:
    packet = copy.deepcopy(CANONICAL_DECISION)
    packet["payload"].update({"constraints_satisfied": dict(CONSTRAINTS), **payload_extra})
    return packet


def _with(packet: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(packet)
    *head, last = path.split(".")
    node = out
    for step in head:
        node = node[step]
    node[last] = value
    return out


def _fields(packet: Any) -> list[str | None]:
    return [v.field for v in check_schema(packet)]


def test_canonical_decision_example_lacks_constraints_satisfied() -> None:
    violations = check_schema(CANONICAL_DECISION)
    assert [v.field for v in violations] == ["payload.constraints_satisfied"]
    assert "required field payload.constraints_satisfied is missing" in violations[0].message
    assert not PUBLISHED["DecisionPacket"].is_valid(CANONICAL_DECISION)


def test_canonical_decision_example_with_constraints_is_valid() -> None:
    assert check_schema(_decision()) == []
    assert PUBLISHED["DecisionPacket"].is_valid(_decision())


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("mcp.budgets.token_budget", True),
        ("mcp.budgets.tool_call_budget", False),
        ("mcp.epistemics.stale_if_older_than_seconds", True),
        ("mcp.epistemics.confidence", True),
        ("mcp.budgets.token_budget", 2.5),
        ("mcp.budgets.token_budget", "900"),
    ],
)
def test_bools_and_non_integral_values_are_not_integers(path: str, value: Any) -> None:
    packet = _with(_decision(), path, value)
    assert _fields(packet) == [path]
    assert not PUBLISHED["DecisionPacket"].is_valid(packet)


def test_bool_message_says_what_was_expected() -> None:
    [violation] = check_schema(_with(_decision(), "mcp.budgets.token_budget", True))
    assert violation.message == "mcp.budgets.token_budget must be an integer >= 0, got a boolean true"


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("mcp.budgets.token_budget", 900.0),  # jsonschema: an integral float is an integer
        ("header.layer_source", 5.0),
        ("header.layer_source", "Integrity"),
        ("mcp.epistemics.confidence", 1),  # an integer is a number
        ("mcp.budgets.risk_budget.max_loss", 250000),
        ("mcp.budgets.risk_budget.max_loss", 0.5),
        ("mcp.intent.scope", {"system": "Jita", "nested": [1, {"deep": None}]}),
        ("mcp.evidence.evidence_absent_reason", None),
        ("header.created_at", "not a timestamp"),  # format is an annotation in draft 2020-12
        ("header.packet_id", "pkt_0123\n"),  # re.search: `$` matches before a final newline
    ],
)
def test_accepted_like_jsonschema_accepts(path: str, value: Any) -> None:
    packet = _with(_decision(), path, value)
    assert check_schema(packet) == []
    assert PUBLISHED["DecisionPacket"].is_valid(packet)


@pytest.mark.parametrize("value", [0, 7, -1, True, 2.5, "integrity", "Integrity ", None, [5]])
def test_bad_layer_source_is_rejected(value: Any) -> None:
    packet = _with(_decision(), "header.layer_source", value)
    assert _fields(packet) == ["header.layer_source"]
    assert not PUBLISHED["DecisionPacket"].is_valid(packet)


def test_underscore_metadata_is_accepted_and_other_top_level_keys_are_not() -> None:
    packet = _decision()
    packet["_validation_notes"] = {"source": "OMEN.md §15.2", "fixed": ["constraints_satisfied"]}
    assert check_schema(packet) == []
    assert PUBLISHED["DecisionPacket"].is_valid(packet)
    packet["validation_notes"] = "no underscore"
    [violation] = check_schema(packet)
    assert violation.field == "validation_notes"
    assert violation.message == ("validation_notes is not an allowed field of the packet: allowed are header, mcp, "
                                 "payload, or any key starting with '_'")


def test_underscore_keys_are_not_allowed_inside_the_header() -> None:
    packet = _with(_decision(), "header._note", "x")
    assert _fields(packet) == ["header._note"]


@pytest.mark.parametrize("packet", [None, [], ["pkt_1"], "pkt_0123", 5, 2.5, True])
def test_a_non_object_packet_gives_one_violation_without_a_field(packet: Any) -> None:
    [violation] = check_schema(packet)
    assert violation.field is None
    assert violation.rule == "SCHEMA"
    assert violation.severity is Severity.ERROR
    assert violation.message.startswith("a packet must be a JSON object")


def test_unknown_packet_type_is_one_violation_and_the_payload_is_not_judged() -> None:
    packet = _with(_decision(), "header.packet_type", "ThoughtPacket")
    [violation] = check_schema(packet)
    assert violation.field == "header.packet_type"
    assert violation.message.endswith('; got a string "ThoughtPacket"')
    assert violation.message.startswith(
        "header.packet_type must be one of: ObservationPacket, BeliefUpdatePacket, ")


def test_missing_packet_type_still_checks_the_rest_of_packet_base() -> None:
    packet = _decision()
    del packet["header"]["packet_type"]
    packet["payload"] = []
    packet["extra"] = 1
    assert _fields(packet) == ["header.packet_type", "payload", "extra"]


def test_every_violation_is_reported_in_a_deterministic_order() -> None:
    packet = _decision()
    packet["header"]["packet_id"] = "packet-1"
    packet["mcp"]["budgets"]["token_budget"] = -1
    packet["mcp"]["epistemics"]["confidence"] = 1.5
    del packet["mcp"]["routing"]
    packet["payload"]["decision_outcome"] = "act"
    packet["payload"]["zzz"] = 1
    packet["payload"]["aaa"] = 2
    packet["extra"] = True
    expected = [
        "header.packet_id",
        "mcp.budgets.token_budget",
        "mcp.epistemics.confidence",
        "mcp.routing",
        "payload.decision_outcome",
        "payload.aaa",
        "payload.zzz",
        "extra",
    ]
    assert _fields(packet) == expected
    reordered = {key: packet[key] for key in reversed(list(packet))}
    reordered["payload"] = {key: packet["payload"][key] for key in reversed(list(packet["payload"]))}
    assert check_schema(reordered) == check_schema(packet)


def test_paths_into_arrays_use_indices() -> None:
    packet = valid_belief_update()
    del packet["payload"]["belief_changes"][1]["domain"]
    packet["mcp"]["evidence"]["evidence_refs"][0]["ref_type"] = "rumour"
    assert _fields(packet) == ["mcp.evidence.evidence_refs[0].ref_type", "payload.belief_changes[1].domain"]


def valid_belief_update() -> dict[str, Any]:
    packet = _decision()
    packet["header"]["packet_type"] = "BeliefUpdatePacket"
    packet["mcp"]["evidence"]["evidence_refs"] = [
        {"ref_type": "tool_output", "ref_id": "pkt_0124", "timestamp": "2025-12-21T11:33:00-05:00"}
    ]
    packet["payload"] = {
        "update_type": "revision",
        "belief_changes": [
            {"domain": "threats", "key": "local", "new_value": "low", "prior_value": None},
            {"domain": "market", "key": "price", "new_value": 4.2, "prior_value": 4.0, "epistemic_upgrade": True},
        ],
    }
    assert check_schema(packet) == []
    return packet


@pytest.mark.parametrize(
    ("payload", "packet_type"),
    [
        (  # WRITE without authorization_token_id, method=tool without tool_id
            {"task_id": "task_1", "task_type": "tool_write", "execution_method": {"method": "tool"},
             "tool_safety_class": "WRITE"},
            "TaskDirectivePacket",
        ),
        (  # FAILURE without error_details
            {"task_id": "task_1", "directive_packet_id": "pkt_1", "result_status": "FAILURE"},
            "TaskResultPacket",
        ),
        (  # contradiction_resolved without contradiction_details
            {"update_type": "contradiction_resolved",
             "belief_changes": [{"domain": "d", "key": "k", "new_value": 1, "prior_value": 2}]},
            "BeliefUpdatePacket",
        ),
    ],
)
def test_context_dependent_requirements_are_left_to_the_invariants(payload: dict[str, Any], packet_type: str) -> None:
    packet = _with(_with(_decision(), "header.packet_type", packet_type), "payload", payload)
    packet["mcp"]["evidence"] = {"evidence_refs": []}  # and no evidence_absent_reason either
    assert check_schema(packet) == []
    assert PUBLISHED[packet_type].is_valid(packet)


def _integrity_alert(payload: dict[str, Any]) -> dict[str, Any]:
    packet = _with(_with(_decision(), "header.packet_type", "IntegrityAlertPacket"), "header.layer_source", "Integrity")
    packet["payload"] = payload
    return packet


def test_a_critical_alert_with_an_extra_field_is_valid_and_one_without_severity_is_not() -> None:
    """Issue 17: the designed payloads are open. A CRITICAL alert carrying a field the design does not name
    must reach the FSM (and put the episode into safe mode), not be rejected as a SCHEMA violation."""
    alert = _integrity_alert(
        {"alert_type": "safe_mode_entry", "severity": "CRITICAL", "description": "tools down",
         "operator_note": "paged the on-call"}
    )
    assert check_schema(alert) == []
    assert DESIGNED["IntegrityAlertPacket"].is_valid(alert)

    del alert["payload"]["severity"]
    [violation] = check_schema(alert)
    assert violation.field == "payload.severity"
    assert violation.rule == "SCHEMA"
    assert violation.severity is Severity.ERROR
    assert "required field payload.severity is missing" in violation.message
    assert not DESIGNED["IntegrityAlertPacket"].is_valid(alert)


# --------------------------------------------------------------------------- bundled examples
EXAMPLE_FILES = sorted(p for p in EXAMPLES.glob("*.jsonl") if p.name != "malformed.jsonl")


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_there_are_bundled_examples() -> None:
    assert len(EXAMPLE_FILES) >= 4
    assert (EXAMPLES / "malformed.jsonl").is_file()


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_example_episode_is_valid_and_ordered(path: Path) -> None:
    packets = [json.loads(line) for line in _lines(path)]
    for number, packet in enumerate(packets, start=1):
        assert check_schema(packet) == [], f"{path.name}:{number}"
        packet_type = packet["header"]["packet_type"]
        assert ORACLE[packet_type].is_valid(packet), f"{path.name}:{number}"
    assert len({p["header"]["correlation_id"] for p in packets}) == 1
    times = [datetime.fromisoformat(p["header"]["created_at"]) for p in packets]
    assert times == sorted(times)
    assert len(set(times)) == len(times)


def test_example_packet_ids_are_unique_across_files() -> None:
    ids = [json.loads(line)["header"]["packet_id"] for path in EXAMPLE_FILES for line in _lines(path)]
    assert len(ids) == len(set(ids))


def test_every_line_of_the_malformed_example_is_rejected() -> None:
    lines = _lines(EXAMPLES / "malformed.jsonl")
    assert len(lines) >= 4
    for number, line in enumerate(lines, start=1):
        try:
            packet = json.loads(line)
        except json.JSONDecodeError:
            continue
        assert check_schema(packet), f"malformed.jsonl:{number} was accepted"
