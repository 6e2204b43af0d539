"""The words that name a value's group (issue 42, `omega.grounding.groups`): where a group named after or before
its number starts and ends (after it: a preposition, "without", or a locative adverb such as "downstream"; before
it: from its preposition, or a label set off by a comma, "rural, 31 species"; a phrase that only dates what comes
before it, "among cohort members still teaching | in November 2020, | 14%", starts at the preposition before it: a
date dates a group, it is not one, §5.2 "alter scope"), and the tokens it is compared by. A
group names its words, its plain numbers (a year), its numbers with a unit ("10 mg", "24 week": a dose or a time
point) and, when negated, "not" ("without caching" is the other group of "with caching"); "one" standing for a
noun said before ("for the old one") names nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

from omega.grounding.quantities import SPELLED, Quantity, quantity_spans, unit_words
from omega.grounding.tokens import FUNCTION_WORDS, NEGATIONS, normal
from omega.grounding.words import AUXILIARIES, DETERMINERS, Word, predicate_verb, verb_form, word_set, words

WORDLIKE = re.compile(r"[^\W\d_]")
PLAIN_NUMBER = re.compile(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?")
ATTACHING = frozenset({"in", "for", "among", "at", "with", "during", "on", "under", "after", "before", "within",
                       "of"})
# a place said by a locative adverb after its number ("3.2 mg/L upstream of the outfall and 7.9 mg/L downstream")
_LOCATIVE = word_set("""upstream downstream upslope downslope uphill downhill indoors outdoors inside outside onshore
offshore inland abroad overseas""")
# after its number a group may also be the negated one ("12 ms with caching and 31 ms | without caching"); before
# it, "without" modifies the group its own preposition opens ("for the control membrane without an interlayer")
_FOLLOWING = ATTACHING | {"without"} | _LOCATIVE
UNIT_WORDS = unit_words() | {"dl", "l"}
_NUMBER_NEXT = re.compile(r"\s*(?:\d|(?:" + "|".join(SPELLED) + r")\b)")


def up_to_verb(span: str, after_number: bool = False) -> str:
    """A group named after its number ends where the clause's predicate starts ("41% | of nurses in rural
    hospitals | reported burnout"): the predicate is the measure's, shared by every group."""
    found = words(span)
    verb = next((w for i, w in enumerate(found) if predicate_verb(found, i)
                 and not _NUMBER_NEXT.match(span, w.start + len(w.surface))
                 and not (after_number and i + 1 < len(found) and found[i + 1].lower in _DESCRIBING)),
                None)  # "aged 18 to 24": a participle before a number describes the group, and so does one before
    return span if verb is None else span[:verb.start]  # a determiner after it ("94% in mice given no treatment")


_DESCRIBING = frozenset({"the", "a", "an", "no"})


_FRACTION_END = re.compile(r"\b(?:one|two|three|\d+) in (?:two|three|four|five|six|seven|eight|nine|ten|\d+)\s*$",
                           re.IGNORECASE)


def follows(clause: str, end: int, measures: frozenset[str]) -> bool:
    """The words after a number name its group ("23% | in 2021", "11.5 g/dL recorded | in the oral arm",
    "5,100 steps | at the visit")."""
    after = list(words(clause[end:]))
    if _FRACTION_END.search(clause[:end]) and after and after[0].lower not in FUNCTION_WORDS:
        return True  # "one in four | rural households": a share in words is of the group it goes on to name
    if after and after[0].lower == "compared":
        return False  # "5.2 kg, | compared with 1.1 kg in the placebo group": the other number's group follows
    rate = next((i for i, w in enumerate(after[:3]) if w.lower == "per"), None)
    if rate is not None and rate + 1 < len(after) and after[rate + 1].capitalised:
        return True  # a rate per a named thing names its group ("18 MB per | Linkerd proxy")
    if rate is not None and rate + 2 < len(after):
        after = after[rate + 2:]  # the rest of a rate the unit table does not know ("4.1 t CO2e per capita | in")
    while len(after) > 1 and (after[0].lower.removesuffix("s") in measures or clause[end + after[0].start - 1] in "/-"
                              or (verb_form(after[0]) and after[0].lower not in AUXILIARIES)):
        after = after[1:]  # the measure, the second part of a unit ("4.2 t/ha", "per turbine-year"), a verb
    if after and after[0].lower == "of" and not re.search(r"(?:%|per ?cent)\s*$", clause[:end]):
        # "41% | of nurses" names a group; "52.4 minutes per day | of physical activity" names the measure, and a
        # group may follow it ("... of activity | in the programme arm")
        comma = clause.find(",", end)
        after = [w for w in after[1:] if comma < 0 or w.start + end < comma]
        after = after[next((i for i, w in enumerate(after) if w.lower in ATTACHING and w.lower != "of"),
                           len(after)):]
    return bool(after) and after[0].lower in _FOLLOWING


def from_last_preposition(span: str) -> str:
    """A group named before its number starts at its preposition ("for the control membrane | 98.2%"), after
    any comma or "than": the words before it are the measure, shared by every group."""
    parts = re.split(r",(?!\d)|\bthan\b|\bversus\b|\bcompared with\b", span)
    # "rural, 31 species": a label set off by a comma right before its number is the group's name
    span = parts[-1] if WORDLIKE.search(parts[-1]) or len(parts) < 2 else parts[-2]
    found = words(span)
    # "in the highest quartile | of traffic noise": an "of" phrase belongs to the group its preposition opens; "a
    # median throughput of | 48,200": an "of" right before the number introduces the value, not a group
    named = [w for i, w in enumerate(found) if any(v.lower not in FUNCTION_WORDS for v in found[i + 1:])]
    last = next((w for w in reversed(named) if w.lower in ATTACHING and w.lower != "of"),
                next((w for w in reversed(named) if w.lower == "of"), None))
    verb = None if last is None else next(
        (w for i, w in enumerate(found) if w.start < last.start and predicate_verb(found, i)), None)
    subject = None if verb is None else next(
        (w for w in reversed(found) if w.start < verb.start and w.lower in ATTACHING and w.lower != "of"), None)
    if subject is not None:
        # "respondents in Norway | rated trust in parliament at 6.8": the subject's group, not a phrase of the
        # predicate (the measure, which an elided second clause shares: "and respondents in Italy at 4.1")
        last = subject
    elif last is not None and _dated_only(span, found, last):
        # "among cohort members still teaching | in November 2020, | 14%": a date dates the group before it
        last = next((w for w in reversed(named) if w.start < last.start and w.lower in ATTACHING
                     and w.lower != "of"), last)
    if last is not None:
        return up_to_verb(span[last.start:])  # "in intervention schools | accumulated a mean of": the measure
    # no preposition: the subject names the group, its verb and object are the measure ("Heron 1.5 | sustained a
    # lower median throughput | (7,300 requests per second)")
    verb = next((w for i, w in reversed(list(enumerate(found))) if i and verb_form(w)), None)
    return span if verb is None else span[:verb.start]


_MONTHS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                     "october", "november", "december"})


def _dated_only(span: str, found: Sequence[Word], start: Word) -> bool:
    """Whether the phrase from `start` names only a date ("in November 2020", "in 2021")."""
    named = [w.lower for w in found if w.start > start.start and w.lower not in FUNCTION_WORDS]
    return all(w in _MONTHS for w in named) and bool(re.search(r"\b(?:1[89]|20)\d\d\b", span[start.start:]))


def group_tokens(span: str, measures: frozenset[str] = frozenset()) -> frozenset[str]:
    """The group's words, its plain numbers ("in 2021", "with Orrery 4.8") and its numbers with a unit, with their
    bound ("under 65 years", "65 years or older"); a negated group also "not" ("without caching" is the other group
    of "with caching", not the same one)."""
    pro_forms = _pro_forms(span)
    found = [w for w in words(span) if w.start not in pro_forms]
    plain = {m.group(0) for m in PLAIN_NUMBER.finditer(span)}
    lowered = span.lower()
    named = {_bound(lowered, a, b) + quantity_name(q) for a, b, q in quantity_spans(lowered) if q.unit is not None}
    negated = {"not"} if any(w.lower in NEGATIONS or w.lower.endswith("n't") for w in found) else set()
    # a unit's word after a determiner is an ordinal or a noun ("the second dose"), and the measure's own word
    # ("transactions") names no group
    return frozenset(normal(w.lower) for i, w in enumerate(found) if w.lower not in FUNCTION_WORDS
                     and w.lower not in NEGATIONS and w.lower.removesuffix("s") not in measures
                     and (w.lower not in UNIT_WORDS or (i > 0 and found[i - 1].lower in DETERMINERS))
                     ) | plain | named | negated


_BELOW_BEFORE = re.compile(r"\b(?:under|below|younger than|less than|fewer than|lower than|up to|at most)\s+$")
_ABOVE_BEFORE = re.compile(r"\b(?:over|above|older than|more than|greater than|higher than|at least)\s+$")
_ABOVE_AFTER = re.compile(r"\s*(?:or|and) (?:older|over|above|more|greater|higher)\b")
_BELOW_AFTER = re.compile(r"\s*(?:or|and) (?:younger|under|below|less|fewer|lower)\b")


def _bound(lowered: str, start: int, end: int) -> str:
    """A number's bound as a group's name: "under 65 years" (<), "65 years or older" (>=), none ("")."""
    before = lowered[max(0, start - 16):start]
    if _BELOW_BEFORE.search(before):
        return "<"
    if _ABOVE_BEFORE.search(before):
        return ">"
    return ">=" if _ABOVE_AFTER.match(lowered, end) else "<=" if _BELOW_AFTER.match(lowered, end) else ""


_PRO_FORM = re.compile(r"\b(?:the|a|an|this|that)\s+[a-z-]+\s+(ones?)\b")


def _pro_forms(span: str) -> set[int]:
    """Where "one" stands for a noun the text said before ("for the old one"): no name of the group."""
    return {m.start(1) for m in _PRO_FORM.finditer(span)}


def quantity_name(quantity: Quantity) -> str:
    """A number with its unit as a group's name ("10 mg", "24 week", "60 °c")."""
    return f"{quantity.value.normalize():f} {quantity.unit}"


_FRONTED = re.compile(r"^\s*(?P<preposition>[A-Za-z]+)\b[^,]{0,80},")


def fronted(clause: str) -> tuple[str, str] | None:
    """A clause's opening phrase set off by a comma when a preposition opens it ("Among women, ...", "After 28 days
    of curing, ..."): the preposition and the phrase."""
    match = _FRONTED.match(clause)
    if match is None or match.group("preposition").lower() not in _FOLLOWING | {"before", "after"}:
        return None
    return match.group("preposition").lower(), match.group(0)


_COMPARED = re.compile(r"\b(?:than|outperform(?:s|ed)?|exceed(?:s|ed)?|surpass(?:es|ed)?)\b", re.IGNORECASE)
_VERSUS = re.compile(r"(?<![^\W\d_])(?P<a>\d[\d.,]*)[^\d]{0,12}?\b(?:versus|vs\.?)\s*(?P<b>\d[\d.,]*)")


def set_side_by_side(clause: str, found: list[tuple[int, int, Quantity]]
                     ) -> list[tuple[Decimal, frozenset[str]]] | None:
    """A comparison's two sides with two numbers set side by side after them ("more common among A than among B
    (6.5% versus 4.0%)", "A outperformed B (R² 0.74 versus 0.61)", "than Heron 1.5 (18.4 versus 27.9 ms)"), in a
    sentence or a fact: the first number is the first side's, the second the second side's."""
    pair = _VERSUS.search(clause)
    marker = None if pair is None else next(reversed(list(_COMPARED.finditer(clause, 0, pair.start()))), None)
    if pair is None or marker is None:
        return None
    by_start = {start: q for start, _e, q in found}
    a, b = by_start.get(pair.start("a")), by_start.get(pair.start("b"))
    if a is None or b is None:
        return None
    first = from_last_preposition(clause[:marker.start()])
    return [(a.value, group_tokens(first)), (b.value, group_tokens(clause[marker.end():pair.start()]))]


_AND = re.compile(r"\s+and\s+")


def respectively(clause: str, found: list[tuple[int, int, Quantity]]) -> list[tuple[Decimal, frozenset[str]]] | None:
    """Values listed "respectively" after as many names ("sensitivity and specificity were 92% and 81%,
    respectively"; "A, B and C ..."): the first value is the first name's, and so on. The last name ends at the
    predicate, the others are the comma-separated pieces before its "and"."""
    if len(found) < 2 or not re.search(r"\brespectively\b", clause):
        return None
    prefix = clause[:found[0][0]]
    joins = list(_AND.finditer(prefix))
    if not joins:
        return None
    last = up_to_verb(prefix[joins[-1].end():].split(",")[0])
    names = [*prefix[:joins[-1].start()].split(",")[-(len(found) - 1):], last]
    groups = [group_tokens(name) for name in names]
    if len(groups) != len(found) or not all(groups):
        return None
    return [(q.value, group) for (_s, _e, q), group in zip(found, groups, strict=True)]
