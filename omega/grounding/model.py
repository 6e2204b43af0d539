"""The verifier's vocabulary: failure-mode codes, one failure with the evidence that would fix it, and the
contract version every verdict is stamped with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CONTRACT_VERSION = "1.0"
PASS, FAIL = "PASS", "FAIL"

MISSING_CITATION = "MISSING_CITATION"
CITATION_NOT_ALLOWED = "CITATION_NOT_ALLOWED"
UNKNOWN_FACT = "UNKNOWN_FACT"
UNCITED_FACT_USED = "UNCITED_FACT_USED"
NOT_ENTAILED = "NOT_ENTAILED"
QUALIFIER_ADDED = "QUALIFIER_ADDED"
QUALIFIER_DROPPED = "QUALIFIER_DROPPED"
QUALIFIER_DRIFT = "QUALIFIER_DRIFT"
SCOPE_EXPANSION = "SCOPE_EXPANSION"
CLAIM_STRENGTHENED = "CLAIM_STRENGTHENED"
NUMERIC_MISMATCH = "NUMERIC_MISMATCH"
CONFLICTING_FACTS = "CONFLICTING_FACTS"
INSUFFICIENT_EVIDENCE = "INSUFFICIENT_EVIDENCE"

FAILURE_CODES = (
    MISSING_CITATION, CITATION_NOT_ALLOWED, UNKNOWN_FACT, UNCITED_FACT_USED, NOT_ENTAILED, QUALIFIER_ADDED,
    QUALIFIER_DROPPED, QUALIFIER_DRIFT, SCOPE_EXPANSION, CLAIM_STRENGTHENED, NUMERIC_MISMATCH, CONFLICTING_FACTS,
    INSUFFICIENT_EVIDENCE,
)


@dataclass(frozen=True, slots=True)
class Failure:
    """One reason a sentence failed, and what evidence would let it pass (§7.1, G-5)."""

    code: str
    reason: str
    required_evidence: str
    fact_ids: tuple[str, ...] = ()

    def to_record(self) -> dict[str, object]:
        """Matches the `omega.grounding.SentenceFailure` record."""
        return {"code": self.code, "reason": self.reason, "required_evidence": self.required_evidence,
                "fact_ids": list(self.fact_ids)}


def quoted(words: Sequence[str]) -> str:
    """Words as a readable, quoted, comma-separated list."""
    return ", ".join(f"'{w}'" for w in words)
