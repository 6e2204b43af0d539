"""Oracle-C, cross-reference and format: one function per check id, each `(view, a, b) -> RuleOutcome`.

* ORC-FMT-001 (Q-INV-05): LF line endings only; a CR (CRLF or lone) is a format violation, judged on the
  output byte for byte, before normalisation (which would hide it).
* ORC-FMT-002 (Q-INV-05): no control character other than LF and TAB (nor a byte-order mark, nor the
  Unicode line/paragraph separators).
* ORC-XREF-001 (Q-INV-01): every numeric value of the output is cross-referenced with the input facts; a
  value no fact holds is unsupported, wherever it sits in the sentence.
* ORC-XREF-002 (Q-INV-01): executable payloads (SQL statements and tautologies, SQL comments after a
  statement, script tags, shell deletions) are never facts, unless an input fact holds the same text.
* ORC-TRACE-001 (Q-INV-06): Oracle-A and Oracle-B left complete evidence: one step per rule, in order,
  each with SHA-256 hashes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from omega.oracle.evidence import HEX64
from omega.oracle.model import OracleResult, RuleOutcome, Violation, combine, outcome
from omega.oracle.normalise import has_term, numbers
from omega.oracle.oracle_a import RULES as RULES_A
from omega.oracle.oracle_b import RULES as RULES_B
from omega.oracle.view import CaseView

ORACLE = "oracle_c"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufeff\u2028\u2029]")
_PAYLOADS = re.compile(
    r"\b(?:delete\s+from|drop\s+(?:table|database|schema)|insert\s+into|truncate\s+table|union\s+(?:all\s+)?select"
    r"|update\s+\w+\s+set|(?:or|and|where)\s+'?(\w+)'?\s*=\s*'?\1'?|exec(?:ute)?\s+xp_\w+|rm\s+-rf)\b"
    r"|;\s*--|<\s*script\b|javascript:"
)


def orc_fmt_001(view: CaseView, a: OracleResult, b: OracleResult) -> RuleOutcome:
    """LF line endings only: no CR in the raw output."""
    raw = view.case.candidate_output
    crlf, cr = raw.count("\r\n"), raw.count("\r")
    violations = []
    if cr:
        violations.append(Violation("Q-INV-05", "ORC-FMT-001", f"{crlf} CRLF and {cr - crlf} lone CR line ending(s);"
                                    " LF only", repr(raw[max(0, raw.index("\r") - 20): raw.index("\r") + 2])))
    return outcome(ORACLE, "ORC-FMT-001", raw, violations, view.timestamp, decided=[crlf, cr],
                   metrics={"crlf_count": crlf, "cr_count": cr})


def orc_fmt_002(view: CaseView, a: OracleResult, b: OracleResult) -> RuleOutcome:
    """No control characters besides LF and TAB."""
    found = sorted({f"U+{ord(m.group()):04X}" for m in _CONTROL.finditer(view.case.candidate_output)})
    violations = [Violation("Q-INV-05", "ORC-FMT-002", "control character in the output", c) for c in found]
    return outcome(ORACLE, "ORC-FMT-002", view.case.candidate_output, violations, view.timestamp, decided=found)


def orc_xref_001(view: CaseView, a: OracleResult, b: OracleResult) -> RuleOutcome:
    """Every numeric value of the output appears in an input fact."""
    values = numbers(view.output_key)
    missing = sorted({v for v in values if not any(has_term(v, f) for f in view.facts)})
    violations = [Violation("Q-INV-01", "ORC-XREF-001", "value not found in any input fact", v) for v in missing]
    return outcome(ORACLE, "ORC-XREF-001", {"values": values, "facts": view.facts}, violations, view.timestamp,
                   decided=missing, metrics={"values_checked": len(values), "values_unreferenced": len(missing)})


def orc_xref_002(view: CaseView, a: OracleResult, b: OracleResult) -> RuleOutcome:
    """No executable payload that the input facts do not hold."""
    found = sorted({m.group(0) for m in _PAYLOADS.finditer(view.output_key)})
    foreign = [p for p in found if not any(p in f for f in view.facts)]
    violations = [Violation("Q-INV-01", "ORC-XREF-002", "executable payload in the output", p) for p in foreign]
    return outcome(ORACLE, "ORC-XREF-002", {"output": view.output_key, "facts": view.facts}, violations,
                   view.timestamp, decided=foreign, metrics={"payloads": len(foreign)})


def orc_trace_001(view: CaseView, a: OracleResult, b: OracleResult) -> RuleOutcome:
    """Oracle-A and Oracle-B evidence is complete: one hashed step per rule, in rule order."""
    expected = [f"oracle_a/{r.__name__}" for r in RULES_A] + [f"oracle_b/{r.__name__}" for r in RULES_B]
    steps = [*a.evidence, *b.evidence]
    named = [f"{s.step.split('/')[0]}/{s.rule_applied.lower().replace('-', '_')}" for s in steps]
    violations = []
    if named != expected:
        violations.append(Violation("Q-INV-06", "ORC-TRACE-001", "evidence steps missing or out of order"))
    if not all(HEX64.match(s.input_hash) and HEX64.match(s.output_hash) for s in steps):
        violations.append(Violation("Q-INV-06", "ORC-TRACE-001", "an evidence step lacks its SHA-256 hashes"))
    return outcome(ORACLE, "ORC-TRACE-001", [s.to_dict() for s in steps], violations, view.timestamp,
                   metrics={"evidence_steps": len(steps)})


RULES: tuple[Callable[[CaseView, OracleResult, OracleResult], RuleOutcome], ...] = (
    orc_fmt_001, orc_fmt_002, orc_xref_001, orc_xref_002, orc_trace_001,
)


def judge_c(view: CaseView, a: OracleResult, b: OracleResult) -> OracleResult:
    """Oracle-C: format, cross-reference and traceability checks; FAIL if any fails."""
    return combine("ORACLE-C", [rule(view, a, b) for rule in RULES], {})
