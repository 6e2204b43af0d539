"""Q-INV-05 normalisation and the text primitives every oracle shares: segments, term matching, numbers.

Decisions:

* Normalised text: CRLF and lone CR become LF, then every run of whitespace is one space, trimmed. The
  match key is the normalised text in lower case (the seed's "case-insensitive, whitespace-normalized"),
  with typographic apostrophes (U+2018, U+2019, U+02BC) written "'": LLMs write "isn\u2019t", and a negation
  word must be one whatever its apostrophe (the polarity guard, RULE-CONT-003, `is_negation`).
* Segments (the seed's sentences): `.`, `!` or `?` end a segment when followed by whitespace or the end of
  the text, so "3.2 MPa", "1.15" and "john.doe" are not split; a line break also ends one (lists are
  common in outputs). A segment without a letter or digit is not a claim and is dropped.
* Term matching respects word boundaries: an end of a term that is a letter must not touch another letter
  ("valid" is not in "invalid"), an end that is a digit must not touch a digit or a decimal part ("3.2"
  is not in "13.2", "1" is not in "1.15"); a digit next to a letter is a boundary, so "0.02" is in
  "+0.02mm". Ends that are punctuation need no boundary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_WHITESPACE = re.compile(r"\s+")
_SEGMENT_END = re.compile(r"[.!?]+(?=\s|$)|\n")
_HAS_CONTENT = re.compile(r"[^\W_]")
_TRAILING = re.compile(r"[\s.!?]+$")
_NUMBER = re.compile(r"(?<![^\W\d_])(?<![\d.])\d+(?:[.,]\d+)*")
NEGATIONS = frozenset({"not", "no", "never", "none", "nothing", "neither", "nor", "cannot", "without"})
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
APOSTROPHES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'"})


def normalise(text: str) -> str:
    """LF line endings, whitespace runs collapsed to one space, trimmed."""
    return _WHITESPACE.sub(" ", text.replace("\r\n", "\n").replace("\r", "\n")).strip()


def match_key(text: str) -> str:
    """The form every comparison uses: normalised, lower-cased, apostrophes folded, trailing sentence
    punctuation removed."""
    return _TRAILING.sub("", normalise(text).lower().translate(APOSTROPHES))


@dataclass(frozen=True)
class Segment:
    """One segment (sentence) of an output: its index, its normalised text and its match key."""

    index: int
    text: str
    key: str


def segments(text: str) -> list[Segment]:
    """The output's segments in order (see the module's decisions for the delimiters)."""
    lf = text.replace("\r\n", "\n").replace("\r", "\n")
    pieces: list[str] = []
    start = 0
    for found in _SEGMENT_END.finditer(lf):
        pieces.append(lf[start:found.end()])
        start = found.end()
    pieces.append(lf[start:])
    out: list[Segment] = []
    for piece in pieces:
        if _HAS_CONTENT.search(piece):
            out.append(Segment(len(out), normalise(piece), match_key(piece)))
    return out


def _boundary(char: str, side: str) -> str:
    if char.isalpha():
        return r"(?<![^\W\d_])" if side == "left" else r"(?![^\W\d_])"
    if char.isdigit():
        return r"(?<!\d)(?<!\d[.,])" if side == "left" else r"(?!\d)(?![.,]\d)"
    return ""


@lru_cache(maxsize=4096)
def term_pattern(term: str) -> re.Pattern[str] | None:
    """The compiled word-boundary-aware pattern of a term's match key; None for an empty term."""
    key = match_key(term)
    if not key:
        return None
    return re.compile(_boundary(key[0], "left") + re.escape(key) + _boundary(key[-1], "right"))


def find_term(term: str, key: str) -> re.Match[str] | None:
    """The first occurrence of `term` in a match key, respecting word boundaries."""
    pattern = term_pattern(term)
    return None if pattern is None else pattern.search(key)


def has_term(term: str, key: str) -> bool:
    """Whether `term` occurs in the match key `key` (case-insensitive, word boundaries)."""
    return find_term(term, key) is not None


def words(key: str) -> list[str]:
    """The words of a match key (letters and digits; an apostrophe inside a word is kept)."""
    return _WORD.findall(key)


def is_negation(word: str) -> bool:
    """A negation word ("not", "never", "isn't", ...)."""
    return word in NEGATIONS or word.endswith("n't")


def has_negation(key: str) -> bool:
    """Whether a match key holds a negation word."""
    return any(is_negation(w) for w in words(key))


def numbers(key: str) -> list[str]:
    """Numeric values of a text (not digits inside identifiers such as "C4" or "cm3")."""
    return _NUMBER.findall(key)


def number_spans(key: str) -> list[tuple[int, int]]:
    """Where the numeric values of `numbers` are."""
    return [m.span() for m in _NUMBER.finditer(key)]
