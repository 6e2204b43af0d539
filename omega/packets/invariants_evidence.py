"""INV-004 of OMEN v0.7 (spec: `seeds/omen-cross-policy-invariants-v0.7.md`, OMEN.md §8.1, §8.4 item 4): no
live claim without evidence, with the `Invariant` signature of `omega.packets.invariants`.

Decisions where the spec is incomplete or contradicts itself (order of authority as in
`omega.packets.invariants`):

* INV-004 targets claims, not remedies. Its "Failure:" line prescribes "require verification", OMEN.md
  §8.1 says "Verification actions are encouraged for INFERRED/HYPOTHESIZED/UNKNOWN", and §15.2's canonical
  DecisionPacket is exactly such a packet (VERIFY_FIRST, HYPOTHESIZED, OPERATIONAL, no evidence yet). So the
  verification itself needs no live evidence: a VERIFY_FIRST decision, a VerificationPlanPacket, and a
  READ TaskDirective that verifies (`routing.task_class` VERIFY, or issued while a verify loop is open).
  INV-001 still requires `evidence_absent_reason` when their refs are empty. ACT decisions and ordinary
  claims about REALTIME/OPERATIONAL state still need recent tool/user evidence.
  "Recent" = the ref's timestamp is no older than `mcp.epistemics.stale_if_older_than_seconds`
  before `now_ms` when given, else the freshness-class window (`FRESHNESS_WINDOW_SECONDS`). A ref newer
  than `now_ms` (clock skew) is recent; an unparseable timestamp never is. Without an event time,
  recency cannot be judged and any tool_output/user_observation ref with a parseable timestamp counts.
* INV-004 and OBSERVED claims with no evidence refs. The seed's condition and pseudo-code leave OBSERVED out
  ("These are grounded"), but that premise is what the label asserts, not what the packet shows: OMEN.md
  §8.1 "Core rule" says every consequential claim "MUST carry ... evidence references (or explicit
  absence)", its OBSERVED class "must include: source, timestamp, query_params/context, raw_ref/hash", the
  glossary (§15.1) makes an evidence ref the "pointer/hash to grounding artifact", and §8.4 item 4 - the line
  INV-004 implements - says "LLM cannot claim live truth without tool evidence refs". Prose outranks the
  pseudo-code, so an OBSERVED packet about live state (freshness REALTIME/OPERATIONAL) with no evidence refs
  is judged: with no `evidence_absent_reason` either it shows neither grounding nor the "explicit absence"
  §8.1 allows, and gets an INV-004 ERROR (the same outcome as an ungrounded claim: the label alone grounds
  nothing); with a non-blank `evidence_absent_reason` it used the absence form §8.1 provides ("If evidence
  absent: evidence_refs: [], evidence_absent_reason must be provided"; schema-index "evidence_refs may be
  empty if evidence_absent_reason provided"), which is not rejected, but an observed live claim with no
  pointer to what was observed cannot be checked, so it is a WARNING (the seed's "Invariant WARNING -> log
  but allow (flag for review)"). Any ref at all satisfies it (which ref types an OBSERVED claim may cite is
  not asked by the spec; the recency window applies to the ungrounded statuses only). STRATEGIC/ARCHIVAL
  OBSERVED claims are not live truth and not INV-004's (INV-001 still demands the absence reason on the
  consequential types). The verification packets above stay exempt whatever their label.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from omega.eventtime import to_ms
from omega.packets.invariants_episode import ERROR, WARNING, field_at, is_number
from omega.packets.ledger import EpisodeLedger
from omega.violations import Violation

FRESHNESS_WINDOW_SECONDS: Mapping[str, int] = {"REALTIME": 300, "OPERATIONAL": 4 * 3600}
"""How old live evidence may be when the packet gives no `stale_if_older_than_seconds` (REALTIME is
"seconds-minutes", OPERATIONAL "minutes-hours" in OMEN §8.1)."""
UNGROUNDED = ("INFERRED", "HYPOTHESIZED", "UNKNOWN")
OBSERVED = "OBSERVED"
LIVE_EVIDENCE = ("tool_output", "user_observation")
LIVE_FRESHNESS = tuple(FRESHNESS_WINDOW_SECONDS)


def _recent(ref: object, now_ms: int | None, window_s: float) -> bool:
    # A plain dict first: the ABC check is slow, and evidence lists are long.
    if not (type(ref) is dict or isinstance(ref, Mapping)) or ref.get("ref_type") not in LIVE_EVIDENCE:
        return False
    stamp = to_ms(ref.get("timestamp"))
    if stamp is None:
        return False
    return now_ms is None or stamp >= now_ms - window_s * 1000  # newer than now (skew) is recent


def _verification(packet: Mapping[str, Any], ledger: EpisodeLedger) -> bool:
    """The packet is the verification INV-004 prescribes, not a claim (see the module docstring)."""
    kind = field_at(packet, "header.packet_type")
    if kind == "DecisionPacket":
        return bool(field_at(packet, "payload.decision_outcome") == "VERIFY_FIRST")
    if kind == "TaskDirectivePacket":
        return bool(field_at(packet, "payload.tool_safety_class") == "READ" and (
            field_at(packet, "mcp.routing.task_class") == "VERIFY" or ledger.verify is not None))
    return bool(kind == "VerificationPlanPacket")


def inv_004_no_live_claim_without_evidence(packet: Mapping[str, Any], ledger: EpisodeLedger,
                                           now_ms: int | None) -> list[Violation]:
    """INV-004 (E-POL §8.1, §8.4 item 4): an ungrounded claim about current state cites recent tool or user
    evidence, and an OBSERVED one cites evidence at all (ERROR; WARNING with an `evidence_absent_reason`);
    the verification it calls for (VERIFY_FIRST, a plan, a verifying READ) is exempt."""
    freshness = field_at(packet, "mcp.epistemics.freshness_class")
    status = field_at(packet, "mcp.epistemics.status")
    if freshness not in LIVE_FRESHNESS or (status != OBSERVED and status not in UNGROUNDED) \
            or _verification(packet, ledger):
        return []
    if status == OBSERVED:
        return _observed_without_evidence(packet, freshness)
    stale = field_at(packet, "mcp.epistemics.stale_if_older_than_seconds")
    window = stale if is_number(stale) and stale >= 0 else FRESHNESS_WINDOW_SECONDS[freshness]
    refs = field_at(packet, "mcp.evidence.evidence_refs")
    for ref in refs if isinstance(refs, list) else ():
        if _recent(ref, now_ms, window):
            return []
    return [Violation("INV-004", ERROR, f"INV-004: {field_at(packet, 'mcp.epistemics.status')} claim about "
                      f"{freshness} state needs tool_output or user_observation evidence from the last "
                      f"{window} s", "mcp.evidence.evidence_refs")]


def _observed_without_evidence(packet: Mapping[str, Any], freshness: str) -> list[Violation]:
    """INV-004 for an OBSERVED live claim: any evidence ref grounds it; none is an ERROR, or a WARNING when
    the packet gives its `evidence_absent_reason` (module docstring)."""
    refs = field_at(packet, "mcp.evidence.evidence_refs")
    if isinstance(refs, list) and refs:
        return []
    reason = field_at(packet, "mcp.evidence.evidence_absent_reason")
    if isinstance(reason, str) and reason.strip():
        return [Violation("INV-004", WARNING, f"INV-004: OBSERVED claim about {freshness} state cites no "
                          f"evidence (absent because: {reason.strip()}); cite the observed tool output or user "
                          "observation (raw ref or hash)", "mcp.evidence.evidence_refs")]
    return [Violation("INV-004", ERROR, f"INV-004: OBSERVED claim about {freshness} state cites no evidence "
                      "and gives no evidence_absent_reason: the label alone grounds nothing",
                      "mcp.evidence.evidence_refs")]
