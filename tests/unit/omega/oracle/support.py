"""Builders shared by the Phase Q oracle tests: a case line, the shared config, a judged view."""

from __future__ import annotations

import json
from typing import Any

from omega.canonical import content_hash
from omega.oracle.case import OracleCase, parse_case
from omega.oracle.config import OracleConfig, load_config
from omega.oracle.evidence import EvidenceStep
from omega.oracle.report import EPOCH
from omega.oracle.view import CaseView, view_of
from streams.stages.oracle import bundled_config_path
from tests.external_data import PHASE_Q_DEV, text_or_empty

# the config the oracle runs on, bundled with the package (equal to the team's copy: test_oracle_config_location)
CONFIG_RAW: dict[str, Any] = json.loads(bundled_config_path().read_text(encoding="utf-8"))
CONFIG = load_config(CONFIG_RAW)


def line(output: str, facts: list[str], **expected: Any) -> dict[str, Any]:
    """A test-set line; `expected` keys go to `expected` (none given: no `expected` at all)."""
    out: dict[str, Any] = {"id": "Q-TEST-0001", "category": expected.pop("category", "precision"),
                           "input": {"context": "test", "facts": facts, "constraints": []},
                           "candidate_output": output}
    if expected:
        out["expected"] = {"max_unsupported_claims": "CONFIG:UNSUPPORTED_MAX", **expected}
    return out


def case(output: str, facts: list[str], **expected: Any) -> OracleCase:
    """A parsed case."""
    return parse_case(line(output, facts, **expected))


def view(output: str, facts: list[str], config: OracleConfig = CONFIG, **expected: Any) -> CaseView:
    """The view every oracle reads."""
    return view_of(case(output, facts, **expected), config, EPOCH)


def dev_lines() -> list[dict[str, Any]]:
    """The 34 public cases (external data: `tests.external_data`; empty when absent, its tests skipped)."""
    text = text_or_empty(PHASE_Q_DEV)
    return [json.loads(raw) for raw in text.split("\n") if raw.strip()]


def expected_step(oracle: str, rule_id: str, read: object, decided: object,
                  violations: list[dict[str, Any]]) -> EvidenceStep:
    """The evidence step a rule must leave, worked out from what it read and decided (Q-INV-06): the step is
    `oracle/rule`, the input hash hashes what it read, the output hash `{decided, verdict, violations}`."""
    verdict = "FAIL" if violations else "PASS"
    record = {"decided": decided, "verdict": verdict, "violations": violations}
    return EvidenceStep(f"{oracle}/{rule_id}", content_hash(read), content_hash(record), rule_id, verdict, EPOCH)


def violation(invariant_id: str, rule_id: str, message: str, details: str | None = None) -> dict[str, Any]:
    """A violation as a verdict spells it; severity by invariant (CRITICAL: 01, 03, 06; HIGH: 02, 04, 05)."""
    severity = "CRITICAL" if invariant_id in ("Q-INV-01", "Q-INV-03", "Q-INV-06") else "HIGH"
    return {"invariant_id": invariant_id, "rule_id": rule_id, "message": message, "severity": severity,
            "details": details}
