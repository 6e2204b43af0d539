"""What the oracles return: violations naming their invariant and rule, per-rule outcomes, per-oracle results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from omega.oracle.evidence import EvidenceStep, make_step

PASS, FAIL = "PASS", "FAIL"
# Precision, contradictions and traceability are safety properties (CRITICAL); necessity, stability and
# format are quality properties (HIGH). The report schema knows only these two severities.
SEVERITY = {"Q-INV-01": "CRITICAL", "Q-INV-02": "HIGH", "Q-INV-03": "CRITICAL", "Q-INV-04": "HIGH",
            "Q-INV-05": "HIGH", "Q-INV-06": "CRITICAL"}
Metric = bool | int | float | str


@dataclass(frozen=True)
class Violation:
    """One broken invariant, found by one rule."""

    invariant_id: str
    rule_id: str
    message: str
    details: str | None = None

    @property
    def severity(self) -> str:
        """CRITICAL or HIGH, by invariant."""
        return SEVERITY[self.invariant_id]

    def to_dict(self) -> dict[str, Any]:
        """The verdict's form (CLI line, Avro OracleViolation): the rule id is a field."""
        return {"invariant_id": self.invariant_id, "rule_id": self.rule_id, "message": self.message,
                "severity": self.severity, "details": self.details}

    def to_report(self) -> dict[str, Any]:
        """The report schema's form, which has no rule field: the message starts with the rule id."""
        out: dict[str, Any] = {"invariant_id": self.invariant_id, "message": f"{self.rule_id}: {self.message}",
                               "severity": self.severity}
        if self.details is not None:
            out["details"] = self.details
        return out


@dataclass(frozen=True)
class RuleOutcome:
    """One rule's verdict, its violations, its evidence step and its measurements."""

    rule_id: str
    verdict: str
    violations: tuple[Violation, ...]
    step: EvidenceStep
    metrics: Mapping[str, Metric] = field(default_factory=dict)


def outcome(oracle: str, rule_id: str, read: object, violations: Sequence[Violation], timestamp: str,
            decided: object = None, metrics: Mapping[str, Metric] | None = None) -> RuleOutcome:
    """A rule's outcome: FAIL iff it found a violation; the evidence hashes what it read and decided."""
    verdict = FAIL if violations else PASS
    record = {"decided": decided, "verdict": verdict, "violations": [v.to_dict() for v in violations]}
    step = make_step(f"{oracle}/{rule_id}", rule_id, read, record, verdict, timestamp)
    return RuleOutcome(rule_id, verdict, tuple(violations), step, dict(metrics or {}))


@dataclass(frozen=True)
class OracleResult:
    """One oracle's result: FAIL if any of its rules failed; metrics merged from its rules."""

    oracle_id: str
    verdict: str
    violations: tuple[Violation, ...]
    metrics: Mapping[str, Metric]
    evidence: tuple[EvidenceStep, ...]

    def to_report(self) -> dict[str, Any]:
        """The report schema's OracleResult."""
        return {"oracle_id": self.oracle_id, "verdict": self.verdict, "metrics": dict(self.metrics),
                "evidence": [s.to_dict() for s in self.evidence],
                "violations": [v.to_report() for v in self.violations]}

    def to_line(self) -> dict[str, Any]:
        """The CLI line's `{verdict, violations, metrics}`."""
        return {"verdict": self.verdict, "violations": [v.to_dict() for v in self.violations],
                "metrics": dict(self.metrics)}

    def to_record(self) -> dict[str, Any]:
        """The Avro OracleResult."""
        return {**self.to_line(), "evidence": [s.to_dict() for s in self.evidence]}


def combine(oracle_id: str, outcomes: Sequence[RuleOutcome], metrics: Mapping[str, Metric]) -> OracleResult:
    """An oracle's result from its rules' outcomes, in rule order."""
    violations = tuple(v for o in outcomes for v in o.violations)
    merged: dict[str, Metric] = dict(metrics)
    for o in outcomes:
        merged.update(o.metrics)
    verdict = FAIL if any(o.verdict == FAIL for o in outcomes) else PASS
    return OracleResult(oracle_id, verdict, violations, dict(sorted(merged.items())), tuple(o.step for o in outcomes))


def worst(verdicts: Sequence[str]) -> str:
    """Fail-closed: FAIL if any verdict is not PASS."""
    return PASS if verdicts and all(v == PASS for v in verdicts) else FAIL
