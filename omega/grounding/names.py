"""Names a fact states in another form (issue 19, rule 5: recall that is safe).

Rests on the contract's §5.1 "Rephrasing factual content without changing meaning": a name in another form is
the same referent only when nothing else in the cited facts could be meant (G-5: ambiguous evidence is refused).

- A partial name matches the full name when the cited facts name no other candidate: "Bogart" in a fact covers
  "Humphrey Bogart" in the sentence, and "Yale" covers "Yale University", unless the facts also name another
  "... Bogart" or "Yale ..." (then the sentence's name may be the other one, and it stays unstated).
- A short given name is the full one when the last name is the same and no other name in the facts ends in it
  ("Chris Kyle" for "Christopher Scott Kyle", "Tim Roth" for "Timothy Simon Roth").
- A demonym is its country: "Irish" covers "Ireland", "American" covers "United States"; a country is covered by
  its demonym only in attributive use ("a Chinese university" states China, "known in Chinese as" does not).
- An acronym (in the sentence a capitalised word of two to six letters, in a fact two to six capitals) is the words
  whose initials it spells in a row: a sentence's "IRR" is a cited fact's "incidence rate ratio", a sentence's
  "confidence interval" a fact's "95% CI"; a genus shortened to its initial is the genus before the same species
  word ("C. difficile" for "Clostridioides difficile"): the writer's abbreviation of what the fact says, §5.1
  (units and names "spelled out and abbreviated").
All of these only widen what counts as stated; a word they cover must still be bound in its clause like any other
(`binding`), through the part of the name that is stated.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from omega.grounding.facts import AtomicFact
from omega.grounding.memo import ByObject
from omega.grounding.tokens import FUNCTION_WORDS, Analysis, normal
from omega.grounding.words import DEMONYMS, place_mark, words

_DEMONYM_OF = {normal(d): tuple(normal(w) for w in place) for d, place in DEMONYMS.items()}
_PLACES = tuple((place_mark(d), frozenset(normal(w) for w in place)) for d, place in DEMONYMS.items())


def name_partners(claim: Analysis, cited: Sequence[AtomicFact]) -> dict[str, frozenset[str]]:
    """For each sentence token a fact may state in another form, the fact tokens that state it: the stated part
    of a partial name ("humphrey" -> {"bogart"}), or the demonym / country ("china" -> {"chinese"})."""
    out: dict[str, frozenset[str]] = {}
    facts = [f.analysis for f in cited]
    fact_names = [_name(run) for f in facts for run in f.names]
    for run in claim.names:
        tokens = _name(run)
        inside = [p for p in fact_names if p and p < tokens]
        rivals = [p for p in fact_names if p & tokens and not p <= tokens]
        if inside and not rivals:
            partner = max(inside, key=len)
            out.update(dict.fromkeys(tokens - partner, partner))
        elif not inside:
            out.update(_short_forms(run, [r for f in facts for r in f.names]))
    for token in claim.tokens:
        country = _DEMONYM_OF.get(token)
        if country is not None:
            out.setdefault(token, frozenset(country))
    for mark, place in _PLACES:
        if place <= claim.tokens:
            out.update({t: frozenset({mark}) for t in place if t not in out})
    # an acronym is a capitalised word of its own (a name run of one word); a genus initial one letter
    capitals = [(normal(run[0]), run[0]) for run in claim.names if len(run) == 1 and 2 <= len(run[0]) <= 6] + [
        (t, t.removeprefix(_ENTITY)) for t in claim.tokens if len(t.removeprefix(_ENTITY)) == 1]
    for token, letters in capitals:
        if token not in out and not any(token in f.tokens for f in facts):
            spelled = _spelled_out(letters, claim.lowered, facts)
            if spelled:
                out[token] = spelled
    # the converse: words of the sentence a fact's acronym stands for ("confidence interval" for "95% CI")
    acronyms = frozenset().union(*(_acronyms(f) for f in cited))
    if acronyms:
        said = _content_words(claim.lowered)
        for acronym in sorted(acronyms):
            for stretch in _spellings(said, acronym):
                out.update({t: frozenset({normal(acronym)}) for t in map(normal, stretch) if t not in out})
    return out


# a word of two to six capitals (a plural "s" aside) in a fact's own text: "CI", "SDF", "NDVIs"
_ACRONYM = re.compile(r"\b([A-Z]{2,6})s?\b")
_acronyms: ByObject[AtomicFact, frozenset[str]] = ByObject(
    lambda fact: frozenset(m.group(1).lower() for m in _ACRONYM.finditer(fact.content)))

_ENTITY = "entity"  # `tokens` marks a capital letter standing alone ("drug B", "C. difficile") as entity<letter>


def _spelled_out(letters: str, claim_text: str, facts: Sequence[Analysis]) -> frozenset[str]:
    """The fact words an acronym's letters are the initials of, in a row ("irr": "incidence rate ratio"); for one
    letter, the genus it shortens before the species word the sentence gives it ("c. difficile")."""
    if len(letters) == 1:
        species = re.search(rf"\b(?:{_ENTITY})?{letters}\. ([a-z]+)", claim_text)
        if species is None:
            return frozenset()
        genus = (re.search(rf"\b({letters}[a-z]+) {species.group(1)}\b", f.lowered) for f in facts)
        return next((frozenset({normal(m.group(1))}) for m in genus if m is not None), frozenset())
    spelled = (next(_spellings(_content_words(f.lowered), letters), None) for f in facts)
    return next((frozenset(map(normal, run)) for run in spelled if run is not None), frozenset())


def _content_words(text: str) -> list[str]:
    return [w.lower for w in words(text) if w.lower not in FUNCTION_WORDS]


def _spellings(run: list[str], letters: str) -> Iterator[list[str]]:
    """Each stretch of `len(letters)` words in a row of `run` whose initials are `letters`, in order."""
    for i in range(len(run) - len(letters) + 1):
        if all(run[i + k][:1] == letter for k, letter in enumerate(letters)):
            yield run[i:i + len(letters)]


def stated_by_name(partners: dict[str, frozenset[str]], stated: frozenset[str]) -> frozenset[str]:
    """The sentence's tokens not in `stated` whose partner tokens (`name_partners`) are all in it."""
    return frozenset(t for t, p in partners.items() if t not in stated and p <= stated)


def _short_forms(run: tuple[str, ...], fact_runs: list[tuple[str, ...]]) -> dict[str, frozenset[str]]:
    """"Chris Kyle" for "Christopher Scott Kyle": the same last name, each given name of the sentence the start
    (three letters or more) of one of the fact's, and no other name in the facts ending in that last name."""
    if len(run) < 2:
        return {}
    same = [r for r in fact_runs if r[-1] == run[-1] and len(r) > 1]
    if len(same) != 1:
        return {}
    out: dict[str, frozenset[str]] = {}
    for given in run[:-1]:
        full = next((w for w in same[0][:-1] if len(given) >= 3 and w != given and w.startswith(given)), None)
        if full is None:
            return {}
        out[normal(given)] = frozenset({normal(full)})
    return out


def _name(run: tuple[str, ...]) -> frozenset[str]:
    return frozenset(normal(w) for w in run if w not in FUNCTION_WORDS)
