"""§9, issue 46 (fault 3's class): a sentence presents both sides of a conflict only when it states each side. For
two facts without numbers, one affirming and one negating ("prevented" / "did not prevent"), a side is stated by a
shared direction word or by the sentence's own polarity; a fact with no direction word is not stated by default."""

from __future__ import annotations

from omega.grounding.conflicts import conflict, presented_with_attribution
from omega.grounding.facts import AtomicFact, parse_fact
from omega.grounding.model import CONFLICTING_FACTS
from omega.grounding.tokens import analyse
from tests.unit.omega.grounding.support import codes, fact, judge

YES = fact("P", "Drug A prevented stroke.")
NO = fact("N", "Drug A did not prevent stroke.")


def test_an_attributed_sentence_stating_only_the_affirmed_side_does_not_present_the_conflict() -> None:
    assert conflict(YES, NO) == "one affirms what the other negates"
    sentence = "According to the trial, drug A prevented stroke. [P][N]"
    assert presented_with_attribution(sentence, analyse(sentence, claim=True), [YES, NO]) == frozenset()


def _from(fact_id: str, content: str, document: str) -> AtomicFact:
    return parse_fact({"id": fact_id, "content": content, "source_type": "PDF",
                       "source_span": {"document_id": document, "page": 4},
                       "qualifiers": {"setting": "Spring C", "timeframe": "2019-2021"}, "confidence": 0.9})


REPORT = _from("K9", "Mean discharge at Spring C over 2019-2021 was 85 L/s.", "pdf:karst-spring-monitoring-report")
YEARBOOK = _from("K10", "Mean discharge at Spring C over 2019-2021 was 112 L/s.",
                 "pdf:state-hydrological-yearbook-2021")


def test_each_source_named_by_its_document_in_the_order_of_its_value_presents_the_conflict() -> None:
    assert conflict(REPORT, YEARBOOK) is not None
    verdict = judge("Mean discharge at Spring C over 2019-2021 differs between sources: 85 L/s in the monitoring "
                    "report and 112 L/s in the state hydrological yearbook. [K9][K10]", REPORT, YEARBOOK)
    assert verdict.passed, verdict.rationale


def test_sources_named_the_other_way_round_are_no_attribution() -> None:
    sentence = ("Mean discharge at Spring C over 2019-2021 was 85 L/s in the hydrological yearbook and 112 L/s in "
                "the monitoring report. [K9][K10]")
    assert presented_with_attribution(sentence, analyse(sentence, claim=True), [REPORT, YEARBOOK]) == frozenset()
    assert CONFLICTING_FACTS in codes(judge(sentence, REPORT, YEARBOOK))
