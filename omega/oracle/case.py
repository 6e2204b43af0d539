"""A Phase Q case as the test set writes it: `id, category, input{context, facts, constraints},
candidate_output, expected{...}` (`expected` optional). Unknown keys are kept in the source, not judged."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from omega.canonical import content_hash

CATEGORIES = ("precision", "necessity", "contradiction", "stability", "adversarial", "cross-ref")
VERDICTS = ("PASS", "FAIL")


class CaseError(ValueError):
    """A line that is not a judgeable case; the message says which field and why."""


@dataclass(frozen=True)
class Expected:
    """The case's expectations (RULE-PREC-002/003, RULE-CONT-*, Q-INV-02) and its expected verdict."""

    verdict: str | None = None
    must_find: tuple[str, ...] = ()
    must_not_find: tuple[str, ...] = ()
    contradiction_ids: tuple[str, ...] = ()
    expected_props: tuple[str, ...] = ()
    max_unsupported_claims: int | str | None = None


@dataclass(frozen=True)
class OracleCase:
    """One case; `case_hash` is the content hash of the whole source line (unknown keys included)."""

    id: str
    category: str
    context: str
    facts: tuple[str, ...]
    constraints: tuple[str, ...]
    candidate_output: str
    expected: Expected | None
    case_hash: str


def _strings(obj: Mapping[str, Any], key: str, where: str, required: bool = True) -> tuple[str, ...]:
    value = obj.get(key)
    if value is None and not required:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise CaseError(f"{where}{key} must be a list of strings")
    return tuple(value)


def _text(obj: Mapping[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise CaseError(f"{where}{key} must be a string")
    return value


def _expected(raw: object) -> Expected | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise CaseError("expected must be an object")
    verdict = raw.get("verdict")
    if verdict is not None and verdict not in VERDICTS:
        raise CaseError(f"expected.verdict must be PASS or FAIL, got {verdict!r}")
    limit = raw.get("max_unsupported_claims")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int | str)):
        raise CaseError("expected.max_unsupported_claims must be a count or 'CONFIG:NAME'")
    where = "expected."
    return Expected(
        verdict=verdict,
        must_find=_strings(raw, "must_find", where, required=False),
        must_not_find=_strings(raw, "must_not_find", where, required=False),
        contradiction_ids=_strings(raw, "contradiction_ids", where, required=False),
        expected_props=_strings(raw, "expected_props", where, required=False),
        max_unsupported_claims=limit,
    )


def parse_case(obj: Mapping[str, Any]) -> OracleCase:
    """A parsed test-set line -> OracleCase; raises CaseError naming the offending field."""
    if not isinstance(obj, Mapping):
        raise CaseError("a case must be a JSON object")
    case_id = _text(obj, "id", "")
    if not case_id.strip():
        raise CaseError("id must not be empty")
    category = _text(obj, "category", "")
    if category not in CATEGORIES:
        raise CaseError(f"category must be one of {', '.join(CATEGORIES)}, got {category!r}")
    inp = obj.get("input")
    if not isinstance(inp, Mapping):
        raise CaseError("input must be an object")
    return OracleCase(
        id=case_id,
        category=category,
        context=_text(inp, "context", "input."),
        facts=_strings(inp, "facts", "input."),
        constraints=_strings(inp, "constraints", "input."),
        candidate_output=_text(obj, "candidate_output", ""),
        expected=_expected(obj.get("expected")),
        case_hash=content_hash(dict(obj)),
    )
