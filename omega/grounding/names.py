"""Names a fact states in another form (issue 19, rule 5: recall that is safe).

- A partial name matches the full name when the cited facts name no other candidate: "Bogart" in a fact covers
  "Humphrey Bogart" in the sentence, and "Yale" covers "Yale University", unless the facts also name another
  "... Bogart" or "Yale ..." (then the sentence's name may be the other one, and it stays unstated).
- A demonym is its country: "Irish" covers "Ireland", "American" covers "United States"; a country is covered by
  its demonym only in attributive use ("a Chinese university" states China, "known in Chinese as" does not).
Both only widen what counts as stated; a word they cover must still be bound in its clause like any other
(`binding`), through the part of the name that is stated.
"""

from __future__ import annotations

from collections.abc import Sequence

from omega.grounding.tokens import FUNCTION_WORDS, Analysis, normal
from omega.grounding.words import DEMONYMS, place_mark

_DEMONYM_OF = {normal(d): tuple(normal(w) for w in place) for d, place in DEMONYMS.items()}


def name_partners(claim: Analysis, facts: Sequence[Analysis]) -> dict[str, frozenset[str]]:
    """For each sentence token a fact may state in another form, the fact tokens that state it: the stated part
    of a partial name ("humphrey" -> {"bogart"}), or the demonym / country ("china" -> {"chinese"})."""
    out: dict[str, frozenset[str]] = {}
    fact_names = [_name(run) for f in facts for run in f.names]
    for run in claim.names:
        tokens = _name(run)
        inside = [p for p in fact_names if p and p < tokens]
        rivals = [p for p in fact_names if p & tokens and not p <= tokens]
        if inside and not rivals:
            partner = max(inside, key=len)
            out.update(dict.fromkeys(tokens - partner, partner))
    for token in claim.tokens:
        place = _DEMONYM_OF.get(token)
        if place is not None:
            out.setdefault(token, frozenset(place))
    for demonym, place in DEMONYMS.items():
        if {normal(w) for w in place} <= claim.tokens:
            out.update({normal(w): frozenset({place_mark(demonym)}) for w in place if normal(w) not in out})
    return out


def stated_by_name(claim: Analysis, facts: Sequence[Analysis], stated: frozenset[str]) -> frozenset[str]:
    """The sentence's tokens not in `stated` whose partner tokens (`name_partners`) are all in it."""
    partners = name_partners(claim, facts)
    return frozenset(t for t, p in partners.items() if t not in stated and p <= stated)


def _name(run: tuple[str, ...]) -> frozenset[str]:
    return frozenset(normal(w) for w in run if w not in FUNCTION_WORDS)
