"""Roles and comparisons bound (issue 42, item 1): the same words in another order are another claim.

A bag of words passes "X was lower in A than in B" against "X was lower in B than in A", and "P tutored Q"
against "Q tutored P". So each clause of the sentence and of its cited facts is read as frames (`frame_reading`: a
comparison with its two sides, a predicate with its agent, patient and baseline), and compared here:
- the sentence's comparative is the fact's (same lemma or a synonym: the sides stay), or its antonym (WordNet's
  antonym pointers, "more"/"less"/"fewer": the sides swap). "did not exceed" and "fell short of" read as the
  antonym with its sides ("A did not exceed B" is entailed by "A was lower than B": not-higher);
- a sentence that makes a fact's baseline its agent swaps roles.
A modifier one side states and the other leaves unsaid ("children in the lowest quartile of NO2 exposure than those
in the highest quartile") is not a swap when each side's own words land where the fact puts them; a number never
moves that way. A ratio ("14% higher") never swaps sides: B is not 14% lower than A (NUMERIC_MISMATCH).
A frame of the sentence fails when a cited fact has a frame of the same predicate and every such frame puts one
of the sentence's side words on the other side: the word is stated, but in the other role (§5.1 "without
changing meaning", §5.2 "Hallucination or inference"). Where no fact frame has the predicate, the words are left
to `entailment` and `binding`: this check only refuses, it never lets anything through.
`numeric_sides` reads the number each side of a sentence's comparison is measured by (so that the comparative can be
shown by the sentence's own numbers, `numeric.directions_shown`); with several numbers a side ("larger in cells
cycled at 45 °C (62%) than at 25 °C (24%)") the values given alone in brackets measure the sides and the others
name them (blind half 7).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from omega.grounding.facts import AtomicFact
from omega.grounding.frame_reading import Frame, frames
from omega.grounding.groups import compared_values
from omega.grounding.memo import ByObject
from omega.grounding.model import NOT_ENTAILED, NUMERIC_MISMATCH, Failure, quoted
from omega.grounding.quantities import quantity_spans
from omega.grounding.rephrasing import antonyms, lemmas, related
from omega.grounding.tokens import NEGATIONS, marked_text, normal
from omega.grounding.words import clauses, words

_MARKER_TEXT = re.compile(r"\b(?:than|versus|vs|compared (?:with|to)|relative to)\b", re.IGNORECASE)

_OPPOSITES = (frozenset({"more", "exceed", "outperform", "surpass", "above", "high", "great", "large", "long", "fast",
                         "heavy", "big", "strong", "good", "well"}),
              frozenset({"less", "fewer", "few", "little", "short", "below", "low", "small", "slow", "light",
                         "weak", "bad", "badly", "poor", "poorly"}))

_HOW_OFTEN = "common|frequent|prevalent|likely|often|widespread"


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
        subject = frozenset(mapping.get(t, t) for t in frame.subject)
        judged = [(v, f) for f in stated
                  if (v := _agrees(frame.kind, frame.predicate, first, second, f, subject)) is not None]
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
        if frame.kind == "role" and not moved & (fact_frame.first | fact_frame.second | fact_frame.baseline):
            said = f"agent replaced: the sentence makes {quoted(sorted(moved))} the agent of '{frame.predicate}', and"
        else:
            said = f"{what}: the sentence puts {quoted(sorted(moved))} on the other side of '{frame.predicate}' than"
        failures.append(Failure(
            NOT_ENTAILED,
            f"{said} the cited facts, which state '{fact_frame.predicate}' with {quoted(sorted(fact_frame.first))} "
            f"/ {quoted(sorted(fact_frame.second))}",
            f"an Atomic Fact stating '{frame.predicate}' with {quoted(sorted(first))} / {quoted(sorted(second))} in "
            f"these roles, cited inline", tuple(f.id for f in facts)))
    return FrameCheck(tuple(failures), covered, tuple(readings), negation_read)


def _negations(text: str) -> int:
    return sum(1 for w in words(text) if w.lower in NEGATIONS or w.lower.endswith("n't"))


def _agrees(kind: str, predicate: str, first: frozenset[str], second: frozenset[str],
            fact: Frame, subject: frozenset[str] = frozenset()) -> tuple[bool, frozenset[str]] | None:
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
        # the words next to the verb share nothing ("Nurses trained by the programme | supervised"): whole subjects
        return _subjects_swapped(kind, how, first | subject, second, fact)
    if moved and _elided(moved, landed, own_first, own_second) and kind == "comparison":
        return True, frozenset()
    baseline_only, agent_only = fact.baseline - fact.first, fact.first - fact.baseline
    if not moved and kind == "role" and first & baseline_only and not first & agent_only:
        # the fact's baseline made the agent: "uncoated steel reduced corrosion relative to the coating" against
        # "the coating reduced corrosion relative to uncoated steel"
        return False, first & baseline_only
    if (kind == "role" and how == "same" and not moved and first and fact.first and second & fact.second
            and _agent_replaced((first | subject) - second, (fact.first | fact.subject) - fact.second)):
        return False, first
    return not moved, moved


def _subjects_swapped(kind: str, how: str, agent: frozenset[str], patient: frozenset[str], fact: Frame
                      ) -> tuple[bool, frozenset[str]] | None:
    """An active role frame read with each side's whole subject phrase ("The community health workers in each
    district supervised nurses trained by the programme" against "Nurses trained by the programme supervised the
    community health workers"): the sides swapped when each lands only on the other; None when they still share
    nothing (another relation)."""
    if kind != "role" or how != "same":
        return None
    fact_agent = (fact.first | fact.subject) - fact.second
    own_patient = fact.second - fact_agent
    agent -= patient
    moved = (patient & fact_agent) | (agent & own_patient)
    if not patient & fact_agent or not agent & own_patient or (patient & own_patient) | (agent & fact_agent):
        return None
    return False, moved


def _agent_replaced(agent: frozenset[str], fact_agent: frozenset[str]) -> bool:
    """The fact's patient given another agent ("the grant trained 40 technicians" from "the consortium trained 40
    technicians"; "placebo reduced migraine" from "drug K reduced migraine"): whole agent phrases compared, not only
    the words next to the verb ("participants in the trial"), without the patient's words ("the decline in X
    preceded the loss of Y": a loss is a decline); or two agents of one kind told apart only by their names
    ("Hospital B" for "Hospital A", "release 5" for 4)."""
    if not agent & fact_agent:
        return True
    return bool(agent - fact_agent and fact_agent - agent and all(_is_name(t) for t in agent ^ fact_agent))


def _is_name(token: str) -> bool:
    """An entity letter ("drug B" -> "entityb") or a number naming a thing ("release 5")."""
    return token.startswith("entity") or token[:1].isdigit()


def _elided(moved: frozenset[str], landed: frozenset[str], own_first: frozenset[str], own_second: frozenset[str]
            ) -> bool:
    """Words a side carries that the other side leaves unsaid ("longer among children in the lowest quartile of NO2
    exposure than among those in the highest quartile"): when each side's own words land where the fact puts them,
    words of one fact side that appear on the other side of the sentence are a modifier stated once, not a swap.
    A number never moves this way: a value on the other side is a value moved (§5.2); nor does a negated side's
    "not" (frame_reading `_side`): on the other side it names the side that was excluded."""
    return bool(landed & own_first and landed & own_second and (moved <= own_first or moved <= own_second)
                and "not" not in moved and not any(word[:1].isdigit() for word in moved))


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
        lowered = clause.lower()
        spans = quantity_spans(lowered)
        before = [q for _s, e, q in spans if e <= marker.start() and q.unit is not None]
        after = [q for s, _e, q in spans if s >= marker.end() and q.unit is not None]
        if len(before) != 1 or len(after) != 1:  # counts without a unit ("lower for PC (54,000) than for SFRC
            # (186,000)"): the numbers between the comparative and the marker, and after it
            start = lowered.rfind(found[0].predicate, 0, marker.start())
            before = [q for s, e, q in spans if start >= 0 and s > start and e <= marker.start()]
            after = [q for s, _e, q in spans if s >= marker.end()]
        if len(before) != 1 or len(after) != 1:  # several numbers a side ("at 45 °C (62%) than ... at 25 °C
            # (24%)"): the values the sentence sets in brackets measure the sides, the others name them
            shown = _bracketed(text)
            before = [q for q in before if q.unit is not None and (q.unit, q.value) in shown]
            after = [q for q in after if q.unit is not None and (q.unit, q.value) in shown]
        if len(before) == 1 and len(after) == 1 and before[0].unit == after[0].unit:
            out.append((found[0].predicate, before[0].value, after[0].value))
    return out


def _bracketed(text: str) -> frozenset[tuple[str | None, Decimal]]:
    """The numbers with a unit a text gives alone in brackets ("(62%)", "(530 MB)")."""
    return frozenset((q.unit, q.value) for m in re.finditer(r"\(([^()]*)\)", text)
                     for found in [quantity_spans(m.group(1).lower())] if len(found) == 1
                     for _s, _e, q in found)


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
