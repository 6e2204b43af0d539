"""The §6.1 item "numerical accuracy" (§5.2 numerical modification): every number of the sentence is a number
of its cited facts, with the same unit, not rounded, not computed.

The one documented derivation: the absolute difference of two quantities of the cited facts with the same
unit, stated beside both of them (a fall "from 148 to 136 mmHg" may be stated as "by 12 mmHg"; two percentages
differ by percentage points: "from 6.4% to 5.1%" by "1.3 percentage points", not by "1.3%", which is a relative
change). A difference in place of its two numbers ("rose by 9 °C", "2.7 °C larger") is a number no fact states:
§5.2 forbids numerical modification, and the blind halves written from the contract alone label it so (the fourth;
the first labels the difference shown with its numbers supported). A sentence that uses it may name it with the
neutral words of `DERIVATION_WORDS` ("the difference (520 and 350 mAh/g) was 170 mAh/g"); a direction word
("higher") must be stated by the facts or shown by the sentence's own two numbers (`directions_shown`); a
superlative ("highest", "lowest") by the number it is said of being the largest or smallest of the two or more values
its fact states in that unit (`superlatives_shown`). "Based on 14 events" says the sample size "(n = 14
events)" says: "based" is the number's word then (`sample_size_phrase`), and the number is checked as any other.

An amount keeps its direction in other words: "6.2 minutes less sleep" for "6.2 minutes (95% CI ...) shorter
sleep", "each 10 dB higher" for "each 10 dB increase" (`amount_directions`: the same number, the same way).
A strict bound on a proportion ("fewer than half of the 36 ponds", "more than 20% of respondents") is entailed when
every proportion the cited facts state for it meets it: the counts out of the total the sentence names ("14 of 36
ponds": 38.9% < 50%), else every percentage the facts state (§5.1 "strictly entailed"; one that does not meet it
refuses the bound, since the verifier cannot tell which one the sentence means). An approximation ("nearly half",
"about 40%") is no bound and stays refused. A decade is such a bound on a year ("born in the fifties", "in the
1950s", "in the '50s" from "born July 20, 1957"): met when a cited fact states a year within it, the century too
when the sentence writes it. Nothing else is computed: no ratios, no percent changes, no sums, no
rounding ("12.4" is not "12"; "about 12" is not "12.4"), except counting what the facts name by label: "the three
springs" for "Springs A, B and C" (or "Spring A ... Spring B ... Spring C"), the number of distinct letters the cited
facts give the noun after it (blind half 6; §5.1 restating in academic prose).

A change keeps its ends in their places: "from A to B" (or "to B from A") stated the other way round is reversed
(`from_to_reversed`), and a change set after an event gives A for the time before it and B for the time after
(`before_after_moved`: "rose to 61,700 from 48,200 after the upgrade" never gives "61,700 before the upgrade").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import combinations

from omega.grounding.facts import AtomicFact
from omega.grounding.memo import ByObject
from omega.grounding.model import NOT_ENTAILED, NUMERIC_MISMATCH, Failure
from omega.grounding.quantities import Quantity, as_rates, quantities, quantity_spans, same_quantity
from omega.grounding.tokens import Analysis, lexicon, normal

DERIVATION_WORDS = lexicon("difference differences differ differed differs gap")
# The nouns that name a stated number ("the number of ponds was 19", "the proportion was 25%"): owned by this check
# when the sentence states a number (issue 42, §5.1 restating in academic prose).
QUANTITY_NOUNS = lexicon("number count total proportion percentage share fraction value values figure figures")
# "based on 14 events", "based on 36 monthly samples": a sample size said in words ("n = 14 events"), not a claim
_BASED_ON = re.compile(r"\bbased\s+on\s+(?:the\s+|a\s+total\s+of\s+)?\d")
_BASED = lexicon("based")


def sample_size_phrase(claim: Analysis) -> frozenset[str]:
    """"based" when the sentence says "based on" a number (its sample size, which the number check checks)."""
    return _BASED if _BASED_ON.search(claim.lowered) else frozenset()


@dataclass(frozen=True, slots=True)
class NumericResult:
    """Failures, the numbers no cited fact states, and the derivations used."""

    failures: tuple[Failure, ...]
    unmatched: tuple[Quantity, ...]
    derivations: tuple[str, ...]
    bound_words: frozenset[str] = frozenset()  # "fewer" of "fewer than half": the bound's, not a claim word


def numerical_accuracy(claim: Analysis, facts: Sequence[AtomicFact]) -> NumericResult:
    """§6.1 numerical accuracy: each sentence number stated by a cited fact, or their documented difference."""
    stated = [q for f in facts for q in f.analysis.quantities]
    ids = tuple(f.id for f in facts)
    failures: list[Failure] = []
    unmatched: list[Quantity] = []
    derivations: list[str] = []
    bounds = _bounds(claim.lowered)
    bound_words: set[str] = set()
    decades = _decades_met(claim.lowered, stated)
    for words_of, shown, _text in decades.values():
        bound_words.update(words_of)
        derivations.append(shown)
    for quantity in claim.quantities:
        if any(same_quantity(q, s) for q in (quantity, *as_rates(quantity, claim.lowered)) for s in stated):
            continue
        if any(text == quantity.text for _words, _shown, text in decades.values()):
            continue
        derived = None if "difference" in claim.lowered and _named_differences(quantity, facts) else \
            _difference(quantity, stated, claim.quantities)
        word = bounds.get((quantity.text, quantity.value))
        if derived is None and word is None:
            derived = _named_count(quantity, claim.lowered, facts)
        if derived is None and word is not None:
            derived = _bound_met(word, quantity, claim, facts)
            bound_words.update({normal(word)} if derived else ())
        if derived is not None:
            derivations.append(derived)
            continue
        unmatched.append(quantity)
        failures.append(Failure(NUMERIC_MISMATCH, f"'{quantity.show()}' is {_how(quantity, stated)}",
                                f"a cited fact stating '{quantity.show()}' exactly", ids))
    return NumericResult(tuple(failures), tuple(unmatched), tuple(derivations), frozenset(bound_words))


_LABEL = r"[A-Z](?![\w.])"


def _named_count(quantity: Quantity, lowered: str, facts: Sequence[AtomicFact]) -> str | None:
    """A count of two to nine, followed by a noun the cited facts label by letter ("Springs A, B and C"), that
    counts the distinct letters they give it; None otherwise."""
    if quantity.unit is not None or quantity.value % 1 or not 2 <= quantity.value <= 9:
        return None
    for _start, end, spanned in quantity_spans(lowered):
        noun = re.match(r"\s+([a-z]{3,})", lowered[end:]) if spanned.text == quantity.text else None
        if noun is None:
            continue
        named = re.compile(rf"\b(?i:{re.escape(noun.group(1).removesuffix('s'))})s?\s+({_LABEL}(?:\s*,\s*{_LABEL})*"
                           rf"(?:,?\s+(?:and|or)\s+{_LABEL})?)")
        labels = sorted({label for f in facts for m in named.finditer(f.statement)
                         for label in re.findall(r"[A-Z]", m.group(1))})
        if len(labels) == quantity.value:
            return f"{quantity.text} {noun.group(1)}: {', '.join(labels)}"
    return None


_BOUND = re.compile(r"\b(more|fewer|less|greater)\s+than\s+$")
_COUNT_OF = re.compile(r"(?<![\w.])(\d[\d,]*)\s+(?:of|out of)\s+(?:the\s+)?(\d[\d,]*)(?![\d.])")
_UP_BOUNDS = frozenset({"more", "greater"})


def _bounds(lowered: str) -> dict[tuple[str, Decimal], str]:
    """The sentence's proportions stated as a bound ("fewer than half", "more than 20%"): (text, value) -> word."""
    return {(q.text, q.value): m.group(1) for start, _end, q in quantity_spans(lowered)
            if q.unit == "%" and (m := _BOUND.search(lowered[:start])) is not None}


def _bound_met(word: str, bound: Quantity, claim: Analysis, facts: Sequence[AtomicFact]) -> str | None:
    """A strict bound every proportion the cited facts state for it meets ("fewer than half of the 36 ponds" from
    "14 of 36 ponds"): the proportions of counts out of a total the sentence names, else every stated percentage.
    None when there is none or one of them does not meet it."""
    totals = {q.value for q in claim.quantities if q.unit is None}
    pairs = [(Decimal(a.replace(",", "")), Decimal(b.replace(",", ""))) for f in facts
             for a, b in _COUNT_OF.findall(f.content)]
    named = [(a, b) for a, b in pairs if b in totals and 0 < a <= b]
    shares = [(a * 100 / b, f"{a} of {b}") for a, b in named] or \
        [(q.value, q.show()) for f in facts for q in f.analysis.quantities if q.unit == "%"]
    if not shares:
        return None
    up = word in _UP_BOUNDS
    if all((share > bound.value) if up else (share < bound.value) for share, _shown in shares):
        return "; ".join(f"{word} than {bound.text}: {shown}" for _share, shown in shares)
    return None


_DIFFERENCE_AFTER = re.compile(r"\s*(?:[a-zµ°%/²³-]+\s+){0,3}?(?:more|less|fewer|higher|lower|greater|smaller|larger|"
                               r"longer|shorter)\b")


_DECADE = re.compile(r"\bthe\s+(?:(1\d|20)(\d)0s|'(\d)0s|(twenties|thirties|forties|fifties|sixties|seventies|"
                     r"eighties|nineties))\b")
_DECADE_WORDS = {"twenties": 2, "thirties": 3, "forties": 4, "fifties": 5, "sixties": 6, "seventies": 7,
                 "eighties": 8, "nineties": 9}


def _decades_met(lowered: str, stated: Sequence[Quantity]) -> dict[str, tuple[frozenset[str], str, str]]:
    """The sentence's decades a stated year falls in: decade -> (its word, if spelled, as the numeric check's;
    the derivation shown; the number text the decade is written with, if any)."""
    years = [q for q in stated if q.unit is None and q.places == 0 and q.text.isdigit() and len(q.text) == 4]
    met: dict[str, tuple[frozenset[str], str, str]] = {}
    for m in _DECADE.finditer(lowered):
        century, tens, short, word = m.groups()
        digit = int(tens or short or _DECADE_WORDS[word])
        year = next((y for y in years if int(y.text[2]) == digit and (century is None or y.text[:2] == century)),
                    None)
        if year is not None:
            text = f"{century}{tens}0" if century else (f"{short}0" if short else "")
            met[m.group(0)] = (frozenset({normal(word)}) if word else frozenset(), f"{year.text} is in {m.group(0)}",
                               text)
    return met


def difference_stated(claim: Analysis, facts: Sequence[AtomicFact]) -> bool:
    """A sentence number a cited fact states as a difference ("5.8 more minutes per day ... than"): "the mean
    difference was 5.8 minutes" names it with a neutral word (§5.1), as a computed difference may be."""
    return any(q.value in _differences(f) for q in claim.quantities for f in facts)


def _differences_of(fact: AtomicFact) -> frozenset[Decimal]:
    lowered = fact.content.lower()
    return frozenset(q.value for _start, end, q in quantity_spans(lowered) if _DIFFERENCE_AFTER.match(lowered, end))


_differences: ByObject[AtomicFact, frozenset[Decimal]] = ByObject(_differences_of)  # once per cited fact


# "(adjusted mean difference 0.12 m/s", "a difference of 5.8 minutes": a fact that names its own difference
_NAMED_DIFFERENCE = re.compile(r"\bdifferences?(?:\s+(?:of|was|were|is))?\s*$")


def _named_differences(quantity: Quantity, facts: Sequence[AtomicFact]) -> bool:
    """Whether a cited fact names a difference in the sentence number's unit: a sentence's "difference" is then that
    one, never one computed from the fact's other numbers ("adjusted mean difference 0.12" beside 0.84 and 0.71)."""
    return any(q.unit == quantity.unit and _NAMED_DIFFERENCE.search(f.content.lower()[:start])
               for f in facts for start, _end, q in quantity_spans(f.content.lower()))


def _difference(quantity: Quantity, stated: list[Quantity], said: Sequence[Quantity]) -> str | None:
    # shown, not substituted: the sentence states both numbers it is the difference of ("fell by 1.3 percentage
    # points, from 6.4% to 5.1%"); a difference in their place ("rose by 9 °C") is a number no fact states
    values = {q.value for q in said}
    for a, b in combinations((q for q in stated if q.value in values), 2):
        # two percentages differ by percentage points: "from 6.4% to 5.1%" is "by 1.3 percentage points", never
        # "by 1.3%" (that is a relative change, about 20%)
        unit = "pp" if a.unit == "%" else a.unit
        if a.unit is not None and a.unit == b.unit and quantity.unit in (None, unit) \
                and abs(a.value - b.value) == quantity.value:
            return f"{quantity.show()} = |{a.show()} - {b.show()}|"
    return None


def _how(quantity: Quantity, stated: list[Quantity]) -> str:
    """Why a number does not match: unit changed, rounded, or not stated at all."""
    if any(s.value == quantity.value for s in stated):
        units = sorted({s.unit or "no unit" for s in stated if s.value == quantity.value})
        return f"stated by the cited facts with another unit ({', '.join(units)})"
    for s in stated:
        if s.places > quantity.places and round(s.value, quantity.places) == quantity.value:
            return f"a rounding of '{s.show()}'"
    return "not stated by the cited facts (changed or computed)"


UP = lexicon("increase increased rise rose risen grow grew higher more greater larger longer climb climbed gain gained")
DOWN = lexicon("""decrease decreased fall fell drop dropped decline declined lower less fewer smaller shorter reduce
    reduced""")
_DIRECTED = UP | DOWN
_BRACKET = re.compile(r"\([^()]*\)")


def amount_directions(claim: Analysis, facts: Sequence[AtomicFact]) -> frozenset[str]:
    """Direction words that follow an amount the cited facts follow with a word of the same direction ("6.2
    minutes less sleep" for "6.2 minutes (95% CI ...) shorter sleep"): the same difference in other words (§5.1).
    A word of the other direction is left to the entailment check, which refuses it."""
    if not claim.quantities:
        return frozenset()
    stated = frozenset().union(*(_amounts(f) for f in facts))
    owned: set[str] = set()
    text = _BRACKET.sub(" ", claim.lowered)
    for _start, end, quantity in quantity_spans(text):
        directed = _directed_after(text, end)
        if directed and (quantity.value, quantity.unit, directed[0] in UP) in stated:
            owned.update(directed)
    return frozenset(owned)


def _amounts_of(fact: AtomicFact) -> frozenset[tuple[Decimal, str | None, bool]]:
    """(value, unit, goes up) of each amount of a fact a direction word follows."""
    text = _BRACKET.sub(" ", fact.analysis.lowered)
    return frozenset((q.value, q.unit, directed[0] in UP) for _s, end, q in quantity_spans(text)
                     if (directed := _directed_after(text, end)))


_amounts: ByObject[AtomicFact, frozenset[tuple[Decimal, str | None, bool]]] = ByObject(_amounts_of)


def _directed_after(text: str, end: int) -> list[str]:
    """The direction words (normal form) among the two words right after a number's end; the first decides."""
    return [normal(w) for w in re.findall(r"[a-z]+", text[end:end + 30])[:2] if normal(w) in _DIRECTED]


# a number with thousands separators is one word ("from 48,200 to 61,700"); any other comma ends the change
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?%?|[^\s,;]+"
_GAP = r"(?:[^;,]|(?<=\d),(?=\d{3}))*?"
_FROM_TO = re.compile(rf"\bfrom\s+(?P<a>{_NUMBER}){_GAP}\bto\s+(?P<b>{_NUMBER})")
_TO_FROM = re.compile(rf"\bto\s+(?P<b>{_NUMBER}){_GAP}\bfrom\s+(?P<a>{_NUMBER})")


def from_to(text: str) -> list[tuple[Decimal, Decimal]]:
    """The (from, to) number pairs of a text ("fell from 6.4% to 5.1%", "from 410 MB with 4.8 to 530 MB", "rose to
    61,700 from 48,200")."""
    pairs: list[tuple[Decimal, Decimal]] = []
    lowered = text.lower()
    for match in (*_FROM_TO.finditer(lowered), *_TO_FROM.finditer(lowered)):
        a, b = quantities(match.group("a")), quantities(match.group("b"))
        if a and b:
            pairs.append((a[0].value, b[0].value))
    return pairs


# "a lower latency (18.4 versus 27.9 ms)": two values set side by side after the comparative, in its order
_PAIR = re.compile(r"\(\s*[^()\d]{0,12}?(?<![^\W\d_])(?P<a>\d[\d.,]*)[^()\d]{0,12}?\b(?:versus|vs\.?)\s*"
                   r"(?P<b>\d[\d.,]*)")


def directions_shown(claim: Analysis, claim_text: str, sides: Sequence[tuple[str, Decimal, Decimal]]) -> frozenset[str]:
    """Direction words the sentence's own numbers show (issue 42): "increased from 410 to 530", "higher (530 MB)
    than (410 MB)", "a lower latency (18.4 versus 27.9 ms)". Comparing two numbers the cited facts state is
    entailment, not inference; the numbers themselves are still checked (stated, unrounded, in their groups)."""
    shown: set[str] = set()
    for a, b in from_to(claim_text):
        if a != b:
            shown |= claim.tokens & (UP if b > a else DOWN)
    for word, first, second in sides:
        if first != second and normal(word) in (UP if first > second else DOWN):
            shown.add(normal(word))
    paired: set[str] = set()  # each pair shows its own comparative, so a sentence may show one of each way
    lowered = claim_text.lower()
    for m in _PAIR.finditer(lowered):
        a, b = Decimal(m.group("a").replace(",", "")), Decimal(m.group("b").replace(",", ""))
        directed = [normal(w) for w in re.findall(r"[a-z]+", lowered[max(0, m.start() - 60):m.start()])
                    if normal(w) in _DIRECTED]
        if a != b and directed and directed[-1] in (UP if a > b else DOWN):
            paired.add(directed[-1])
    return (frozenset(shown) if not (shown & UP and shown & DOWN) else frozenset()) | paired


_SUPERLATIVE = re.compile(r"\b(?:(?P<up>highest|largest|greatest|longest|biggest)|(?P<down>lowest|smallest|"
                          r"shortest|fewest))\b")


def superlatives_shown(claim: Analysis, facts: Sequence[AtomicFact]) -> frozenset[str]:
    """Superlatives the cited facts' numbers show (blind half 6): "highest at Spring A (38.5 mg/L)" when 38.5 mg/L is
    the largest of the two or more values in mg/L of the one cited fact that states it; the first number with a unit
    after the word is the one it is said of. Like `directions_shown`, a comparison of stated numbers, not a claim."""
    shown: set[str] = set()
    found = list(_SUPERLATIVE.finditer(claim.lowered))
    if not found:  # every sentence asks: most have no superlative, and then no number is read again
        return frozenset()
    spans = [(start, q) for start, _end, q in quantity_spans(claim.lowered) if q.unit is not None]
    for m in found:
        said = next((q for start, q in spans if start > m.end()), None)
        if said is None:
            continue
        for fact in facts:
            values = {q.value for q in fact.analysis.quantities if q.unit == said.unit}
            if said.value in values and len(values) >= 2 \
                    and said.value == (max(values) if m.group("up") else min(values)):
                shown.add(normal(m.group(0)))
    return frozenset(shown)


def from_to_reversed(claim_text: str, facts: Sequence[AtomicFact]) -> list[Failure]:
    """A change stated the other way round: the facts go from A to B, the sentence from B to A."""
    stated = {pair for f in facts for pair in from_to(f.content)}
    failures = []
    for a, b in from_to(claim_text):
        if (a, b) not in stated and (b, a) in stated:
            failures.append(Failure(NOT_ENTAILED, f"from/to reversed: the sentence goes from {a} to {b}, the cited "
                                    f"facts from {b} to {a}", f"an Atomic Fact stating a change from {a} to {b}",
                                    tuple(f.id for f in facts)))
    return failures


# "before the upgrade", "after the intervention", "following its launch": the event a change is set against
_EVENT = re.compile(r"\b(?P<when>before|after|following|prior to)\s+(?:the\s+|its\s+|their\s+|an?\s+)?"
                    r"(?P<event>[a-z][a-z-]+)")


def before_after_moved(claim_text: str, facts: Sequence[AtomicFact]) -> list[Failure]:
    """A change's value moved across its event: a fact that goes from A to B after (or following) an event gives A
    for the time before it and B for the time after ("rose to 61,700 from 48,200 after the upgrade"); a sentence
    stating only B "before the upgrade", or only A "after" it, moves the value (§5.2). A fact that sets its change
    before the event says nothing of which side is which, and is not read."""
    found = {normal(m.group("event")): m for m in _EVENT.finditer(claim_text.lower())}
    if len(found) != 1:
        return []
    (event, mark), = found.items()
    before = mark.group("when") in ("before", "prior to")
    stated = {q.value for q in quantities(claim_text)}
    for fact in facts:
        lowered = fact.content.lower()
        after_event = [m for m in _EVENT.finditer(lowered) if normal(m.group("event")) == event]
        if not after_event or any(m.group("when") in ("before", "prior to") for m in after_event):
            continue
        for a, b in from_to(fact.content):
            own, other = (a, b) if before else (b, a)
            if a != b and other in stated and own not in stated:
                said = mark.group(0)
                return [Failure(NOT_ENTAILED, f"value moved: the sentence gives {other:,} {said}, where {fact.id} goes "
                                f"from {a:,} to {b:,} after it", f"an Atomic Fact stating {other:,} {said}",
                                (fact.id,))]
    return []


# "(6.5% versus 4.0%)", "31 vs 12 ms": a marker between two numbers presents two stated values side by side; it
# claims nothing the numbers do not (§5.1 "Restating facts in academic prose"), and the numbers are still checked.
_BETWEEN_NUMBERS = re.compile(r"\d[\d.,]*\s*(?:%|[a-zµ/]+)?\s*(?:versus|vs\.?|compared with|against)\s*\(?\s*\d")
PRESENTING = lexicon("versus vs compared comparison")


def presented_side_by_side(claim_text: str) -> frozenset[str]:
    """The comparison-marker words of a sentence that only set two numbers side by side."""
    return PRESENTING if _BETWEEN_NUMBERS.search(claim_text.lower()) else frozenset()
