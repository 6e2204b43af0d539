"""The §6.1 item "scope and strength fidelity" (G-4, §5.2): no claim stronger or wider than its facts.

Strength (CLAIM_STRENGTHENED):
- a causal cue ("caused", "led to", "due to", ...) the cited facts do not use: correlation stated as
  causation when they say "associated", "correlated", ...;
- a hedge of the cited facts ("may", "suggests", "preliminary", ...) dropped: the sentence has no hedge;
- an association of the cited facts ("associated", "correlated", ...) restated with a verb of change and no
  association word: "was associated with a 12% lower hazard" as "reduced the hazard by 12%" is correlation stated
  as causation (§5.2) without a causal word (issue 42); "had a lower incidence" describes, and passes;
- an intensifier the facts do not use ("proves", "significantly", "dramatically", "cures", ...).
Scope (SCOPE_EXPANSION):
- a universal quantifier the facts do not use ("all", "always", "never", "every", ...; a fact's "each" is used by
  "every" and "all"); "every" before a time unit
  ("sampled every month", "logged every 15 minutes") is a frequency, not a quantifier: it widens no scope, and the
  time unit itself is checked as the sentence's other words are (blind half 6: "monthly" written "every month");
- "both" / "the two" before a noun the cited facts name once, in the singular, with no "both", "two", "either" or
  "each" ("across both trial groups" for "within the app group"): one group's statement widened to two;
- an exclusive word the facts do not use ("only", "solely", "exclusively", ...);
- a generic population the facts do not name ("people", "humans", "the general population", ...);
- a sample generalised to a population: a cited fact speaks of its sample ("participants", "respondents",
  "cohort", "surveyed", ...) and the sentence neither names the sample nor states its size (the fact's largest plain
  count, years aside: "25,310 women").
- a measure widened: a cited fact's clause counts its number over a set a word narrows ("27.4% reported daily
  vaping", "3% had serious adverse events") and the sentence states that number with none of those words: it
  counts a wider set with the same value (§5.2 "alter scope"). Without the number the drop only generalises, which
  the facts entail.
Adding a hedge only weakens a claim and is allowed (a weaker statement is still entailed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from omega.grounding.facts import AtomicFact
from omega.grounding.memo import ByObject
from omega.grounding.model import CLAIM_STRENGTHENED, SCOPE_EXPANSION, Failure, quoted
from omega.grounding.quantities import sample_size
from omega.grounding.tokens import Analysis, lexicon

_EVERY = re.compile(r"\bevery\b")
_EVERY_TOKEN = lexicon("every")
_EVERY_PERIOD = re.compile(r"\bevery\s+(?:(?:\d[\d.,]*|other|two|three|four|five|six|seven|eight|nine|ten|twelve|"
                           r"fifteen|twenty|thirty)[\s-]+)?(?:second|minute|hour|day|week|fortnight|month|quarter|"
                           r"year)s?\b")


# "each gearbox failure" quantifies over all of them: "every" and "all" restate it (blind half 4)
_EACH = re.compile(r"\beach\b")
_DISTRIBUTIVE = lexicon("every all")


def _frequency(lowered: str) -> frozenset[str]:
    """{"every"} when each "every" of the sentence is a frequency ("every month", "every 15 minutes")."""
    count = len(_EVERY.findall(lowered))
    return _EVERY_TOKEN if count and count == len(_EVERY_PERIOD.findall(lowered)) else frozenset()


UNIVERSAL = lexicon("""all always never every everyone everybody any universally invariably entire entirely whole
    completely""")
# Exclusive words narrow the claim to one thing and deny every other: a scope the facts must state (issue 19).
EXCLUSIVE = lexicon("only solely exclusively purely merely")
GENERIC_POPULATION = lexicon("""people humans human population populations general public individuals worldwide globally
    society""")
# A survey's numbers are its respondents' (issue 42): "41% of 1,250 surveyed businesses" is not "41% of businesses".
SAMPLE_MARKERS = lexicon("""sample samples sampled participant participants respondent respondents enrolled cohort
    volunteers subjects survey surveyed surveys polled questionnaire interviewed""")
CAUSAL = lexicon("""cause causes caused causal causally causing induce induces induced drive drives driven
    prevent prevents prevented determine determines because consequence""")
CORRELATIONAL = lexicon("associated association correlated correlation linked related predicted")
HEDGES = lexicon("""may might could possibly possible suggest suggests suggested suggesting appear appears
    appeared likely potentially potential preliminary tentative tentatively perhaps uncertain
    unclear""")
STRENGTHENERS = lexicon("""prove proves proved proven demonstrate demonstrates demonstrated establish establishes
    established confirm confirms confirmed definitive definitively clear clearly strong
    strongly dramatic dramatically marked markedly substantial substantially great greatly
    significant significantly major cure cures cured eliminate eliminates eliminated guarantee
    guarantees conclusive conclusively undoubtedly certainly robust robustly highly""")
# Words that narrow the set a number counts: how often, how severe, how sure (see "a measure widened" above).
RESTRICTORS = lexicon("""daily weekly monthly nightly hourly yearly annual regular regularly frequent frequently
    occasional heavy severe serious moderate mild current currently lifetime confirmed symptomatic persistent
    chronic acute recurrent""")
OWNED = UNIVERSAL | EXCLUSIVE | GENERIC_POPULATION | CAUSAL | HEDGES | STRENGTHENERS
_CHANGE_VERB = re.compile(r"\b(?:reduc|lower|increas|rais|improv|decreas|boost|prevent|cut|halv|doubl)(?:ed|es|s)\b")
_CAUSAL_PHRASE = re.compile(r"\b(?:(lead|leads|led|leading) to|(result|results|resulted|resulting) in|due to|"
                            r"responsible for)\b")


def causal_cues(analysis: Analysis) -> frozenset[str]:
    """Causal words and phrases of a text, normalised ("led to" and "leads to" are one cue)."""
    phrases = {"lead to" if m.group(1) else "result in" if m.group(2) else m.group(0)
               for m in _CAUSAL_PHRASE.finditer(analysis.lowered)}
    return frozenset(phrases) | (analysis.tokens & CAUSAL)


def _cues_of(fact: AtomicFact) -> frozenset[str]:
    return causal_cues(fact.analysis)


_fact_cues = ByObject(_cues_of)  # once per fact: every sentence citing it asks again


def scope_and_strength_fidelity(claim: Analysis, facts: Sequence[AtomicFact]) -> list[Failure]:
    """§6.1 scope and strength fidelity: no causation, dropped hedge, intensifier, universal or wider population
    beyond the cited facts."""
    ids = tuple(f.id for f in facts)
    stated = frozenset().union(*(f.analysis.tokens for f in facts)) if facts else frozenset()
    failures: list[Failure] = []
    causal = sorted(causal_cues(claim) - frozenset().union(*(_fact_cues(f) for f in facts)))
    if causal:
        correlational = bool(stated & CORRELATIONAL)
        why = "correlation stated as causation" if correlational else "a causal claim the cited facts do not make"
        failures.append(Failure(CLAIM_STRENGTHENED, f"{why}: {quoted(claim.spoken(causal))}",
                                "a cited fact establishing the causal relation (e.g. from a randomised trial)", ids))
    associated = [f.id for f in facts if f.analysis.tokens & CORRELATIONAL and not _fact_cues(f)]
    if associated and not claim.tokens & CORRELATIONAL and not causal and _CHANGE_VERB.search(claim.lowered):
        failures.append(Failure(CLAIM_STRENGTHENED, f"the association of {', '.join(associated)} is stated as an "
                                "effect: the sentence drops 'associated' (correlation stated as causation)",
                                "the sentence keeping the association ('was associated with'), or a fact stating "
                                "the effect", tuple(associated)))
    hedged = [f.id for f in facts if f.analysis.tokens & HEDGES]
    if hedged and not claim.tokens & HEDGES:
        failures.append(Failure(CLAIM_STRENGTHENED, f"the hedge of {', '.join(hedged)} is dropped",
                                "the sentence keeping the facts' hedge, or a fact stating the claim without it",
                                tuple(hedged)))
    # "significant" is stated by "significantly": one word as adjective and adverb
    stronger = sorted(t for t in (claim.tokens & STRENGTHENERS) - stated
                      if f"{t}ly" not in stated and t.removesuffix("ly") not in stated)
    if stronger:
        words = quoted(claim.spoken(stronger))
        failures.append(Failure(CLAIM_STRENGTHENED, f"strengthened beyond the cited facts: {words}",
                                f"a cited fact stating the claim as {words}", ids))
    universal = sorted((claim.tokens & UNIVERSAL) - stated
                       - (_frequency(claim.lowered) if claim.tokens >= _EVERY_TOKEN else frozenset())
                       - (_DISTRIBUTIVE if any(_EACH.search(f.analysis.lowered) for f in facts) else frozenset()))
    if universal:
        words = quoted(claim.spoken(universal))
        failures.append(Failure(SCOPE_EXPANSION, f"universal quantifier added: {words}",
                                f"a cited fact stating the claim holds for {words}", ids))
    failures += _both_for_one(claim, facts)
    exclusive = sorted((claim.tokens & EXCLUSIVE) - stated)
    if exclusive:
        words = quoted(claim.spoken(exclusive))
        failures.append(Failure(SCOPE_EXPANSION, f"exclusive claim added: {words}",
                                f"a cited fact stating that it holds {words} for this", ids))
    generic = sorted((claim.tokens & GENERIC_POPULATION) - stated)
    if generic:
        words = quoted(claim.spoken(generic))
        failures.append(Failure(SCOPE_EXPANSION, f"population generalised: {words}",
                                f"a cited fact about {words}, not only the studied sample", ids))
    failures += measure_widened(claim, facts)
    for fact in facts:
        if fact.analysis.tokens & SAMPLE_MARKERS and not _keeps_sample(claim, fact.analysis):
            failures.append(Failure(SCOPE_EXPANSION, f"the sample of {fact.id} is generalised to a population",
                                    "the sentence naming the sample (participants, cohort, its size), or a fact "
                                    "about the population", (fact.id,)))
    return failures


_BOTH = re.compile(r"\b(?:both|the two)\s+(?:[a-z-]+\s+)?([a-z]+?)(e?s)\b")


def _both_for_one(claim: Analysis, facts: Sequence[AtomicFact]) -> list[Failure]:
    """"both trial groups" where the cited facts name one group ("within the app group"): a statement about one
    group widened to two (blind half 4; §5.2 scope expansion). A fact naming two ("the drug arm and the placebo
    arm") or none of the noun leaves it to the other checks."""
    if not _BOTH.search(claim.lowered):
        return []
    text = " ".join(f.content.lower() for f in facts)
    if re.search(r"\b(?:both|two|either|each)\b", " ".join(f.analysis.lowered for f in facts)):
        return []
    for m in _BOTH.finditer(claim.lowered):
        noun, plural = m.group(1), m.group(1) + m.group(2)
        if len(re.findall(rf"\b{noun}\b", text)) == 1 and not re.search(rf"\b{plural}\b", text):
            return [Failure(SCOPE_EXPANSION, f"widened to two: '{m.group(0)}' where the cited facts name one {noun}",
                            f"a cited fact stating the claim for both {plural}", tuple(f.id for f in facts))]
    return []


def measure_widened(claim: Analysis, facts: Sequence[AtomicFact]) -> list[Failure]:
    """A number of a cited fact's clause stated without any of the words that narrow what the clause counts."""
    # the measured numbers (a year or an age range names the set, it does not count it)
    values = {q.value for q in claim.quantities if q.unit is not None}
    failures: list[Failure] = []
    for fact in facts if values else ():
        for clause in fact.analysis.clauses:
            narrowing = clause.tokens & RESTRICTORS
            if narrowing and not claim.tokens & narrowing and values & {q.value for q in clause.quantities}:
                words = quoted(sorted(narrowing))
                failures.append(Failure(SCOPE_EXPANSION, f"measure widened: {fact.id} counts its number over what "
                                        f"{words} narrows, and the sentence states it without {words}",
                                        f"the sentence keeping {words}, or a fact stating the number without it",
                                        (fact.id,)))
                break
    return failures


def _keeps_sample(claim: Analysis, fact: Analysis) -> bool:
    """The sentence names the sample or states its size (the largest plain count the fact states)."""
    if claim.tokens & SAMPLE_MARKERS:
        return True
    size = sample_size(fact.quantities)
    return size is not None and any(q.unit is None and q.value == size for q in claim.quantities)
