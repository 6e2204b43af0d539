"""§3.3 inline attribution and the §6.1 item "citation presence".

A citation is `[ID]` anywhere in the sentence (ids: letters, digits, `_ - . :`); the claim is the text with
the citations removed. §3.3's example writes one bracket per fact (`[FACT_012][FACT_018]`); a list in one bracket
(`[KSN_03, KSN_04]`, or with `;`), the way writers of blind half 6 cite, is read as the same citations
(normalised: the sentence text is kept as written, the ids it cites are listed in `cited_fact_ids`). Each
sentence must cite at least one fact (G-2), every cited fact must be among the paragraph's allowed facts, and
known (its content available): a citation that cannot be read is no support.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from omega.grounding.facts import AtomicFact
from omega.grounding.model import CITATION_NOT_ALLOWED, MISSING_CITATION, UNCITED_FACT_USED, UNKNOWN_FACT, Failure
from omega.grounding.quantities import Quantity

_ID = r"[A-Za-z0-9][A-Za-z0-9_.:\-]*"
CITATION = re.compile(rf"\[\s*({_ID}(?:\s*[,;]\s*{_ID})*)\s*\]")


def split_citations(text: str) -> tuple[str, tuple[str, ...]]:
    """(claim text without citations, cited ids in order of first appearance)."""
    ids = tuple(dict.fromkeys(i for m in CITATION.finditer(text) for i in re.split(r"\s*[,;]\s*", m.group(1))))
    claim = re.sub(r"\s+", " ", CITATION.sub(" ", text)).strip()
    claim = re.sub(r"\s+([.,;:!?])", r"\1", claim)
    return claim, ids


def citation_presence(
    cited: tuple[str, ...], allowed: Collection[str], known: Mapping[str, AtomicFact]
) -> list[Failure]:
    """§6.1 citation presence: at least one citation, each to an allowed fact whose content is known."""
    if not cited:
        return [Failure(MISSING_CITATION, "the sentence has no inline attribution [FACT_ID] (§3.3, G-2)",
                        "an inline citation [FACT_ID] of an allowed Atomic Fact that states this claim")]
    failures: list[Failure] = []
    not_allowed = tuple(c for c in cited if c not in allowed)
    if not_allowed:
        failures.append(Failure(
            CITATION_NOT_ALLOWED, f"cites facts outside the paragraph's allowed facts: {', '.join(not_allowed)}",
            "a citation of an allowed fact instead, or the paragraph spec allowing the cited fact", not_allowed))
    unknown = tuple(c for c in cited if c in allowed and c not in known)
    if unknown:
        failures.append(Failure(
            UNKNOWN_FACT, f"cites facts whose content is not known to the verifier: {', '.join(unknown)}",
            f"the Atomic Fact records (content and provenance) of {', '.join(unknown)}", unknown))
    return failures


def uncited_fact_use(
    uncovered: tuple[str, ...], unmatched_numbers: tuple[Quantity, ...], cited: tuple[str, ...],
    candidates: Mapping[str, AtomicFact],
) -> Failure | None:
    """§5.2 "using uncited facts": the claim's unsupported tokens and numbers (same value, same unit) are all
    stated by one allowed fact the sentence does not cite (the first in id order): name it as the evidence."""
    if not uncovered and not unmatched_numbers:
        return None
    for fact_id in sorted(candidates):
        if fact_id in cited:
            continue
        analysis = candidates[fact_id].analysis
        if set(uncovered) <= analysis.tokens and all(
                any(q.value == s.value and q.unit == s.unit for s in analysis.quantities) for q in unmatched_numbers):
            return Failure(UNCITED_FACT_USED, f"the claim relies on {fact_id}, which the sentence does not cite",
                           f"an inline citation [{fact_id}] beside the others", (fact_id,))
    return None
