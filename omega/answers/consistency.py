"""§8 extraction consistency: run extraction R times on the same chunk and average the pairwise Jaccard
similarity of the normalised fact sets; below 0.8 the configuration is unreliable."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from omega.answers.extraction import Extractor
from omega.answers.model import Chunk
from omega.answers.validation import validate_one
from omega.answers.vocabulary import Vocabulary, normalised_object
from omega.canonical import canonical_json

RELIABLE_AT = 0.8


def normalised_facts(candidates: Sequence[Any], chunk: Chunk, vocabulary: Vocabulary) -> frozenset[str]:
    """The valid candidates as (subject, predicate, normalised object, polarity) texts; rejected ones drop."""
    out = set()
    for candidate in candidates:
        fact = validate_one(candidate, chunk, vocabulary)
        if isinstance(fact, list):
            continue
        obj = normalised_object(vocabulary[fact.predicate][1], fact.object)
        out.add(canonical_json([fact.subject, fact.predicate, obj, fact.polarity]))
    return frozenset(out)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """Size of the intersection over size of the union; 1.0 for two empty sets."""
    union = a | b
    return 1.0 if not union else len(a & b) / len(union)


@dataclass(frozen=True)
class Consistency:
    """Mean pairwise Jaccard over R runs, the run fact counts, and whether it reaches 0.8."""

    runs: int
    mean_jaccard: float
    fact_counts: tuple[int, ...]

    @property
    def reliable(self) -> bool:
        """Whether the mean reaches the §8 threshold."""
        return self.mean_jaccard >= RELIABLE_AT


def extraction_consistency(chunk: Chunk, extractor: Extractor, vocabulary: Vocabulary, runs: int) -> Consistency:
    """Run `extractor` `runs` times on `chunk`; mean Jaccard over all pairs of runs (1.0 for a single run)."""
    if runs < 1:
        raise ValueError("runs must be at least 1")
    sets = [normalised_facts(extractor(chunk, vocabulary), chunk, vocabulary) for _ in range(runs)]
    pairs = list(combinations(sets, 2))
    mean = 1.0 if not pairs else sum(jaccard(a, b) for a, b in pairs) / len(pairs)
    return Consistency(runs, mean, tuple(len(s) for s in sets))
