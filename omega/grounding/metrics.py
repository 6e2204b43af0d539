"""The contract metrics of a labelled evaluation (`omega check grounding --eval`, the labelled suite).

    sentence_support_rate   PASS sentences / all sentences
    false_support_rate      PASS among sentences labelled unsupported / sentences labelled unsupported
    correct_refusal_rate    FAIL among sentences labelled unsupported / sentences labelled unsupported
    over_refusal_rate       FAIL among sentences labelled supported / sentences labelled supported
    verified_paragraph_rate verified paragraphs / all paragraphs
A rate over an empty population is None (no labels, nothing to measure), never NaN.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass


@dataclass(frozen=True, slots=True)
class Metrics:
    """The five contract metrics, and the counts they are computed from."""

    sentence_support_rate: float | None
    false_support_rate: float | None
    verified_paragraph_rate: float | None
    correct_refusal_rate: float | None
    over_refusal_rate: float | None
    sentences: int
    labelled_supported: int
    labelled_unsupported: int
    paragraphs: int

    def to_dict(self) -> dict[str, object]:
        """Plain dict (for a JSON line)."""
        return asdict(self)


def _rate(hits: int, total: int) -> float | None:
    return None if total == 0 else round(hits / total, 6)


def contract_metrics(sentences: Sequence[tuple[bool, bool | None]], paragraphs: Sequence[bool]) -> Metrics:
    """Metrics from (passed, expected_supported) per sentence and `verified` per paragraph."""
    supported = [passed for passed, label in sentences if label is True]
    unsupported = [passed for passed, label in sentences if label is False]
    return Metrics(
        sentence_support_rate=_rate(sum(p for p, _ in sentences), len(sentences)),
        false_support_rate=_rate(sum(unsupported), len(unsupported)),
        verified_paragraph_rate=_rate(sum(paragraphs), len(paragraphs)),
        correct_refusal_rate=_rate(len(unsupported) - sum(unsupported), len(unsupported)),
        over_refusal_rate=_rate(len(supported) - sum(supported), len(supported)),
        sentences=len(sentences), labelled_supported=len(supported), labelled_unsupported=len(unsupported),
        paragraphs=len(paragraphs),
    )
