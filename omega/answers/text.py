"""Text normalisation shared by extraction, validation and planning: canonical entities, negation, numbers.

Choice: a canonical entity is lower snake_case without a leading article, each word naively singularised
("Session tokens" -> "session_token"); words ending in -ss, -us, -is keep their s ("access", "status").
"""

from __future__ import annotations

import re

ARTICLES = frozenset({"the", "a", "an", "their", "its", "his", "her", "our", "your", "all", "every", "each"})
NEGATION_CUES = frozenset({"not", "never", "no", "cannot", "without", "none", "neither", "nor"})
_WORD = re.compile(r"[a-z0-9]+")
NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")


def singular(word: str) -> str:
    """Naive singular of one lowercase word (the canonical form is a convention, not English grammar)."""
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def canonical_entity(phrase: str) -> str:
    """`The Session Tokens` -> `session_token`: lowercase words, no leading article, singular, joined by `_`."""
    words = _WORD.findall(phrase.lower().replace("'s ", " "))
    while words and words[0] in ARTICLES:
        words = words[1:]
    return "_".join(singular(w) for w in words)


def contains_entity(text: str, entity: str) -> bool:
    """Whether `entity` (canonical) is a canonical variant of some run of words in `text`."""
    words = [singular(w) for w in _WORD.findall(text.lower())]
    target = entity.split("_")
    return any(words[i:i + len(target)] == target for i in range(len(words) - len(target) + 1))


def is_negated(text: str) -> bool:
    """Whether the text carries a negation cue (`not`, `never`, `n't`, ...)."""
    lowered = text.lower()
    return "n't" in lowered or any(w in NEGATION_CUES for w in _WORD.findall(lowered))


def numbers_in(value: str) -> list[str]:
    """The numbers written in a text, as written."""
    return NUMBER.findall(value)
