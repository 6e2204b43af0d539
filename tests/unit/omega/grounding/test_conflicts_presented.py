"""§9, issue 46 (fault 3's class): a sentence presents both sides of a conflict only when it states each side. For
two facts without numbers, one affirming and one negating ("prevented" / "did not prevent"), a side is stated by a
shared direction word or by the sentence's own polarity; a fact with no direction word is not stated by default."""

from __future__ import annotations

from omega.grounding.conflicts import conflict, presented_with_attribution
from omega.grounding.tokens import analyse
from tests.unit.omega.grounding.support import fact

YES = fact("P", "Drug A prevented stroke.")
NO = fact("N", "Drug A did not prevent stroke.")


def test_an_attributed_sentence_stating_only_the_affirmed_side_does_not_present_the_conflict() -> None:
    assert conflict(YES, NO) == "one affirms what the other negates"
    sentence = "According to the trial, drug A prevented stroke. [P][N]"
    assert presented_with_attribution(sentence, analyse(sentence, claim=True), [YES, NO]) == frozenset()
