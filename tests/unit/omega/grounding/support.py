"""Builders shared by the grounding unit tests: facts, and one sentence judged against them."""

from __future__ import annotations

from typing import Any

from omega.grounding.facts import AtomicFact, parse_fact
from omega.grounding.verdict import Evidence, Sentence, SentenceVerdict, verify_sentence


def fact(
    fact_id: str, content: str, qualifiers: dict[str, Any] | None = None, source_type: str = "PDF"
) -> AtomicFact:
    """A valid Atomic Fact."""
    document = "manual-entry" if source_type == "MANUAL" else "pdf:study"
    return parse_fact({"id": fact_id, "content": content, "source_type": source_type,
                       "source_span": {"document_id": document, "page": 3 if source_type == "PDF" else None},
                       "qualifiers": qualifiers or {}, "confidence": 0.9})


def judge(text: str, *facts: AtomicFact, allowed: list[str] | None = None) -> SentenceVerdict:
    """One sentence judged against `facts` (all allowed unless `allowed` says otherwise)."""
    ids = allowed if allowed is not None else [f.id for f in facts]
    return verify_sentence(Sentence(1, text), Evidence(frozenset(ids), {f.id: f for f in facts}))


def codes(verdict: SentenceVerdict) -> set[str]:
    """The failure-mode codes of a verdict."""
    return {f.code for f in verdict.failures}


TRIAL = fact("F1", "In a randomised controlled trial of 412 adults aged 65 or older, drug A lowered systolic blood "
                   "pressure by 12 mmHg over 24 weeks.",
             {"population": "adults aged 65 or older", "timeframe": "24 weeks",
              "method": "randomised controlled trial"})
BASELINE = fact("F2", "Mean systolic blood pressure fell from 148 mmHg at baseline to 136 mmHg at 24 weeks.")
DIZZY = fact("F3", "Dizziness was reported by 8.4% of participants receiving drug A.")
DIZZY_PLACEBO = fact("F4", "Dizziness was reported by 3.1% of participants receiving placebo.")
NO_STROKE = fact("F5", "Drug A did not reduce the rate of stroke during follow-up.")
HEDGED = fact("F6", "Higher adherence to drug A may be associated with greater reductions in blood pressure.")
