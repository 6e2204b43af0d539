"""The optional semantic judge: a protocol for an external entailment judge (an LLM behind an HTTP API, in
the shell), and the rule that bounds it.

The judge is consulted only for a sentence the deterministic checker marks paraphrase-uncertain, i.e. whose
only defect is one or two claim tokens not found in the cited facts (`entailment`). It can turn that one
NOT_ENTAILED into PASS; it never sees, and so can never override, a citation, number, qualifier, scope,
strength, polarity or conflict failure. A judge that cannot answer leaves the sentence FAIL, with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class JudgeAnswer:
    """`entailed` True or False, or None when the judge was unavailable; `reason` always says why."""

    entailed: bool | None
    reason: str


class EntailmentJudge(Protocol):
    """Decides whether `claim` is strictly entailed by `premises` (the cited facts' statements)."""

    name: str

    def entails(self, claim: str, premises: Sequence[str]) -> JudgeAnswer:
        """Answer for one claim; must not raise (errors are an answer with `entailed` None)."""
        ...
