"""Tokens and their normal form: the deterministic basis of entailment.

Allowed rephrasing (issue, §5.1) is exactly: inflection (a small suffix-stripping lemmatiser plus irregular
forms), word order (tokens are compared as sets), function words (dropped, including the reporting verbs of
academic prose such as "found" or "reported") and the synonym table `SYNONYM_GROUPS` below. Everything else
a sentence says is claim-bearing and must be covered by its cited facts.

A capital letter after a lower-case word ("drug A") is an entity name, kept as a token. Hyphenated words split
into their parts ("double-blind" -> double, blind); contractions keep "n't" so the negation is seen.

Issue 19 (claims nobody here wrote), each choice resting on §5.1 "Rephrasing factual content without changing
meaning" and §5.2 "Strengthening claims":
- negation by idiom and predicate is polarity, not a token: "has yet to", "failed to", "unable to",
  "insufficient", "refused to", "lacks", "no longer", "turned down", "declined to" (`NEGATION_IDIOM`);
- a hedge word is a hedge only in hedging use: "May" the month and "appeared in" are content, a modal under
  negation ("could not") is neither;
- a unit word is content unless it follows a number ("second-largest" is not "30 seconds");
- naming is identity: "a capital called Mogadishu", "known as El Libertador" drop the naming verb;
- each text is read clause by clause (`words.clauses`), with its subject, its nominal ("is a city") and, for a
  fact, its ranks and the reach of its frequency modifiers, for `binding` and `modifiers`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from omega.grounding.quantities import FRACTION_WORDS, SPELLED, Quantity, quantities, quantity_spans, unit_words
from omega.grounding.words import (
    DEMONYMS,
    IRREGULAR_VERBS,
    Word,
    clauses,
    names,
    nominals,
    place_mark,
    plain,
    predicate_start,
    set_aside,
    subject_end,
    word_set,
    words,
)

# "drug A", "Treatment X": a capital letter after a lower-case word names an entity; as a word it would be the
# article "a" (a function word) and "drug A" would cover "drug B".
_ENTITY_LETTER = re.compile(r"(?<=[a-z] )([A-Z])(?!['\u2019.]?\w)")
_ENTITY_MARK = re.compile(r"^entity([a-z])$")

IRREGULAR = IRREGULAR_VERBS | {
    "was": "be", "were": "be", "is": "be", "are": "be", "been": "be", "being": "be", "am": "be",
    "children": "child", "women": "woman", "men": "man", "led": "lead", "fell": "fall", "fallen": "fall",
    "rose": "rise", "risen": "rise", "grew": "grow", "grown": "grow", "took": "take", "taken": "take",
    "gave": "give", "given": "give", "had": "have", "has": "have", "did": "do", "does": "do", "done": "do",
    "analyses": "analysis", "mice": "mouse", "feet": "foot", "teeth": "tooth", "lower": "lower",
    "higher": "higher", "data": "data", "less": "less", "fewer": "fewer", "worse": "worse", "better": "better",
    "kept": "keep", "met": "meet", "ran": "run", "bound": "bind", "bred": "breed", "fed": "feed",
}

FUNCTION_WORDS = word_set("""
a an the and or but of in on at to for from by with within into onto over under than as per via this that
these those it its their there here which who whom whose what when where while whereas be been being is are
was were am do does did done have has had having can will would shall should must i we you he she they them
our us his her also then thus therefore however moreover furthermore about after before during between among
across against along around through throughout toward towards upon up out off so such both each either other
another same own very just found find finds report reports reported reporting observe observes observed
observing note noted notes show shows showed shown showing indicate indicates indicated study studies studied
authors investigators researchers researcher analysis whether respectively overall yet compared relative
following although though
""")

# The documented synonym table: each group's words count as the same claim-bearing token.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("decrease", "reduce", "lower", "diminish", "decline", "fall", "drop", "reduction", "decreased", "lose", "loss",
     "lost"),
    ("increase", "rise", "elevate", "raise", "grow", "increment"),
    ("participant", "subject", "enrollee"),
    ("associate", "association", "correlate", "correlation", "link", "linked", "related"),
    ("treatment", "therapy"),
    ("mortality", "death", "die"),
    ("older", "elderly"),
    ("use", "utilise", "utilize", "employ"),
    ("versus", "vs", "compare", "comparison"),
    ("receive", "administer", "administered", "give", "assign", "allocate"),
    ("measure", "assess", "quantify", "measurement"),
    ("improve", "improvement"),
    ("symptom", "symptomatic"),
    ("adverse", "harmful"),
    ("group", "arm"),
    ("effect", "impact"),
    ("risk", "hazard"),
    ("rate", "incidence"),
    ("average", "mean"),
    ("mostly", "mainly", "largely", "primarily", "predominantly", "chiefly"),
    ("film", "movie"),
    ("author", "writer"),
)
NEGATIONS = frozenset({"not", "no", "never", "without", "none", "neither", "nor", "absence", "absent", "lack",
                       "lacks", "lacked", "lacking", "cannot"})
# Negation by idiom and predicate (issue 19, rule 2): the phrase is polarity, not a claim token.
NEGATION_IDIOM = re.compile(
    r"\b(?:(?:has|have|had|is|are|was|were) yet to|fail(?:s|ed|ing)? to|unable to|insufficient(?: for)?|"
    r"refus(?:e|es|ed|ing) to|no longer|turn(?:s|ed|ing)? down|declin(?:e|es|ed|ing) to)\b")
# Issue 42 (§5.1 "Restating facts in academic prose"): verbs that only relate a subject to the figure or event a
# fact states ("deaths occurred", "loss amounted to 842", "pauses accounted for half") carry no claim of their own,
# nor does "as a whole" (= overall); and phrasal verbs are their one-word verb ("went down" = "decreased", "took
# over from" = "replaced").
LIGHT_VERBS = re.compile(
    r"\b(?:occur(?:s|red|ring)?|amount(?:s|ed|ing)? to|account(?:s|ed|ing)? for|reach(?:es|ed|ing)|"
    r"achiev(?:es|ed|ing)|recorded|involv(?:es|ed|ing)|(?:made|make|makes) up|register(?:s|ed)|"
    r"total(?:s|led|ed|ling)|(?:stood|stands|stand) at|underw(?:ent)|undergo(?:es|ne)?|experienc(?:ed|es)|"
    r"attain(?:s|ed)|as a whole|(?:take|takes|took|taken|taking) place|"
    r"(?:get|gets|got|gotten|getting)(?=\s+[a-z]+ed\b)|according to|"
    r"(?:drawn|taken)(?= from\b)|(?:is|are|was|were|been) used to(?= [a-z]+))\b")  # the get-passive: "got married" =
# "married"; "according to" only attributes to the source the words after it name, which must be stated; "drawn
# from three batches" says only "from three batches"; "X was used to analyse Y" says "Y was analysed by X"
# A verb that only reports a measurement ("microscopy gave a roughness of 61 nm", "the membrane exhibited a flux of
# 4.8 L/m²/h") carries no claim when a number follows it in the clause: the measurement is the claim.
MEASURING_VERBS = re.compile(r"\b(?:gave|give|gives|giving|exhibit(?:s|ed|ing)?|display(?:s|ed|ing)?)\b"
                             r"(?=[^.;:\d]{0,60}?\d)")
# "8-year-old children" = "children aged 8 years" = "at age 8 years": the age is the number and its unit, "old" says
# nothing more
AGED = re.compile(r"\d+[- ](?:year|month|week|day)s?[- ](old)\b")
PHRASAL_VERBS = (
    (re.compile(r"\b(?:go|goes|went|gone|going) down\b"), "decrease"),
    (re.compile(r"\b(?:go|goes|went|gone|going) up\b"), "increase"),
    (re.compile(r"\b(?:bring|brings|brought|bringing)(?P<object>(?:\s+[\w-]+){0,4}?)\s+down\b"), "reduce"),
    (re.compile(r"\b(?:take|takes|took|taken|taking) over from\b"), "replace"),
    (re.compile(r"\b(?:take|takes|took|taken|taking) part in\b"), "participate"),
    (re.compile(r"\b(?:carry|carries|carried|carrying)(?P<object>(?:\s+[\w-]+){0,4}?)\s+out\b"), "conduct"),
    (re.compile(r"\b(?:set|sets|setting) up\b"), "establish"),
    (re.compile(r"\b(?:level|levels|levelled|leveled|levelling|leveling) off\b"), "plateau"),  # WordNet plateau.v.01
    # "varied between 6.1 and 8.3": with its two limits given, "vary" is WordNet's range.v.01 ("change or be
    # different within limits"), the fact's "ranged from 6.1 to 8.3"
    (re.compile(r"\b(?:vary|varies|varied|varying)(?=\s+(?:between|from)\s+-?\d)"), "range"),
)
# every phrasal verb at once (its object group unnamed: one name per pattern): most clauses have none, and one scan
# is a fraction of one per verb
_ANY_PHRASAL = re.compile("|".join(pattern.pattern.replace("(?P<object>", "(?:") for pattern, _ in PHRASAL_VERBS))
FRONTING = word_set("in on at among during after before for from following since until within across by")
ORDINALS = word_set("""first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth
fifteenth twentieth""")
_NAMING = frozenset({"called", "named", "known", "titled", "entitled", "nicknamed", "dubbed"})
MODALS = word_set("can could may might must shall should will would")
_NOT_HEDGED_AFTER = word_set("in on at as with for alongside opposite before under a an the")


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """The normal form of one lower-case word: irregular forms, then one inflectional suffix, a final 'e' and
    a doubled final consonant removed ("reduced", "reduces", "reduce" -> "reduc")."""
    irregular = IRREGULAR.get(word)
    if irregular is not None:
        # the base form as the regular forms are cut ("given" -> "give" -> "giv", as "gives" -> "giv")
        return irregular[:-1] if irregular.endswith("e") and len(irregular) > 3 else irregular
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
_UNIT_NORMALS = frozenset(lemma(w) for w in unit_words())
FREQUENCY = frozenset(_SYNONYM_OF.get(lemma(w), lemma(w)) for w in word_set("""mostly mainly largely primarily
predominantly chiefly partly partially rarely occasionally sometimes seldom often usually frequently generally
typically twice"""))


@lru_cache(maxsize=65536)
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
class Clause:
    """One clause of a text (see `words.clauses`): its claim-bearing tokens, numbers and polarity."""

    tokens: frozenset[str]
    quantities: tuple[Quantity, ...]
    negated: bool
    places: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Analysis:
    """A text as the checks see it: its lower-cased form, claim-bearing tokens, numbers and polarity; its clauses,
    the tokens of its subject, and of the context that qualifies every clause (a fact's qualifiers)."""

    lowered: str
    tokens: frozenset[str]
    content: tuple[str, ...]
    quantities: tuple[Quantity, ...]
    negated: bool
    surface: tuple[tuple[str, str], ...] = ()
    clauses: tuple[Clause, ...] = ()
    subject: frozenset[str] = frozenset()
    context: frozenset[str] = frozenset()
    names: tuple[tuple[str, ...], ...] = ()
    units: frozenset[str] = frozenset()
    subject_quantities: tuple[Quantity, ...] = ()
    places: frozenset[str] = frozenset()
    nominal: frozenset[str] = frozenset()
    ranks: frozenset[tuple[str, str]] = frozenset()
    modified: tuple[tuple[str, frozenset[str]], ...] = ()

    def spoken(self, tokens: Iterable[str]) -> list[str]:
        """Tokens as the text spelt them (first spelling), for readable reasons; an entity letter ("drug B", marked
        `entityb` for analysis) as its letter."""
        first = dict(reversed(self.surface))
        return [_ENTITY_MARK.sub(lambda m: m.group(1).upper(), first.get(t, t)) for t in tokens]

    @property
    def numbers(self) -> frozenset[str]:
        """The numbers as exact decimal text ("12" for "12.0")."""
        return frozenset(format(q.value.normalize(), "f") for q in self.quantities)


def marked_text(text: str) -> str:
    """The plain text the analysis reads: entity letters marked ("drug B" -> "drug entityB"), `words.plain`."""
    return plain(_ENTITY_LETTER.sub(lambda m: "entity" + m.group(1), text)).replace("\u2212", "-")


def analyse(text: str, context: Iterable[str] = (), claim: bool = False) -> Analysis:
    """Tokenise and normalise a text: every non-function word's normal form (negations kept apart), clause by
    clause. `context` texts (a fact's qualifiers) qualify the whole text: their tokens count in every clause."""
    marked = marked_text(text)
    # a claim's subject is read from its own first clause (cut also at participles), a fact's from its first
    cut = clauses(marked, claim)
    pieces = [_tokens_of(c) for c in cut] or [_tokens_of(marked)]
    extra = [_tokens_of(plain(c)) for c in context]
    kept = [pair for piece in pieces + extra for pair in piece.kept]
    content = tuple(normal for normal, _ in kept)
    lowered = " ; ".join([marked, *context]).lower()  # a qualifier "%" is not the unit of the number before it
    subject, subject_text = _subject(marked, cut)
    if not claim:
        subject |= _reduced_relatives(cut)
    return Analysis(
        lowered, frozenset(content), content, quantities(lowered),
        any(p.negated for p in pieces + extra), tuple(kept),
        tuple(Clause(p.tokens, quantities(p.lowered), p.negated, p.places) for p in pieces),
        subject, frozenset().union(*(p.tokens for p in extra)), names(marked),
        frozenset().union(*(p.units for p in pieces)), quantities(subject_text.lower()),
        frozenset().union(*(p.places for p in pieces + extra)), _nominal(marked),
        # what only a cited fact's side is asked for: its ranks and the reach of its modifiers
        frozenset() if claim else _ranks(words(marked)), () if claim else tuple(m for c in cut for m in _modified(c)))


@dataclass(frozen=True, slots=True)
class _Piece:
    lowered: str
    kept: tuple[tuple[str, str], ...]
    negated: bool
    units: frozenset[str]
    places: frozenset[str]

    @property
    def tokens(self) -> frozenset[str]:
        return frozenset(normal for normal, _ in self.kept)


def _tokens_of(text: str) -> _Piece:
    """The claim-bearing tokens (normal form, surface) of one clause, and whether it is negated."""
    lowered = text.lower()
    found = words(text)
    spans = [(m.start(), m.end()) for m in NEGATION_IDIOM.finditer(lowered)]
    negated = bool(spans)
    spans += [(m.start(), m.end()) for m in LIGHT_VERBS.finditer(lowered)]
    spans += [(m.start(), m.end()) for m in MEASURING_VERBS.finditer(lowered)]
    spans += [m.span(1) for m in AGED.finditer(lowered)]
    phrasal = [(m, verb) for pattern, verb in PHRASAL_VERBS for m in pattern.finditer(lowered)] \
        if _ANY_PHRASAL.search(lowered) else []
    for m, _verb in phrasal:  # "brought blood pressure down": the verb and its particle, not the object between
        inner = m.span("object") if "object" in m.re.groupindex and m.group("object") else None
        spans += [(m.start(), inner[0]), (inner[1], m.end())] if inner else [m.span()]
    numbers = [(a, b) for a, b, _q in quantity_spans(lowered)]
    kept: list[tuple[str, str]] = []
    units: list[str] = []
    for i, word in enumerate(found):
        low = word.lower
        if low in NEGATIONS or low.endswith("n't"):
            negated = True
            continue
        if low in FUNCTION_WORDS or low in SPELLED or any(a <= word.start < b for a, b in spans):
            continue
        in_number = any(a <= word.start < b for a, b in numbers)
        if in_number and low in FRACTION_WORDS:
            continue  # "one in four", "a quarter": the number is the numeric check's
        after = found[i + 1] if i + 1 < len(found) else None
        if low in MODALS and after is not None and (after.lower in NEGATIONS or after.lower.endswith("n't")):
            continue  # "could not": the negation carries it; a modal under negation is not a hedge
        if low in _NAMING and after is not None and (after.capitalised or (
                after.lower == "as" and i + 2 < len(found) and found[i + 2].capitalised)):
            continue  # "a capital called Mogadishu", "known as El Libertador": naming is identity, not a claim
        if in_number:
            units.append(normal(low))  # "12 weeks", "3.1 grams per decilitre": the numeric check owns the unit
        kept.append((_literal(word, after, text) or normal(low), low))
    kept += [(normal(verb), m.group(0)) for m, verb in phrasal]
    places = frozenset(place_mark(w.lower) for w, nxt in pairwise(found)
                       if w.lower in DEMONYMS and nxt.surface[:1].islower() and nxt.lower not in FUNCTION_WORDS)
    return _Piece(lowered, tuple(kept), negated, frozenset(units), places)


def _literal(word: Word, after: Word | None, text: str) -> str | None:
    """A hedge word in a use that hedges nothing: the month May, "appeared in" (issue 19, rule 5)."""
    if word.lower == "may":
        near = text[max(0, word.start - 4):word.start + 8]
        if (word.capitalised and not word.initial) or re.search(r"\d", near):
            return "month-may"
    if normal(word.lower) == "appear" and after is not None \
            and (after.lower in _NOT_HEDGED_AFTER or after.capitalised):
        return "appear-in"
    return None


def _modified(clause: str) -> list[tuple[str, frozenset[str]]]:
    """Each frequency or proportion modifier of a clause with what it modifies: the words after it up to the
    next comma ("largely | in the United Kingdom", "often | uses self-referential humour")."""
    out: list[tuple[str, frozenset[str]]] = []
    for word in words(clause):
        modifier = normal(word.lower)
        if modifier in FREQUENCY:
            scope = clause[word.start + len(word.surface):].split(",", maxsplit=1)[0]
            out.append((modifier, _tokens_of(scope).tokens))
    return out


def _ranks(found: Sequence[Word]) -> frozenset[tuple[str, str]]:
    """(ordinal, superlative) pairs: "second largest", "third most popular" (the adjective after "most")."""
    out: set[tuple[str, str]] = set()
    for i, word in enumerate(found[:-1]):
        after = found[i + 1]
        if word.lower in ORDINALS and after.lower in ("most", "least") and i + 2 < len(found):
            out.add((normal(word.lower), normal(found[i + 2].lower)))
        elif word.lower in ORDINALS and len(after.lower) > 4 and after.lower.endswith("est"):
            out.add((normal(word.lower), normal(after.lower)))
    return frozenset(out)


def _nominal(text: str) -> frozenset[str]:
    """The lower-case words of what the text says its subject is (`words.nominals`), in normal form."""
    main, spans = set_aside(text)
    return frozenset(normal(w.lower) for part in [main, *spans] for region in nominals(part) for w in region
                     if not w.capitalised and w.lower not in FUNCTION_WORDS and w.lower not in NEGATIONS)


_REDUCED_RELATIVE = re.compile(r"^\s*(?:[a-z]+ed|[a-z]+en|made|done|taken|seen|kept|held|run)\s+(?:by|with|using|from|"
                               r"via|through|under|over|across)\b", re.IGNORECASE)


def _reduced_relatives(cut: list[str]) -> frozenset[str]:
    """The words of a fact's clause set off right after its bare subject that only describes how it was obtained
    ("Thickness, measured by transmission electron microscopy, decreased ..."): it qualifies the subject, so every
    clause of the fact has it, as it has the subject (issue 42, §5.1 "clauses reordered")."""
    if len(cut) < 3 or predicate_start(words(cut[0])) is not None:
        return frozenset()  # only right after a bare subject: "directed by P, written by Q" are two relations
    second = cut[1]
    return _tokens_of(second).tokens if _REDUCED_RELATIVE.match(second) and second.rstrip().endswith(",") \
        else frozenset()


def _subject(text: str, first: list[str]) -> tuple[frozenset[str], str]:
    """The tokens before the first predicate word of the text's first clause (its subject and any fronted
    adverbial, which qualify the whole sentence), and that text."""
    clause = first[0] if first else text
    found = words(clause)
    # a first clause without a predicate word, or opening with a preposition, is a fronted phrase that scopes over
    # the whole sentence ("In a cohort of 25,310 women aged 40 to 65, ...", "Among these respondents, ...")
    fronted = bool(found) and (predicate_start(found) is None or found[0].lower in FRONTING)
    end = len(found) if len(first) > 1 and fronted else subject_end(found)
    region = clause[:found[end].start] if end < len(found) else clause
    tokens = frozenset(normal(w.lower) for w in found[:end]
                       if w.lower not in FUNCTION_WORDS and w.lower not in NEGATIONS)
    return tokens, region
