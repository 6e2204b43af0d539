"""The §6.1 item "qualifier integrity" (G-4, §5.2 qualifier drift): no qualifier added, dropped or altered.

Qualifier terms are recognised with the lexicon `QUALIFIER_TERMS` (population, setting, timeframe, method).
- added: the sentence uses a qualifier term no cited fact states, and no cited fact has a qualifier of that
  kind (QUALIFIER_ADDED);
- altered: the same, but a cited fact does qualify that kind differently (QUALIFIER_DRIFT);
- dropped: a qualifier in a cited fact's `qualifiers` object is not carried by the sentence (QUALIFIER_DROPPED).
  A qualifier is carried when at least half of its tokens (words and numbers) appear in the sentence, so
  "older adults" carries "adults aged 65 or older"; a statistic in parts separated by ";" ("arm means; adjusted
  mean difference with 95% CI") names different numbers of its fact, so one part carried carries it (a timeframe's
  parts, "previous four weeks; 2023 survey", all hold), and a timeframe's period is not carried by its unit with
  another number or none ("the preceding month" for "12 months preceding the survey"); each part of a population
  written in parts restricts it ("grid-connected households, urban and rural"; a breakdown in brackets is no part);
  a name in brackets is another name for what the qualifier names ("whiting (Merlangius merlangus)"); a population
  or setting that lists names ("pooled from Seville, Milan and Rotterdam") is not carried by a sentence naming some
  of them that the fact's statement gives no value of their own (the pool's coefficient given to Seville alone); a
  restricting word (a season, "adjusted", "crude") is kept whatever else is, or the words its brackets define it by
  ("June to August" for "summer (June-August)"). Every key of
  `qualifiers` counts (a "dose" key is a qualifier too: §5.2 "dosage"), with two exceptions (issue 42):
  - a `units` qualifier is dropped only when the sentence states one of the fact's numbers in that unit without
    the unit ("71.6" for "71.6%"); a sentence stating only the fact's other numbers (its sample size) keeps it,
    and so does one stating none of a fact's bare numbers when the unit is one the unit table does not know
    ("points": "at 6 weeks" is a number of its own unit);
  - a `method` qualifier may be left out: how a fact was obtained is provenance, not its scope (but not its
    adjustment, "regression adjusted for household size", a restricting word as above, in the part of a method in
    parts that has it; and not when it is what tells the stated value from another allowed fact's value by another
    method: G-5's silent adoption; of two methods sharing conditions, the conditions that differ, "maximum stress
    level 0.75" beside 0.85; the values compared are those of the measure its `units` names, in another fact
    measuring the same, so another fact's "at 10 °C" or response rate is no other value of it; such a method is the
    sentence's to restate, whatever an earlier sentence established). G-4 forbids adding qualifiers, altering scope,
    strengthening and generalising populations; §5.2 names the drift it means ("timeframe, dosage, setting"). A
    sentence that names a method must still name the fact's (drift), and strength is the scope check's:
    "associated" stays "associated" without "in an observational cohort".
A method noun used only as "the trial" / "this study" names the study back ("participants in the trial"): no design
is claimed, so it is neither added nor drift; "a randomised trial" still claims one.
A qualifier a passing earlier sentence of the same paragraph stated is established for the sentences after it:
"Between April and June 2022, newts were found in 14 of the 36 ponds [AMP_01]. Common toads occurred in more of the
surveyed ponds (22 versus 14) [AMP_01][AMP_05]" keeps the second sentence's timeframe (the same kind and value, of
any cited fact). The contract generates "paragraph by paragraph" (§2) and allows "restating facts in academic prose"
(§5.1), which names a study's setting and period once; the displayed paragraph (§7.1: only passing sentences) states
the qualifier before the sentence, so its scope is not altered nor its population generalised (G-4). Only dropping
is read from the paragraph: each sentence is still verified against its own cited facts (G-2), an added or altered
qualifier fails as before, a failed sentence establishes nothing, and a later sentence establishes nothing for an
earlier one. An established population, setting or timeframe does not hold where another allowed fact of the
paragraph qualifies the same kind with more words around it ("offshore vs onshore sites" beside "onshore sites",
blind half 4): the paragraph contrasts the two, and a sentence without either names neither. A sentence that
restates the qualifier itself without its restricting word ("over 2015-2022 ... daytime" after "summer (June-August)
daytime, 2015-2022") states a wider one of its own: the paragraph does not narrow it (blind half 4: summer means
read as year-round means). The verdict says so in its rationale (`from_the_paragraph`).
A timeframe word that refers back to a time the sentence states ("in 2022 ... that year", "the same year") is
anaphora, not a timeframe of its own (§5.1 "Restating facts in academic prose"): it is neither added nor drift.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from functools import lru_cache

from omega.grounding.facts import AtomicFact, qualifier_text
from omega.grounding.memo import ByObject
from omega.grounding.model import QUALIFIER_ADDED, QUALIFIER_DRIFT, QUALIFIER_DROPPED, Failure
from omega.grounding.quantities import as_rates, unit_named
from omega.grounding.rephrasing import related
from omega.grounding.tokens import Analysis, analyse, lemma, lexicon, normal
from omega.grounding.words import plain

QUALIFIER_TERMS: dict[str, frozenset[str]] = {
    "population": lexicon("""child children adolescent adolescents teenager infant infants neonate neonates newborn
    toddler elderly older younger adult adults woman women man men male males female females
    girl boy pregnant postmenopausal smoker smokers nonsmoker student students veteran
    veterans athlete athletes nurse nurses worker workers employee employees diabetic obese
    overweight"""),
    "setting": lexicon("""hospital hospitals hospitalised hospitalized inpatient inpatients outpatient outpatients
    clinic clinics community rural urban icu intensive home school schools nursing laboratory
    vitro vivo ward wards emergency nationwide national"""),
    "timeframe": lexicon("""week weeks month months year years day days hour hours daily weekly monthly annual
    annually decade decades lifetime long short postoperative follow baseline"""),
    "method": lexicon("""randomised randomized controlled trial trials cohort observational retrospective
    prospective sectional meta blind placebo survey questionnaire interview simulation
    mendelian regression crossover"""),
}
OWNED = frozenset().union(*QUALIFIER_TERMS.values())
ALIASES = {"time": "timeframe", "duration": "timeframe", "follow_up": "timeframe", "period": "timeframe",
           "sample": "population", "participants": "population", "design": "method", "study_design": "method",
           "unit": "units", "location": "setting", "site": "setting", "country": "setting", "dosage": "dose"}


def category(key: str) -> str:
    """The qualifier kind a `qualifiers` key names."""
    lowered = key.lower()
    return ALIASES.get(lowered, lowered)


# (kind, value) of the qualifiers a paragraph's passing sentences have stated so far
Established = frozenset[tuple[str, str]]


def qualifier_integrity(claim: Analysis, facts: Sequence[AtomicFact], established: Established = frozenset(),
                        allowed: Sequence[AtomicFact] = ()) -> list[Failure]:
    """§6.1 qualifier integrity: qualifier terms the facts do not state (added or altered), qualifiers dropped
    that no earlier sentence of the paragraph established (a method too when another allowed fact's method gives the
    measure another value)."""
    stated = frozenset().union(*(f.analysis.tokens for f in facts)) if facts else frozenset()
    failures: list[Failure] = []
    drifted: set[tuple[str, str]] = set()
    referring = referring_back(claim)
    for kind, terms in QUALIFIER_TERMS.items():
        extra = sorted(t for t in (claim.tokens & terms) - stated - referring
                       if not _restated(claim, t, stated) and not (kind == "method" and _the_study(claim, t)))
        if not extra:
            continue
        holders = [f for f in facts if any(category(k) == kind for k in f.qualifiers)]
        words = ", ".join(f"'{t}'" for t in claim.spoken(extra))
        if holders:
            drifted.update((f.id, kind) for f in holders)
            values = "; ".join(f"{f.id}: '{_value(f, kind)}'" for f in holders)
            failures.append(Failure(QUALIFIER_DRIFT, f"{kind} altered: {words} where the cited facts state {values}",
                                    f"a cited fact whose {kind} is {words}", tuple(f.id for f in holders)))
        else:
            failures.append(Failure(QUALIFIER_ADDED, f"{kind} {words} added: no cited fact states it (G-4)",
                                    f"a cited fact stating the {kind} {words}", tuple(f.id for f in facts)))
    for fact in facts:
        for key, value in fact.qualifiers.items():
            kind = category(key)
            apart = _method_tells_apart(claim, fact, [*facts, *allowed]) if kind == "method" else ()
            # an adjustment in the method ("regression adjusted for household size") is what the estimate is; a
            # method in parts ("COPD Assessment Test; adjusted analysis") names different numbers, as a statistic's
            if (kind == "method" and not apart
                and any(_restriction_kept(claim, part) for part in qualifier_text(value).split(";"))) \
                    or (fact.id, kind) in drifted or (
                    _key(kind, value) in established and not apart and not _rivalled(kind, value, allowed)
                    and not _restated_wider(claim, qualifier_text(value))):
                continue
            if not _carried(claim, kind, qualifier_text(value), fact) \
                    or not all(_half_stated(claim, part) for part in apart if isinstance(part, str)):
                failures.append(Failure(
                    QUALIFIER_DROPPED, f"{kind} '{qualifier_text(value)}' of {fact.id} is dropped (G-4)",
                    f"the sentence restating the {kind} '{qualifier_text(value)}', or a fact without it", (fact.id,)))
    return failures


def _method_tells_apart(claim: Analysis, fact: AtomicFact, facts: Sequence[AtomicFact]) -> tuple[str | bool, ...]:
    """When the fact's method is what tells the value the sentence states from another allowed fact's value of
    the same measure by another method ("9.5 hours in the manufacturer's test", "7.8 hours in the independent test";
    "maximum stress level 0.75" beside 0.85), the parts of it the other's method does not share (True when it shares
    them all): leaving them out adopts one of them silently (G-5). Empty when the method tells nothing apart."""
    said = {(q.unit, q.value) for q in claim.quantities}
    measure = _measure_units(fact)
    # the numbers of the fact's measure, when its `units` names one: its conditions ("at 25 °C") are no value
    stated = {(unit, value) for unit, value in _measured(fact)
              if (None if unit is None or unit[:1] == "=" else unit, value) in said
              and (not measure or unit in measure)}
    method = _value(fact, "method")
    out: list[str | bool] = []
    for other in facts:
        if other is not fact and any(category(k) == "method" for k in other.qualifiers) \
                and _value(other, "method") != method and (not measure or _measure_units(other) == measure) \
                and any(u == unit and v != value for u, v in _measured(other) for unit, value in stated):
            # methods sharing some conditions ("5 Hz") are told apart by the others; wholly other methods as wholes
            theirs, own = set(_value(other, "method").split(", ")), method.split(", ")
            out += [part for part in own if part not in theirs] if theirs.intersection(own) else [True]
    return tuple(out)


def _measured_of(fact: AtomicFact) -> frozenset[tuple[str | None, Decimal]]:
    """A fact's numbers with their units; one without a unit in what its `units` qualifier names ("= cycles to
    failure"), so that two facts counting the same thing compare."""
    written = _units_written(fact)
    named = None if written is None else f"= {written}"
    return frozenset((q.unit or named, q.value) for q in fact.analysis.quantities if (q.unit or named) is not None)


def _units_written(fact: AtomicFact) -> str | None:
    """The text of the fact's `units` qualifier, or None."""
    return next((_value(fact, "units") for k in fact.qualifiers if category(k) == "units"), None)


def _measure_units_of(fact: AtomicFact) -> frozenset[str]:
    """The units its `units` qualifier names a fact's measure in, as `_measured` writes them; empty without one."""
    written = _units_written(fact)
    if written is None:
        return frozenset()
    return frozenset(u for u in (unit_named(written), f"= {written}") if u is not None)


# once per fact: every allowed fact is read for every sentence of its paragraph
_measured = ByObject(_measured_of)
_measure_units = ByObject(_measure_units_of)


_BACK = re.compile(r"\b(?:that|the same|this|those|these)\s+(year|years|month|months|week|weeks|day|days|decade|period|"
                   r"periods|interval)\b")


def referring_back(claim: Analysis) -> frozenset[str]:
    """Timeframe words that only refer back to a time the sentence states ("in 2022 ... that year", "between 2022
    and 2023 ... over the same period"): they add no timeframe, and no claim, of their own."""
    back = _referring(claim.lowered)
    return back if back and claim.numbers else frozenset()


@lru_cache(maxsize=256)  # asked by the verdict and by the qualifier check for the same sentence
def _referring(lowered: str) -> frozenset[str]:
    back = [m.group(1) for m in _BACK.finditer(lowered)]
    return frozenset(normal(w) for w in back if len(re.findall(rf"\b{w}\b", lowered)) == 1)


_STUDY_NOUNS = frozenset({"trial", "study", "survey", "cohort"})


def _the_study(claim: Analysis, token: str) -> bool:
    """A method noun the sentence uses only as "the trial" / "this study": the study the facts come from, named
    back, not a design the sentence claims ("participants in the trial"; "a randomised trial" still claims one)."""
    surface = claim.spoken([token])[0].lower()
    return surface in _STUDY_NOUNS and all(
        re.search(r"\b(?:the|this)\s+$", claim.lowered[:m.start()]) is not None
        for m in re.finditer(rf"\b{re.escape(surface)}\b", claim.lowered))


def _restated(claim: Analysis, token: str, stated: frozenset[str]) -> bool:
    """A qualifier word the facts state in another form (§5.1): "daily" for "per day" (WordNet's derived form). One
    step: a related word's own synonym is not followed ("adult" -> "grown", which the synonym table reads as
    "increased")."""
    return any(normal(w) in stated and normal(w) == lemma(w) for w in related(claim.spoken([token])[0].lower()))


def established_by(facts: Sequence[AtomicFact]) -> Established:
    """The qualifiers a passing sentence citing these facts establishes for the rest of its paragraph."""
    return frozenset(_key(category(k), v) for fact in facts for k, v in fact.qualifiers.items())


def from_the_paragraph(claim: Analysis, facts: Sequence[AtomicFact], established: Established) -> tuple[str, ...]:
    """The qualifiers the sentence leaves to its paragraph, as readings for its rationale."""
    return tuple(f"{category(k)} '{qualifier_text(v)}' of {fact.id} as stated earlier in the paragraph"
                 for fact in facts for k, v in fact.qualifiers.items()
                 if category(k) != "method" and _key(category(k), v) in established
                 and not _carried(claim, category(k), qualifier_text(v), fact))


def _rivalled(kind: str, value: object, allowed: Sequence[AtomicFact]) -> bool:
    """Whether another allowed fact of the paragraph qualifies the same kind otherwise ("offshore vs onshore sites"
    beside "onshore sites"): the paragraph is about both, and a sentence without the qualifier names neither."""
    if kind not in ("population", "setting", "timeframe"):
        return False
    key, words = _key(kind, value), _tokens_of(qualifier_text(value))
    return any(category(k) == kind and _key(kind, v) != key and words < _tokens_of(qualifier_text(v))
               for f in allowed for k, v in f.qualifiers.items())


def _key(kind: str, value: object) -> tuple[str, str]:
    return kind, " ".join(qualifier_text(value).casefold().split())


def _value(fact: AtomicFact, kind: str) -> str:
    return next(qualifier_text(v) for k, v in fact.qualifiers.items() if category(k) == kind)


def _carried(claim: Analysis, kind: str, value: str, fact: AtomicFact) -> bool:
    """Whether the sentence carries one qualifier value (half its tokens; units beside the fact's numbers)."""
    if kind == "units":
        if not claim.quantities:
            return True
        written = plain(value).strip().lower().replace("\u03bc", "\u00b5")  # NFKD's mu is the micro sign
        unit = unit_named(written)
        in_unit = {q.value for q in fact.analysis.quantities if unit is not None and q.unit == unit}
        if in_unit:
            return not any(q.value in in_unit and q.unit != unit
                           and unit not in {r.unit for r in as_rates(q, claim.lowered)} for q in claim.quantities)
        bare = {q.value for q in fact.analysis.quantities if q.unit is None}
        if unit is None and not any(q.value in bare for q in claim.quantities):
            return True  # a unit the table does not know ("points") is the fact's bare numbers', none stated
        return written in claim.lowered or any(q.unit == unit for q in claim.quantities if unit) \
            or _half_stated(claim, written)
    # "arm means; adjusted mean difference with 95% CI": each statistic names some of the fact's numbers
    if kind == "statistic":
        return any(_half_stated(claim, part) and _restriction_kept(claim, part) for part in value.split(";"))
    if (kind == "timeframe" and _period_changed(claim, value)) or not _restriction_kept(claim, value) \
            or (kind in ("population", "setting") and _member_for_the_pool(claim, value, fact)):
        return False
    # "grid-connected households, urban and rural": each part of a population restricts it
    return all(_half_stated(claim, part) for part in _BRACKETED.sub("", value).split(", ")) \
        if kind == "population" else _half_stated(claim, value)


_BRACKETED = re.compile(r"\s*\([^()]*\)")
_NAME = r"[A-Z][\w'-]*(?: [A-Z0-9][\w'-]*)*"
_NAMES = re.compile(rf"{_NAME}(?:(?:,? (?:and|or) |, ){_NAME})+")
_SEPARATOR = re.compile(r",? (?:and|or) |, ")


@lru_cache(maxsize=4096)
def _listed(value: str) -> tuple[tuple[str, ...], ...]:
    """The lists of names a qualifier gives ("Seville, Milan and Rotterdam"), each name in lower case."""
    return tuple(tuple(n.lower() for n in _SEPARATOR.split(found.group(0))) for found in _NAMES.finditer(value))


def _member_for_the_pool(claim: Analysis, value: str, fact: AtomicFact) -> bool:
    """Whether the sentence names some, not all, of the places or groups a qualifier lists ("pooled from Seville,
    Milan and Rotterdam") that the fact's statement gives no value of their own (blind half 4: the pooled
    coefficient given to Seville alone): the fact's one value is the pool's, not a member's (§5.2 drift)."""
    content = fact.content.lower()
    for names in _listed(value):
        named = [n for n in names if re.search(rf"\b{re.escape(n)}\b", claim.lowered)]
        if named and len(named) < len(names) and not any(re.search(rf"\b{re.escape(n)}\b", content) for n in named):
            return True
    return False
_ALIAS = re.compile(r"\s*\([^()\d]*\)")


# Words that take a part of what a qualifier names, which no half of its other words carries: a season of a
# timeframe ("summer (June-August) daytime, 2015-2022"), an estimate's adjustment ("adjusted incidence rate ratio")
RESTRICTING = lexicon("summer winter spring autumn adjusted unadjusted crude")
_RESTRICTION = re.compile(r"\b(summer|winter|spring|autumn|adjusted|unadjusted|crude)\b(?:\s*\(([^()]*)\))?",
                          re.IGNORECASE)


@lru_cache(maxsize=4096)
def _restrictions(value: str) -> tuple[tuple[str, str], ...]:
    return tuple(_RESTRICTION.findall(value))


def _restriction_kept(claim: Analysis, value: str) -> bool:
    """Whether the sentence keeps one of the qualifier's restricting words, or the words its brackets define it by
    ("June to August" for "summer (June-August)"); "after adjustment" keeps "adjusted"."""
    found = _restrictions(value)
    if not found:
        return True
    said = claim.tokens | (lexicon("adjusted") if "adjustment" in claim.tokens else frozenset())
    return not found or any(normal(word.lower()) in said or (alias and _tokens_of(alias) <= said)
                            for word, alias in found)


def _restated_wider(claim: Analysis, value: str) -> bool:
    """The sentence restates the qualifier (half its words) without its restricting word ("daytime, 2015-2022" for
    "summer (June-August) daytime, 2015-2022"): a wider qualifier of its own, which the paragraph does not narrow."""
    return _half_stated(claim, value) and not _restriction_kept(claim, value)


_PERIOD = re.compile(r"(\d[\d.,]*)\s+(hours?|days?|weeks?|months?|years?)\b", re.IGNORECASE)


def _period_changed(claim: Analysis, value: str) -> bool:
    """A period of a timeframe whose unit the sentence names without its number ("the preceding month" for "12
    months preceding the survey"): half the words are there, but the period is another. (An age is no period: "aged
    70 years or older" is a subgroup of "adults aged 60 years or older".)"""
    numbers = {q.value for q in claim.quantities}
    return any(normal(unit) in claim.tokens and Decimal(count.replace(",", "")) not in numbers
               for count, unit in _PERIOD.findall(value))


def _half_stated(claim: Analysis, value: str) -> bool:
    # a name in brackets is another name of what the qualifier names ("whiting (Merlangius merlangus)")
    wanted = _tokens_of(_ALIAS.sub("", value))
    if not wanted:
        return True
    present = len(wanted & (claim.tokens | claim.numbers))
    return 2 * present >= len(wanted)


@lru_cache(maxsize=4096)
def _tokens_of(value: str) -> frozenset[str]:
    """A qualifier value's words and numbers (cached: the same facts are cited sentence after sentence)."""
    analysis = analyse(value)
    return analysis.tokens | analysis.numbers
