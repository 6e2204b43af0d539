"""§5.1 "Rephrasing factual content without changing meaning": a claim word its cited facts do not state is read
as a fact word when the two are the same word in another form (issue 42, item 3).

The same word, and nothing more (G-3: a synonym table is language; a mechanism, a cause or a wider class is not):
- inflection: lemmas from lemminflect ("enrolled" = "enroll", "titres" = "titre", "fell" = "fall");
- derivation: WordNet 3.0's derivationally related forms ("a reduction" = "reduced", "efficacious" = "efficacy");
- synonymy: words sharing one of the first three senses of each (`scripts/wordnet_table.py`: "analysed" =
  "examined"); a hypernym is not a synonym ("drug" does not cover "vaccine"): widening the class is §5.2 scope
  expansion, so WordNet's hypernyms are not read at all.
A synonym's synonym is not followed: one step, so "fall" reaches "drop" but not what "drop" reaches.

A word whose other form a fact states among the words the analysis reads as carrying no claim ("analysis", "study",
"report": `tokens.FUNCTION_WORDS`) is that word, said (`said_as_function_words`): "samples were analysed" by
"analysis of samples". The fact must still say it: a sentence adding "and analysed" to a fact without it fails.

A negated word is entailed by its antonym affirmed (`negated_antonym`): "are not included" by "exclude", "did not
rise" by "fell". The converse is not read: antonyms are often contraries ("did not rise" may be "stayed level"),
so a fact's "did not rise" never gives a sentence's "fell". One negated clause, one word: the antonym must be
the only word its cited facts do not state, and no cited fact may be negated itself.

Never read this way: names (a capitalised word is a name, not a word to translate, except a sentence's first word
when it stands alone and WordNet knows it), numbers, and every word
another check owns (qualifier terms, scope and strength words, units, negations): a rephrased "caused" must
still meet the causal check as "caused". The claim keeps each word's spelling for its reasons; only the token
it is compared by changes, and `aligned` says which words it read as which.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from omega.grounding.facts import AtomicFact
from omega.grounding.memo import ByObject
from omega.grounding.tokens import FUNCTION_WORDS, Analysis, Clause

TABLE = Path(__file__).resolve().parent / "data" / "wordnet-3.0.tsv"


class Alignment(NamedTuple):
    """The claim as compared, the readings made ("reduction = reduced") and the token mapping behind them."""

    claim: Analysis
    readings: tuple[str, ...]
    mapping: Mapping[str, str]


@lru_cache(maxsize=1)
def _tables() -> tuple[Mapping[str, frozenset[str]], Mapping[str, frozenset[str]], Mapping[str, frozenset[str]]]:
    """word -> its synonyms and derived forms (one step), word -> its antonyms, and word -> its derived forms
    alone, read once from the committed WordNet table."""
    same: dict[str, frozenset[str]] = {}
    opposite: dict[str, frozenset[str]] = {}
    forms: dict[str, frozenset[str]] = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        word, synonyms, derived, antonym = line.split("\t")
        same[word] = frozenset(synonyms.split()) | frozenset(derived.split())
        if derived:
            forms[word] = frozenset(derived.split())
        if antonym:
            opposite[word] = frozenset(antonym.split())
    return same, opposite, forms


@lru_cache(maxsize=65536)
def antonyms(word: str) -> frozenset[str]:
    """The antonyms (WordNet) of the word's lemmas."""
    table = _tables()[1]
    return frozenset().union(*(table.get(lemma, frozenset()) for lemma in lemmas(word)))


@lru_cache(maxsize=65536)
def lemmas(word: str) -> frozenset[str]:
    """The word and its lemmas in every part of speech (lemminflect), lower case; a word lemminflect does not know
    ("titres") by its rules for nouns."""
    from lemminflect import getAllLemmas, getAllLemmasOOV  # tables load in about 0.3 s: only when needed

    found = {word}
    known = getAllLemmas(word)
    for forms in (known or getAllLemmasOOV(word, "NOUN")).values():  # a word it has not seen: a noun's rules
        found.update(forms)
    same = _tables()[0]
    # WordNet spells -ize/-yze and keeps its derivations there ("analyze" -> "analysis"); the British spelling is
    # the same word ("analysed" = "analysis")
    found.update(v for v in (_AMERICAN.sub(r"\1z\2", f) for f in tuple(found)) if v in same)
    return frozenset(found)


_AMERICAN = re.compile(r"([iy])s(e|ation|er)$")


@lru_cache(maxsize=65536)
def related(word: str) -> frozenset[str]:
    """Every lemma the word may stand for: its own lemmas, and their synonyms and derived forms."""
    own = lemmas(word)
    table = _tables()[0]
    return own.union(*(table.get(lemma, frozenset()) for lemma in own))


def _lemma_index(fact: AtomicFact) -> Mapping[str, str]:
    """A fact's lemmas -> the token each stands for in the fact's analysis."""
    index: dict[str, str] = {}
    for normal, surface in fact.analysis.surface:
        for lemma in lemmas(surface):
            index.setdefault(lemma, normal)
    return index


_fact_lemmas: ByObject[AtomicFact, Mapping[str, str]] = ByObject(_lemma_index)


def _facts_lemma_index(facts: Sequence[AtomicFact]) -> dict[str, str]:
    """The cited facts' lemmas -> the token each stands for, the first fact's where two share a lemma."""
    index: dict[str, str] = {}
    for fact in facts:
        for lemma, normal in _fact_lemmas(fact).items():
            index.setdefault(lemma, normal)
    return index


def aligned(claim: Analysis, facts: Sequence[AtomicFact], owned: frozenset[str]) -> Alignment:
    """The claim with each unstated word that is a fact word in another form read as that fact word."""
    stated = frozenset().union(*(f.analysis.tokens | f.analysis.places for f in facts)) if facts else frozenset()
    named = frozenset(w for name in claim.names for w in name if not _opening_word(claim, name))
    index = _facts_lemma_index(facts)
    spelled = dict(claim.surface)
    mapping: dict[str, str] = {}
    readings: list[str] = []
    for normal, surface in claim.surface:
        if normal in stated or normal in owned or normal in mapping or surface in named or not surface.isalpha():
            continue
        target = next((index[w] for w in sorted(related(surface)) if w in index and index[w] not in owned
                       and (index[w] not in claim.tokens or _one_word(surface, w))), None)
        if target is not None:
            mapping[normal] = target
            readings.append(f"{spelled.get(normal, surface)} = {_fact_word(facts, target)}")
    if not mapping:
        return Alignment(claim, (), {})
    return Alignment(renamed(claim, mapping), tuple(readings), mapping)


def said_as_function_words(claim: Analysis, facts: Sequence[AtomicFact], owned: frozenset[str],
                           also_owned: frozenset[str] = frozenset()) -> tuple[frozenset[str], tuple[str, ...]]:
    """The claim's unstated words that a cited fact says in another form as a word without claim of its own
    ("analysed" by "analysis"), and the readings made."""
    said = frozenset(w for f in facts for w in _WORD.findall(f.analysis.lowered) if w in FUNCTION_WORDS)
    stated = frozenset().union(*(f.analysis.tokens for f in facts)) if facts else frozenset()
    found: dict[str, str] = {}
    for normal, surface in claim.surface:
        if normal in stated or normal in owned or normal in also_owned or normal in found or not surface.isalpha():
            continue
        word = next((w for w in sorted(related(surface)) if w in said and w != surface), None)
        if word is not None:
            found[normal] = f"{surface} = {word}"
    return frozenset(found), tuple(found.values())


_WORD = re.compile(r"[a-z]+")


def negated_antonym(claim: Analysis, facts: Sequence[AtomicFact], owned: frozenset[str]) -> Alignment:
    """The claim's one negated word read as a fact word it is the antonym of ("not included" = "exclude"), the
    negation spent on it; the claim unchanged when there is no such word or more than one."""
    if not claim.negated or sum(c.negated for c in claim.clauses) != 1 or any(f.analysis.negated for f in facts):
        return Alignment(claim, (), {})
    stated = frozenset().union(*(f.analysis.tokens | f.analysis.places for f in facts))
    unstated = [(n, s) for n, s in dict(claim.surface).items() if n not in stated and n not in owned
                and n in claim.content]
    if len(unstated) != 1 or not re.search(rf"\b(?:not|never)\s+(?:[a-z]+\s+)?{re.escape(unstated[0][1])}\b",
                                            claim.lowered):
        return Alignment(claim, (), {})  # the negation must be the word's: "not included", "did not rise"
    normal, surface = unstated[0]
    index = _facts_lemma_index(facts)
    target = next((index[w] for w in sorted(antonyms(surface)) if w in index and index[w] not in owned), None)
    if target is None:
        return Alignment(claim, (), {})
    affirmed = renamed(claim, {normal: target})
    affirmed = replace(affirmed, negated=False, clauses=tuple(replace(c, negated=False) for c in affirmed.clauses))
    return Alignment(affirmed, (f"not {surface} = {_fact_word(facts, target)}, its antonym affirmed",),
                     {normal: target})


def _one_word(a: str, b: str) -> bool:
    """The same word in two forms (an inflection or a derivation: "delivery" / "delivered"), not two synonyms. A
    fact word the sentence says itself covers that word; a synonym of it in the sentence is another claim
    ("pregnancy" is not read as the "maternity" of "maternity hospitals" the sentence also names)."""
    own, other = lemmas(a), lemmas(b)
    forms = _tables()[2]
    return bool(own & other) or any(forms.get(x, frozenset()) & other for x in own)


def _opening_word(claim: Analysis, name: tuple[str, ...]) -> bool:
    """A one-word "name" that is only the sentence's capitalised first word and a word of the language
    ("Loneliness was reported ..."): a word to read like any other."""
    return len(name) == 1 and claim.lowered.startswith(name[0]) and name[0] in _tables()[0]


def _fact_word(facts: Sequence[AtomicFact], normal: str) -> str:
    for fact in facts:
        for n, surface in fact.analysis.surface:
            if n == normal:
                return surface
    return normal  # pragma: no cover - the target was read from these facts


def renamed(claim: Analysis, mapping: Mapping[str, str]) -> Analysis:
    """The claim compared by other tokens: each `mapping` key read as its value (spellings kept for reasons)."""
    def each(tokens: frozenset[str]) -> frozenset[str]:
        return frozenset(mapping.get(t, t) for t in tokens)

    return replace(
        claim, tokens=each(claim.tokens), content=tuple(mapping.get(t, t) for t in claim.content),
        surface=claim.surface + tuple((mapping[n], s) for n, s in claim.surface if n in mapping),
        clauses=tuple(Clause(each(c.tokens), c.quantities, c.negated, c.places) for c in claim.clauses),
        subject=each(claim.subject), nominal=each(claim.nominal))
