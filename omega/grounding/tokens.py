"""Tokens and their normal form: the deterministic basis of entailment.

Allowed rephrasing (issue, §5.1) is exactly: inflection (a small suffix-stripping lemmatiser plus irregular
forms), word order (tokens are compared as sets), function words (dropped, including the reporting verbs of
academic prose such as "found" or "reported") and the synonym table `SYNONYM_GROUPS` below. Everything else
a sentence says is claim-bearing and must be covered by its cited facts.

A capital letter after a lower-case word ("drug A") is an entity name, kept as a token. Hyphenated words split
into their parts ("double-blind" -> double, blind); contractions keep "n't" so the negation is seen.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from omega.grounding.quantities import SPELLED, Quantity, quantities

_WORD = re.compile(r"[a-zµ]+(?:'[a-z]+)?")
# "drug A", "Treatment X": a capital letter after a lower-case word names an entity; as a word it would be the
# article "a" (a function word) and "drug A" would cover "drug B".
_ENTITY_LETTER = re.compile(r"(?<=[a-z] )([A-Z])\b")

IRREGULAR = {
    "was": "be", "were": "be", "is": "be", "are": "be", "been": "be", "being": "be", "am": "be",
    "children": "child", "women": "woman", "men": "man", "led": "lead", "fell": "fall", "fallen": "fall",
    "rose": "rise", "risen": "rise", "grew": "grow", "grown": "grow", "took": "take", "taken": "take",
    "gave": "give", "given": "give", "had": "have", "has": "have", "did": "do", "does": "do", "done": "do",
    "analyses": "analysis", "mice": "mouse", "feet": "foot", "teeth": "tooth", "lower": "lower",
    "higher": "higher", "data": "data", "less": "less", "fewer": "fewer", "worse": "worse", "better": "better",
    "kept": "keep", "met": "meet", "ran": "run", "bound": "bind", "bred": "breed", "fed": "feed",
}

FUNCTION_WORDS = frozenset("""
a an the and or but of in on at to for from by with within into onto over under than as per via this that
these those it its their there here which who whom whose what when where while whereas be been being is are
was were am do does did done have has had having can will would shall should must i we you he she they them
our us his her also then thus therefore however moreover furthermore about after before during between among
across against along around through throughout toward towards upon up out off so such both each either other
another same own very just only found find finds report reports reported reporting observe observes observed
observing note noted notes show shows showed shown showing indicate indicates indicated study studies studied
authors investigators researchers researcher analysis whether respectively overall yet compared relative
""".split())  # noqa: SIM905 - a word list reads best as text

# The documented synonym table: each group's words count as the same claim-bearing token.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("decrease", "reduce", "lower", "diminish", "decline", "fall", "drop", "reduction", "decreased"),
    ("increase", "rise", "elevate", "raise", "grow", "increment"),
    ("participant", "subject", "enrollee"),
    ("associate", "association", "correlate", "correlation", "link", "linked", "related"),
    ("treatment", "therapy"),
    ("mortality", "death", "die"),
    ("older", "elderly"),
    ("use", "utilise", "utilize", "employ"),
    ("versus", "vs", "compare", "comparison"),
    ("receive", "administer", "administered", "give", "assign"),
    ("measure", "assess", "quantify", "measurement"),
    ("improve", "improvement"),
    ("symptom", "symptomatic"),
    ("adverse", "harmful"),
    ("group", "arm"),
    ("effect", "impact"),
    ("risk", "hazard"),
    ("rate", "incidence"),
    ("average", "mean"),
)
NEGATIONS = frozenset({"not", "no", "never", "without", "none", "neither", "nor", "absence", "absent", "lack"})


def lemma(word: str) -> str:
    """The normal form of one lower-case word: irregular forms, then one inflectional suffix, a final 'e' and
    a doubled final consonant removed ("reduced", "reduces", "reduce" -> "reduc")."""
    irregular = IRREGULAR.get(word)
    if irregular is not None:
        return irregular
    if len(word) <= 3:
        return word
    stem = word
    for suffix, replacement in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if stem.endswith(suffix) and len(stem) - len(suffix) >= 3:
            if suffix == "s" and stem.endswith(("ss", "us", "is")):
                continue
            if suffix == "es" and not stem.endswith(("sses", "xes", "zes", "ches", "shes")):
                continue  # "bumblebees" -> "bumblebee", like "bumblebee"; "classes" -> "class"
            stem = stem[: -len(suffix)] + replacement
            break
    if stem.endswith("e") and len(stem) > 3:
        stem = stem[:-1]
    if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        stem = stem[:-1]
    return stem


_SYNONYM_OF = {lemma(w): lemma(group[0]) for group in SYNONYM_GROUPS for w in group}


def normal(word: str) -> str:
    """Lemma, then the synonym table's representative."""
    stem = lemma(word)
    return _SYNONYM_OF.get(stem, stem)


def normals(words: Iterable[str]) -> frozenset[str]:
    """The normal forms of several surface words (for building lexicons the way text is analysed)."""
    return frozenset(normal(w) for w in words)


def lexicon(text: str) -> frozenset[str]:
    """The normal forms of the whitespace-separated words of `text` (a lexicon written as prose)."""
    return normals(text.split())


@dataclass(frozen=True, slots=True)
class Analysis:
    """A text as the checks see it: its lower-cased form, claim-bearing tokens, numbers and polarity."""

    lowered: str
    tokens: frozenset[str]
    content: tuple[str, ...]
    quantities: tuple[Quantity, ...]
    negated: bool
    surface: tuple[tuple[str, str], ...] = ()

    def spoken(self, tokens: Iterable[str]) -> list[str]:
        """Tokens as the text spelt them (first spelling), for readable reasons."""
        first = dict(reversed(self.surface))
        return [first.get(t, t) for t in tokens]

    @property
    def numbers(self) -> frozenset[str]:
        """The numbers as exact decimal text ("12" for "12.0")."""
        return frozenset(format(q.value.normalize(), "f") for q in self.quantities)


def analyse(text: str) -> Analysis:
    """Tokenise and normalise a text: every non-function word's normal form (negations kept apart)."""
    lowered = _ENTITY_LETTER.sub(lambda m: "entity" + m.group(1), text).lower().replace("\u2212", "-")
    words = [w for part in _WORD.findall(lowered) for w in part.split("-") if w]
    negated = any(w in NEGATIONS or w.endswith("n't") for w in words)
    kept = [w for w in words
            if w not in FUNCTION_WORDS and w not in NEGATIONS and w not in SPELLED and not w.endswith("n't")]
    content = tuple(normal(w) for w in kept)
    surface = tuple(zip(content, kept, strict=True))
    return Analysis(lowered, frozenset(content), content, quantities(lowered), negated, surface)
