"""DERIV-CANON-001, the canonical form of a claim and of a fact: surface wording normalised, content kept.

Why: outputs written by real LLMs say "The valve is open." where the fact says "Valve open.", "5 minutes"
where it says "5 min", "100 requests per second" where it says "100 req/s". RULE-PREC-004 as published
compares the texts themselves (seed `phase-q-oracle-rules.md`, RULE-PREC-004 "Match Strategy":
case-insensitive, whitespace-normalised, no stemming or semantic analysis), so such a claim is counted as
unsupported although it states the fact (issue 18). RULE-PREC-001 lets a claim be supported by "a
derivation rule explicitly defined" (seed, RULE-PREC-001 "Definition", item 2; `phase-q-pipeline.md`,
Q-INV-01: "or derived by an explicit rule"), and rules are immutable once published (seed,
"Extensibility"), so this is a derivation rule with its own id, next to DERIV-CONJ-001 (`sourcing`), not a
change of RULE-PREC-004. It is no stemming and no semantic analysis: it drops words that carry no claim
and respells units through one fixed table, never touching a negation, a number, a comparator or any other
content word. The same function is applied to the sentence and to every fact; when the match keys do
not source a claim, `sourcing` runs the two-way containment, DERIV-CONJ-001 and the polarity guard again
on the canonical forms, and flags a claim sourced only there.

The canonical form of a text, step by step (deterministic; no list of words beyond the constants below):

1. Whitespace normalised (`normalise`); typographic apostrophes (U+2018, U+2019, U+02BC) become "'", as in
   the match key.
2. Contractions of "be": "isn't", "aren't", "wasn't", "weren't" become "not" (the negation stays, the
   copula goes as in step 4); "'re" and "'m" ("they're", "I'm") are dropped. "'s" is left as written: it
   is "is", "has" or a possessive ("the pump's"), and telling them apart needs a parser.
3. Articles, as standalone words (between spaces or brackets and punctuation, so never inside "a-b",
   "4a" or "a/b"): "the" and "an" in any case but all-capital "AN" (an acronym); "a" only in lower case,
   and only when the next word is none of `LABEL_FOLLOWERS` nor punctuation or the end. A capital "A"
   ("tank A", "Sample A", "A is open") and the "a" of "tank a is 4.5 bar" are labels, content words, and
   stay: a label read as an article would let a claim about A be sourced by a fact about B. A lower-case
   label before a noun ("sample a density") is read as an article: labels are written in capitals.
4. Forms of "be" (`BE_FORMS`), as standalone words: "is", "are", "was", "were", "been", "being" in any
   case; "be" in lower case only ("Be" is also beryllium); "am" only right after "I" ("8 AM" is a time).
5. Lower case. A number directly followed by letters is split from them ("311s" -> "311 s", "2mm" ->
   "2 mm"; not "C4" or "cm3", whose digits follow a letter); spaces around "/" are removed; "per cent"
   after a number is "percent".
6. "X per Y" becomes "X/Y" when X is a number, a word right after a number, a word right after "/" or a
   spelling of `UNIT_SPELLINGS`, and Y is a word ("100 requests per second" -> "100 requests/second";
   "as per manual" stays).
7. A spelling of `UNIT_SPELLINGS` becomes its abbreviation in unit position only: right after a number,
   or right before or after "/" ("100 requests/second" -> "100 req/s", "5 minutes" -> "5 min"). Elsewhere
   nothing is rewritten ("the second valve", "working hours", "s" as a letter). "N %" becomes "N%".
8. Whitespace collapsed, trailing sentence punctuation removed, as in the match key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Final

from omega.oracle.normalise import APOSTROPHES, normalise

CANONICAL_RULE: Final = "DERIV-CANON-001"

# Issue 18's list: `X per Y` = `X/Y` (step 6), requests = req, minute(s) = min, second(s) = s = sec,
# hour(s) = h = hr, percent = %; plus milliseconds and degrees, whose abbreviations name one unit only.
# Deliberately absent: spellings whose abbreviation names two units once lower-cased ("mg" is milligram
# and milli-g, "m" metre and minute, "mb" megabyte and millibar): rewriting them could source a claim in
# the wrong unit. Each abbreviation maps to the spellings rewritten to it.
UNIT_SPELLINGS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType({
    "%": ("percent", "pct"),
    "s": ("second", "seconds", "sec", "secs"),
    "ms": ("millisecond", "milliseconds", "msec", "msecs"),
    "min": ("minute", "minutes", "mins"),
    "h": ("hour", "hours", "hr", "hrs"),
    "req": ("request", "requests", "reqs"),
    "deg": ("degree", "degrees"),
})
ARTICLES: Final = frozenset({"a", "an", "the"})
BE_FORMS: Final = frozenset({"be", "is", "are", "was", "were", "been", "being", "am"})
# After these, a lower-case "a" is a label ("tank a is", "plan a or b"): an article precedes a noun phrase.
LABEL_FOLLOWERS: Final = BE_FORMS | frozenset({
    "and", "or", "nor", "has", "have", "had", "do", "does", "did", "can", "could", "will", "would", "shall",
    "should", "may", "might", "must",
})

_SPELLING = {spelling: unit for unit, spellings in UNIT_SPELLINGS.items() for spelling in spellings}
_UNIT_WORDS = sorted({*_SPELLING, *(u for u in UNIT_SPELLINGS if u.isalpha())}, key=lambda w: (-len(w), w))
_NOT_CONTRACTION = re.compile(r"(?<![^\W\d_])(?:is|are|was|were)n't(?![^\W\d_])", re.IGNORECASE)
_BE_CONTRACTION = re.compile(r"(?<=[^\W\d_])'(?:re|m)(?![^\W\d_])", re.IGNORECASE)
_STANDALONE = re.compile(r"(?<![^\s(\[\"])[^\W\d_]+(?=$|[\s,;:!?)\]\"]|\.(?!\w))")
_NEXT_WORD = re.compile(r" ([^\W_]+)")
_PREVIOUS_WORD = re.compile(r"([^\W_]+) $")
_NUMBER = r"(?<![^\W\d_])(?<![\d.])\d+(?:[.,]\d+)*"
_NUMBER_LETTERS = re.compile(rf"({_NUMBER})(?=[^\W\d_])")
_NUMBER_BEFORE = re.compile(rf"{_NUMBER} $")
_SLASH = re.compile(r"\s*/\s*")
_PER_CENT = re.compile(r"(?<=\d) per cent(?![^\W\d_])")
_PER = re.compile(rf"({_NUMBER}(?: [^\W\d_]+)?|(?<=/)[^\W\d_]+|(?<![^\W\d_])(?:{'|'.join(_UNIT_WORDS)})"
                  r"(?![^\W\d_])) per (?=[^\W\d_])")
_WORD = re.compile(r"(?<![^\W\d_])[^\W\d_]+(?![^\W\d_])")
_PERCENT_GAP = re.compile(r"(?<=\d) %")
_TRAILING = re.compile(r"[\s.!?]+$")
_WHITESPACE = re.compile(r"\s+")


def _label_follows(text: str, end: int) -> bool:
    found = _NEXT_WORD.match(text, end)
    return found is None or found.group(1).lower() in LABEL_FOLLOWERS


def _dropped(text: str, word: str, start: int, end: int) -> bool:
    """Whether a standalone word is an article (step 3) or a form of "be" (step 4)."""
    lower = word.lower()
    if lower in BE_FORMS:
        if lower == "be":
            return word == "be"
        if lower == "am":
            before = _PREVIOUS_WORD.search(text, 0, start)
            return before is not None and before.group(1).lower() == "i"
        return True
    if lower in ARTICLES:
        if lower == "a":
            return word == "a" and not _label_follows(text, end)
        return word != "AN"
    return False


def _drop_articles_and_be(text: str) -> str:
    pieces: list[str] = []
    last = 0
    for found in _STANDALONE.finditer(text):
        start, end = found.span()
        if not _dropped(text, found.group(), start, end):
            continue
        if start > last and text[start - 1] == " ":
            start -= 1
        elif text[end:end + 1] == " ":
            end += 1
        pieces.append(text[last:start])
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _in_unit_position(text: str, start: int, end: int) -> bool:
    return text[start - 1:start] == "/" or text[end:end + 1] == "/" or bool(_NUMBER_BEFORE.search(text, 0, start))


def _respell_units(text: str) -> str:
    def respell(found: re.Match[str]) -> str:
        word = found.group()
        unit = _SPELLING.get(word)
        return unit if unit is not None and _in_unit_position(text, *found.span()) else word
    return _WORD.sub(respell, text)


def _per_as_slash(text: str) -> str:
    while True:  # "N a per b per c": each pass rewrites the "per"s whose X is already known
        rewritten = _PER.sub(r"\1/", text)
        if rewritten == text:
            return text
        text = rewritten


@lru_cache(maxsize=8192)
def canonical_form(text: str) -> str:
    """The DERIV-CANON-001 form of a claim or a fact (steps in the module docstring); lower case."""
    out = normalise(text).translate(APOSTROPHES)
    out = _BE_CONTRACTION.sub("", _NOT_CONTRACTION.sub("not", out))
    out = _drop_articles_and_be(out).lower()
    out = _PER_CENT.sub(" percent", _SLASH.sub("/", _NUMBER_LETTERS.sub(r"\1 ", out)))
    out = _PERCENT_GAP.sub("%", _respell_units(_per_as_slash(out)))
    return _TRAILING.sub("", _WHITESPACE.sub(" ", out).strip())
