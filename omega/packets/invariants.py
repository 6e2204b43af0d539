"""Cross-policy invariants INV-001..INV-012 of OMEN v0.7: one pure function per rule id (spec:
`seeds/omen-cross-policy-invariants-v0.7.md`, OMEN.md §8.4).

Every invariant has the signature `(packet, ledger, now_ms) -> list[Violation]`: `packet` is a decoded
dict that may be schema-invalid (a missing or mistyped field is skipped, never raised on), `ledger` the
episode ledger with this packet's usage, budgets and event time applied, `now_ms` the packet's event time
(`header.created_at`). The wall clock is never read. `PER_PACKET` needs no episode context (a lone
packet); `EPISODE` holds INV-005/007/008 (`omega.packets.invariants_episode`); INV-004 is
`omega.packets.invariants_evidence`'s. INV-011 (task closure by
deadline) is time-driven and lives in the validator; `directive_deadline_ms` is its deadline.

Decisions where the spec is incomplete or contradicts itself. The order of authority: the assertions and
the prose, then the spec's worked examples (OMEN.md §15, the FSM document), then the pseudo-code.

* INV-001: a field counts as present when its path exists and is not null; `evidence_absent_reason`
  must be a non-blank string when `evidence_refs` is an empty list.
* INV-003: the Layer 1 emergency override holds when `header.layer_source == 1` and the word
  "emergency" (case-insensitive, whole word) appears in `decision_summary`, in a string of
  `chosen_option` (description, rationale, ...) or in a `payload.rationale`. Otherwise ACT at HIGH/CRITICAL
  needs tier SUPERB and every `load_bearing_assumptions` item with `verified` exactly true (an item that
  is not an object cannot show it was verified and counts as unverified).
* INV-006 applies to a DecisionPacket that arbitrated between options: non-empty
  `rejected_alternatives` or a `chosen_option` present. Stage 1/2 checks must be exactly true (absent
  means undocumented, as in the spec's code). Stage 3 (a WARNING) is documented when the rationale names
  a policy (safety, risk-adjusted, min-regret, expected value: whole words, case-insensitive, `-` or a
  space inside a compound) in `decision_summary`, `chosen_option` or a rejection reason, or in structured
  form: a numeric `chosen_option.expected_value` (Risk-Adjusted Expected Value, OMEN.md §4.3 Stage 3), or
  rejected alternatives that each give a `rejection_reason` (§8.3.4 "rejected alternatives (brief)"). The
  pseudo-code's keyword scan of the summary alone is the outlier.
* INV-010: the spec's code reads `mcp.epistemics.uncertainty`, which the MCP does not have; the
  uncertainty label is `mcp.stakes.uncertainty`, so a MEDIUM-stakes decision with tools_partial and that
  label not HIGH is a WARNING. Both INV-010 checks apply to DecisionPackets only.
* INV-012 (WARNING) orders the axes on one scale: impact as is; uncertainty LOW/MEDIUM/HIGH; irreversibility
  REVERSIBLE=LOW, PARTIAL=MEDIUM, IRREVERSIBLE=HIGH; adversariality BENIGN=LOW, CONTESTED=HIGH,
  HOSTILE=HIGH (§8.2.1 names the axis "adversariality/volatility (benign -> hostile/rapid change)": it has
  no middle level, and a contested situation is already adversarial; reading CONTESTED as MEDIUM warned on
  HIGH-stakes episodes whose authors rated uncertainty HIGH in contested space). Then, following the
  spec's prose: CRITICAL needs an axis CRITICAL or impact HIGH + IRREVERSIBLE + uncertainty HIGH;
  HIGH needs two axes HIGH or above, or one CRITICAL; MEDIUM needs one
  axis MEDIUM or HIGH; LOW allows no axis above MEDIUM and at most one MEDIUM. An unknown axis value is
  not judged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from omega.packets.invariants_episode import (
    ERROR,
    WARNING,
    directive_deadline_ms,
    field_at,
    inv_005_budget_overrun_requires_approval,
    inv_007_write_requires_token_scope,
    inv_008_verification_loop_closure,
    is_budget_approval,
    is_budget_escalation,
    is_budget_override,
    is_layer_one,
    is_number,
    overruns,
    strings_in,
)
from omega.packets.invariants_evidence import inv_004_no_live_claim_without_evidence
from omega.packets.ledger import EpisodeLedger
from omega.packets.schema_rules import PACKET_TYPES
from omega.violations import Violation

__all__ = [
    "EPISODE", "PACKET_LOCAL", "PER_PACKET", "Invariant", "directive_deadline_ms",
    "inv_001_mcp_completeness", "inv_002_subpar_never_acts", "inv_003_high_stakes_verify_or_escalate",
    "inv_005_budget_overrun_requires_approval",
    "inv_006_drive_arbitration_sequence", "inv_007_write_requires_token_scope",
    "inv_008_verification_loop_closure", "inv_009_escalation_presents_options", "inv_010_degraded_tools_policy",
    "inv_012_stakes_consistency", "invariants_for", "is_budget_approval", "is_budget_escalation",
    "is_budget_override", "overruns",
]

Invariant = Callable[[Mapping[str, Any], EpisodeLedger, int | None], list[Violation]]

HIGH_STAKES = ("HIGH", "CRITICAL")


def _type(packet: Mapping[str, Any]) -> Any:
    return field_at(packet, "header.packet_type")


def _is_decision(packet: Mapping[str, Any], outcome: str | None = None) -> bool:
    return _type(packet) == "DecisionPacket" and (
        outcome is None or field_at(packet, "payload.decision_outcome") == outcome)


# --------------------------------------------------------------------------- INV-001
CONSEQUENTIAL_TYPES = ("DecisionPacket", "TaskDirectivePacket", "ToolAuthorizationToken", "EscalationPacket")
MCP_REQUIRED = (
    "mcp.intent.summary", "mcp.intent.scope",
    "mcp.stakes.impact", "mcp.stakes.irreversibility", "mcp.stakes.uncertainty", "mcp.stakes.adversariality",
    "mcp.stakes.stakes_level",
    "mcp.quality.quality_tier", "mcp.quality.satisficing_mode", "mcp.quality.definition_of_done.text",
    "mcp.quality.definition_of_done.checks", "mcp.quality.verification_requirement",
    "mcp.budgets.token_budget", "mcp.budgets.tool_call_budget", "mcp.budgets.time_budget_seconds",
    "mcp.budgets.risk_budget",
    "mcp.epistemics.status", "mcp.epistemics.confidence", "mcp.epistemics.calibration_note",
    "mcp.epistemics.freshness_class", "mcp.epistemics.assumptions",
    "mcp.evidence.evidence_refs",
    "mcp.routing.task_class", "mcp.routing.tools_state",
)


_MCP_REQUIRED_STEPS = tuple((path, tuple(path.split(".")[1:])) for path in MCP_REQUIRED)
"""Each required path with its steps below `mcp`."""


def inv_001_mcp_completeness(packet: Mapping[str, Any], ledger: EpisodeLedger,
                             now_ms: int | None) -> list[Violation]:
    """INV-001 (E/Q/C-POL, OMEN §7.3): a consequential packet carries a fully populated MCP envelope."""
    if _type(packet) not in CONSEQUENTIAL_TYPES:
        return []
    mcp = field_at(packet, "mcp")
    out = []
    for path, steps in _MCP_REQUIRED_STEPS:  # `field_at` inlined: 24 paths on every consequential packet
        value = mcp
        for key in steps:
            value = value.get(key) if type(value) is dict or isinstance(value, Mapping) else None
        if value is None:
            out.append(Violation("INV-001", ERROR, f"INV-001: missing required field {path}", path))
    reason = field_at(packet, "mcp.evidence.evidence_absent_reason")
    if field_at(packet, "mcp.evidence.evidence_refs") == [] and not (isinstance(reason, str) and reason.strip()):
        out.append(Violation("INV-001", ERROR, "INV-001: evidence_absent_reason required when evidence_refs "
                             "is empty", "mcp.evidence.evidence_absent_reason"))
    return out


# --------------------------------------------------------------------------- INV-002
def inv_002_subpar_never_acts(packet: Mapping[str, Any], ledger: EpisodeLedger,
                              now_ms: int | None) -> list[Violation]:
    """INV-002 (Q-POL §8.2.2): a SUBPAR DecisionPacket never authorizes ACT."""
    if _is_decision(packet, "ACT") and field_at(packet, "mcp.quality.quality_tier") == "SUBPAR":
        return [Violation("INV-002", ERROR, "INV-002: SUBPAR tier cannot authorize an ACT decision",
                          "payload.decision_outcome")]
    return []


# --------------------------------------------------------------------------- INV-003
_EMERGENCY = re.compile(r"\bemergency\b", re.IGNORECASE)


def _emergency_override(packet: Mapping[str, Any]) -> bool:
    """Layer 1 recorded an explicit emergency override in the decision's own text."""
    texts = [field_at(packet, "payload.decision_summary"), field_at(packet, "payload.rationale"),
             *strings_in(field_at(packet, "payload.chosen_option"))]
    return is_layer_one(packet) and any(isinstance(t, str) and _EMERGENCY.search(t) for t in texts)


def inv_003_high_stakes_verify_or_escalate(packet: Mapping[str, Any], ledger: EpisodeLedger,
                                           now_ms: int | None) -> list[Violation]:
    """INV-003 (Q-POL §8.2.2): ACT at HIGH/CRITICAL needs SUPERB with every load-bearing assumption
    verified, or a Layer 1 emergency override; VERIFY_FIRST/ESCALATE/DEFER/CANCEL always comply."""
    stakes = field_at(packet, "mcp.stakes.stakes_level")
    if not _is_decision(packet, "ACT") or stakes not in HIGH_STAKES or _emergency_override(packet):
        return []
    out = []
    tier = field_at(packet, "mcp.quality.quality_tier")
    if tier != "SUPERB":
        out.append(Violation("INV-003", ERROR, f"INV-003: ACT at {stakes} stakes requires SUPERB tier (got {tier}) "
                             "or a Layer 1 emergency override", "mcp.quality.quality_tier"))
    assumptions = field_at(packet, "payload.load_bearing_assumptions")
    for i, item in enumerate(assumptions if isinstance(assumptions, list) else []):
        if not ((type(item) is dict or isinstance(item, Mapping)) and item.get("verified") is True):
            text = item.get("assumption") if isinstance(item, Mapping) else item
            out.append(Violation("INV-003", ERROR, f"INV-003: unverified load-bearing assumption {text!r} "
                                 f"at {stakes} stakes", f"payload.load_bearing_assumptions.{i}.verified"))
    return out


# --------------------------------------------------------------------------- INV-006
_TRADEOFF = re.compile(r"\b(safety|risk[-\s]adjusted|min[-\s]regret|expected[-\s]value)\b", re.IGNORECASE)
_STAGES = (("constitutional_check", "Stage 1 constitutional veto"), ("budget_check", "Stage 2 budget feasibility"))


def _tradeoff_documented(packet: Mapping[str, Any], alternatives: object) -> bool:
    """Stage 3: a named policy in the rationale, or structured trade-off documentation (module docstring)."""
    if is_number(field_at(packet, "payload.chosen_option.expected_value")):
        return True
    rejected = alternatives if isinstance(alternatives, list) else []
    reasons = [field_at(item, "rejection_reason") for item in rejected]
    if reasons and all(isinstance(r, str) and r.strip() for r in reasons):
        return True
    texts = (field_at(packet, "payload.decision_summary"), *strings_in(field_at(packet, "payload.chosen_option")),
             *reasons)
    return any(isinstance(t, str) and _TRADEOFF.search(t) for t in texts)


def inv_006_drive_arbitration_sequence(packet: Mapping[str, Any], ledger: EpisodeLedger,
                                       now_ms: int | None) -> list[Violation]:
    """INV-006 (OMEN §4.3, §8.4.6): an arbitrating decision passed Stage 1 and 2 and documents its Stage 3."""
    alternatives = field_at(packet, "payload.rejected_alternatives")
    arbitrated = bool(isinstance(alternatives, list) and alternatives) or \
        field_at(packet, "payload.chosen_option") is not None
    if not _is_decision(packet) or not arbitrated:
        return []
    out = [Violation("INV-006", ERROR, f"INV-006: {stage} not passed ({key} is "
                     f"{field_at(packet, f'payload.constraints_satisfied.{key}')}); decision invalid",
                     f"payload.constraints_satisfied.{key}")
           for key, stage in _STAGES if field_at(packet, f"payload.constraints_satisfied.{key}") is not True]
    if not _tradeoff_documented(packet, alternatives):
        out.append(Violation("INV-006", WARNING, "INV-006: Stage 3 tradeoff policy not documented: no policy "
                             "(safety, risk-adjusted, min-regret, expected value) named, no chosen_option."
                             "expected_value, no rejection reasons", "payload.decision_summary"))
    return out


# --------------------------------------------------------------------------- INV-009
OPTION_FIELDS = ("option_id", "description", "pros", "cons")


def inv_009_escalation_presents_options(packet: Mapping[str, Any], ledger: EpisodeLedger,
                                        now_ms: int | None) -> list[Violation]:
    """INV-009 (Q-POL §8.2.6, FSM E5): an escalation offers 2-3 complete options, its gaps and a next step."""
    if _type(packet) != "EscalationPacket":
        return []
    out = []
    options = field_at(packet, "payload.top_options")
    options = options if isinstance(options, list) else []
    if not 2 <= len(options) <= 3:
        out.append(_inv_009(f"top_options must hold 2-3 options (has {len(options)})", "payload.top_options"))
    for i, option in enumerate(options):
        fields = option if isinstance(option, Mapping) else {}
        out += [_inv_009(f"option {i} lacks {name}", f"payload.top_options.{i}.{name}")
                for name in OPTION_FIELDS if fields.get(name) is None]
    gaps = field_at(packet, "payload.evidence_gaps")
    if not (isinstance(gaps, list) and gaps):
        out.append(_inv_009("evidence_gaps must be non-empty", "payload.evidence_gaps"))
    if not field_at(packet, "payload.recommended_next_step"):
        out.append(_inv_009("recommended_next_step is required", "payload.recommended_next_step"))
    return out


def _inv_009(message: str, field: str) -> Violation:
    return Violation("INV-009", ERROR, f"INV-009: {message}", field)


# --------------------------------------------------------------------------- INV-010
def inv_010_degraded_tools_policy(packet: Mapping[str, Any], ledger: EpisodeLedger,
                                  now_ms: int | None) -> list[Violation]:
    """INV-010 (C-POL §8.3.7): no ACT at HIGH/CRITICAL with tools down; tools_partial at MEDIUM labels
    uncertainty HIGH (read from `mcp.stakes.uncertainty`, see the module docstring)."""
    if not _is_decision(packet):
        return []
    tools, stakes = field_at(packet, "mcp.routing.tools_state"), field_at(packet, "mcp.stakes.stakes_level")
    if tools == "tools_down" and stakes in HIGH_STAKES and _is_decision(packet, "ACT"):
        return [Violation("INV-010", ERROR, f"INV-010: tools_down + {stakes} stakes cannot ACT; escalate or "
                          "cancel", "payload.decision_outcome")]
    uncertainty = field_at(packet, "mcp.stakes.uncertainty")
    if tools == "tools_partial" and stakes == "MEDIUM" and uncertainty != "HIGH":
        return [Violation("INV-010", WARNING, f"INV-010: tools_partial at MEDIUM stakes should label uncertainty "
                          f"HIGH (is {uncertainty})", "mcp.stakes.uncertainty")]
    return []


# --------------------------------------------------------------------------- INV-012
LEVELS = {"LOW": 1, "MEDIUM": 2, "HIGH": 3, "CRITICAL": 4}
AXIS_ORDINALS: Mapping[str, Mapping[str, int]] = {
    "impact": LEVELS,
    "irreversibility": {"REVERSIBLE": 1, "PARTIAL": 2, "IRREVERSIBLE": 3},
    "uncertainty": {"LOW": 1, "MEDIUM": 2, "HIGH": 3},
    "adversariality": {"BENIGN": 1, "CONTESTED": 3, "HOSTILE": 3},
}
"""Each stakes axis on the LOW=1 .. CRITICAL=4 scale (only impact reaches CRITICAL)."""


def _justified(level: int, axes: Mapping[str, int]) -> bool:
    """The spec's prose rules for stakes_level given the axis ordinals."""
    values = list(axes.values())
    critical, high, medium = LEVELS["CRITICAL"], LEVELS["HIGH"], LEVELS["MEDIUM"]
    if level == critical:
        return critical in values or all(axes[a] == high for a in ("impact", "irreversibility", "uncertainty"))
    if level == high:
        return sum(v >= high for v in values) >= 2 or critical in values
    if level == medium:
        return any(v in (medium, high) for v in values)
    return max(values) <= medium and values.count(medium) <= 1


@cache
def _justified_ordinals(level: int, *ordinals: int) -> bool:
    """`_justified` of the axis ordinals in `AXIS_ORDINALS` order, memoised: every packet is judged, and there
    are only 4 x 4 x 3 x 3 x 3 combinations."""
    return _justified(level, dict(zip(AXIS_ORDINALS, ordinals, strict=True)))


def inv_012_stakes_consistency(packet: Mapping[str, Any], ledger: EpisodeLedger,
                               now_ms: int | None) -> list[Violation]:
    """INV-012 (Q-POL §8.2.1, WARNING): stakes_level is justified by its four axes."""
    stakes = field_at(packet, "mcp.stakes")
    level = field_at(stakes, "stakes_level")
    if not isinstance(level, str) or level not in LEVELS:
        return []
    ordinals = []
    for name, scale in AXIS_ORDINALS.items():
        value = stakes.get(name)
        ordinal = scale.get(value) if isinstance(value, str) else None
        if ordinal is None:
            return []  # an unknown axis value cannot justify or refute the level
        ordinals.append(ordinal)
    if _justified_ordinals(LEVELS[level], *ordinals):
        return []
    shown = ", ".join(f"{name}={stakes.get(name)}" for name in AXIS_ORDINALS)
    return [Violation("INV-012", WARNING, f"INV-012: stakes_level {level} not justified by axes ({shown})",
                      "mcp.stakes.stakes_level")]


PER_PACKET: tuple[Invariant, ...] = (
    inv_001_mcp_completeness, inv_002_subpar_never_acts, inv_003_high_stakes_verify_or_escalate,
    inv_004_no_live_claim_without_evidence, inv_006_drive_arbitration_sequence,
    inv_009_escalation_presents_options, inv_010_degraded_tools_policy, inv_012_stakes_consistency,
)
"""The invariants that need no episode context (also run on a lone packet), in id order."""

PACKET_LOCAL: tuple[Invariant, ...] = tuple(inv for inv in PER_PACKET if inv is not inv_012_stakes_consistency)
"""INV-001/002/003/004/006/009/010: the packet-local invariants that can reject. A schema-rejected packet also
carries their ERRORs, so the rule it breaks is not hidden behind SCHEMA (an escalation with one option
reports INV-009 too)."""

EPISODE: tuple[Invariant, ...] = (
    inv_005_budget_overrun_requires_approval, inv_007_write_requires_token_scope,
    inv_008_verification_loop_closure,
)
"""The invariants that judge the packet against the episode ledger, in id order."""

_JUDGED_TYPES: Mapping[Invariant, tuple[str, ...]] = {
    inv_001_mcp_completeness: CONSEQUENTIAL_TYPES,
    inv_002_subpar_never_acts: ("DecisionPacket",),
    inv_003_high_stakes_verify_or_escalate: ("DecisionPacket",),
    inv_006_drive_arbitration_sequence: ("DecisionPacket",),
    inv_009_escalation_presents_options: ("EscalationPacket",),
    inv_010_degraded_tools_policy: ("DecisionPacket",),
    inv_007_write_requires_token_scope: ("TaskDirectivePacket",),
    inv_008_verification_loop_closure: ("DecisionPacket",),
}
"""The packet types each type-bound invariant can fire on: each of these opens by answering [] for any other
`header.packet_type`. The invariants not listed (INV-004, 005, 012) judge every type."""

_ALL: tuple[Invariant, ...] = (*PER_PACKET, *EPISODE)
_FOR_TYPE: Mapping[str, tuple[Invariant, ...]] = {
    kind: tuple(inv for inv in _ALL if kind in _JUDGED_TYPES.get(inv, (kind,))) for kind in PACKET_TYPES
}


def invariants_for(packet_type: object) -> tuple[Invariant, ...]:
    """`(*PER_PACKET, *EPISODE)` without the invariants that never fire on `packet_type`: the same violations
    in the same order, for about half the calls on a typical packet (the validator runs them per packet)."""
    return _FOR_TYPE.get(packet_type, _ALL) if isinstance(packet_type, str) else _ALL
