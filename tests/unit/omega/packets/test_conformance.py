"""The conformance report's aggregation on hand-made verdicts: index collapsing, the fix a SCHEMA message names,
spec references, `would_accept`, the order of groups, examples and dead letters."""

from __future__ import annotations

from typing import Any

import pytest

from omega.packets.conformance import Conformance, collapse, schema_fix, spec_refs


def _v(rule: str, field: str | None, message: str = "m", severity: str = "ERROR") -> dict[str, Any]:
    return {"rule": rule, "severity": severity, "message": message, "field": field}


def _verdict(packet_id: str, *violations: dict[str, Any], packet_type: str = "DecisionPacket") -> dict[str, Any]:
    errors = any(v["severity"] == "ERROR" for v in violations)
    status = "REJECTED" if errors else "ACCEPTED_WITH_WARNINGS" if violations else "ACCEPTED"
    return {"packet_id": packet_id, "packet_type": packet_type, "status": status, "violations": list(violations)}


@pytest.mark.parametrize(("path", "collapsed"), [
    ("mcp.evidence.evidence_refs[3].ref_type", "mcp.evidence.evidence_refs[].ref_type"),
    ("payload.top_options.0.pros", "payload.top_options[].pros"),
    ("payload.load_bearing_assumptions.12.verified", "payload.load_bearing_assumptions[].verified"),
    ("payload.a[0][1].b", "payload.a[][].b"),
    ("payload.items.7", "payload.items[]"),
    ("header.layer_source", "header.layer_source"),
    ("payload.v2.x", "payload.v2.x"),
    (None, None),
])
def test_collapse(path: str | None, collapsed: str | None) -> None:
    assert collapse(path) == collapsed


@pytest.mark.parametrize(("message", "fix"), [
    ('header.layer_source must be an integer 1..6 or "Integrity", got a string "5"',
     'write an integer 1..6 or "Integrity"'),
    ("mcp.budgets.token_budget must be an integer >= 0, got a string \"2000\"", "write an integer >= 0"),
    ("header.campaign_id must be a string or null, got an integer 7", "write a string or null"),
    ("mcp.routing.tools_state must be one of: tools_ok, tools_partial, tools_down; got a string \"ok\"",
     "write one of: tools_ok, tools_partial, tools_down"),
    ("header.packet_id must match the pattern ^pkt_[a-zA-Z0-9_-]+$, got a string \"1b4e\"",
     "write a string matching ^pkt_[a-zA-Z0-9_-]+$"),
    ('mcp.intent.summary must not be empty, got ""', "write a non-empty string"),
    ("required field mcp.routing is missing: expected an object", "add it: an object"),
    ("payload.top_options[0].x is not an allowed field of payload.top_options[0]: allowed are a, b, c",
     "remove it (or move it where it belongs): payload.top_options[] allows a, b, c"),
    ("payload.top_options needs at least 2 items, got 1", "give at least 2 items"),
    ("mcp.quality.definition_of_done.checks needs at least 1 item, got 0", "give at least 1 item"),
    ("payload.top_options allows at most 3 items, got 4", "give at most 3 items"),
    ("mcp.epistemics.confidence must be at least 0, got a number -0.5", "write a value of at least 0"),
    ("mcp.epistemics.confidence must be at most 1, got a number 1.4", "write a value of at most 1"),
    ("mcp.epistemics.confidence must be a number 0..1, got null", "write a number 0..1"),
    ("header.previous_packet_id is null: read as absent (optional field; omit it instead of writing null)",
     "omit the field instead of writing null"),
    ("payload.x matches more than one of: a string or an object; got a string \"s\"",
     "write exactly one of: a string or an object"),
    ("something else entirely", "something else entirely"),
])
def test_schema_fix_names_the_accepted_form(message: str, fix: str) -> None:
    assert schema_fix(message) == fix


def test_spec_refs_by_rule() -> None:
    index_order = {"document": "schema-index-v0.7.md", "section": "Schema Validation Order"}
    assert spec_refs("SCHEMA", "header.packet_id", "ERROR") == [
        index_order, {"document": "schema-index-v0.7.md", "section": "PacketHeader.schema.json"},
        {"document": "schema-v0.7/header/PacketHeader.schema.json", "section": "packet_id"}]
    assert spec_refs("SCHEMA", "payload.top_options[].pros", "ERROR", ["EscalationPacket"]) == [
        index_order, {"document": "schema-index-v0.7.md", "section": "EscalationPacket.schema.json"},
        {"document": "schema-v0.7/packets/EscalationPacket.schema.json", "section": "top_options[].pros"}]
    assert spec_refs("SCHEMA", "payload.severity", "ERROR", ["IntegrityAlertPacket"]) == [
        index_order, {"document": "docs/omen-extra-packets.md", "section": "IntegrityAlertPacket"}]
    assert spec_refs("SCHEMA", "payload.x", "ERROR", ["ThoughtPacket"]) == [
        index_order, {"document": "schema-index-v0.7.md", "section": "PacketBase.schema.json"},
        {"document": "schema-v0.7/packets/PacketBase.schema.json", "section": "payload"}]
    assert spec_refs("SCHEMA", "mcp.intent.summary", "WARNING")[:2] == [
        {"document": "schema-index-v0.7.md", "section": "Required vs Optional Summary"},
        {"document": "schema-index-v0.7.md", "section": "MCP.schema.json"}]
    assert spec_refs("SCHEMA", None, "ERROR")[1:] == [
        {"document": "schema-index-v0.7.md", "section": "PacketBase.schema.json"},
        {"document": "schema-v0.7/packets/PacketBase.schema.json", "section": ""}]
    assert spec_refs("INV-009", "payload.top_options", "ERROR") == [
        {"document": "omen-cross-policy-invariants-v0.7.md", "section": "INV-009: Escalation Must Present Options"}]
    assert spec_refs("FSM-E4", None, "ERROR") == [
        {"document": "fsm-transitions-v0.7.md", "section": "Rule E4: Write Requires Token"}]
    assert spec_refs("FSM", None, "WARNING") == [
        {"document": "fsm-transitions-v0.7.md", "section": "Transition Table (Normative)"}]
    assert [ref["document"] for ref in spec_refs("AUTH", None, "ERROR")] == ["OMEN.md", "OMEN.md"]
    assert spec_refs("DUPLICATE", "header.packet_id", "ERROR")[0] == {
        "document": "OMEN.md", "section": "§9.1 Packet header (required): packet_id (unique)"}
    assert spec_refs("NEW-RULE", None, "ERROR") == []


def test_would_accept_counts_the_packets_whose_every_error_is_in_the_group() -> None:
    report = Conformance()
    layer = _v("SCHEMA", "header.layer_source", "header.layer_source must be an integer 1..6 or \"Integrity\", got "
               "a string \"5\"")
    report.add_verdict(_verdict("p1", layer), "a.jsonl:1")  # layer alone: counts
    report.add_verdict(_verdict("p2", layer, _v("SCHEMA", "header.campaign_id", severity="WARNING")), "a.jsonl:2")
    report.add_verdict(_verdict("p3", layer, _v("INV-001", "mcp.intent.summary")), "a.jsonl:3")  # two groups
    refs = [_v("SCHEMA", f"mcp.evidence.evidence_refs[{i}].ref_type") for i in range(3)]
    report.add_verdict(_verdict("p4", *refs), "a.jsonl:4")  # three violations, one group: counts once
    report.add_verdict(_verdict("p5", _v("FSM-E1", None, severity="WARNING")), "a.jsonl:5")
    out = report.report()
    assert [(g["rule"], g["field"], g["packets"], g["violations"], g["would_accept"]) for g in out["fixes"]] == [
        ("SCHEMA", "header.layer_source", 3, 3, 2),
        ("SCHEMA", "mcp.evidence.evidence_refs[].ref_type", 1, 3, 1),
        ("INV-001", "mcp.intent.summary", 1, 1, 0),
    ]
    assert [(g["rule"], g["field"], g["packets"]) for g in out["warnings"]] == [
        ("FSM-E1", None, 1), ("SCHEMA", "header.campaign_id", 1)]
    assert "would_accept" not in out["warnings"][0]
    assert out["totals"] == {"packets": 5, "dead_letters": 0,
                             "verdicts": {"ACCEPTED": 0, "ACCEPTED_WITH_WARNINGS": 1, "REJECTED": 4}}


def test_groups_tie_on_would_accept_then_packets_then_rule_and_field() -> None:
    report = Conformance()
    for n, (rule, field) in enumerate([("SCHEMA", "b"), ("SCHEMA", "a"), ("INV-003", "z"), ("SCHEMA", "c"),
                                       ("SCHEMA", "c")]):
        report.add_verdict(_verdict(f"p{n}", _v(rule, field), _v("SCHEMA", "other")), None)
    report.add_verdict(_verdict("q", _v("SCHEMA", "b")), None)
    order = [(g["rule"], g["field"]) for g in report.report()["fixes"]]
    assert order == [("SCHEMA", "b"), ("SCHEMA", "other"), ("SCHEMA", "c"), ("INV-003", "z"), ("SCHEMA", "a")]


def test_examples_fixes_and_packet_types() -> None:
    report = Conformance()
    for n in range(4):
        message = f"header.layer_source must be an integer 1..6 or \"Integrity\", got a string \"{n}\""
        kind = "ObservationPacket" if n % 2 else "EscalationPacket"
        report.add_verdict(_verdict(f"pkt_{n}", _v("SCHEMA", "payload.layer", message), packet_type=kind),
                           f"f.jsonl:{n + 1}")
    report.add_verdict(_verdict("pkt_9", _v("SCHEMA", "payload.layer", "required field payload.layer is missing: "
                                            "expected an object")), "f.jsonl:9")
    [group] = report.report()["fixes"]
    assert group["examples"] == [
        {"packet_id": "pkt_0", "at": "f.jsonl:1",
         "message": "header.layer_source must be an integer 1..6 or \"Integrity\", got a string \"0\""},
        {"packet_id": "pkt_1", "at": "f.jsonl:2",
         "message": "header.layer_source must be an integer 1..6 or \"Integrity\", got a string \"1\""}]
    assert group["fixes"] == ['write an integer 1..6 or "Integrity"', "add it: an object"]
    assert [ref["document"] for ref in group["spec"]][1:] == [
        "schema-index-v0.7.md", "schema-v0.7/packets/EscalationPacket.schema.json",
        "schema-index-v0.7.md", "schema-v0.7/packets/ObservationPacket.schema.json",
        "schema-index-v0.7.md", "schema-v0.7/packets/DecisionPacket.schema.json"]


def test_non_schema_rules_get_their_rules_fix() -> None:
    report = Conformance()
    report.add_verdict(_verdict("p", _v("INV-009", "payload.top_options", "INV-009: top_options must hold 2-3"),
                                _v("X-NEW", "f", "what the rule says")), None)
    fixes = {g["rule"]: g["fixes"] for g in report.report()["fixes"]}
    assert fixes == {"INV-009": ["give the escalation 2-3 complete top_options, at least one evidence gap and a "
                                 "recommended_next_step"],
                     "X-NEW": ["what the rule says"]}


def test_dead_letters_by_class_with_examples() -> None:
    report = Conformance()
    for n, error_class in enumerate(["JSON_SYNTAX", "MISSING_IDENTITY", "MISSING_IDENTITY", "MISSING_IDENTITY",
                                     "NOT_AN_OBJECT"]):
        report.add_dead_letter({"error_class": error_class, "reason": f"why {n}"}, f"d.jsonl:{n + 1}")
    out = report.report()
    assert out["dead_letters"] == [
        {"error_class": "MISSING_IDENTITY", "count": 3,
         "examples": [{"at": "d.jsonl:2", "reason": "why 1"}, {"at": "d.jsonl:3", "reason": "why 2"}]},
        {"error_class": "JSON_SYNTAX", "count": 1, "examples": [{"at": "d.jsonl:1", "reason": "why 0"}]},
        {"error_class": "NOT_AN_OBJECT", "count": 1, "examples": [{"at": "d.jsonl:5", "reason": "why 4"}]}]
    assert out["totals"]["dead_letters"] == 5
    assert out["fixes"] == out["warnings"] == []


def test_an_empty_report_has_the_whole_shape() -> None:
    assert Conformance().report() == {
        "report": "omen-producer-conformance", "version": 1,
        "totals": {"packets": 0, "verdicts": {"ACCEPTED": 0, "ACCEPTED_WITH_WARNINGS": 0, "REJECTED": 0},
                   "dead_letters": 0},
        "fixes": [], "warnings": [], "dead_letters": []}
