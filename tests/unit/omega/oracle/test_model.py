"""A rule's outcome: its rule id, FAIL iff it found a violation, and an evidence step hashing what it read and
what it decided (Q-INV-06)."""

from __future__ import annotations

from omega.oracle.model import RuleOutcome, Violation, outcome
from tests.unit.omega.oracle.support import EPOCH, expected_step, violation


def test_a_failing_outcome_names_its_rule_and_hashes_what_it_read_and_decided() -> None:
    found = Violation("Q-INV-01", "RULE-X-001", "claim unsupported", "Made up.")
    result = outcome("oracle_a", "RULE-X-001", {"claims": ["made up"]}, [found], EPOCH, decided=["Made up."],
                     metrics={"unsupported_count": 1})
    assert result == RuleOutcome(
        "RULE-X-001", "FAIL", (found,),
        expected_step("oracle_a", "RULE-X-001", {"claims": ["made up"]}, ["Made up."],
                      [violation("Q-INV-01", "RULE-X-001", "claim unsupported", "Made up.")]),
        {"unsupported_count": 1})


def test_a_passing_outcome_has_no_violation_and_still_records_its_evidence() -> None:
    result = outcome("oracle_b", "RULE-Y-001", "read", [], EPOCH)
    assert result == RuleOutcome("RULE-Y-001", "PASS", (), expected_step("oracle_b", "RULE-Y-001", "read", None, []),
                                 {})
    assert result.step.output_hash != outcome("oracle_b", "RULE-Y-001", "read", [], EPOCH, decided=0).step.output_hash
