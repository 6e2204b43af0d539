"""An evaluation suite `{corpus, manualFacts, predicateVocabulary, questions}`: build the fact store, answer
every question (its plan, else the template planner), and score the expectations.

Scores: verdict accuracy; answer exact match after trim/lowercase; refusal accuracy (whether a question was
refused, i.e. `unsupported`, agrees with the expectation); conflict precision and recall (verdict
`conflicting` against expected `conflicting`). A question passes when all of its expectations are met.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from omega.answers.answer import VERDICTS, AnswerContract, answer
from omega.answers.extraction import Extractor, rule_extract
from omega.answers.ingest import ingest, ingest_manual
from omega.answers.model import Chunk, Fact, PlanError, QueryPlan, Rejection, plan_from_dict
from omega.answers.planner import plan_question
from omega.answers.store import FactStore
from omega.answers.vocabulary import DEFAULT_VOCABULARY, Vocabulary, VocabularyError, vocabulary_from_dict


class SuiteError(ValueError):
    """A suite file that does not have the documented shape."""


@dataclass(frozen=True)
class Question:
    """One suite question with its optional plan and expectations."""

    id: str
    text: str
    plan: QueryPlan | None
    expected_verdict: str | None
    expected_answer: str | None


@dataclass(frozen=True)
class Suite:
    """A parsed suite: vocabulary, documents, manual facts, questions."""

    vocabulary: Vocabulary
    corpus: tuple[Mapping[str, Any], ...]
    manual_facts: tuple[Any, ...]
    questions: tuple[Question, ...]


def parse_suite(value: Any) -> Suite:
    """Check and parse a suite; raises SuiteError with the offending place."""
    if not isinstance(value, Mapping):
        raise SuiteError("a suite is a JSON object")
    try:
        vocabulary = vocabulary_from_dict(value["predicateVocabulary"]) if "predicateVocabulary" in value \
            else dict(DEFAULT_VOCABULARY)
    except VocabularyError as exc:
        raise SuiteError(str(exc)) from exc
    corpus = value.get("corpus") or []
    manual = value.get("manualFacts") or []
    questions_given = value.get("questions") or []
    if not isinstance(corpus, list) or not isinstance(manual, list):
        raise SuiteError("corpus and manualFacts must be lists")
    if not isinstance(questions_given, list):
        raise SuiteError("questions must be a list")
    for i, doc in enumerate(corpus):
        if not (isinstance(doc, Mapping) and isinstance(doc.get("docId"), str) and isinstance(doc.get("text"), str)
                and (doc.get("version") is None or isinstance(doc.get("version"), str))):
            raise SuiteError(f"corpus[{i}] must be {{docId, version?, text}} strings")
    questions = []
    for i, q in enumerate(questions_given):
        if not isinstance(q, Mapping) or not isinstance(q.get("question"), str):
            raise SuiteError(f"questions[{i}] must be an object with a question string")
        if q.get("expectedVerdict") is not None and q["expectedVerdict"] not in VERDICTS:
            raise SuiteError(f"questions[{i}].expectedVerdict must be one of {', '.join(VERDICTS)}")
        try:
            plan = None if q.get("plan") is None else plan_from_dict(q["plan"])
        except PlanError as exc:
            raise SuiteError(f"questions[{i}].plan: {exc}") from exc
        answer_text = q.get("expectedAnswer")
        questions.append(Question(str(q.get("id") or f"q{i + 1}"), q["question"], plan, q.get("expectedVerdict"),
                                  None if answer_text is None else str(answer_text)))
    if not questions:
        raise SuiteError("a suite needs at least one question")
    return Suite(vocabulary, tuple(corpus), tuple(manual), tuple(questions))


def build_store(suite: Suite, extractor: Extractor = rule_extract) -> tuple[FactStore, list[Rejection]]:
    """Ingest every document and the manual facts; the store and every rejection."""
    facts: list[Fact] = []
    chunks: list[Chunk] = []
    rejections: list[Rejection] = []
    for doc in suite.corpus:
        done = ingest(doc["text"], doc, extractor, suite.vocabulary)
        facts += done.facts
        chunks += done.chunks
        rejections += done.rejections
    manual = ingest_manual(suite.manual_facts, chunks, suite.vocabulary)
    return FactStore([*facts, *manual.facts]), [*rejections, *manual.rejections]


def answer_question(question: Question, store: FactStore, vocabulary: Vocabulary) -> AnswerContract:
    """The question's own plan, else the planner's, answered over the store."""
    plan = question.plan if question.plan is not None else plan_question(question.text, store.subjects())
    return answer(plan, store, vocabulary)


def passed(question: Question, got: AnswerContract) -> bool:
    """Whether every expectation of the question is met."""
    verdict_ok = question.expected_verdict is None or got.verdict == question.expected_verdict
    text_ok = question.expected_answer is None or _norm(got.text) == _norm(question.expected_answer)
    return verdict_ok and text_ok


def _norm(text: str | None) -> str | None:
    return None if text is None else text.strip().lower()


def _ratio(hits: int, total: int) -> float | None:
    return None if total == 0 else hits / total


def score(results: list[tuple[Question, AnswerContract]]) -> dict[str, Any]:
    """Verdict accuracy, answer exact match, refusal accuracy, conflict precision and recall, and counts."""
    verdicts = [(q, a) for q, a in results if q.expected_verdict is not None]
    answers = [(q, a) for q, a in results if q.expected_answer is not None]
    predicted = [(q, a) for q, a in verdicts if a.verdict == "conflicting"]
    expected = [(q, a) for q, a in verdicts if q.expected_verdict == "conflicting"]
    return {
        "questions": len(results),
        "passed": sum(passed(q, a) for q, a in results),
        "verdictAccuracy": _ratio(sum(a.verdict == q.expected_verdict for q, a in verdicts), len(verdicts)),
        "answerExactMatch": _ratio(sum(_norm(a.text) == _norm(q.expected_answer) for q, a in answers), len(answers)),
        "refusalAccuracy": _ratio(sum((a.verdict == "unsupported") == (q.expected_verdict == "unsupported")
                                      for q, a in verdicts), len(verdicts)),
        "conflictPrecision": _ratio(sum(q.expected_verdict == "conflicting" for q, _ in predicted), len(predicted)),
        "conflictRecall": _ratio(sum(a.verdict == "conflicting" for _, a in expected), len(expected)),
    }
