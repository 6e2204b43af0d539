"""The packet header (OMEN.md §9.1, PacketHeader.schema.json) and the MCP envelope (§9.2, MCP.schema.json).

Every field the schemas require is required here, with no default: what a packet claims about its stakes,
tier, budgets, epistemics and evidence is always the producer's explicit statement. The optional fields
(`campaign_id`, `previous_packet_id`, `stale_if_older_than_seconds`, `reliability_score`,
`evidence_absent_reason`) default to None, which a dump leaves out.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AwareDatetime, Field, model_validator

from omega.producer.types import (
    Adversariality,
    CampaignId,
    Closed,
    CorrelationId,
    EpistemicStatus,
    FreshnessClass,
    Irreversibility,
    JsonObject,
    Layer,
    Level,
    NonEmptyStr,
    NonNegativeInt,
    PacketId,
    PacketType,
    QualityTier,
    RefType,
    TaskClass,
    ToolsState,
    Uncertainty,
    UnitInterval,
    VerificationRequirement,
)


class Header(Closed):
    """Identity, routing and correlation of one packet."""

    packet_id: PacketId
    packet_type: PacketType
    created_at: AwareDatetime
    layer_source: Layer
    correlation_id: CorrelationId
    campaign_id: CampaignId | None = None
    previous_packet_id: PacketId | None = None


class Intent(Closed):
    """What the packet intends: a summary and its scope (a domain name or an object)."""

    summary: NonEmptyStr
    scope: str | JsonObject


class Stakes(Closed):
    """The four stakes axes and the overall level (INV-012 checks that the level follows the axes)."""

    impact: Level
    irreversibility: Irreversibility
    uncertainty: Uncertainty
    adversariality: Adversariality
    stakes_level: Level


class DefinitionOfDone(Closed):
    """Completion criteria in words and as checks."""

    text: NonEmptyStr
    checks: Annotated[list[str], Field(min_length=1)]


class Quality(Closed):
    """Effort tier and verification requirement."""

    quality_tier: QualityTier
    satisficing_mode: bool
    definition_of_done: DefinitionOfDone
    verification_requirement: VerificationRequirement


class RiskBudget(Closed):
    """The risk envelope: a posture and a maximum loss (text, or a number the ledger sums against)."""

    envelope: str
    max_loss: str | float


class Budgets(Closed):
    """Token, tool-call, time and risk envelopes."""

    token_budget: NonNegativeInt
    tool_call_budget: NonNegativeInt
    time_budget_seconds: NonNegativeInt
    risk_budget: RiskBudget


class Epistemics(Closed):
    """Epistemic status, calibrated confidence, freshness and the assumptions relied on."""

    status: EpistemicStatus
    confidence: UnitInterval
    calibration_note: NonEmptyStr
    freshness_class: FreshnessClass
    stale_if_older_than_seconds: NonNegativeInt | None = None
    assumptions: list[str]


class EvidenceRef(Closed):
    """A pointer to one grounding artifact."""

    ref_type: RefType
    ref_id: NonEmptyStr
    timestamp: AwareDatetime
    reliability_score: UnitInterval | None = None


class Evidence(Closed):
    """Evidence refs, or why there are none.

    Stricter than the schema, as INV-001 is: empty `evidence_refs` need a non-blank `evidence_absent_reason`."""

    evidence_refs: list[EvidenceRef]
    evidence_absent_reason: str | None = None

    @model_validator(mode="after")
    def _absence_explained(self) -> Evidence:
        if not self.evidence_refs and not (self.evidence_absent_reason or "").strip():
            raise ValueError("evidence_refs is empty: give evidence_absent_reason (INV-001)")
        return self

    @classmethod
    def of(cls, *refs: EvidenceRef) -> Evidence:
        """Evidence made of `refs` (at least one)."""
        return cls(evidence_refs=list(refs))

    @classmethod
    def absent(cls, reason: str) -> Evidence:
        """No evidence, and why."""
        return cls(evidence_refs=[], evidence_absent_reason=reason)


class Routing(Closed):
    """Semantic task class and tool availability."""

    task_class: TaskClass
    tools_state: ToolsState


class Mcp(Closed):
    """The Mandatory Compliance Payload: all seven parts, each explicit."""

    intent: Intent
    stakes: Stakes
    quality: Quality
    budgets: Budgets
    epistemics: Epistemics
    evidence: Evidence
    routing: Routing
