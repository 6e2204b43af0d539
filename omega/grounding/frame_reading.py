"""Reading a clause as frames (issue 42, item 1): each predicate with its two sides, for `frames` to check.

- a comparison frame: a comparative ("lower", "more", "faster", "exceeded", "fell short of") with its two sides,
  the words before the comparison marker ("than", "versus", "compared with", "relative to") and the words after;
- a fronted comparison ("Compared with the 2019 baseline, | energy use was 14% lower | in 2022"): the fronted
  phrase is the second side;
- an equative ratio ("twice as high in A as in B", "3.2 times as likely among A as among B"): the adjective as a
  relative comparison of the two sides of its "as ... as" ("half as" left unread);
- a role frame: a predicate verb with its agent (before it, or after "by" in the passive) and its patient (right
  after an active verb, or before a passive one), each up to the nearest comma or preposition; a side before the
  clause's first verb is the head of its subject phrase, read back through the modifiers it carries ("younger pupils
  | from neighbouring schools | tutored": "schools" may end both sides), a later verb form's the noun right before
  it (a reduced relative: "in people | aged 40"); and its baseline (the words after a comparison marker: "reduced
  corrosion by 30% relative to uncoated steel"). A passive may carry an adverb after its auxiliary ("was first
  flagged by"), and a hyphenated word ("in-situ") is one word, not a preposition ending a side (§3.2, roles).
The first side, when it is the subject, is the words before the clause's verb after any fronted scene ("Under
workload W, | A | sustained a higher throughput than B"); "X of A ... than that of B" compares A and B; a second side
ends at the respect the sides share ("than B | under workload W"); a comparative inside brackets measures a side,
and a ratio before the comparative ("14% higher") marks the frame relative.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from omega.grounding.quantities import SPELLED
from omega.grounding.rephrasing import lemmas
from omega.grounding.tokens import FUNCTION_WORDS, NEGATIONS, marked_text, normal
from omega.grounding.words import AUXILIARIES, Word, adverb, clauses, in_compound, predicate_verb, verb_form, words

MARKERS = frozenset({"than", "versus", "vs"})

TWO_WORD_MARKERS = frozenset({("compared", "with"), ("compared", "to"), ("relative", "to"), ("as", "opposed")})

COMPARATIVES = frozenset({"more", "less", "fewer", "exceed", "exceeded", "exceeds", "outperform", "outperformed",
                          "outperforms", "surpass", "surpassed", "above", "below", "short"})

_BOUNDARY = frozenset({"as", "in", "on", "at", "among", "during", "after", "before", "for", "from", "with", "within",
                       "over", "under", "across", "between", "since", "until", "to", "into", "of", "by", "per",
                       "than", "versus", "vs", "compared", "relative", "while", "whereas", "and", "but", "which",
                       "who", "that"})

_MODIFYING = frozenset({"from", "in", "at", "on", "with", "for", "among", "within"})

_COMPARING_VERBS = frozenset({"exceed", "outperform", "surpass", "outnumber", "short"})

_SIDE_PREPOSITIONS = frozenset({"in", "among", "for", "at", "on", "with", "during", "under", "from", "after",
                                "before", "within", "across"})

_RESPECT = frozenset({"on", "as", "across", "during", "over", "under", "for", "regarding"})

_NOUN_NEGATIONS = frozenset({"without", "absence", "absent", "lack", "lacks", "lacked", "lacking"})

_THOSE = re.compile(r"^(?:those|that|the ones?) (?:" + "|".join(sorted(_SIDE_PREPOSITIONS)) + ")$")

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
    # a role frame's whole agent phrase up to its comma ("a self-assembled monolayer of Me-4PACz" where `first` is
    # "Me-4PACz"): where another entity of the text is told from the same agent said in more or fewer words
    subject: frozenset[str] = frozenset()


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


def _side(found: Sequence[Word]) -> frozenset[str]:
    """A side's tokens, with "not" among them when the side itself is negated ("plots that were not irrigated",
    "the membrane without an interlayer"): otherwise it reads as the side it excludes, and a comparison of the two
    reads the same both ways round."""
    tokens = _tokens(found)
    if tokens and any(w.lower in NEGATIONS or w.lower.endswith("n't") for w in found):
        return tokens | {"not"}
    return tokens


def _comparison(found: Sequence[Word], text: str) -> Frame | None:
    for at in range(len(found)):
        marker = _marker_length(found, at)
        if not marker:
            continue
        before = found[:at]
        comparative = next((i for i in range(len(before) - 1, -1, -1) if _comparative(before[i])), None)
        if comparative is None:
            return _fronted(found, at + marker, text) if not _tokens(before) else None
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
        return Frame("comparison", f"not {predicate}" if negated else predicate, _side(first),
                     _side(second), relative=bool(_RATIO.search(text[:before[comparative].start])))
    return _equative(found, text) or _comparing_verb(found, text)


_MULTIPLIERS = frozenset({"twice", "thrice", "double", "triple", "times"})


def _equative(found: Sequence[Word], text: str) -> Frame | None:
    """A ratio said as an equative ("twice as high in A as in B", "3.2 times as likely among A as among B",
    "A took up twice as much nitrogen as B"): the adjective compares, relative, its two sides those of its "as ...
    as". "Half as" is left unread (its direction is the adjective's opposite)."""
    for at in range(1, len(found) - 2):
        ratio = found[at - 1].lower
        if found[at].lower != "as" or not (ratio in _MULTIPLIERS or ratio.endswith("fold")):
            continue
        close = next((i for i in range(at + 2, len(found)) if found[i].lower == "as"), None)
        if close is None:
            return None
        between, second = found[at + 2:close], _up_to_respect(found[close + 1:])
        side = next((i for i, w in enumerate(between) if w.lower in _SIDE_PREPOSITIONS), None)
        first = between[side:] if side is not None else _subject(found[:at - 1], text)
        return Frame("comparison", found[at + 1].lower, _side(first), _side(second), relative=True)
    return None


def _fronted(found: Sequence[Word], start: int, text: str) -> Frame | None:
    """A comparison whose marker opens the clause ("Compared with the 2019 baseline, | energy use was 14% lower | in
    2022"): the fronted phrase up to its comma is the second side, the first is the phrase after the comparative
    ("in 2022") or else the main clause's subject. None without a comparative after the comma ("Compared with
    placebo, drug K reduced ...": a role, read as one)."""
    cut = start + _before_comma(found[start:], text)
    rest = found[cut:]
    comparative = next((i for i, w in enumerate(rest) if _comparative(w)), None)
    if cut >= len(found) or comparative is None:
        return None
    after = rest[comparative + 1:]
    side = next((i for i, w in enumerate(after) if w.lower in _SIDE_PREPOSITIONS), None)
    first = _up_to_respect(after[side:]) if side is not None else _subject(rest[:comparative], text)
    predicate = rest[comparative].lower
    negated = _negated_predicate(rest[:comparative])
    return Frame("comparison", f"not {predicate}" if negated else predicate, _side(first),
                 _side(_up_to_respect(found[start:cut])),
                 relative=bool(_RATIO.search(text[:rest[comparative].start])))


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


def _comma_before(found: Sequence[Word], i: int, text: str) -> bool:
    """Whether a comma stands between the word before the i-th and it."""
    return "," in text[found[i - 1].start + len(found[i - 1].surface):found[i].start]


def _before_comma(found: Sequence[Word], text: str) -> int:
    """How many of the words come before the first comma between them (all of them without one)."""
    return next((i for i in range(1, len(found)) if _comma_before(found, i, text)), len(found))


def _after_last_comma(found: Sequence[Word], text: str) -> int:
    """Where the words after the last comma between them start (0 without one): a fronted phrase ends there."""
    return next((i for i in range(len(found) - 1, 0, -1) if _comma_before(found, i, text)), 0)


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
        return Frame("comparison", f"not {predicate}" if negated else predicate, _side(_up_to_respect(before)),
                     _side(_up_to_respect(rest)))
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
        if word.lower[:1].isdigit() or not predicate_verb(found, at) or _count_before(found, at, text):  # "the tiered
            # compiler", "1,150 registered nurses": an adjective, not a predicate
            continue
        # an adverb may stand between the auxiliary and the participle ("was first flagged by", "were then sent")
        be = at - 2 if at > 1 and adverb(found[at - 1]) else at - 1
        passive = found[be].lower in _BE
        # the clause's main verb has the whole subject phrase before it; a later verb form is a reduced relative
        # ("in people | aged 40"), whose side is the noun right before it
        first_verb = not any(verb_form(w) for w in found[:be if passive else at])
        before = (_head_before if first_verb else _nearest_before)(found, text, be - 1 if passive else at - 1)
        if passive:
            by = next((i for i in range(at + 1, len(found) - 1) if found[i].lower == "by"
                       and not found[i + 1].lower[:1].isdigit()), None)  # "reduced by 12 mmHg" is a measure
            if by is None:
                continue  # a passive without its agent says nothing about who did it
            agent, patient = _phrase(found, text, by + 1, 1), before
            rest = found[by + 1:by + 1 + _before_comma(found[by + 1:], text)]
            # up to a preposition other than "of" ("by a monolayer of Me-4PACz | as ...", "by Hospital B | to ...")
            subject = rest[:next((i for i, w in enumerate(rest) if w.lower in _BOUNDARY and w.lower != "of"),
                                 len(rest))]
        else:
            agent, patient = before, _phrase(found, text, at + 1, 1)
            subject = found[_after_last_comma(found[:at], text):at]
        if _tokens(agent) and _tokens(patient):
            out.append(Frame("role", word.lower, _side(agent), _side(patient), _baseline(found, at),
                             subject=_tokens(subject)))
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


def _head_before(found: Sequence[Word], text: str, end: int) -> list[Word]:
    """The head of the noun phrase that ends at `end`: walking back through the modifiers it carries ("younger pupils
    | from neighbouring schools", "nurses | in the surgical wards") to its first words that name something; never
    across a comma or a boundary other than a modifying preposition ("trial found that | drug K")."""
    head = chunk = _phrase(found, text, end, -1)
    at = end - len(chunk)
    while chunk and at > 0 and found[at].lower in _MODIFYING and not _comma_before(found, at + 1, text) \
            and not _comma_before(found, at, text):
        chunk = _phrase(found, text, at - 1, -1)
        at -= 1 + len(chunk)
        if _tokens(chunk):
            head = chunk
    return head


def _nearest_before(found: Sequence[Word], text: str, end: int) -> list[Word]:
    return _phrase(found, text, end, -1)


def _phrase(found: Sequence[Word], text: str, start: int, step: int) -> list[Word]:
    """The words from `start` walking by `step` up to a boundary word (a preposition, a conjunction) or a comma."""
    out: list[Word] = []
    at = start
    while 0 <= at < len(found) and ((found[at].lower not in _BOUNDARY and found[at].lower not in AUXILIARIES)
                                    or in_compound(found, text, at)):
        last = out[-1] if out else (found[at - step] if 0 <= at - step < len(found) else None)
        if last is not None:
            a, b = sorted((last, found[at]), key=lambda w: w.start)
            gap = text[a.start + len(a.surface):b.start]
            # a comma ends a phrase; so does a bracket ("schools (adjusted difference": no agent of "adjusted")
            if "," in gap or _OPEN_MARK in gap or _CLOSE_MARK in gap:
                break
        out.append(found[at])
        at += step
    return out
