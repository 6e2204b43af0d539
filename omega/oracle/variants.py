"""Oracle-B's deterministic adversarial variants of an output (match keys in, match keys out): negation,
permutation, injection, truncation, substitution. No randomness: the same output gives the same variants."""

from __future__ import annotations

import re
from collections.abc import Sequence

from omega.oracle.normalise import NEGATIONS, number_spans

_AUXILIARY = re.compile(r"(?<![^\W\d_])(?:is|are|was|were|has|have|had|can|will|does|do|did|shall|should|must|may)"
                        r"(?![^\W\d_])")
_NEGATION = re.compile(r"(?<![^\W\d_])(?:" + "|".join(sorted(NEGATIONS)) + r"|[^\W\d_]+n't)(?![^\W\d_])")


def negate(key: str) -> str:
    """Flip the claim's polarity: drop its first negation word, else add "not" after the first auxiliary,
    else put "not" in front."""
    found = _NEGATION.search(key)
    if found:
        return " ".join((key[:found.start()] + key[found.end():]).split())
    aux = _AUXILIARY.search(key)
    if aux:
        return f"{key[:aux.end()]} not{key[aux.end():]}"
    return f"not {key}"


def substitute(key: str) -> str | None:
    """Change every numeric value (last digit + 1, mod 10); None when the text has no number."""
    spans = number_spans(key)
    if not spans:
        return None
    out, last = [], 0
    for _, end in spans:
        digit = int(key[end - 1])
        out.append(key[last:end - 1] + str((digit + 1) % 10))
        last = end
    return "".join(out) + key[last:]


def permute(keys: Sequence[str]) -> list[str]:
    """The segments in reverse order."""
    return list(reversed(keys))


def injected_sentence(seed: str) -> str:
    """An unsupported claim built from the case hash (hex mapped to letters, so it holds no number)."""
    token = "".join(chr(ord("a") + int(c, 16)) for c in seed[:12])
    return f"unverified record {token} confirms an unlisted value"


def inject(keys: Sequence[str], seed: str) -> list[str]:
    """The segments with an unsupported claim appended."""
    return [*keys, injected_sentence(seed)]


def truncate(keys: Sequence[str]) -> list[str]:
    """Drop the last segment; a single segment is cut to its first half of words."""
    if len(keys) > 1:
        return list(keys[:-1])
    if not keys:
        return []
    parts = keys[0].split()
    return [" ".join(parts[: max(1, len(parts) // 2)])]
