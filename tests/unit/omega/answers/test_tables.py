"""One case per row of the DS005 word tables, each asserting what the row makes the answering do, so a deleted
row fails its case (the cases are written out by hand, never read from the tables):

* `evaluators.UNIT_MINUTES` (§6.2 "parse durations ... into canonical numeric forms (e.g., minutes)"): a
  duration in each spelling equals its value in minutes, so two facts stating it in different units agree
  (no §4.4 conflict) and derived questions compare it right.
* `text.NEGATION_CUES` (§4.3 polarity): a span carrying the cue is a negation, so an `affirm` fact on it is
  refused with POLARITY_MISMATCH and a `negate` one is accepted.
* `text.ARTICLES` (canonical entities): a leading determiner is not part of the entity, so "Their session
  tokens" is `session_token` and a question naming it so finds the store's subject.
"""

from __future__ import annotations

from typing import Any

import pytest

from omega.answers.answer import answer
from omega.answers.conflicts import detect_conflicts
from omega.answers.evaluators import duration_minutes
from omega.answers.extraction import rule_extract
from omega.answers.model import Chunk, Fact, QueryPlan, fact_from_dict
from omega.answers.planner import plan_question
from omega.answers.store import FactStore, same_value
from omega.answers.text import canonical_entity
from omega.answers.validation import validate_one
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB


def fact(obj: Any, chunk: str = "c0", predicate: str = "expires_after") -> Fact:
    return fact_from_dict({"span": {"start": 0, "end": 1}, "subject": "session_token", "predicate": predicate,
                           "object": obj, "source": {"docId": "d", "chunkId": chunk}})


# ------------------------------------------------------------------------------------------- UNIT_MINUTES
# (duration as written, its value in minutes by hand): every spelling of every unit group
DURATIONS = [
    ("90 second", 1.5), ("90 seconds", 1.5), ("90 sec", 1.5), ("90 secs", 1.5), ("90 s", 1.5),
    ("45 minute", 45.0), ("45 minutes", 45.0), ("45 min", 45.0), ("45 mins", 45.0), ("45 m", 45.0),
    ("2 hour", 120.0), ("2 hours", 120.0), ("2 hr", 120.0), ("2 hrs", 120.0), ("2 h", 120.0),
    ("3 day", 4320.0), ("3 days", 4320.0), ("3 d", 4320.0),
    ("1 week", 10080.0), ("2 weeks", 20160.0), ("1 w", 10080.0),
]


@pytest.mark.parametrize(("written", "minutes"), DURATIONS)
def test_a_duration_in_any_spelling_is_its_value_in_minutes(written: str, minutes: float) -> None:
    assert duration_minutes(written) == minutes
    assert same_value(written, minutes)  # a bare number is minutes
    assert not same_value(written, minutes + 1)


@pytest.mark.parametrize(("written", "minutes"), DURATIONS)
def test_two_facts_stating_one_duration_in_different_units_do_not_conflict(written: str, minutes: float) -> None:
    agree = [fact(written, "c0"), fact(minutes, "c1")]
    assert detect_conflicts(agree, VOCAB) == []
    [(_, _, reason)] = detect_conflicts([fact(written, "c0"), fact(minutes + 1, "c1")], VOCAB)
    assert reason.startswith("VALUE_MISMATCH")


@pytest.mark.parametrize(("written", "minutes"), DURATIONS)
def test_a_derived_question_compares_the_duration_in_minutes(written: str, minutes: float) -> None:
    # "expires after X" means it is gone at X (rules docstring): still valid just before, not at X
    plan = QueryPlan(subjects=("session_token",), predicates=("expires_after",),
                     goal={"subject": "session_token", "predicate": "valid_after_inactivity", "object": "?answer"})
    store = FactStore([fact(written)])
    for inactive, text in ((minutes - 0.5, "Yes"), (minutes, "No"), (minutes + 0.5, "No")):
        got = answer(QueryPlan(plan.version, plan.subjects, plan.predicates, plan.goal,
                               {"inactivityMinutes": inactive}), store, VOCAB)
        assert (got.verdict, got.text) == ("supported", text), (written, inactive)


def test_milliseconds_are_not_minutes() -> None:
    # "ms" was once read as the plural of "m": a 500 ms token expiry answered "still valid after 20 minutes"
    assert duration_minutes("500 ms") == pytest.approx(500 / 60_000)
    assert duration_minutes("3 msecs") == pytest.approx(3 / 60_000)
    assert duration_minutes("2 mins") == pytest.approx(2.0)


# ------------------------------------------------------------------------------------------- NEGATION_CUES
def _candidate(span: str, polarity: str) -> dict[str, Any]:
    return {"span": {"start": 0, "end": len(span)}, "subject": "admin_account", "predicate": "requires",
            "object": "mfa", "source": {"docId": "d", "chunkId": "d/c0"}, "polarity": polarity}


@pytest.mark.parametrize(("cue", "span"), [
    ("not", "Admin accounts do not require MFA."),
    ("never", "Admin accounts never require MFA."),
    ("no", "Admin accounts require no MFA."),
    ("cannot", "Admin accounts cannot require MFA."),
    ("without", "Admin accounts run without MFA."),
    ("none", "None of the admin accounts require MFA."),
    ("neither", "Neither admin accounts require MFA."),
    ("nor", "Nor do admin accounts require MFA."),
])
def test_a_span_with_a_negation_cue_needs_a_negated_fact(cue: str, span: str) -> None:
    assert cue in span.lower().rstrip(".").split()
    chunk = Chunk("d/c0", "d", None, 0, 0, span)
    affirmed = validate_one(_candidate(span, "affirm"), chunk, VOCAB)
    assert isinstance(affirmed, list)
    assert [code for code, _, _ in affirmed] == ["POLARITY_MISMATCH"]
    negated = validate_one(_candidate(span, "negate"), chunk, VOCAB)
    assert isinstance(negated, Fact)
    assert negated.polarity == "negate"


def test_a_span_without_a_cue_takes_an_affirmed_fact_only() -> None:
    span = "Admin accounts require MFA."
    chunk = Chunk("d/c0", "d", None, 0, 0, span)
    assert isinstance(validate_one(_candidate(span, "affirm"), chunk, VOCAB), Fact)
    negated = validate_one(_candidate(span, "negate"), chunk, VOCAB)
    assert isinstance(negated, list)
    assert [code for code, _, _ in negated] == ["POLARITY_MISMATCH"]


# ------------------------------------------------------------------------------------------- ARTICLES
DETERMINERS = ["the", "a", "an", "their", "its", "his", "her", "our", "your", "all", "every", "each"]


@pytest.mark.parametrize("word", DETERMINERS)
def test_a_leading_determiner_is_not_part_of_the_entity(word: str) -> None:
    assert canonical_entity(f"{word.capitalize()} session tokens") == "session_token"
    assert canonical_entity(f"{word} {word} session tokens") == "session_token"


@pytest.mark.parametrize("word", DETERMINERS)
def test_a_sentence_starting_with_a_determiner_extracts_the_bare_subject(word: str) -> None:
    text = f"{word.capitalize()} session tokens expire after 15 minutes."
    [candidate] = rule_extract(Chunk("d/c0", "d", None, 0, 0, text), VOCAB)
    assert (candidate["subject"], candidate["predicate"], candidate["object"]) == \
        ("session_token", "expires_after", "15 minutes")


@pytest.mark.parametrize("word", DETERMINERS)
def test_a_question_with_a_determiner_finds_the_stores_subject(word: str) -> None:
    plan = plan_question(f"How long before {word} session tokens expire?", ["api_key", "session_token"])
    assert plan.subjects == ("session_token",)
    assert (plan.goal or {}).get("subject") == "session_token"
