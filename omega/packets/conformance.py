"""The producer conformance report: verdicts and dead letters of a corpus aggregated into what a producer must
fix, the fix that turns the most packets ACCEPTED first. Pure: no I/O, no clock.

A group is one (severity, rule, field path) with array indices collapsed (`payload.top_options[1].pros` and
`payload.top_options.0.pros` are both `payload.top_options[].pros`). A packet is one verdict: a packet sent
twice counts twice. `would_accept` of an ERROR group counts the REJECTED verdicts whose every ERROR falls in
that group, so fixing that group alone removes every ERROR the verdict shows (the FSM and the episode
invariants do not run on a packet the schema rejects, so it is what the verdicts show, not a promise).
ERROR groups are ordered by `would_accept`, then packets (both descending), then rule and field; WARNING
groups (they never block acceptance) by packets, then rule and field; dead letters by count, then class.
The JSON shape `Conformance.report()` returns is documented in docs/conformance-report.md.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["EXAMPLES", "REPORT_VERSION", "STATUSES", "Conformance", "collapse", "schema_fix", "spec_refs"]

REPORT_VERSION = 1
EXAMPLES = 2  # examples kept per group and per dead-letter class
STATUSES = ("ACCEPTED", "ACCEPTED_WITH_WARNINGS", "REJECTED")

_INDEX = re.compile(r"\[\d+\]|\.\d+(?=\.|\[|$)")


def collapse(path: str | None) -> str | None:
    """A field path with its array indices collapsed: `a[0].b`, `a.0.b` -> `a[].b`."""
    return None if path is None else _INDEX.sub("[]", path)


# ------------------------------------------------------------------ what to change, from a SCHEMA message
_FIXES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), f) for p, f in (
    (r" is null: read as absent ", "omit the field instead of writing null"),
    (r"^required field \S+ is missing: expected (?P<x>.+)$", "add it: {x}"),
    (r"^\S+ is not an allowed field of (?P<p>.+?): allowed are (?P<x>.+)$",
     "remove it (or move it where it belongs): {p} allows {x}"),
    (r"^\S+ must be one of: (?P<x>.+); got ", "write one of: {x}"),
    (r"^\S+ must match the pattern (?P<x>.+?), got ", "write a string matching {x}"),
    (r"^\S+ must not be empty, got ", "write a non-empty string"),
    (r"^\S+ must be at (?P<w>least|most) (?P<x>\S+), got ", "write a value of at {w} {x}"),
    (r"^\S+ needs at least (?P<x>.+?), got ", "give at least {x}"),
    (r"^\S+ allows at most (?P<x>.+?), got ", "give at most {x}"),
    (r"^\S+ matches more than one of: (?P<x>.+); got ", "write exactly one of: {x}"),
    (r"^\S+ must be (?P<x>.+?), got ", "write {x}"),
))


def schema_fix(message: str) -> str:
    """What a SCHEMA message asks for, the accepted form it names (`write an integer 1..6`), its parent's path
    collapsed; the message itself when it follows no known template."""
    for pattern, fix in _FIXES:
        found = pattern.search(message)
        if found:
            return fix.format(**{k: collapse(v) if k == "p" else v for k, v in found.groupdict().items()})
    return message


_RULE_FIXES: Mapping[str, str] = {
    "FSM": "send each packet type only from a state the transition table allows (the verdict's fsm.from)",
    "FSM-E1": "send a BeliefUpdatePacket before the episode's DecisionPacket",
    "FSM-E2": "send a DecisionPacket with decision_outcome ACT before any TaskDirectivePacket",
    "FSM-E3": "complete the verify loop: plan, READ directive, SUCCESS result, belief update, then decide again",
    "FSM-E4": "precede a WRITE/MIXED directive with the ToolAuthorizationToken it names: unexpired, not revoked, "
              "usage_count under max_usage_count",
    "FSM-E5": "give the escalation 2-3 top_options, at least one evidence gap and a recommended_next_step",
    "FSM-E6": "send a TaskResultPacket only for a TaskDirectivePacket of the episode (its task_id open, or its "
              "directive_packet_id naming the directive), and answer every directive",
    "FSM-E7": "in safe mode send only IntegrityAlertPacket and BeliefUpdatePacket",
    "INV-001": "populate every MCP field of a consequential packet (evidence_absent_reason when evidence_refs is "
               "empty)",
    "INV-002": "never decide ACT at quality_tier SUBPAR",
    "INV-003": "ACT at HIGH/CRITICAL stakes only at tier SUPERB with every load-bearing assumption verified; "
               "otherwise VERIFY_FIRST or ESCALATE",
    "INV-004": "cite recent tool_output or user_observation evidence for a claim about live state",
    "INV-005": "stay within the episode's budgets, or have the overrun approved first",
    "INV-006": "document the arbitration: constitutional_check and budget_check true, the trade-off policy named",
    "INV-007": "write only with a valid token whose scope covers the tool and the operation",
    "INV-008": "close the verification loop (plan, observed result, belief update) before ACT",
    "INV-009": "give the escalation 2-3 complete top_options, at least one evidence gap and a "
               "recommended_next_step",
    "INV-010": "with tools_down never ACT at HIGH/CRITICAL stakes; with tools_partial at MEDIUM stakes label "
               "uncertainty HIGH",
    "INV-011": "answer every directive with a result before its deadline",
    "INV-012": "set stakes_level as its four axes justify",
    "AUTH": "sign packets claiming Layer 1 or Integrity authority with a key the policy allows for it",
    "DUPLICATE": "give every new packet a new packet_id (a resend must carry the very same content)",
}


# ------------------------------------------------------------------ the spec a rule rests on
INDEX = "schema-index-v0.7.md"
FSM_DOC = "fsm-transitions-v0.7.md"
INVARIANTS = "omen-cross-policy-invariants-v0.7.md"
OMEN = "OMEN.md"
PUBLISHED = ("ObservationPacket", "BeliefUpdatePacket", "DecisionPacket", "TaskDirectivePacket", "TaskResultPacket",
             "ToolAuthorizationToken", "EscalationPacket")
DESIGNED = ("VerificationPlanPacket", "IntegrityAlertPacket", "QueueUpdatePacket")
_FSM_RULES = {"E1": "No Decision Without Model", "E2": "No Action Without Decision",
              "E3": "Verification Loop Must Complete", "E4": "Write Requires Token",
              "E5": "Escalation Must Present Options", "E6": "Task Closure", "E7": "Safe Mode Lockdown"}
_INVARIANTS = {"001": "MCP Completeness", "002": "SUBPAR Never Authorizes Action",
               "003": "HIGH/CRITICAL Requires Verification or Escalation",
               "004": "LLM Cannot Claim Live Truth Without Evidence", "005": "Budget Overruns Require Approval",
               "006": "Drive Arbitration Sequence", "007": "WRITE Requires Token Scope Containment",
               "008": "Verification Loop Closure", "009": "Escalation Must Present Options",
               "010": "Degraded Tools Policy", "011": "Task Closure", "012": "Stakes Consistency"}


def _ref(document: str, section: str) -> dict[str, str]:
    return {"document": document, "section": section}


def _schema_refs(path: str | None, packet_types: Sequence[str]) -> list[dict[str, str]]:
    """The JSON Schema (and its schema-index section) that declares `path`."""
    head, _, rest = (path or "").partition(".")
    if not rest or head not in ("header", "mcp", "payload"):  # a top-level key: PacketBase names them
        return [_ref(INDEX, "PacketBase.schema.json"), _ref("schema-v0.7/packets/PacketBase.schema.json", head)]
    if head == "header":
        return [_ref(INDEX, "PacketHeader.schema.json"), _ref("schema-v0.7/header/PacketHeader.schema.json", rest)]
    if head == "mcp":
        return [_ref(INDEX, "MCP.schema.json"), _ref("schema-v0.7/mcp/MCP.schema.json", rest)]
    refs: list[dict[str, str]] = []
    for kind in packet_types:
        if kind in PUBLISHED:
            refs += [_ref(INDEX, f"{kind}.schema.json"), _ref(f"schema-v0.7/packets/{kind}.schema.json", rest)]
        elif kind in DESIGNED:  # v0.7 publishes no schema for it: this repository's design of its payload
            refs.append(_ref("docs/omen-extra-packets.md", kind))
    return refs or [_ref(INDEX, "PacketBase.schema.json"), _ref("schema-v0.7/packets/PacketBase.schema.json", head)]


def spec_refs(rule: str, path: str | None, severity: str, packet_types: Sequence[str] = ()) -> list[dict[str, str]]:
    """The spec documents and sections a group's rule rests on, by document name (never a file path)."""
    if rule == "SCHEMA":
        first = "Required vs Optional Summary" if severity == "WARNING" else "Schema Validation Order"
        return [_ref(INDEX, first), *_schema_refs(path, packet_types)]
    if rule == "FSM":
        return [_ref(FSM_DOC, "Transition Table (Normative)")]
    if rule.startswith("FSM-E") and rule[4:] in _FSM_RULES:
        return [_ref(FSM_DOC, f"Rule {rule[4:]}: {_FSM_RULES[rule[4:]]}")]
    if rule.startswith("INV-") and rule[4:] in _INVARIANTS:
        return [_ref(INVARIANTS, f"{rule}: {_INVARIANTS[rule[4:]]}")]
    if rule == "AUTH":
        return [_ref(OMEN, "§12 System Integrity Overlay: Authority"),
                _ref(OMEN, "§13 Failure Modes: governance bypass attempts")]
    if rule == "DUPLICATE":
        return [_ref(OMEN, "§9.1 Packet header (required): packet_id (unique)"),
                _ref(INDEX, "PacketHeader.schema.json")]
    return []


# ------------------------------------------------------------------ aggregation
@dataclass
class _Group:
    """One (severity, rule, field) group as it grows."""

    severity: str
    rule: str
    path: str | None
    packets: int = 0
    violations: int = 0
    would_accept: int = 0
    packet_types: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    examples: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        """The group in the report's JSON shape."""
        out: dict[str, Any] = {"rule": self.rule, "field": self.path, "severity": self.severity,
                               "packets": self.packets, "violations": self.violations}
        if self.severity == "ERROR":
            out["would_accept"] = self.would_accept
        spec = spec_refs(self.rule, self.path, self.severity, self.packet_types)
        return {**out, "fixes": list(self.fixes), "spec": spec, "examples": list(self.examples)}


def _fix(violation: Mapping[str, Any]) -> str:
    rule = str(violation.get("rule"))
    return schema_fix(str(violation.get("message", ""))) if rule == "SCHEMA" else _RULE_FIXES.get(
        rule, str(violation.get("message", "")))


@dataclass
class Conformance:
    """The report as it grows: `add_verdict` and `add_dead_letter` in log order, then `report()`."""

    groups: dict[tuple[str, str, str | None], _Group] = field(default_factory=dict)
    statuses: Counter[str] = field(default_factory=Counter)
    letters: dict[str, dict[str, Any]] = field(default_factory=dict)

    def add_verdict(self, verdict: Mapping[str, Any], at: str | None) -> None:
        """One verdict (its JSON view: packet_id, packet_type, status, violations) read at `at` (`FILE:LINE`)."""
        self.statuses[str(verdict.get("status"))] += 1
        seen: dict[tuple[str, str, str | None], _Group] = {}
        for violation in verdict.get("violations") or ():
            severity = "WARNING" if violation.get("severity") == "WARNING" else "ERROR"
            key = (severity, str(violation.get("rule")), collapse(violation.get("field")))
            group = self.groups.get(key) or self.groups.setdefault(key, _Group(*key))
            group.violations += 1
            fix = _fix(violation)
            if fix not in group.fixes:
                group.fixes.append(fix)
            if key in seen:
                continue
            seen[key] = group
            group.packets += 1
            kind = str(verdict.get("packet_type"))
            if kind not in group.packet_types:
                group.packet_types.append(kind)
            if len(group.examples) < EXAMPLES:
                group.examples.append({"packet_id": verdict.get("packet_id"), "at": at,
                                       "message": violation.get("message")})
        errors = [group for (severity, _, _), group in seen.items() if severity == "ERROR"]
        if verdict.get("status") == "REJECTED" and len(errors) == 1:
            errors[0].would_accept += 1

    def add_dead_letter(self, letter: Mapping[str, Any], at: str | None) -> None:
        """One dead letter (error_class, reason) of the input read at `at`."""
        error_class = str(letter.get("error_class"))
        entry = self.letters.setdefault(error_class, {"error_class": error_class, "count": 0, "examples": []})
        entry["count"] += 1
        if len(entry["examples"]) < EXAMPLES:
            entry["examples"].append({"at": at, "reason": letter.get("reason")})

    def report(self) -> dict[str, Any]:
        """The report in its JSON shape (docs/conformance-report.md)."""
        errors = [g for g in self.groups.values() if g.severity == "ERROR"]
        warnings = [g for g in self.groups.values() if g.severity == "WARNING"]
        errors.sort(key=lambda g: (-g.would_accept, -g.packets, g.rule, g.path or ""))
        warnings.sort(key=lambda g: (-g.packets, g.rule, g.path or ""))
        letters = sorted(self.letters.values(), key=lambda e: (-e["count"], e["error_class"]))
        verdicts = {status: self.statuses.get(status, 0) for status in STATUSES}
        verdicts.update({k: v for k, v in sorted(self.statuses.items()) if k not in verdicts})
        totals = {"packets": sum(self.statuses.values()), "verdicts": verdicts,
                  "dead_letters": sum(e["count"] for e in letters)}
        return {"report": "omen-producer-conformance", "version": REPORT_VERSION, "totals": totals,
                "fixes": [g.as_json() for g in errors], "warnings": [g.as_json() for g in warnings],
                "dead_letters": [{**e, "examples": list(e["examples"])} for e in letters]}
