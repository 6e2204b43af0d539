"""The evaluation suite (`omega.answers.suite`): its shape checks and their messages, the store built from its
documents and manual facts under its own vocabulary, whether a question passes, and the scores."""

from __future__ import annotations

from typing import Any

import pytest

from omega.answers.answer import AnswerContract
from omega.answers.model import Chunk, QueryPlan
from omega.answers.suite import Question, SuiteError, build_store, parse_suite, passed, score
from omega.answers.vocabulary import DEFAULT_VOCABULARY, VocabularyError

ASK = {"question": "How long before session tokens expire?"}


def suite_error(value: Any) -> str:
    with pytest.raises(SuiteError) as caught:
        parse_suite(value)
    return str(caught.value)


def test_a_suite_that_is_not_an_object_is_refused_with_its_message() -> None:
    assert suite_error([ASK]) == "a suite is a JSON object"
    assert suite_error("suite") == "a suite is a JSON object"


def test_a_suite_reads_its_own_predicate_vocabulary_else_the_default_one() -> None:
    own = parse_suite({"predicateVocabulary": {"runs_on": {"argTypes": ["entity", "entity"]}}, "questions": [ASK]})
    assert own.vocabulary == {"runs_on": ("entity", "entity")}
    assert parse_suite({"questions": [ASK]}).vocabulary == DEFAULT_VOCABULARY


def test_a_bad_predicate_vocabulary_is_refused_with_the_vocabulary_message() -> None:
    with pytest.raises(SuiteError) as caught:
        parse_suite({"predicateVocabulary": {}, "questions": [ASK]})
    assert str(caught.value) == "predicateVocabulary must be a non-empty object"
    assert isinstance(caught.value.__cause__, VocabularyError)
    bad = {"predicateVocabulary": {"runs_on": {"argTypes": ["entity"]}}, "questions": [ASK]}
    assert suite_error(bad) == ("runs_on: argTypes must be two of "
                                "['duration', 'entity', 'status', 'timestamp', 'type', 'value']")


GOOD_DOC = {"docId": "auth", "version": "v1.0", "text": "Session tokens expire after 30 minutes."}


@pytest.mark.parametrize("doc", [
    {"docId": 5, "text": "t"},  # docId not a string
    {"text": "t"},  # docId missing
    {"docId": "d", "text": 5},  # text not a string
    {"docId": "d"},  # text missing
    {"docId": "d", "text": "t", "version": 2},  # version not a string
    ["d", "t"],  # not an object
])
def test_a_corpus_document_that_is_not_docid_version_text_strings_is_refused_with_its_index(doc: Any) -> None:
    assert suite_error({"corpus": [GOOD_DOC, doc], "questions": [ASK]}) == \
        "corpus[1] must be {docId, version?, text} strings"


def test_a_corpus_document_may_leave_out_its_version() -> None:
    doc = {"docId": "auth", "text": "Session tokens expire after 30 minutes."}
    suite = parse_suite({"corpus": [doc, GOOD_DOC], "questions": [ASK]})
    assert suite.corpus == (doc, GOOD_DOC)
    assert parse_suite({"corpus": [{**doc, "version": None}], "questions": [ASK]}).corpus == ({**doc, "version": None},)


def test_manual_facts_are_kept_as_given_and_are_optional() -> None:
    manual = [{"span": {"start": 0, "end": 5}, "subject": "x", "predicate": "requires", "object": "y",
               "source": {"docId": "auth", "chunkId": "auth@v1.0/c0"}}]
    suite = parse_suite({"corpus": [GOOD_DOC], "manualFacts": manual, "questions": [ASK]})
    assert suite.manual_facts == tuple(manual)
    assert parse_suite({"corpus": [GOOD_DOC], "questions": [ASK]}).manual_facts == ()
    assert parse_suite({"manualFacts": None, "questions": [ASK]}).manual_facts == ()


def test_manual_facts_that_are_not_a_list_are_refused() -> None:
    message = "corpus and manualFacts must be lists"
    assert suite_error({"corpus": [GOOD_DOC], "manualFacts": {"a": 1}, "questions": [ASK]}) == message
    assert suite_error({"manualFacts": "facts", "questions": [ASK]}) == message


@pytest.mark.parametrize("question", [{"question": 5}, {"id": "q2"}, "How long?", None])
def test_a_question_without_a_question_string_is_refused_with_its_index(question: Any) -> None:
    assert suite_error({"questions": [ASK, question]}) == "questions[1] must be an object with a question string"


def test_an_unknown_expected_verdict_is_refused_naming_the_three_verdicts() -> None:
    assert suite_error({"questions": [ASK, {**ASK, "expectedVerdict": "maybe"}]}) == \
        "questions[1].expectedVerdict must be one of supported, conflicting, unsupported"


def test_a_bad_plan_is_refused_with_the_plan_error() -> None:
    assert suite_error({"questions": [ASK, {**ASK, "plan": {"subjects": [], "topic": "x"}}]}) == \
        "questions[1].plan: unknown plan field(s): topic"


def test_questions_keep_their_id_plan_and_expectations_and_an_unnamed_one_is_numbered_from_one() -> None:
    suite = parse_suite({"questions": [
        {"id": "first", "question": "A?", "expectedVerdict": "supported", "expectedAnswer": "15 minutes",
         "plan": {"subjects": ["session_token"], "predicates": ["expires_after"]}},
        {"question": "B?", "expectedAnswer": 5},
        {"id": "", "question": "C?", "expectedVerdict": "unsupported"},
    ]})
    assert suite.questions == (
        Question("first", "A?", QueryPlan(subjects=("session_token",), predicates=("expires_after",)), "supported",
                 "15 minutes"),
        Question("q2", "B?", None, None, "5"),
        Question("q3", "C?", None, "unsupported", None),
    )


@pytest.mark.parametrize(("suite", "message"), [
    ({"corpus": 5, "questions": [ASK]}, "corpus and manualFacts must be lists"),
    ({"corpus": "auth.md", "questions": [ASK]}, "corpus and manualFacts must be lists"),
    ({"corpus": [GOOD_DOC], "questions": 5}, "questions must be a list"),
    ({"corpus": [GOOD_DOC], "questions": {"question": "x"}}, "questions must be a list"),
])
def test_a_corpus_or_questions_that_is_not_a_list_is_refused_not_crashed_on(
        suite: dict[str, Any], message: str) -> None:
    assert suite_error(suite) == message


def test_a_suite_without_questions_is_refused() -> None:
    message = "a suite needs at least one question"
    assert suite_error({"corpus": [GOOD_DOC]}) == message
    assert suite_error({"corpus": [GOOD_DOC], "questions": []}) == message


# build_store: every document through the suite's vocabulary, manual facts against the chunks of every document

RUNS_ON = {"predicateVocabulary": {"runs_on": {"argTypes": ["entity", "entity"]}}, "questions": [ASK]}
BILLING = {"docId": "billing", "version": "v1.0", "text": "The billing service runs on Docker."}
LEDGER = {"docId": "ledger", "text": "The ledger service runs on Nomad."}


def runs_on_extractor(piece: Chunk, vocabulary: Any) -> list[Any]:
    """One good `runs_on` fact and one candidate with an undeclared predicate per chunk (only `runs_on` is declared,
    so the extractor must be given the suite's vocabulary)."""
    assert dict(vocabulary) == {"runs_on": ("entity", "entity")}
    subject = "billing_service" if piece.doc_id == "billing" else "ledger_service"
    source = {"docId": piece.doc_id, "chunkId": piece.chunk_id}
    span = {"start": 0, "end": len(piece.text)}
    return [{"span": span, "subject": subject, "predicate": "runs_on", "object": piece.text.split()[-1][:-1].lower(),
             "source": source},
            {"span": span, "subject": subject, "predicate": "flies_to", "object": "moon", "source": source}]


def test_the_store_holds_every_documents_facts_and_manual_facts_under_the_suites_vocabulary() -> None:
    manual = [
        # cites the FIRST document's chunk: validated against it, so it inherits that document's version
        {"span": {"start": 4, "end": 19}, "subject": "billing_service", "predicate": "runs_on", "object": "linux",
         "source": {"docId": "billing", "chunkId": "billing@v1.0/c0"}},
        # the subject is not in the cited span of the first document: rejected
        {"span": {"start": 20, "end": 35}, "subject": "billing_service", "predicate": "runs_on", "object": "vm",
         "source": {"docId": "billing", "chunkId": "billing@v1.0/c0"}},
    ]
    suite = parse_suite({**RUNS_ON, "corpus": [BILLING, LEDGER], "manualFacts": manual})
    store, rejections = build_store(suite, runs_on_extractor)
    assert sorted((f.subject, f.predicate, f.object, f.chunk_id, f.version, f.span_start) for f in store) == [
        ("billing_service", "runs_on", "docker", "billing@v1.0/c0", "v1.0", 0),
        ("billing_service", "runs_on", "linux", "billing@v1.0/c0", "v1.0", 4),
        ("ledger_service", "runs_on", "nomad", "ledger/c0", None, 0),
    ]
    assert [(r.doc_id, r.chunk_id, r.reasons) for r in rejections] == [
        ("billing", "billing@v1.0/c0",
         (("UNKNOWN_PREDICATE", "'flies_to' is not in the predicate vocabulary", "predicate"),)),
        ("ledger", "ledger/c0", (("UNKNOWN_PREDICATE", "'flies_to' is not in the predicate vocabulary", "predicate"),)),
        ("billing", "billing@v1.0/c0",
         (("SUBJECT_NOT_IN_SPAN", "subject 'billing_service' does not appear in the span", "subject"),)),
    ]


def test_a_manual_fact_is_checked_against_the_suites_vocabulary() -> None:
    manual = [{"span": {"start": 0, "end": 33}, "subject": "ledger_service", "predicate": "runs_on",
               "object": "nomad", "source": {"docId": "ledger", "chunkId": "ledger/c0"}},
              {"span": {"start": 0, "end": 33}, "subject": "ledger_service", "predicate": "requires",
               "object": "nomad", "source": {"docId": "ledger", "chunkId": "ledger/c0"}}]
    suite = parse_suite({**RUNS_ON, "corpus": [LEDGER], "manualFacts": manual})
    store, rejections = build_store(suite, lambda piece, vocabulary: [])
    assert [(f.subject, f.predicate, f.object) for f in store] == [("ledger_service", "runs_on", "nomad")]
    assert [r.reasons for r in rejections] == [
        (("UNKNOWN_PREDICATE", "'requires' is not in the predicate vocabulary", "predicate"),)]


# passed and score

def q(expected_verdict: str | None = None, expected_answer: str | None = None) -> Question:
    return Question("q", "?", None, expected_verdict, expected_answer)


def got(verdict: str, text: str | None = None) -> AnswerContract:
    return AnswerContract(verdict, text)


def test_a_question_passes_when_every_expectation_it_has_is_met() -> None:
    assert passed(q(None, "15 Minutes"), got("supported", " 15 minutes "))
    assert passed(q(None, None), got("conflicting"))
    assert passed(q("supported", "No"), got("supported", "no"))
    assert not passed(q("supported", None), got("conflicting"))
    assert not passed(q("supported", "No"), got("supported", "Yes"))
    assert not passed(q("supported", "No"), got("unsupported"))


def test_an_answer_matches_after_trimming_and_lowercasing_only() -> None:
    # lowercase, not uppercase: "Straße" lowercases to "straße", which is not "strasse"
    assert not passed(q(None, "Straße"), got("supported", "STRASSE"))
    assert score([(q(None, "Straße"), got("supported", "STRASSE"))])["answerExactMatch"] == 0.0
    assert passed(q(None, "Straße"), got("supported", " STRAßE"))


def test_the_scores_of_a_mixed_run() -> None:
    results = [
        (q("supported", "15 minutes"), got("supported", " 15 Minutes ")),  # right verdict and answer
        (q("conflicting"), got("conflicting")),  # conflict found
        (q("conflicting"), got("conflicting")),  # conflict found
        (q("conflicting"), got("supported", "30 minutes")),  # conflict missed
        (q("supported"), got("conflicting")),  # conflict that is not one
        (q("unsupported"), got("unsupported")),  # right refusal
        (q("unsupported"), got("unsupported")),  # right refusal
        (q("supported", "No"), got("unsupported")),  # wrong refusal, no answer
        (q(), got("conflicting")),  # no expectation: counted only in questions and passed
        (q(None, "Yes"), got("supported", "YES")),  # answer expectation only
    ]
    assert score(results) == {
        "questions": 10,
        "passed": 7,
        "verdictAccuracy": 5 / 8,
        "answerExactMatch": 2 / 3,
        "refusalAccuracy": 7 / 8,
        "conflictPrecision": 2 / 3,
        "conflictRecall": 2 / 3,
    }


def test_a_score_without_anything_to_measure_is_none() -> None:
    assert score([(q(), got("conflicting"))]) == {
        "questions": 1, "passed": 1, "verdictAccuracy": None, "answerExactMatch": None, "refusalAccuracy": None,
        "conflictPrecision": None, "conflictRecall": None,
    }
    assert score([(q("supported"), got("supported", "x"))])["conflictPrecision"] is None
    assert score([(q("supported"), got("supported", "x"))])["conflictRecall"] is None
