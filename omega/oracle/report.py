"""A case judged by the three oracles (final verdict = the worst, fail-closed), its evidence chain and
result hash, the forms it is published in (report CaseResult, CLI line, Avro OracleVerdict), and the
Phase Q report with its own hash (`phase-q-report.schema.json`).

Hashes are SHA-256 of canonical, key-sorted JSON: `result_hash` over the CaseResult without it,
`report_hash` over the report without it, `testset_hash` over the judged cases' hashes in order. The
only timestamp is the deterministic one passed in (a case's event time; `EPOCH` for files, which carry
none), so the same input and config give a byte-identical report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from omega.canonical import canonical_json, content_hash, derived_id
from omega.oracle.case import CATEGORIES, OracleCase
from omega.oracle.config import OracleConfig
from omega.oracle.evidence import chain_record, make_step
from omega.oracle.model import PASS, OracleResult, worst
from omega.oracle.oracle_a import judge_a
from omega.oracle.oracle_b import judge_b
from omega.oracle.oracle_c import judge_c
from omega.oracle.view import view_of

REPORT_VERSION = "1.0.0"
EPOCH = "1970-01-01T00:00:00Z"
INVARIANTS = ("Q-INV-01", "Q-INV-02", "Q-INV-03", "Q-INV-04", "Q-INV-05", "Q-INV-06")


@dataclass(frozen=True)
class CaseJudgement:
    """One judged case: the three results, the final verdict, the evidence chain and the hashes."""

    case: OracleCase
    event_time: str
    config_hash: str
    verdict: str
    a: OracleResult
    b: OracleResult
    c: OracleResult
    evidence_chain: dict[str, Any]
    result_hash: str

    @property
    def verdict_id(self) -> str:
        """Derived from case id, case hash and config hash: a redelivered case gets the same id."""
        return derived_id("qv-", self.case.id, self.case.case_hash, self.config_hash)

    def to_report(self) -> dict[str, Any]:
        """The report's CaseResult."""
        return {**_case_result(self.case, self.a, self.b, self.c, self.verdict, self.evidence_chain),
                "result_hash": self.result_hash}

    def to_line(self) -> dict[str, Any]:
        """The CLI's line `{id, verdict, oracles: {A, B, C: {verdict, violations, metrics}}}`."""
        return {"id": self.case.id, "verdict": self.verdict,
                "oracles": {"A": self.a.to_line(), "B": self.b.to_line(), "C": self.c.to_line()}}

    def to_record(self) -> dict[str, Any]:
        """The Avro OracleVerdict."""
        return {"verdict_id": self.verdict_id, "event_time": self.event_time, "id": self.case.id,
                "category": self.case.category, "verdict": self.verdict,
                "oracles": {"A": self.a.to_record(), "B": self.b.to_record(), "C": self.c.to_record()},
                "evidence_chain": self.evidence_chain, "config_hash": self.config_hash,
                "result_hash": self.result_hash}


def _case_result(case: OracleCase, a: OracleResult, b: OracleResult, c: OracleResult, verdict: str,
                 chain: dict[str, Any]) -> dict[str, Any]:
    return {"case_id": case.id, "category": case.category, "oracle_a": a.to_report(), "oracle_b": b.to_report(),
            "oracle_c": c.to_report(), "final_verdict": verdict, "evidence_chain": chain}


def judge_case(case: OracleCase, config: OracleConfig, event_time: str = EPOCH) -> CaseJudgement:
    """Judge one case with Oracle-A, -B and -C; raises CaseError when its threshold cannot be resolved."""
    view = view_of(case, config, event_time)
    normalised = make_step("normalise", "Q-INV-05/NORMALISE", case.candidate_output, view.normalised, PASS,
                           event_time)
    a = judge_a(view)
    b = judge_b(view)
    c = judge_c(view, a, b)
    verdicts = [a.verdict, b.verdict, c.verdict]
    verdict = worst(verdicts)
    final = make_step("final", "FINAL-WORST-OF-THREE", verdicts, verdict, verdict, event_time)
    chain = chain_record(case.id, [normalised, *a.evidence, *b.evidence, *c.evidence, final])
    result_hash = content_hash(_case_result(case, a, b, c, verdict, chain))
    return CaseJudgement(case, event_time, config.config_hash, verdict, a, b, c, chain, result_hash)


def _scores(judged: Sequence[CaseJudgement]) -> dict[str, Any]:
    passed = sum(j.verdict == PASS for j in judged)
    by_category = {}
    for category in CATEGORIES:
        mine = [j for j in judged if j.case.category == category]
        ok = sum(j.verdict == PASS for j in mine)
        by_category[category] = {"passed": ok, "failed": len(mine) - ok, "total": len(mine)}
    by_invariant = {inv: {"violations": sum(v.invariant_id == inv for j in judged for r in (j.a, j.b, j.c)
                                            for v in r.violations)} for inv in INVARIANTS}
    return {"total_cases": len(judged), "passed": passed, "failed": len(judged) - passed,
            "pass_rate": round(passed / len(judged), 6) if judged else 0.0,
            "by_category": by_category, "by_invariant": by_invariant}


def build_report(judged: Sequence[CaseJudgement], config: OracleConfig, timestamp: str = EPOCH) -> dict[str, Any]:
    """The Phase Q report of judged cases, in their order, with its `report_hash`."""
    body = {"version": REPORT_VERSION, "phase": "Q", "timestamp_deterministic": timestamp,
            "config_hash": config.config_hash,
            "testset_hash": content_hash([j.case.case_hash for j in judged]),
            "scores": _scores(judged), "case_results": [j.to_report() for j in judged]}
    return {**body, "report_hash": content_hash(body)}


def report_text(report: dict[str, Any]) -> str:
    """The report as written to a file: key-sorted JSON, LF, ending with a newline."""
    return canonical_json(report) + "\n"
