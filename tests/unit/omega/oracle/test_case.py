"""A test-set line that is not a judgeable case is refused with a message naming the field and why."""

from __future__ import annotations

from typing import Any

import pytest

from omega.oracle.case import CaseError, Expected, parse_case
from tests.unit.omega.oracle.support import line


def _refusal(obj: Any) -> str:
    with pytest.raises(CaseError) as refused:
        parse_case(obj)
    return str(refused.value)


def test_each_malformed_field_is_refused_with_its_own_message() -> None:
    good = line("Fact one.", ["Fact one."])
    assert _refusal(["not", "an", "object"]) == "a case must be a JSON object"
    assert _refusal({k: v for k, v in good.items() if k != "id"}) == "id must be a string"
    assert _refusal({**good, "id": "  "}) == "id must not be empty"
    assert _refusal({**good, "category": "poetry"}) == (
        "category must be one of precision, necessity, contradiction, stability, adversarial, cross-ref, "
        "got 'poetry'")
    assert _refusal({**good, "input": []}) == "input must be an object"
    assert _refusal({**good, "input": {**good["input"], "context": 3}}) == "input.context must be a string"
    assert _refusal({**good, "input": {**good["input"], "facts": "Fact one."}}) == (
        "input.facts must be a list of strings")
    assert _refusal({**good, "candidate_output": None}) == "candidate_output must be a string"
    assert _refusal({**good, "expected": ["PASS"]}) == "expected must be an object"
    assert _refusal({**good, "expected": {"verdict": "MAYBE"}}) == "expected.verdict must be PASS or FAIL, got 'MAYBE'"
    assert _refusal({**good, "expected": {"max_unsupported_claims": True}}) == (
        "expected.max_unsupported_claims must be a count or 'CONFIG:NAME'")
    assert _refusal({**good, "expected": {"contradiction_ids": "a-b"}}) == (
        "expected.contradiction_ids must be a list of strings")


def test_absent_expectation_lists_are_empty() -> None:
    parsed = parse_case(line("Fact one.", ["Fact one."], verdict="PASS"))
    assert parsed.expected == Expected(verdict="PASS", max_unsupported_claims="CONFIG:UNSUPPORTED_MAX")
    assert (parsed.id, parsed.category, parsed.context, parsed.facts, parsed.constraints) == (
        "Q-TEST-0001", "precision", "test", ("Fact one.",), ())
