"""The episode ledger: one record per correlation_id, everything the validator keeps between packets.

Budget envelope rule (applied by `omega.packets.episode`; it rests on OMEN.md §4.3 "Stage 2 - Budget
Feasibility" being Layer 5's arbitration, §8.3.4 "Layer 5 produces final Decision Packet: ... fit to
constraints/budgets", and `constraints_satisfied.budget_check` living on the DecisionPacket): the
`mcp.budgets` of the episode's first accepted DecisionPacket set the envelope. Budgets on observations,
belief updates and results are the cost of that packet; on tokens, escalations and Integrity alerts they
describe that act; a later decision's budget covers its own follow-up work. None of them sets or shrinks
the envelope, and before the first decision there is none (INV-005 is not judged). Only an approved
override changes it: a Layer 1 / Integrity budget override (INV-005's forms: "budget override" in the
payload, an Integrity `override_rationale` or `budget_override_approved`) replaces it with its own
budgets; a `budget_insufficient` escalation approves the overrun until it is answered, and the decision
that answers it extends the envelope by that decision's budgets over the usage spent so far.
Usage (OMEN.md §10.5; INV-005 names tokens_used, tool_calls_used, time_elapsed, risk_spent): summed from
what TaskResults report in `execution_metadata`: `tokens_used`, `tool_calls_used`, `execution_time_ms` /
1000 as time, and a numeric `risk_spent`. The event-time distance between packets is not budget time (it
includes waiting, review and human latency); a task that runs late is INV-011's business, against its
directive's own deadline. (The pseudo-code's `time_elapsed` read as wall time was the outlier.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from omega.events import Alert, Escalation
from omega.packets.judgements import Judgements
from omega.packets.verdict import PacketVerdict, VerdictStatus
from omega.records import constructor, copy_with
from omega.violations import Severity, Violation


@dataclass(frozen=True, slots=True)
class Judgement:
    """What the ledger keeps of a judged packet: enough, with the packet itself, to rebuild its verdict.

    The rest of a verdict (ids, type, event time, hash) derives from the packet, so a redelivered packet
    re-emits an identical verdict while the ledger stays small (it is rewritten to the changelog whole).
    """

    content_hash: str
    status: VerdictStatus
    violations: tuple[Violation, ...] = ()
    state_before: str | None = None
    state_after: str | None = None
    usage: Mapping[str, Any] | None = None
    outputs: tuple[Alert | Escalation, ...] = ()
    late: bool = False

    @classmethod
    def of(cls, verdict: PacketVerdict, outputs: tuple[Alert | Escalation, ...] = ()) -> Judgement:
        """The part of `verdict` that does not derive from the packet, and the alerts it raised."""
        make = _new_judgement if cls is Judgement else cls  # one per packet: the faster constructor
        return make(verdict.content_hash, verdict.status, verdict.violations, verdict.state_before,
                   verdict.state_after, verdict.usage, outputs, verdict.late)

    def to_list(self) -> list[Any]:
        """Compact JSON form: [hash, status, violations, state_before, state_after, usage values, outputs], and
        `true` after them for a late judgement (the ledger is rewritten whole on every packet: bytes count)."""
        usage = None if self.usage is None else [self.usage.get(k) for k in USAGE_KEYS]
        form: list[Any] = [self.content_hash, self.status.value, [v.to_dict() for v in self.violations],
                self.state_before, self.state_after, usage, [output_state(o) for o in self.outputs]]
        if self.late:
            form.append(True)
        return form

    @classmethod
    def from_list(cls, data: list[Any]) -> Judgement:
        """Inverse of `to_list`."""
        content_hash, status, violations, before, after, usage, outputs = data[:7]
        return cls(content_hash, VerdictStatus(status),
                   tuple(Violation(v["rule"], Severity(v["severity"]), v["message"], v["field"]) for v in violations),
                   before, after, None if usage is None else dict(zip(USAGE_KEYS, usage, strict=True)),
                   tuple(output_from_state(o) for o in outputs), len(data) > 7 and data[7] is True)


_new_judgement = constructor(Judgement)

USAGE_KEYS = ("tokens_used", "token_budget", "tool_calls_used", "tool_call_budget", "time_elapsed_seconds",
              "time_budget_seconds", "risk_spent", "max_loss")
"""The fields of a verdict's usage report (`omega.events.BudgetUsage`), in their compact stored order."""


def output_state(output: Alert | Escalation) -> dict[str, Any]:
    """An alert or escalation as stored in the ledger (its constructor fields)."""
    fields = {f: getattr(output, f) for f in output.__dataclass_fields__ if f != "topic_kind"}
    return {"type": output.topic_kind, **fields}


def output_from_state(data: Mapping[str, Any]) -> Alert | Escalation:
    """Inverse of `output_state`."""
    fields = {k: v for k, v in data.items() if k != "type"}
    return Alert(**fields) if data["type"] == "alerts" else Escalation(**fields)


@dataclass(frozen=True, slots=True)
class Budgets:
    """The episode's envelope; None where the setting packet gave no (numeric) value."""

    tokens: int | None = None
    tool_calls: int | None = None
    time_seconds: int | None = None
    max_loss: float | None = None
    set_by: str | None = None  # packet_id


@dataclass(frozen=True, slots=True)
class Usage:
    """Cumulative consumption of the episode."""

    tokens: int = 0
    tool_calls: int = 0
    time_seconds: float = 0.0
    risk: float = 0.0


@dataclass(frozen=True, slots=True)
class Token:
    """A ToolAuthorizationToken as the ledger tracks it (usage counted per WRITE/MIXED directive)."""

    token_id: str
    packet_id: str
    tool_ids: tuple[str, ...]
    operation_types: tuple[str, ...]
    resource_constraints: Mapping[str, Any] | None
    expiry: str
    expiry_ms: int | None
    max_usage_count: int
    usage_count: int = 0
    revoked: bool = False
    issuer_layer: int | str | None = None


@dataclass(frozen=True, slots=True)
class OpenDirective:
    """A TaskDirective still waiting for its TaskResult, with its event-time deadline."""

    task_id: str
    packet_id: str
    tool_safety_class: str | None
    issued_ms: int | None
    deadline_ms: int | None
    stakes_level: str | None
    timed_out: bool = False
    timed_out_ms: int | None = None  # the watermark that timed it out (a redelivered tick raises it again)


@dataclass(frozen=True, slots=True)
class VerifyLoop:
    """Progress of the verification loop entered by a VERIFY_FIRST decision (E3 / INV-008)."""

    decision_packet_id: str
    plan: bool = False
    read_directive: bool = False
    success_result: bool = False
    observed: bool = False
    belief_update_with_evidence: bool = False
    opened_ms: int | None = None  # the VERIFY_FIRST decision's event time: evidence older than it closes nothing


@dataclass(frozen=True, slots=True)
class EpisodeLedger:
    """Per-episode state. Immutable: `evolve` returns a new ledger (Faust persists only reassignment)."""

    correlation_id: str
    state: str = "S0_IDLE"
    budgets: Budgets | None = None
    usage: Usage = field(default_factory=Usage)
    last_event_ms: int | None = None
    tokens: Mapping[str, Token] = field(default_factory=dict)
    open_directives: Mapping[str, OpenDirective] = field(default_factory=dict)
    evidence_refs: tuple[str, ...] = ()
    verify: VerifyLoop | None = None
    last_decision: str | None = None
    decision_count: int = 0
    belief_updates: int = 0
    budget_approved: bool = False
    budget_escalation_open: bool = False  # a budget_insufficient escalation not yet answered by a decision
    escalation_presented: bool = False
    tools_state: str | None = None
    stakes_level: str | None = None
    safe_mode_reason: str | None = None
    applied: Judgements[Judgement] = field(default_factory=Judgements)
    accepted: int = 0
    rejected: int = 0

    def with_judgement(self, packet_id: str, verdict: PacketVerdict,
                       outputs: tuple[Alert | Escalation, ...] = (), **changes: Any) -> EpisodeLedger:
        """The ledger with a packet's judgement recorded (whatever the status), and other fields set to
        `changes` in the same copy (what an accepted packet changes: the ledger is copied once per packet)."""
        changes.update(self.judgement_changes(packet_id, verdict, outputs))
        return copy_with(self, changes)  # `changes` is this call's own dict (its keyword arguments)

    def judgement_changes(self, packet_id: str, verdict: PacketVerdict,
                          outputs: tuple[Alert | Escalation, ...] = ()) -> dict[str, Any]:
        """The fields `with_judgement` sets to record a packet's judgement."""
        ok = verdict.status is not VerdictStatus.REJECTED
        return {"applied": self.applied.with_(packet_id, Judgement.of(verdict, outputs)),
                "accepted": self.accepted + ok, "rejected": self.rejected + (not ok)}

    def to_dict(self, previous: Mapping[str, Any] | None = None, judgements: bool = True) -> dict[str, Any]:
        """JSON-able form for the Faust table and snapshots; `previous`, the stored form of an earlier ledger
        of the same episode, lends its encoded judgements (a recorded judgement never changes). Without
        `judgements`, the form leaves out `applied` (the live worker keeps them in their own table)."""
        data = {f: getattr(self, f) for f in _SCALARS}
        data["budgets"] = None if self.budgets is None else _fields(self.budgets)
        data["usage"] = _fields(self.usage)
        data["tokens"] = {k: _fields(t) for k, t in self.tokens.items()}
        data["open_directives"] = {k: _fields(d) for k, d in self.open_directives.items()}
        data["evidence_refs"] = list(self.evidence_refs)
        data["verify"] = None if self.verify is None else _fields(self.verify)
        if judgements:
            # Re-encoding every judgement on every packet made the live store quadratic in the episode length.
            known: Mapping[str, Any] = (previous or {}).get("applied") or {}
            data["applied"] = {pid: known[pid] if pid in known else j.to_list() for pid, j in self.applied.items()}
        else:
            data["judged"] = self.applied.count
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any],
                  missing: Callable[[str], tuple[int, Judgement] | None] | None = None) -> EpisodeLedger:
        """Inverse of `to_dict`; `missing` finds the judgements a form without `applied` left out, by packet id,
        with their sequence numbers (see `Judgements`)."""
        verify = data["verify"]
        return cls(
            # Fields added after a ledger was stored take their defaults; ones dropped since are ignored.
            **{f: data[f] for f in _SCALARS if f in data},
            budgets=None if data["budgets"] is None else Budgets(**data["budgets"]),
            usage=Usage(**data["usage"]),
            tokens={k: _token(t) for k, t in data["tokens"].items()},
            open_directives={k: OpenDirective(**d) for k, d in data["open_directives"].items()},
            evidence_refs=tuple(data["evidence_refs"]),
            # Ledgers stored before the loop's packets were derived from the judgements list them: dropped.
            verify=None if verify is None else VerifyLoop(**{k: v for k, v in verify.items() if k != "packet_ids"}),
            applied=Judgements({pid: Judgement.from_list(j) for pid, j in data.get("applied", {}).items()},
                               missing, data.get("judged", 0)),
        )


_SCALARS = (
    "correlation_id", "state", "last_event_ms", "last_decision", "decision_count",
    "belief_updates", "budget_approved", "budget_escalation_open", "escalation_presented", "tools_state",
    "stakes_level", "safe_mode_reason", "accepted", "rejected",
)


def _fields(record: Budgets | Usage | Token | OpenDirective | VerifyLoop) -> dict[str, Any]:
    """A flat record's fields by name: what `asdict` gives for these, without its recursive deep copy (which cost
    a live worker ~7% of its time; the values are immutable or never changed)."""
    return {name: getattr(record, name) for name in record.__slots__}


def _token(data: Mapping[str, Any]) -> Token:
    return Token(**{**data, "tool_ids": tuple(data["tool_ids"]), "operation_types": tuple(data["operation_types"])})
