"""Failure reasons a writer can act on (§7.1 "The user MUST be informed: why the sentence failed, what evidence is
required to fix it"; issue 42, item 4): each content failure names the clause it found the defect in, and the
evidence it asks for names the population, setting and timeframe the cited facts are about ("requires a fact
stating 'faster' for population: adults aged 60 or older; timeframe: 2023").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from omega.grounding.facts import AtomicFact, qualifier_text
from omega.grounding.model import NUMERIC_MISMATCH, Failure
from omega.grounding.qualifiers import category
from omega.grounding.words import clauses

SCOPE_KINDS = ("population", "setting", "timeframe")
_QUOTED = re.compile(r"'([^']+)'")
_UNSTATED = "claim tokens not stated"  # `entailment`'s reason; the frames and binding name their clause already


def for_the_writer(failures: Sequence[Failure], claim_text: str, facts: Sequence[AtomicFact]) -> list[Failure]:
    """The failures with the clause and the scoped evidence named (content failures only; citation, conflict and
    qualifier failures already name their facts and values)."""
    scope = _scope(facts)
    out: list[Failure] = []
    for failure in failures:
        if not (failure.code == NUMERIC_MISMATCH or failure.reason.startswith(_UNSTATED)):
            out.append(failure)
            continue
        wanted = _QUOTED.findall(failure.reason.split(":", 1)[-1])
        clause = _clause_of(claim_text, wanted)
        reason = failure.reason if clause is None else f"{failure.reason} (in the clause \"{clause}\")"
        required = failure.required_evidence
        if scope and wanted:
            required = f"requires a fact stating {', '.join(repr(w) for w in wanted[:4])} for {scope}; " \
                       f"{required}"
        out.append(replace(failure, reason=reason, required_evidence=required))
    return out


def _scope(facts: Sequence[AtomicFact]) -> str:
    parts: dict[str, str] = {}
    for fact in facts:
        for key, value in fact.qualifiers.items():
            kind = category(key)
            if kind in SCOPE_KINDS and kind not in parts:
                parts[kind] = qualifier_text(value)
    return "; ".join(f"{kind}: {value}" for kind, value in parts.items())


def _clause_of(text: str, wanted: Sequence[str]) -> str | None:
    lowered = [w.lower() for w in wanted]
    pieces = clauses(text)
    if len(pieces) < 2:
        return None  # one clause: the sentence itself
    for piece in pieces:
        if any(w in piece.lower() for w in lowered):
            return piece.strip(" ,;")
    return None
