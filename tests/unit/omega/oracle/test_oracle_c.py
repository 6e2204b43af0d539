"""Oracle-C: LF-only format, control characters, value and payload cross-references, evidence completeness."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from omega.oracle.model import OracleResult, RuleOutcome
from omega.oracle.oracle_a import judge_a
from omega.oracle.oracle_b import judge_b
from omega.oracle.oracle_c import judge_c, orc_fmt_001, orc_fmt_002, orc_trace_001, orc_xref_001, orc_xref_002
from omega.oracle.view import CaseView
from tests.unit.omega.oracle.support import expected_step, view, violation

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


FACT_KEYS = ["checkpoint a reached at t+120s", "checkpoint b reached at t+240s"]


def _whole(result: RuleOutcome) -> tuple[object, ...]:
    return (result.rule_id, result.verdict, [v.to_dict() for v in result.violations], result.step,
            dict(result.metrics))


def test_fmt_001_whole_outcome_counts_crlf_and_lone_cr_and_quotes_the_text_around_the_first_cr() -> None:
    raw = "Fact one.\r\nFact two."
    found = [violation("Q-INV-05", "ORC-FMT-001", "1 CRLF and 0 lone CR line ending(s); LF only", "'Fact one.\\r\\n'")]
    assert _whole(_run(orc_fmt_001, raw)) == ("ORC-FMT-001", "FAIL", found, expected_step(
        "oracle_c", "ORC-FMT-001", raw, [1, 1], found), {"crlf_count": 1, "cr_count": 1})
    lone = _run(orc_fmt_001, "A long line of text here.\rNext.")
    assert [v.to_dict() for v in lone.violations] == [violation(
        "Q-INV-05", "ORC-FMT-001", "0 CRLF and 1 lone CR line ending(s); LF only", "'g line of text here.\\rN'")]


def test_fmt_002_whole_outcome_names_each_control_character_once_in_code_point_order() -> None:
    raw = "Checkpoint A\x00 reached\ufeff.\x00"
    found = [violation("Q-INV-05", "ORC-FMT-002", "control character in the output", "U+0000"),
             violation("Q-INV-05", "ORC-FMT-002", "control character in the output", "U+FEFF")]
    assert _whole(_run(orc_fmt_002, raw)) == ("ORC-FMT-002", "FAIL", found, expected_step(
        "oracle_c", "ORC-FMT-002", raw, ["U+0000", "U+FEFF"], found), {})


def test_xref_001_whole_outcome_counts_values_checked_and_unreferenced() -> None:
    found = [violation("Q-INV-01", "ORC-XREF-001", "value not found in any input fact", "250")]
    assert _whole(_run(orc_xref_001, "Checkpoint B reached at T+250s, which is late.")) == (
        "ORC-XREF-001", "FAIL", found,
        expected_step("oracle_c", "ORC-XREF-001", {"values": ["250"], "facts": FACT_KEYS}, ["250"], found),
        {"values_checked": 1, "values_unreferenced": 1})
    assert _whole(_run(orc_xref_001, "Checkpoint A reached at T+120s and B at T+240s.")) == (
        "ORC-XREF-001", "PASS", [],
        expected_step("oracle_c", "ORC-XREF-001", {"values": ["120", "240"], "facts": FACT_KEYS}, [], []),
        {"values_checked": 2, "values_unreferenced": 0})


def test_xref_002_whole_outcome_names_each_foreign_payload() -> None:
    details = ["; --", "delete from", "where 1=1"]
    found = [violation("Q-INV-01", "ORC-XREF-002", "executable payload in the output", d) for d in details]
    assert _whole(_run(orc_xref_002, "DELETE FROM users WHERE 1=1; -- purged", ["Query returned 42 records."])) == (
        "ORC-XREF-002", "FAIL", found,
        expected_step("oracle_c", "ORC-XREF-002", {"output": "delete from users where 1=1; -- purged",
                                                   "facts": ["query returned 42 records"]}, details, found),
        {"payloads": 3})


def test_trace_001_whole_outcome_names_missing_steps_and_missing_hashes() -> None:
    v = view(FACTS[0], FACTS)
    a, b = judge_a(v), judge_b(v)
    missing = orc_trace_001(v, replace(a, evidence=a.evidence[:-1]), b)
    assert ([x.to_dict() for x in missing.violations], dict(missing.metrics)) == (
        [violation("Q-INV-06", "ORC-TRACE-001", "evidence steps missing or out of order")], {"evidence_steps": 13})
    broken = replace(b, evidence=(replace(b.evidence[0], output_hash="nope"), *b.evidence[1:]))
    steps = [*a.evidence, *broken.evidence]
    found = [violation("Q-INV-06", "ORC-TRACE-001", "an evidence step lacks its SHA-256 hashes")]
    assert _whole(orc_trace_001(v, a, broken)) == ("ORC-TRACE-001", "FAIL", found, expected_step(
        "oracle_c", "ORC-TRACE-001", [s.to_dict() for s in steps], None, found), {"evidence_steps": 14})
