"""The optional semantic judge is bounded: consulted only for paraphrase-uncertain sentences, never over another
failure; an unavailable judge leaves the sentence FAIL. And §3.1 facts are validated on entry."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from omega.grounding.facts import FactError, fact_from_record, parse_fact
from omega.grounding.judge import JudgeAnswer
from omega.grounding.model import NOT_ENTAILED
from omega.grounding.verdict import Evidence, Sentence, verify_sentence
from tests.unit.omega.grounding.support import TRIAL

PARAPHRASE = ("Drug A knocked systolic blood pressure back by 12 mmHg over 24 weeks in adults aged 65 or older in a "
              "randomised controlled trial. [F1]")


class FakeJudge:
    """Answers as told and records what it was asked."""

    name = "fake"

    def __init__(self, entailed: bool | None) -> None:
        self.entailed, self.asked = entailed, list[str]()

    def entails(self, claim: str, premises: Sequence[str]) -> JudgeAnswer:
        self.asked.append(claim)
        return JudgeAnswer(self.entailed, "because")


def _judged(text: str, judge: FakeJudge) -> Any:
    return verify_sentence(Sentence(1, text), Evidence(frozenset({"F1"}), {"F1": TRIAL}), judge)


def test_the_judge_can_pass_a_paraphrase_uncertain_sentence() -> None:
    judge = FakeJudge(True)
    verdict = _judged(PARAPHRASE, judge)
    assert verdict.outcome == "PASS"
    assert "semantic judge fake" in verdict.rationale
    assert "knocked" in verdict.rationale
    assert len(judge.asked) == 1


def test_a_judge_saying_no_or_unavailable_leaves_the_sentence_fail_with_the_reason() -> None:
    for answer, word in ((False, "not entailed"), (None, "unavailable")):
        verdict = _judged(PARAPHRASE, FakeJudge(answer))
        assert verdict.outcome == "FAIL"
        assert [f.code for f in verdict.failures] == [NOT_ENTAILED]
        assert f"semantic judge fake: {word}" in verdict.failures[0].reason


@pytest.mark.parametrize("text", [
    PARAPHRASE.replace("12 mmHg", "13 mmHg"),  # a number failure besides
    PARAPHRASE.replace(" in adults aged 65 or older", ""),  # a qualifier failure besides
    PARAPHRASE.replace("Drug A", "Drug A always"),  # a scope failure besides
    PARAPHRASE.replace(" [F1]", ""),  # no citation
])
def test_the_judge_is_never_asked_when_another_check_fails(text: str) -> None:
    judge = FakeJudge(True)
    assert _judged(text, judge).outcome == "FAIL"
    assert judge.asked == []


def test_a_fact_round_trips_through_its_record_and_its_json() -> None:
    raw = {"id": "F", "content": "c", "source_type": "PDF", "confidence": 0.5, "qualifiers": {"population": "x"},
           "source_span": {"document_id": "d", "page": 2, "start_char": 1, "end_char": 9, "quote": "q", "bbox": [1]},
           "extractor": "llm-7"}
    fact = parse_fact(raw)
    assert fact_from_record(fact.to_record()) == fact
    assert parse_fact(fact.to_json()) == fact
    assert fact.to_record()["extras"] == {"extractor": '"llm-7"'}


@pytest.mark.parametrize("change", [
    {"id": ""}, {"id": "F[1]"}, {"content": " "}, {"source_type": "WEB"}, {"source_span": {}},
    {"confidence": 1.5}, {"confidence": float("nan")}, {"confidence": True}, {"qualifiers": []},
    {"source_span": {"document_id": "d", "page": "3"}},
])
def test_a_fact_breaking_the_schema_is_refused_with_a_reason(change: dict[str, Any]) -> None:
    raw = {"id": "F", "content": "c", "source_type": "MANUAL", "confidence": 1.0, "source_span": {"document_id": "d"}}
    with pytest.raises(FactError):
        parse_fact(raw | change)


class _RecordingJudge(FakeJudge):
    def entails(self, claim: str, premises: Sequence[str]) -> JudgeAnswer:
        self.premises = list(premises)
        return super().entails(claim, premises)


def test_the_judge_is_asked_about_the_claim_without_its_citations_against_the_cited_statements() -> None:
    judge = _RecordingJudge(True)
    _judged(PARAPHRASE, judge)
    assert judge.asked == [PARAPHRASE.removesuffix(" [F1]")]
    assert judge.premises == [TRIAL.statement]


def test_a_sentence_the_judge_passes_carries_no_failure() -> None:
    verdict = _judged(PARAPHRASE, FakeJudge(True))
    assert (verdict.outcome, verdict.failures) == ("PASS", ())
    record = verdict.to_record()
    assert (record["outcome"], record["failures"]) == ("PASS", [])
    assert record["rationale"].startswith("entailed by F1 per semantic judge fake: because (deterministic check: ")
