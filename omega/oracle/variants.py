"""Oracle-B's deterministic adversarial variants of an output: negation, permutation, injection, truncation,
substitution. They take segment texts with their case (DERIV-CANON-001 reads case: a capital "A" is a
label) and match words case-insensitively, so a variant's match key is the variant of the match key. No
randomness: the same output gives the same variants."""

from __future__ import annotations

import re
from collections.abc import Sequence

from omega.oracle.normalise import NEGATIONS, number_spans

_AUXILIARY = re.compile(r"(?<![^\W\d_])(?:is|are|was|were|has|have|had|can|will|does|do|did|shall|should|must|may)"
                        r"(?![^\W\d_])", re.IGNORECASE)
_NEGATION = re.compile(r"(?<![^\W\d_])(?:" + "|".join(sorted(NEGATIONS)) + r"|[^\W\d_]+n['\u2019]t)(?![^\W\d_])",
                       re.IGNORECASE)


def negate(text: str) -> str:
    """Flip the claim's polarity: drop its first negation word, else add "not" after the first auxiliary,
    else put "not" in front."""
    found = _NEGATION.search(text)
    if found:
        return " ".join((text[:found.start()] + text[found.end():]).split())
    aux = _AUXILIARY.search(text)
    if aux:
        return f"{text[:aux.end()]} not{text[aux.end():]}"
    return f"not {text}"


def substitute(text: str) -> str | None:
    """Change every numeric value (last digit + 1, mod 10); None when the text has no number."""
    spans = number_spans(text)
    if not spans:
        return None
    out, last = [], 0
    for _, end in spans:
        digit = int(text[end - 1])
        out.append(text[last:end - 1] + str((digit + 1) % 10))
        last = end
    return "".join(out) + text[last:]


def permute(texts: Sequence[str]) -> list[str]:
    """The segments in reverse order."""
    return list(reversed(texts))


def injected_sentence(seed: str) -> str:
    """An unsupported claim built from the case hash (hex mapped to letters, so it holds no number)."""
    token = "".join(chr(ord("a") + int(c, 16)) for c in seed[:12])
    return f"unverified record {token} confirms an unlisted value"


def inject(texts: Sequence[str], seed: str) -> list[str]:
    """The segments with an unsupported claim appended."""
    return [*texts, injected_sentence(seed)]


def truncate(texts: Sequence[str]) -> list[str]:
    """Drop the last segment; a single segment is cut to its first half of words."""
    if len(texts) > 1:
        return list(texts[:-1])
    if not texts:
        return []
    parts = texts[0].split()
    return [" ".join(parts[: max(1, len(parts) // 2)])]
