"""Roles and comparisons bound (issue 42, item 1): the same words in another order are another claim.

A bag of words passes "X was lower in A than in B" against "X was lower in B than in A", and "P tutored Q"
against "Q tutored P". So each clause of the sentence and of its cited facts is read as frames:
- a comparison frame: a comparative ("lower", "more", "faster", "exceeded", "fell short of") with its two sides,
  the words before the comparison marker ("than", "versus", "compared with", "relative to") and the words after.
  The sentence's comparative is the fact's (same lemma or a synonym: the sides stay), or its antonym
  (WordNet's antonym pointers, "more"/"less"/"fewer": the sides swap). "did not exceed" and "fell short of" read
  as the antonym with its sides ("A did not exceed B" is entailed by "A was lower than B": not-higher);
- a role frame: a predicate verb with its agent (the words right before it, or after "by" in the passive) and its
  patient (the words right after an active verb, or before a passive one), up to the nearest comma or preposition,
  and its baseline (the words after a comparison marker: "reduced corrosion by 30% relative to uncoated steel");
  a sentence that makes a fact's baseline its agent swaps roles.
The first side, when it is the subject, is the words before the clause's verb after any fronted scene ("Under
workload W, | A | sustained a higher throughput than B"); "X of A ... than that of B" compares A and B; a second side
ends at the respect the sides share ("than B | under workload W"); a comparative inside brackets measures a side. A
modifier one side states and the other leaves unsaid ("children in the lowest quartile of NO2 exposure than those
in the highest quartile") is not a swap when each side's own words land where the fact puts them; a number never
moves that way. A ratio ("14% higher") never swaps sides: B is not 14% lower than A (NUMERIC_MISMATCH).
A frame of the sentence fails when a cited fact has a frame of the same predicate and every such frame puts one
of the sentence's side words on the other side: the word is stated, but in the other role (§5.1 "without
changing meaning", §5.2 "Hallucination or inference"). Where no fact frame has the predicate, the words are left
to `entailment` and `binding`: this check only refuses, it never lets anything through.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from omega.grounding.facts import AtomicFact
from omega.grounding.groups import compared_values
from omega.grounding.memo import ByObject
from omega.grounding.model import NOT_ENTAILED, NUMERIC_MISMATCH, Failure, quoted
from omega.grounding.quantities import SPELLED, quantity_spans
from omega.grounding.rephrasing import antonyms, lemmas, related
from omega.grounding.tokens import FUNCTION_WORDS, NEGATIONS, marked_text, normal
from omega.grounding.words import AUXILIARIES, Word, clauses, verb_form, words

MARKERS = frozenset({"than", "versus", "vs"})
_MARKER_TEXT = re.compile(r"\b(?:than|versus|vs|compared (?:with|to)|relative to)\b", re.IGNORECASE)
TWO_WORD_MARKERS = frozenset({("compared", "with"), ("compared", "to"), ("relative", "to"), ("as", "opposed")})
COMPARATIVES = frozenset({"more", "less", "fewer", "exceed", "exceeded", "exceeds", "outperform", "outperformed",
                          "outperforms", "surpass", "surpassed", "above", "below", "short"})
_OPPOSITES = (frozenset({"more", "exceed", "outperform", "surpass", "above", "high", "great", "large", "long", "fast",
                         "heavy", "big", "strong", "good", "well"}),
              frozenset({"less", "fewer", "few", "little", "short", "below", "low", "small", "slow", "light",
                         "weak", "bad", "badly", "poor", "poorly"}))
_BOUNDARY = frozenset({"as", "in", "on", "at", "among", "during", "after", "before", "for", "from", "with", "within",
                       "over", "under", "across", "between", "since", "until", "to", "into", "of", "by", "per",
                       "than", "versus", "vs", "compared", "relative", "while", "whereas", "and", "but", "which",
                       "who", "that"})
_COMPARING_VERBS = frozenset({"exceed", "outperform", "surpass", "outnumber", "short"})
_SIDE_PREPOSITIONS = frozenset({"in", "among", "for", "at", "on", "with", "during", "under", "from", "after",
                                "before", "within", "across"})
_DETERMINERS = frozenset({"a", "an", "the", "this", "that", "these", "those", "its", "their", "his", "her", "our",
                          "each", "every", "no", "any", "some"})
_RESPECT = frozenset({"on", "as", "across", "during", "over", "under", "for", "regarding"})
_NOUN_NEGATIONS = frozenset({"without", "absence", "absent", "lack", "lacks", "lacked", "lacking"})
_THOSE = re.compile(r"^(?:those|that|the ones?) (?:" + "|".join(sorted(_SIDE_PREPOSITIONS)) + ")$")
_HOW_OFTEN = "common|frequent|prevalent|likely|often|widespread"
_BE = frozenset({"is", "are", "was", "were", "be", "been", "being"})


@dataclass(frozen=True, slots=True)
class Frame:
    """One predicate of a clause with its two sides (agent / patient, or the compared sides)."""

    kind: str  # "comparison" or "role"
    predicate: str  # the word as written, lower case
    first: frozenset[str]
    second: frozenset[str]
    baseline: frozenset[str] = frozenset()  # a role frame's "relative to X": what its change is set against
    relative: bool = False  # a comparison by a ratio ("14% higher", "twice as", "3-fold higher")


@dataclass(frozen=True, slots=True)
class FrameCheck:
    """What the frames found: sides on the wrong side (failures), and comparatives the facts state by their
    antonym with the sides swapped, read as the fact's word (`covered`: sentence token -> fact token)."""

    failures: tuple[Failure, ...]
    covered: Mapping[str, str]
    readings: tuple[str, ...]
    negation_read: bool = False  # the sentence's one negation is its comparative's ("did not exceed" = "lower")


def comparisons_and_roles(claim_text: str, facts: Sequence[AtomicFact], mapping: Mapping[str, str]) -> FrameCheck:
    """Each frame of the sentence checked against the cited facts' frames of the same predicate."""
    claim_frames = frames(claim_text)
    if not claim_frames:
        return FrameCheck((), {}, ())
    stated = [frame for f in facts for frame in fact_frames(f)]
    failures: list[Failure] = []
    covered: dict[str, str] = {}
    readings: list[str] = []
    negation_read = False
    for frame in claim_frames:
        first = frozenset(mapping.get(t, t) for t in frame.first)
        second = frozenset(mapping.get(t, t) for t in frame.second)
        judged = [(v, f) for f in stated
                  if (v := _agrees(frame.kind, frame.predicate, first, second, f)) is not None]
        agreeing = [f for (ok, _), f in judged if ok]
        # "A was 14% higher than B" does not give "B was 14% lower than A": a ratio is relative to its baseline,
        # so a sentence that states one may not swap the sides (the direction alone may)
        swapped = next((f for f in agreeing if relation(frame.predicate, f.predicate) == "opposite"), None)
        if frame.relative and swapped is not None:
            failures.append(Failure(
                NUMERIC_MISMATCH,
                f"a ratio read from the other side: the cited facts state '{swapped.predicate}' than "
                f"{quoted(sorted(swapped.second))}, and a ratio does not hold with the sides swapped "
                f"('{frame.predicate}' than {quoted(sorted(second))})", f"an Atomic Fact stating the difference "
                f"relative to {quoted(sorted(second))}, cited inline", tuple(f.id for f in facts)))
            covered[normal(frame.predicate.split()[-1])] = normal(swapped.predicate.split()[-1])  # the word is
            continue  # the facts' (so the reason is the ratio, not an unstated word)
        if agreeing:
            if frame.kind == "comparison" and not agreeing[0].predicate.startswith("not "):
                fact_word = agreeing[0].predicate
                word = frame.predicate.removeprefix("not ")
                negation_read |= word != frame.predicate and _negations(claim_text) == 1
                covered[normal(word.split()[-1])] = normal(fact_word.split()[-1])
                if word != fact_word:
                    readings.append(f"{frame.predicate} than = {fact_word} than, sides swapped"
                                    if relation(frame.predicate, fact_word) == "opposite"
                                    else f"{frame.predicate} = {fact_word}")
            continue
        if not judged:
            continue
        (_ok, moved), fact_frame = judged[0]
        what = "comparison reversed" if frame.kind == "comparison" else "roles swapped"
        failures.append(Failure(
            NOT_ENTAILED,
            f"{what}: the sentence puts {quoted(sorted(moved))} on the other side of '{frame.predicate}' than the "
            f"cited facts, which state '{fact_frame.predicate}' with {quoted(sorted(fact_frame.first))} "
            f"/ {quoted(sorted(fact_frame.second))}",
            f"an Atomic Fact stating '{frame.predicate}' with {quoted(sorted(first))} / {quoted(sorted(second))} in "
            f"these roles, cited inline", tuple(f.id for f in facts)))
    return FrameCheck(tuple(failures), covered, tuple(readings), negation_read)


def _negations(text: str) -> int:
    return sum(1 for w in words(text) if w.lower in NEGATIONS or w.lower.endswith("n't"))


def _agrees(kind: str, predicate: str, first: frozenset[str], second: frozenset[str],
            fact: Frame) -> tuple[bool, frozenset[str]] | None:
    """None when the fact frame is about another predicate; else whether the sides land where the fact puts them
    (and the words that moved)."""
    if fact.kind != kind:
        return None
    how = relation(predicate, fact.predicate)
    if how is None:
        return None
    own_first, own_second = fact.first - fact.second, fact.second - fact.first
    if how == "opposite":
        own_first, own_second = own_second, own_first
    moved = (second & own_first) | (first & own_second) - second
    landed = (second & own_second) | (first & own_first)
    if not moved and not landed:
        return None  # the sides share nothing with this fact frame: it is about other things
    if moved and _elided(moved, landed, own_first, own_second) and kind == "comparison":
        return True, frozenset()
    baseline_only, agent_only = fact.baseline - fact.first, fact.first - fact.baseline
    if not moved and kind == "role" and first & baseline_only and not first & agent_only:
        # the fact's baseline made the agent: "uncoated steel reduced corrosion relative to the coating" against
        # "the coating reduced corrosion relative to uncoated steel"
        return False, first & baseline_only
    return not moved, moved


def _elided(moved: frozenset[str], landed: frozenset[str], own_first: frozenset[str], own_second: frozenset[str]
            ) -> bool:
    """Words a side carries that the other side leaves unsaid ("longer among children in the lowest quartile of NO2
    exposure than among those in the highest quartile"): when each side's own words land where the fact puts them,
    words of one fact side that appear on the other side of the sentence are a modifier stated once, not a swap.
    A number never moves this way: a value on the other side is a value moved (§5.2)."""
    return bool(landed & own_first and landed & own_second and (moved <= own_first or moved <= own_second)
                and not any(word[:1].isdigit() for word in moved))


def relation(a: str, b: str, table: bool = True) -> str | None:
    """"same" when two predicates are one word (lemma or synonym), "opposite" for antonyms, else None. Without
    `table`, the synonym table's groups do not count (they join "reduce" and "fall": transitive and not)."""
    la, lb = _forms(a), _forms(b)
    if la & lb or related(a) & lb or (table and normal(a) == normal(b)):
        return "same"
    if any(la & side for side in _OPPOSITES) and any(lb & side for side in _OPPOSITES):
        up_a, up_b = bool(la & _OPPOSITES[0]), bool(lb & _OPPOSITES[0])
        return "same" if up_a == up_b else "opposite"
    if la & frozenset().union(*(antonyms(w) for w in lb)):
        return "opposite"
    return None


@lru_cache(maxsize=4096)
def _forms(word: str) -> frozenset[str]:
    """A predicate's lemmas, "not exceed" read as its antonym marker."""
    if word.startswith("not "):
        inner = _forms(word[4:])
        flipped = [side for side in _OPPOSITES if not inner & side]
        return flipped[0] if len(flipped) == 1 else frozenset({word})
    if word == "fell short":
        return frozenset({"short"})
    return lemmas(word)


def _frames_of(fact: AtomicFact) -> tuple[Frame, ...]:
    return frames(fact.content)


fact_frames: ByObject[AtomicFact, tuple[Frame, ...]] = ByObject(_frames_of)  # a paragraph cites a fact again and again


@lru_cache(maxsize=256)
def frames(text: str) -> tuple[Frame, ...]:
    """The comparison and role frames of each clause of a text (citations already removed)."""
    out: list[Frame] = []
    for clause in clauses(_BRACKETED.sub(_no_comparative, marked_text(text)), claim=False):
        found = _items(clause)
        comparison = _comparison(found, clause)
        if comparison is not None:
            out.append(comparison)
            continue
        out += _roles(found, clause)
    return tuple(out)


_BRACKETED = re.compile(r"\(([^()]*)\)")
# marks kept around a bracketed span's words (brackets themselves are set aside by `clauses`): a comparing verb's
# sides leave out the values a bracket presents ("A outperformed B (R² 0.74 versus 0.61)")
_OPEN_MARK, _CLOSE_MARK = "\u27e6", "\u27e7"
_MARKED = re.compile(f"{_OPEN_MARK}[^{_CLOSE_MARK}]*{_CLOSE_MARK}")


def _no_comparative(match: re.Match[str]) -> str:
    """A bracketed span without its comparatives: "(2.9 minutes shorter per 10 µg/m³) than" measures a side, the
    comparison is the one outside the brackets."""
    inner = match.group(1)
    for word in reversed(words(inner)):
        if _comparative(word):
            inner = inner[:word.start] + inner[word.start + len(word.surface):]
    return f"({_OPEN_MARK}{inner}{_CLOSE_MARK})"


_NUMBER = re.compile(r"(?<![^\W\d_])\d+(?:[.,]\d+)*")  # "NO2", "PbI3": a name's digits are no number
# A ratio right before the comparative: "14% higher", "14 per cent more", "3.2 times", "3-fold higher"
_RATIO = re.compile(r"(?:%|\bper ?cent|\btimes|\bfold)\s*(?:as\s+)?$", re.IGNORECASE)


def _items(text: str) -> tuple[Word, ...]:
    """The words of a clause and its numbers ("release 5", "version 2.4"), in order."""
    numbers = [Word(m.group(0), m.group(0).replace(",", ""), m.start(), False, False) for m in _NUMBER.finditer(text)]
    return tuple(sorted([*words(text), *numbers], key=lambda w: w.start))


def _tokens(found: Sequence[Word]) -> frozenset[str]:
    return frozenset(w.lower if w.lower[:1].isdigit() else normal(w.lower) for w in found
                     if w.lower not in FUNCTION_WORDS and w.lower not in NEGATIONS)


def _comparison(found: Sequence[Word], text: str) -> Frame | None:
    for at in range(len(found)):
        marker = _marker_length(found, at)
        if not marker:
            continue
        before = found[:at]
        comparative = next((i for i in range(len(before) - 1, -1, -1) if _comparative(before[i])), None)
        if comparative is None:
            return None
        after = found[at + marker:at + marker + 1]
        if after and (after[0].lower[:1].isdigit() or after[0].lower in SPELLED):
            continue  # "fewer than 4,000 steps", "more than three hours": a threshold, not two sides
        predicate = before[comparative].lower
        if predicate == "short" and comparative and before[comparative - 1].lower.startswith("fell"):
            predicate = "fell short"
        negated = _negated_predicate(before[:comparative])
        # the first side: a phrase between the comparative and the marker ("lower | in A | than in B", "more
        # common | among A | than among B"), else the words before the comparative ("A | was faster than B");
        # the compared quantity is neither side
        between = before[comparative + 1:]
        second = found[at + marker:]
        side = next((i for i, w in enumerate(between) if w.lower in _SIDE_PREPOSITIONS), None)
        if second and second[0].lower not in _SIDE_PREPOSITIONS and not _THOSE.match(" ".join(
                w.lower for w in second[:2])):
            side = _bare_side(before[:comparative], between, side, second)
        second = _up_to_respect(second)
        first = between[side:] if side is not None else _subject(before[:comparative], text)
        if second[:2] and second[0].lower in ("that", "those") and second[1].lower == "of":
            # "peak memory of A was higher than that of B": the sides are what follows each "of"
            of = next((i for i, w in enumerate(first) if w.lower == "of"), None)
            first = first[of + 1:] if of is not None else first
        return Frame("comparison", f"not {predicate}" if negated else predicate, _tokens(first),
                     _tokens(second), relative=bool(_RATIO.search(text[:before[comparative].start])))
    return _comparing_verb(found, text)


def _up_to_respect(side: Sequence[Word]) -> Sequence[Word]:
    """A second side ends where the respect in which the sides compare starts ("than B | under the batch
    workload"): the scene both sides share."""
    return side[:next((i for i, w in enumerate(side) if i and w.lower in _RESPECT), len(side))]


def _subject(before: Sequence[Word], text: str) -> Sequence[Word]:
    """The first side when it is the subject: the words before the clause's last verb form, from the last comma
    before them ("Under workload W, | A | sustained a higher throughput than B"): a fronted adverbial is the
    scene both sides share, and the verb and its object are the compared quantity, not a side."""
    verb = next((i for i in range(len(before) - 1, 0, -1) if verb_form(before[i])), None)
    if verb is None:
        return before
    start = _after_last_comma(before[:verb], text)
    return before[start:verb] if _tokens(before[start:verb]) else before


def _after_last_comma(found: Sequence[Word], text: str) -> int:
    """Where the words after the last comma between them start (0 without one): a fronted phrase ends there."""
    return next((i for i in range(len(found) - 1, 0, -1)
                 if "," in text[found[i - 1].start + len(found[i - 1].surface):found[i].start]), 0)


def _bare_side(subject: Sequence[Word], between: Sequence[Word], side: int | None, second: Sequence[Word]
               ) -> int | None:
    """Where the first side starts when the second has no preposition: the phrase after the comparative when the
    second side shares its words ("higher in the northern plots than the southern plots") or repeats the noun the
    comparative qualifies ("more participants on A than participants on B"), else the subject when the second
    side shares its words ("A had a lower latency on X than B"), else as with a preposition."""
    words_of_second = _tokens(second)
    if side is not None and _tokens(between[side:]) & words_of_second:
        return side
    head = next((w for w in between if w.lower not in FUNCTION_WORDS), None)
    if head is not None and normal(head.lower) == normal(second[0].lower):
        return 0
    return None if _tokens(subject) & words_of_second else side


def _comparing_verb(found: Sequence[Word], text: str) -> Frame | None:
    """A verb that compares its subject with its object ("A exceeded B", "A fell short of B"); a fronted phrase
    before the subject ("In predicting X, | A outperformed B") is the scene of both sides."""
    bracketed = [m.span() for m in _MARKED.finditer(text)]
    found = [w for w in found if not any(a <= w.start < b for a, b in bracketed)]
    for at, word in enumerate(found):
        if not lemmas(word.lower) & _COMPARING_VERBS:
            continue
        predicate = word.lower
        rest = found[at + 1:]
        if predicate == "short" and at and found[at - 1].lower.startswith("fell"):
            predicate, rest = "fell short", rest[1:] if rest and rest[0].lower == "of" else rest
        elif predicate == "short":
            continue
        negated = _negated_predicate(found[:at])
        before = [w for w in found[:at] if w.lower != "fell"]
        before = before[_after_last_comma(before, text):]
        by = next((i for i, w in enumerate(rest) if w.lower == "by"), None)
        if at and found[at - 1].lower in _BE and by is not None:  # "B was outperformed by A"
            before, rest = list(rest[by + 1:]), before
        # "A outperformed B | on the proportion of ...": the respect in which they compare is neither side
        return Frame("comparison", f"not {predicate}" if negated else predicate, _tokens(_up_to_respect(before)),
                     _tokens(_up_to_respect(rest)))
    return None


def _negated_predicate(before: Sequence[Word]) -> bool:
    """A negation in the three words before the comparative ("did not exceed", "was no higher"); "without" in the
    subject ("the membrane without an interlayer") negates nothing of the comparison."""
    return any((w.lower in NEGATIONS and w.lower not in _NOUN_NEGATIONS) or w.lower.endswith("n't")
               for w in before[-3:])


def _marker_length(found: Sequence[Word], at: int) -> int:
    word = found[at].lower
    if word in MARKERS:
        return 1
    if at + 1 < len(found) and (word, found[at + 1].lower) in TWO_WORD_MARKERS:
        return 2
    return 0


_ER = re.compile(r"^[a-z]{2,}(?:er|ier)$")


def _comparative(word: Word) -> bool:
    low = word.lower
    if low[:1].isdigit():
        return False
    return low in COMPARATIVES or (bool(_ER.match(low)) and any(f != low for f in lemmas(low)) and
                                   low not in FUNCTION_WORDS)


def _roles(found: Sequence[Word], text: str) -> list[Frame]:
    """Each non-auxiliary verb form after the first word with its agent and patient phrases ("randomised
    controlled trial" yields no frame: an -ed word after an adjective has no agent phrase of its own)."""
    out: list[Frame] = []
    for at in range(1, len(found)):
        word = found[at]
        if word.lower[:1].isdigit() or not verb_form(word) or word.lower in AUXILIARIES \
                or found[at - 1].lower in _DETERMINERS or _count_before(found, at, text):  # "the tiered
            # compiler", "1,150 registered nurses": an adjective, not a predicate
            continue
        passive = found[at - 1].lower in _BE
        before = _phrase(found, text, at - (2 if passive else 1), -1)
        if passive:
            by = next((i for i in range(at + 1, len(found) - 1) if found[i].lower == "by"
                       and not found[i + 1].lower[:1].isdigit()), None)  # "reduced by 12 mmHg" is a measure
            if by is None:
                continue  # a passive without its agent says nothing about who did it
            agent, patient = _phrase(found, text, by + 1, 1), before
        else:
            agent, patient = before, _phrase(found, text, at + 1, 1)
        if _tokens(agent) and _tokens(patient):
            out.append(Frame("role", word.lower, _tokens(agent), _tokens(patient), _baseline(found, at)))
    return out


def _count_before(found: Sequence[Word], at: int, text: str) -> bool:
    """A count right before a verb form ("of the 1,150 | registered nurses"): a number standing alone, itself after
    a function word; not a name's number ("Release 4 replaced") nor a name's digits ("Me-4PACz")."""
    word = found[at - 1]
    end = word.start + len(word.surface)
    return word.lower[:1].isdigit() and (end >= len(text) or text[end].isspace()) \
        and (at < 2 or found[at - 2].lower in FUNCTION_WORDS or verb_form(found[at - 2]))


def _baseline(found: Sequence[Word], at: int) -> frozenset[str]:
    """The words after a comparison marker following the verb ("reduced corrosion by 30% | relative to | uncoated
    steel"): the baseline the change is measured against."""
    for i in range(at + 1, len(found)):
        marker = _marker_length(found, i)
        if marker:
            return _tokens(found[i + marker:])
    return frozenset()


def _phrase(found: Sequence[Word], text: str, start: int, step: int) -> list[Word]:
    """The words from `start` walking by `step` up to a boundary word (a preposition, a conjunction) or a comma."""
    out: list[Word] = []
    at = start
    while 0 <= at < len(found) and found[at].lower not in _BOUNDARY and found[at].lower not in AUXILIARIES:
        if out:
            a, b = sorted((out[-1], found[at]), key=lambda w: w.start)
            if "," in text[a.start + len(a.surface):b.start]:
                break
        out.append(found[at])
        at += step
    return out


def numeric_sides(text: str) -> list[tuple[str, Decimal, Decimal]]:
    """The sentence's comparisons that measure each side with one number of the same unit ("higher (530 MB)
    than with 4.8 (410 MB)"): (comparative, first side's number, second side's number)."""
    out: list[tuple[str, Decimal, Decimal]] = []
    if not _MARKER_TEXT.search(text):
        return out
    for clause in clauses(marked_text(text), claim=False):
        marker = _MARKER_TEXT.search(clause)
        found = frames(clause)
        if marker is None or not found or found[0].kind != "comparison" or found[0].predicate.startswith("not "):
            continue
        spans = quantity_spans(clause.lower())
        before = [q for _s, e, q in spans if e <= marker.start() and q.unit is not None]
        after = [q for s, _e, q in spans if s >= marker.end() and q.unit is not None]
        if len(before) == 1 and len(after) == 1 and before[0].unit == after[0].unit:
            out.append((found[0].predicate, before[0].value, after[0].value))
    return out


def directions_by_the_facts(claim_text: str, facts: Sequence[AtomicFact]) -> tuple[frozenset[str], list[Failure]]:
    """Comparatives the cited facts' own numbers decide (issue 42): "lower with A than with B" when a fact gives A
    5.1 ms and B 7.2 ms. Comparing two stated values is entailment, not inference (§5.1 "strictly entailed"); the
    comparatives they show are read as stated, and one they contradict is refused."""
    shown: set[str] = set()
    failures: list[Failure] = []
    for frame in frames(claim_text):
        if frame.kind != "comparison" or frame.predicate.startswith("not "):
            continue
        forms = _forms(frame.predicate)
        up, down = bool(forms & _OPPOSITES[0]), bool(forms & _OPPOSITES[1])
        if up == down:
            continue
        values = compared_values(frame.first, frame.second, facts)
        if values is None or values[0] == values[1]:
            continue
        if (values[0] > values[1]) == up:
            shown.add(normal(frame.predicate))
            # "more common", "less frequent": the comparative of how often, which two proportions also decide
            shown.update(normal(m.group(1)) for m in re.finditer(
                rf"\b{re.escape(frame.predicate)}\s+({_HOW_OFTEN})\b", claim_text.lower()))
        else:
            failures.append(Failure(
                NOT_ENTAILED, f"comparison reversed: the sentence says '{frame.predicate}' for "
                f"{quoted(sorted(frame.first))} against {quoted(sorted(frame.second))}; the cited facts give "
                f"{values[0]} and {values[1]}", f"an Atomic Fact stating the comparison as '{frame.predicate}'",
                tuple(f.id for f in facts)))
    return frozenset(shown), failures
