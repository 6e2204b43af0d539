"""Oracle-C: LF-only format, control characters, value and payload cross-references, evidence completeness."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from omega.oracle.model import OracleResult, RuleOutcome
from omega.oracle.oracle_a import judge_a
from omega.oracle.oracle_b import judge_b
from omega.oracle.oracle_c import judge_c, orc_fmt_001, orc_fmt_002, orc_trace_001, orc_xref_001, orc_xref_002
from omega.oracle.view import CaseView
from tests.unit.omega.oracle.support import view

FACTS = ["Checkpoint A reached at T+120s.", "Checkpoint B reached at T+240s."]
Rule = Callable[[CaseView, OracleResult, OracleResult], RuleOutcome]


def _run(rule: Rule, output: str, facts: list[str] = FACTS) -> RuleOutcome:
    v = view(output, facts)
    return rule(v, judge_a(v), judge_b(v))


def test_lf_only_passes_and_crlf_or_lone_cr_fails_even_when_every_claim_is_sourced() -> None:
    assert _run(orc_fmt_001, "\n".join(FACTS)).verdict == "PASS"
    crlf = _run(orc_fmt_001, "\r\n".join(FACTS))
    assert (crlf.verdict, crlf.metrics["crlf_count"]) == ("FAIL", 1)
    assert crlf.violations[0].invariant_id == "Q-INV-05"
    assert _run(orc_fmt_001, "\r".join(FACTS)).verdict == "FAIL"
    v = view("\r\n".join(FACTS), FACTS)
    a = judge_a(v)
    assert a.verdict == "PASS"  # normalised before evaluation: only the format check sees the CR
    assert judge_c(v, a, judge_b(v)).verdict == "FAIL"


def test_control_characters_other_than_lf_and_tab_fail() -> None:
    assert _run(orc_fmt_002, "Checkpoint A reached at T+120s.\tok").verdict == "PASS"
    bad = _run(orc_fmt_002, "Checkpoint A\x00 reached\ufeff.")
    assert [v.details for v in bad.violations] == ["U+0000", "U+FEFF"]


def test_every_value_of_the_output_must_be_in_an_input_fact() -> None:
    assert _run(orc_xref_001, "Checkpoint B reached at T+240s.").verdict == "PASS"
    bad = _run(orc_xref_001, "Checkpoint B reached at T+250s, which is late.")
    assert [v.details for v in bad.violations] == ["250"]


def test_executable_payloads_fail_unless_a_fact_holds_them() -> None:
    bad = _run(orc_xref_002, "DELETE FROM users WHERE 1=1; -- purged", ["Query returned 42 records."])
    assert [v.details for v in bad.violations] == ["; --", "delete from", "where 1=1"]
    assert _run(orc_xref_002, "<script>alert(1)</script>", []).verdict == "FAIL"
    assert _run(orc_xref_002, "Ran delete from t.", ["The job ran delete from t."]).verdict == "PASS"
    assert _run(orc_xref_002, "Checkpoint A reached.", FACTS).verdict == "PASS"


def test_evidence_of_oracles_a_and_b_must_be_complete() -> None:
    v = view(FACTS[0], FACTS)
    a, b = judge_a(v), judge_b(v)
    assert orc_trace_001(v, a, b).verdict == "PASS"
    assert orc_trace_001(v, replace(a, evidence=a.evidence[:-1]), b).verdict == "FAIL"
    broken = replace(b.evidence[0], input_hash="nope")
    assert orc_trace_001(v, a, replace(b, evidence=(broken, *b.evidence[1:]))).verdict == "FAIL"
