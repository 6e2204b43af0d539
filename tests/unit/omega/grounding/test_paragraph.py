"""§6.2 paragraph verdicts, §7.1 display, §7.2 edits and versions, and inputs that cannot be judged."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from omega.grounding.facts import AtomicFact
from omega.grounding.judge import JudgeAnswer
from omega.grounding.model import INSUFFICIENT_EVIDENCE, PASS
from omega.grounding.paragraph import ParagraphState, evolve, verify_paragraph
from omega.grounding.request import ParagraphRequest, RequestError, parse_request
from omega.grounding.verdict import SentenceVerdict
from tests.unit.omega.grounding.support import DIZZY, DIZZY_PLACEBO, TRIAL, codes, fact, judge

GOOD = "Dizziness was reported by 8.4% of participants receiving drug A. [F3]"
BAD = "Dizziness was reported by 9% of participants receiving drug A. [F3]"
KNOWN = {"F3": DIZZY, "F4": DIZZY_PLACEBO}


def request(*texts: str, version: int = 1, **extra: Any) -> ParagraphRequest:
    sentences = [{"order": i, "text": t} for i, t in enumerate(texts, start=1)]
    return parse_request({"paragraph_id": "p1", "version": version, "sentences": sentences, **extra}, KNOWN)


def test_a_paragraph_is_verified_iff_every_sentence_passes() -> None:
    assert verify_paragraph(request(GOOD)).verified
    assert not verify_paragraph(request(GOOD, BAD)).verified
    assert not verify_paragraph(request()).verified  # no sentence: nothing verified


def test_the_displayable_paragraph_holds_only_passing_sentences_with_their_attributions() -> None:
    verdict = verify_paragraph(request(BAD, GOOD))
    assert verdict.displayable == GOOD
    assert verify_paragraph(request(BAD)).displayable is None


def test_sentences_are_judged_in_order_whatever_the_input_order() -> None:
    req = parse_request({"paragraph_id": "p", "sentences": [{"order": 2, "text": BAD}, {"order": 1, "text": GOOD}]},
                        KNOWN)
    assert [s.index for s in verify_paragraph(req).sentences] == [1, 2]


@pytest.mark.parametrize("text", ["", "   ", "[F3]", "It was so. [F3]", "x " * 1500 + "[F3]"])
def test_an_input_that_cannot_be_judged_is_a_fail_with_a_reason_never_an_empty_verdict(text: str) -> None:
    verdict = judge(text, DIZZY)
    assert verdict.outcome == "FAIL"
    assert INSUFFICIENT_EVIDENCE in codes(verdict)
    assert verdict.rationale


@pytest.mark.parametrize("paragraph", [
    {"sentences": []},
    {"paragraph_id": "p", "sentences": [{"order": 1, "text": 3}]},
    {"paragraph_id": "p", "sentences": [{"order": 1, "text": "a"}, {"order": 1, "text": "b"}]},
    {"paragraph_id": "p", "version": 0, "sentences": []},
    {"paragraph_id": "p", "allowed_fact_ids": "F3", "sentences": []},
])
def test_a_paragraph_that_cannot_be_read_is_a_request_error(paragraph: dict[str, Any]) -> None:
    with pytest.raises(RequestError):
        parse_request(paragraph, KNOWN)


def test_allowed_facts_default_to_every_known_fact_and_an_unknown_allowed_id_carries_no_content() -> None:
    assert request(GOOD).allowed_fact_ids == ("F3", "F4")
    narrowed = request(GOOD, allowed_fact_ids=["F3", "F9"])
    assert [f.id for f in narrowed.facts] == ["F3"]


def test_an_edit_is_re_verified_and_every_version_is_kept() -> None:
    state, first = evolve(None, request(BAD))
    state, second = evolve(state, request(GOOD, version=2))
    assert (first.verified, second.verified) == (False, True)
    assert second.sentences[0].edited_by_user
    assert [(v.version, v.outcome) for v in state.history[1]] == [(1, "FAIL"), (2, PASS)]


def test_an_unsupported_edit_is_flagged_and_blocked() -> None:
    state, _ = evolve(None, request(GOOD))
    state, edited = evolve(state, request(BAD, version=2))
    [sentence] = edited.sentences
    assert sentence.edited_by_user
    assert sentence.outcome == "FAIL"
    assert sentence.rationale.startswith("unsupported edit, blocked (version 1 stays the last verified text)")


def test_a_redelivered_request_changes_nothing_and_gives_the_same_verdict() -> None:
    state, verdict = evolve(None, request(GOOD))
    again_state, again = evolve(state, request(GOOD))
    assert again_state is state
    assert again.to_record() == verdict.to_record()


def test_a_request_under_a_known_version_with_other_content_replaces_that_version() -> None:
    state, _ = evolve(None, request(GOOD))
    state, _ = evolve(state, request(BAD))
    assert [(v.version, v.text) for v in state.history[1]] == [(1, BAD)]


def test_the_state_survives_its_table_form() -> None:
    state, _ = evolve(None, request(GOOD, BAD))
    state, _ = evolve(state, request(GOOD, GOOD, version=2))
    assert ParagraphState.from_dict(state.to_dict()) == state


def test_the_verdict_id_derives_from_the_request_and_the_labels_do_not_change_it() -> None:
    plain = verify_paragraph(request(GOOD))
    labelled = parse_request({"paragraph_id": "p1", "version": 1, "expected_verified": True,
                              "sentences": [{"order": 1, "text": GOOD, "expected_supported": True}]}, KNOWN)
    assert verify_paragraph(labelled).verdict_id == plain.verdict_id
    assert verify_paragraph(request(BAD)).verdict_id != plain.verdict_id


def test_an_unsupported_edit_of_a_sentence_never_verified_says_there_is_no_verified_version() -> None:
    state, _ = evolve(None, request(BAD))
    _, edited = evolve(state, request(BAD.replace("9%", "10%"), version=2))
    [sentence] = edited.sentences
    assert (sentence.edited_by_user, sentence.outcome) == (True, "FAIL")
    assert sentence.rationale.startswith("unsupported edit, blocked (no verified version); NUMERIC_MISMATCH: ")


def test_a_sentence_unchanged_from_its_earlier_version_is_not_an_edit() -> None:
    state, _ = evolve(None, request(BAD))
    state, second = evolve(state, request(BAD, version=2))
    [sentence] = second.sentences
    assert not sentence.edited_by_user
    assert not sentence.rationale.startswith("unsupported edit")
    assert [(v.version, v.edited_by_user) for v in state.history[1]] == [(1, False), (2, False)]


def test_replacing_a_version_is_not_an_edit_of_that_version_itself() -> None:
    state, _ = evolve(None, request(GOOD))
    state, replaced = evolve(state, request(BAD))
    [sentence] = replaced.sentences
    assert not sentence.edited_by_user
    assert sentence.rationale.startswith("NUMERIC_MISMATCH: ")
    assert [(v.version, v.text, v.edited_by_user) for v in state.history[1]] == [(1, BAD, False)]


def test_the_verdict_on_an_edit_carries_the_hash_of_the_request_as_received() -> None:
    state, _ = evolve(None, request(BAD))
    second = request(GOOD, version=2)
    state, verdict = evolve(state, second)
    assert verdict.sentences[0].edited_by_user  # detected, though the request did not say so
    assert verdict.request_hash == second.request_hash
    assert verdict.to_record()["request_hash"] == second.request_hash
    assert verdict.verdict_id == verify_paragraph(second).verdict_id
    assert state.applied == {1: request(BAD).request_hash, 2: second.request_hash}


class _YesJudge:
    name = "yes"

    def entails(self, claim: str, premises: Sequence[str]) -> JudgeAnswer:
        return JudgeAnswer(True, f"asked about {claim!r}")


def test_evolve_hands_the_semantic_judge_to_the_sentence_checks() -> None:
    paraphrase = ("Drug A knocked systolic blood pressure back by 12 mmHg over 24 weeks in adults aged 65 or older "
                  "in a randomised controlled trial. [F1]")
    req = parse_request({"paragraph_id": "p", "sentences": [{"order": 1, "text": paraphrase}]}, {"F1": TRIAL})
    assert not evolve(None, req)[1].verified  # without a judge, the paraphrase is not entailed
    state, verdict = evolve(None, req, _YesJudge())
    assert verdict.verified
    assert [(v.version, v.outcome) for v in state.history[1]] == [(1, PASS)]


# §2 paragraph-by-paragraph generation, G-4: a qualifier stated by a passing earlier sentence is not dropped later
DIASTOLIC = fact("F7", "Drug A lowered diastolic blood pressure by 5 mmHg.",
                 {"population": "adults aged 65 or older", "timeframe": "24 weeks"})
STATED = "Over 24 weeks, drug A lowered systolic blood pressure by 12 mmHg in adults aged 65 or older. [F1]"
MISSTATED = "Over 24 weeks, drug A lowered systolic blood pressure by 13 mmHg in adults aged 65 or older. [F1]"
LEFT_TO_THE_PARAGRAPH = "Drug A lowered diastolic blood pressure by 5 mmHg. [F7]"


def _qualified(*texts: str) -> tuple[SentenceVerdict, ...]:
    sentences = [{"order": i, "text": t} for i, t in enumerate(texts, start=1)]
    return verify_paragraph(parse_request({"paragraph_id": "p2", "sentences": sentences},
                                          {"F1": TRIAL, "F7": DIASTOLIC})).sentences


def test_a_qualifier_a_passing_earlier_sentence_stated_is_not_dropped_by_a_later_one() -> None:
    first, later = _qualified(STATED, LEFT_TO_THE_PARAGRAPH)
    assert first.passed
    assert later.passed
    assert "timeframe '24 weeks' of F7 as stated earlier in the paragraph" in later.rationale
    assert "population 'adults aged 65 or older' of F7 as stated earlier in the paragraph" in later.rationale


def test_a_qualifier_no_earlier_passing_sentence_stated_is_still_dropped() -> None:
    assert codes(_qualified(LEFT_TO_THE_PARAGRAPH)[0]) == {"QUALIFIER_DROPPED"}
    later_first = _qualified(LEFT_TO_THE_PARAGRAPH, STATED)  # a later sentence establishes nothing for an earlier
    assert not later_first[0].passed
    assert later_first[1].passed
    after_a_failure = _qualified(MISSTATED, LEFT_TO_THE_PARAGRAPH)  # a suppressed sentence establishes nothing
    assert not after_a_failure[0].passed
    assert codes(after_a_failure[1]) == {"QUALIFIER_DROPPED"}


def test_an_established_qualifier_does_not_excuse_an_altered_one() -> None:
    drifted = _qualified(STATED, "Drug A lowered diastolic blood pressure by 5 mmHg in children. [F7]")[1]
    assert "QUALIFIER_DRIFT" in codes(drifted)


def test_an_established_qualifier_restated_without_its_restricting_word_is_a_wider_one() -> None:
    # the first sentence states the season; the second restates the timeframe itself ("daytime, 2010-2019") without
    # it: that is a year-round timeframe of its own, which the paragraph does not narrow
    heat = {"H1": fact("H1", "Mean summer (June-August) daytime air temperature in the city centre was 31.2 °C.",
                       {"timeframe": "summer (June-August) daytime, 2010-2019"}),
            "H2": fact("H2", "Mean summer (June-August) daytime air temperature in the suburbs was 28.9 °C.",
                       {"timeframe": "summer (June-August) daytime, 2010-2019"})}

    def paragraph(*texts: str) -> tuple[SentenceVerdict, ...]:
        sentences = [{"order": i, "text": t} for i, t in enumerate(texts, start=1)]
        return verify_paragraph(parse_request({"paragraph_id": "p3", "sentences": sentences}, heat)).sentences

    first = "Over 2010-2019, mean summer daytime air temperature in the city centre was 31.2 °C. [H1]"
    wider = paragraph(first, "Over 2010-2019, mean daytime air temperature in the suburbs was 28.9 °C. [H2]")
    assert wider[0].passed
    assert codes(wider[1]) == {"QUALIFIER_DROPPED"}
    left = paragraph(first, "Mean air temperature in the suburbs was 28.9 °C. [H2]")
    assert left[1].passed  # left to the paragraph entirely: the established timeframe holds


def test_a_method_that_tells_two_allowed_values_apart_must_be_restated_even_when_established() -> None:
    # G-5: the stress level is what gives 186,000 rather than the allowed 12,400; a sentence that leaves it out
    # after an earlier one stated it still adopts one of the two values silently (§9 "SHALL NOT resolve")
    fatigue = {"C6": fact("C6", "At 5 Hz with a maximum stress level of 0.85, median cycles to failure were 12,400 for "
                                "SFRC.", {"method": "cyclic compression, 5 Hz, maximum stress level 0.85",
                                          "units": "cycles to failure"}),
               "C7": fact("C7", "At 5 Hz with a maximum stress level of 0.75, median cycles to failure were 186,000 "
                                "for SFRC.", {"method": "cyclic compression, 5 Hz, maximum stress level 0.75",
                                              "units": "cycles to failure"})}
    sentences = [{"order": 1, "text": "At a maximum stress level of 0.75 and 5 Hz, median cycles to failure were "
                                      "186,000 for SFRC. [C7]"},
                 {"order": 2, "text": "At 5 Hz, median cycles to failure were 186,000 for SFRC. [C7]"}]
    first, later = verify_paragraph(parse_request({"paragraph_id": "p4", "sentences": sentences},
                                                  fatigue)).sentences
    assert first.passed
    assert codes(later) == {"QUALIFIER_DROPPED"}
    assert "maximum stress level 0.75" in later.rationale


def test_an_established_setting_does_not_hold_where_an_allowed_fact_contrasts_it_with_another() -> None:
    # the paragraph is about onshore and offshore sites: a later sentence without "onshore" names neither
    onshore = fact("W3", "At onshore sites, the failure rate was 0.11 failures per turbine-year.",
                   {"setting": "onshore sites", "units": "failures per turbine-year"})
    both = fact("W4", "Failure rates were higher at offshore sites than at onshore sites.",
                {"setting": "offshore vs onshore sites"})
    first = "At onshore sites, the failure rate was 0.11 failures per turbine-year. [W3]"
    later = "The failure rate was 0.11 failures per turbine-year. [W3]"

    def paragraph(facts: dict[str, AtomicFact]) -> tuple[SentenceVerdict, ...]:
        sentences = [{"order": 1, "text": first}, {"order": 2, "text": later}]
        return verify_paragraph(parse_request({"paragraph_id": "p5", "sentences": sentences}, facts)).sentences

    contrasted = paragraph({"W3": onshore, "W4": both})
    assert contrasted[0].passed
    assert codes(contrasted[1]) == {"QUALIFIER_DROPPED"}
    assert paragraph({"W3": onshore})[1].passed  # established, and nothing in the paragraph contrasts it
