"""The session judge's state: §3.1 Session Memory content plus the judge's bookkeeping, as frozen records
with a JSON round trip (`SessionState.to_dict` / `SessionState.from_dict`) for the Faust table changelog.

How messages fill these records is documented in `omega.agents.session`; this module only holds them.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Union

from omega.agents.confidence import ConfidenceBook
from omega.agents.records import TerminationReport
from omega.events import Alert, Escalation

Output = Alert | Escalation | TerminationReport
"""What `evolve` emits."""


# ------------------------------------------------------------------------------------------- §3.1 records
@dataclass(frozen=True, slots=True)
class Problem:
    """§3.1 problem, plus the §1.2 stakes and uncertainty the termination thresholds need."""

    original_statement: str | None = None
    clarified_statement: str | None = None
    classification: str | None = None
    stakes: str = "MEDIUM"
    uncertainty: str | None = None


@dataclass(frozen=True, slots=True)
class Budget:
    """The resources allocated to the session (§4.1.1 resource exhaustion, §6.2 resource limits)."""

    tokens: int
    seconds: int
    set_by: str | None = None  # message id; None means the documented defaults


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """§3.1 timeline entry; event_type QUERY|DEPLOYMENT|OUTPUT|DECISION|CONTRADICTION|RESOLUTION."""

    timestamp: str | None
    event_type: str
    agent_id: int | None
    summary: str
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Hypothesis:
    """§3.1 active hypothesis (`iteration`: when it was proposed)."""

    id: str
    statement: str
    proposed_by: int
    proposed_at: str
    confidence: float
    supporting_agents: tuple[int, ...] = ()
    opposing_agents: tuple[int, ...] = ()
    iteration: int = 0


@dataclass(frozen=True, slots=True)
class ResolvedHypothesis:
    """§3.1 resolved hypothesis; resolution CONFIRMED|REJECTED|MODIFIED."""

    id: str
    statement: str
    resolution: str
    resolved_at: str
    final_confidence: float
    resolution_basis: str
    resolved_by: int | None = None
    verified: bool = False  # a VERIFICATION agent supported it or resolved it


@dataclass(frozen=True, slots=True)
class AbandonedHypothesis:
    """§3.1 abandoned hypothesis."""

    id: str
    statement: str
    abandoned_at: str
    reason: str


@dataclass(frozen=True, slots=True)
class Decision:
    """§3.1 decision."""

    id: str
    decision: str
    made_at: str
    basis: str
    reversible: bool = True
    dependent_on: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Commitment:
    """§3.1 commitment."""

    id: str
    commitment: str
    made_by: int
    made_at: str
    still_valid: bool = True
    invalidated_by: int | None = None


@dataclass(frozen=True, slots=True)
class ClaimRef:
    """One side of a contradiction: {agent_id, statement}."""

    agent_id: int | None
    statement: str


@dataclass(frozen=True, slots=True)
class Contradiction:
    """§3.1 unresolved contradiction; severity FATAL|SERIOUS|MINOR."""

    id: str
    claim_a: ClaimRef
    claim_b: ClaimRef
    detected_at: str
    severity: str
    iteration: int = 0
    source_message: str = ""


@dataclass(frozen=True, slots=True)
class ResolvedContradiction:
    """§3.1 resolved contradiction (severity kept from when it was open)."""

    id: str
    resolution: str
    resolved_by: int
    resolved_at: str
    severity: str = "MINOR"


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """§3.1 evidence; strength STRONG|MODERATE|WEAK; supports/contradicts hold hypothesis ids."""

    id: str
    evidence: str
    source: int
    supports: tuple[str, ...] = ()
    contradicts: tuple[str, ...] = ()
    strength: str = "MODERATE"


# ------------------------------------------------------------------------------------------- bookkeeping
@dataclass(frozen=True, slots=True)
class OutOfOrder:
    """A message of a §1.3.3 batch that ran after a later batch of its iteration had started (see
    `omega.agents.rules.r_1_3_3_batch_order`): its batch, and the latest batch started before it."""

    message_id: str
    agent_id: int
    batch: str
    after: str


@dataclass(frozen=True, slots=True)
class IterationStats:
    """What one iteration (a §6.4 full cycle) saw; the end-of-iteration checks read it.

    `batches` maps a §1.3.3 batch (the header's `batch` extra, else the tier's batch) to its distinct agents.
    `reported_new_claims` is the Progress Monitor's own count when it gave one (it takes precedence).
    `out_of_order` lists the messages that broke the §1.3.3 batch order (judged when the iteration closes).
    """

    iteration: int
    agents: tuple[int, ...] = ()
    batches: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    messages: int = 0
    rejected: int = 0
    tokens: int = 0
    new_claims: int = 0
    reported_new_claims: int | None = None
    new_hypotheses: int = 0
    new_contradictions: int = 0
    closed: bool = False
    aggregate: float | None = None
    solution_space: int | None = None
    out_of_order: tuple[OutOfOrder, ...] = ()

    def over_batch_limit(self, limit: int) -> dict[str, int]:
        """Batches of the iteration with more distinct agents than `limit` (A.3 / §1.3.3), with their counts."""
        return {batch: len(agents) for batch, agents in self.batches.items() if len(agents) > limit}

    def claims_found(self) -> int:
        """New claims of the iteration: the Progress Monitor's count when given, else the judge's."""
        return self.new_claims if self.reported_new_claims is None else self.reported_new_claims


@dataclass(frozen=True, slots=True)
class Gates:
    """Facts the §6 conditions read, each the latest word of the agent the spec names (iterations, or None)."""

    qc_verdict: str | None = None  # SHIP | SHIP WITH CAVEATS | REJECT
    qc_iteration: int | None = None
    qc_caveats: tuple[str, ...] = ()
    qc_consecutive_rejections: int = 0
    converged_iteration: int | None = None  # Progress Monitor (48) confirmed convergence
    gaps_clear: bool | None = None  # Gap Hunter (40) / Gap Detector (31): no critical gaps
    survivable_core: bool | None = None  # Survivor Synthesizer (46)
    steelman_defeated: bool | None = None  # Steelman Attacker (44) defeated the answer
    blocking_attack_iteration: int | None = None  # an ADVERSARY message with blocks_progress
    untestable_critical: str | None = None  # Falsifier (45) [UNTESTABLE] + blocks_progress: its verdict
    intractable: str | None = None  # [UNDECIDABLE] / [UNAVAILABLE] / [INTRACTABLE] + blocks_progress
    unresolvable_declared: int | None = None  # iteration Conflict Resolver / PHI declared it unresolvable
    answer: str | None = None
    answer_by: int | None = None
    unanswerable: bool = False
    phi_action: str | None = None  # the latest PHI control action (END_ITERATION, TERMINATE, USER_ABORT)


@dataclass(frozen=True, slots=True)
class AlertBook:
    """What the failure signatures already raised: dedupe keys and, per signature and subject, the
    iterations it alerted in (the §4.4 escalation level rises with them)."""

    emitted: tuple[str, ...] = ()
    occurrences: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    cascade_since: int | None = None  # iteration a CRITICAL cascade was first raised, while it lasts


@dataclass(frozen=True, slots=True)
class AuditEntry:
    """A termination audit trail entry (§6.5)."""

    timestamp: str
    event: str


@dataclass(frozen=True, slots=True)
class SessionState:
    """Per-session state, immutable: `evolve` returns a new one (Faust persists only reassignment)."""

    session_id: str
    started: str | None = None
    last_updated: str | None = None
    problem: Problem = field(default_factory=Problem)
    budget: Budget | None = None
    timeline: tuple[TimelineEntry, ...] = ()
    hypotheses_active: tuple[Hypothesis, ...] = ()
    hypotheses_resolved: tuple[ResolvedHypothesis, ...] = ()
    hypotheses_abandoned: tuple[AbandonedHypothesis, ...] = ()
    decisions: tuple[Decision, ...] = ()
    commitments: tuple[Commitment, ...] = ()
    contradictions_unresolved: tuple[Contradiction, ...] = ()
    contradictions_resolved: tuple[ResolvedContradiction, ...] = ()
    evidence: tuple[EvidenceItem, ...] = ()
    confidence: ConfidenceBook = field(default_factory=ConfidenceBook)
    current_iteration: int = 0
    closed_through: int = 0
    iterations: tuple[IterationStats, ...] = ()
    agents_seen: tuple[int, ...] = ()
    mandatory_seen: tuple[int, ...] = ()
    consecutive_failures: Mapping[str, int] = field(default_factory=dict)  # str(agent id) -> count
    quarantined: tuple[str, ...] = ()
    tokens_used: int = 0
    first_ms: int | None = None
    last_ms: int | None = None
    seen_claims: tuple[str, ...] = ()  # hashes of normalised verdicts, hypotheses and evidence
    stalled_iterations: int = 0  # consecutive closed iterations without new claims
    expansions: int = 0  # consecutive closed iterations whose solution space grew
    gates: Gates = field(default_factory=Gates)
    alerts: AlertBook = field(default_factory=AlertBook)
    audit: tuple[AuditEntry, ...] = ()
    applied: Mapping[str, tuple[Output, ...]] = field(default_factory=dict)
    termination: TerminationReport | None = None

    def stats(self, iteration: int) -> IterationStats:
        """The stats of `iteration` (empty ones when nothing of it was seen)."""
        return next((s for s in self.iterations if s.iteration == iteration), IterationStats(iteration))

    def elapsed_seconds(self) -> float:
        """Event time elapsed between the earliest and the latest message."""
        return 0.0 if self.first_ms is None or self.last_ms is None else (self.last_ms - self.first_ms) / 1000

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form for the Faust table and snapshots."""
        encoded = encode(self)
        assert isinstance(encoded, dict)
        return encoded

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SessionState:
        """Inverse of `to_dict`."""
        decoded = decode(cls, data)
        assert isinstance(decoded, SessionState)
        return decoded


# ------------------------------------------------------------------------------------------- JSON codec
_OUTPUT_TYPES: Mapping[str, type] = {"alerts": Alert, "escalations": Escalation, "terminations": TerminationReport}


def encode(value: Any) -> Any:
    """JSON-able form of a state value: records as dicts of their init fields, tuples as lists; an output
    (alert, escalation, termination report) is tagged with its `type`."""
    if is_dataclass(value) and not isinstance(value, type):
        data = {f.name: encode(getattr(value, f.name)) for f in fields(value) if f.init}
        if isinstance(value, Alert | Escalation | TerminationReport):
            data["type"] = value.topic_kind
        return data
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): encode(v) for k, v in value.items()}
    return value


def decode(tp: Any, data: Any) -> Any:
    """Inverse of `encode` for the declared type `tp` (records, tuples, str-keyed mappings, unions, scalars)."""
    origin = typing.get_origin(tp)
    if tp is Any or data is None:
        return data
    if origin in (Union, types.UnionType):
        options = [a for a in typing.get_args(tp) if a is not type(None)]
        if isinstance(data, Mapping) and "type" in data and all(a in _OUTPUT_TYPES.values() for a in options):
            return decode(_OUTPUT_TYPES[data["type"]], data)
        return decode(options[0], data) if len(options) == 1 else data
    if origin is tuple:
        item = typing.get_args(tp)[0]
        return tuple(decode(item, v) for v in data)
    if origin in (Mapping, dict):
        value_type = typing.get_args(tp)[1]
        return {k: decode(value_type, v) for k, v in data.items()}
    if is_dataclass(tp) and isinstance(tp, type):
        hints = typing.get_type_hints(tp)
        return tp(**{f.name: decode(hints[f.name], data[f.name]) for f in fields(tp) if f.init and f.name in data})
    if tp is float:
        return float(data)
    return data
