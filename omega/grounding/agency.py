"""§5.2 "Strengthening claims" by agency (issue 42): a sentence that makes something the agent of a change its cited
facts state without that agent ("fitting guards reduced predation" against "after guards were fitted, predation
fell"). Read on the role frames of `frames`."""

from __future__ import annotations

from collections.abc import Sequence

from omega.grounding.facts import AtomicFact
from omega.grounding.frame_reading import frames
from omega.grounding.frames import fact_frames, relation
from omega.grounding.model import CLAIM_STRENGTHENED, Failure, quoted
from omega.grounding.rephrasing import lemmas
from omega.grounding.words import words

CHANGE_VERBS = frozenset({"reduce", "lower", "decrease", "increase", "raise", "improve", "cut", "boost", "halve",
                          "double", "prevent"})


def change_attributed(claim_text: str, facts: Sequence[AtomicFact]) -> list[Failure]:
    """§5.2 "Strengthening claims": the sentence makes something the agent of a change ("fitting guards reduced
    predation") that the cited facts state only in other words ("after guards were fitted, predation fell"): a
    sequence or an association is not a cause. Facts that use the verb itself ("drug A lowered ...") leave it to
    the other checks."""
    changes = [f for f in frames(claim_text) if f.kind == "role" and f.first and lemmas(f.predicate) & CHANGE_VERBS]
    if not changes:
        return []
    fact_words = {w.lower for f in facts for w in words(f.content)}
    stated_roles = [frame for f in facts for frame in fact_frames(f) if frame.kind == "role"]
    failures: list[Failure] = []
    for frame in changes:
        if any(relation(frame.predicate, f.predicate) == "same" for f in stated_roles) \
                or any(relation(frame.predicate, w, table=False) == "same" for w in fact_words):
            continue  # the facts say who changed it ("exercise increased"), or use the verb itself ("did not reduce")
        failures.append(Failure(
            CLAIM_STRENGTHENED,
            f"the change '{frame.predicate}' is attributed to {quoted(sorted(frame.first))}: the cited facts state "
            f"the change without that agent (a sequence or an association is not a cause)",
            f"a cited fact stating that {quoted(sorted(frame.first))} {frame.predicate} it (e.g. a randomised "
            f"comparison)", tuple(f.id for f in facts)))
    return failures
