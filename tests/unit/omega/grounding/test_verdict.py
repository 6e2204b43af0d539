"""One sentence's verdict (§6.1, §6.2): PASS with the rationale of what was checked, or FAIL with every failure
and, as rationale, the failures' codes and reasons in check order; inputs that cannot be judged fail with a reason."""

from __future__ import annotations

from omega.grounding.model import INSUFFICIENT_EVIDENCE
from omega.grounding.verdict import Evidence, Sentence, verify_sentence
from tests.unit.omega.grounding.support import BASELINE, DIZZY, DIZZY_PLACEBO, NO_STROKE, codes, fact, judge

GOOD = "Dizziness was reported by 8.4% of participants receiving drug A. [F3]"
KEPT = "; qualifiers, scope and strength preserved"


def test_a_passing_sentence_says_which_facts_entail_it_and_how_much_was_checked() -> None:
    # claim tokens: dizziness, participants, receiving, drug, A ("was reported by" carries no claim); one number
    verdict = judge(GOOD, DIZZY)
    assert (verdict.outcome, verdict.failures, verdict.cited_fact_ids) == ("PASS", (), ("F3",))
    assert verdict.rationale == f"entailed by F3: 5 claim token(s) covered, 1 number(s) stated by the facts{KEPT}"


def test_a_passing_sentence_without_numbers_does_not_mention_numbers() -> None:
    # claim tokens: drug, A, reduce, rate, stroke (negation is polarity; "follow-up" is a timeframe qualifier)
    verdict = judge("Drug A did not reduce the rate of stroke during follow-up. [F5]", NO_STROKE)
    assert verdict.rationale == f"entailed by F5: 5 claim token(s) covered{KEPT}"


def test_a_derived_number_is_named_in_the_rationale() -> None:
    # claim tokens: mean, systolic, blood, pressure ("fell" is shown by its own numbers, from 148 to 136); numbers:
    # 12 mmHg (the difference), 148, 136, 24 weeks
    verdict = judge("Mean systolic blood pressure fell by 12 mmHg, from 148 mmHg at baseline to 136 mmHg at 24 weeks. "
                    "[F2]", BASELINE)
    assert verdict.rationale == ("entailed by F2: 4 claim token(s) covered, 4 number(s) stated by the facts "
                                 f"(derived: 12 mmhg = |148 mmhg - 136 mmhg|){KEPT}")


def test_a_failing_sentence_lists_every_failure_in_check_order_as_its_rationale() -> None:
    verdict = judge("Dizziness was reported by 9% of hospitalised participants receiving drug A. [F3]", DIZZY)
    assert verdict.outcome == "FAIL"
    assert [(f.code, f.reason, f.required_evidence, f.fact_ids) for f in verdict.failures] == [
        ("QUALIFIER_ADDED", "setting 'hospitalised' added: no cited fact states it (G-4)",
         "a cited fact stating the setting 'hospitalised'", ("F3",)),
        ("NUMERIC_MISMATCH", "'9 %' is not stated by the cited facts (changed or computed)",
         "a cited fact stating '9 %' exactly", ("F3",))]
    assert verdict.rationale == ("QUALIFIER_ADDED: setting 'hospitalised' added: no cited fact states it (G-4); "
                                 "NUMERIC_MISMATCH: '9 %' is not stated by the cited facts (changed or computed)")


def test_a_citation_outside_the_allowed_facts_fails_and_the_content_is_checked_against_the_allowed_ones() -> None:
    verdict = judge(GOOD.replace("[F3]", "[F3][F4]"), DIZZY, DIZZY_PLACEBO, allowed=["F3"])
    assert [(f.code, f.fact_ids) for f in verdict.failures] == [("CITATION_NOT_ALLOWED", ("F4",))]
    assert verdict.cited_fact_ids == ("F3", "F4")
    assert verdict.rationale == "CITATION_NOT_ALLOWED: cites facts outside the paragraph's allowed facts: F4"


def test_a_claim_stated_only_by_an_allowed_uncited_fact_names_that_fact() -> None:
    verdict = judge("Dizziness was reported by 3.1% of participants receiving drug A. [F3]", DIZZY, DIZZY_PLACEBO)
    assert [(f.code, f.fact_ids) for f in verdict.failures] == [("UNCITED_FACT_USED", ("F4",))]  # not a mismatch
    placebo = judge("Dizziness was reported by 3.1% of participants receiving placebo. [F3]", DIZZY, DIZZY_PLACEBO)
    assert [(f.code, f.fact_ids) for f in placebo.failures] == [("QUALIFIER_ADDED", ("F3",)),
                                                                 ("UNCITED_FACT_USED", ("F4",))]


def test_a_text_longer_than_a_sentence_cannot_be_judged() -> None:
    text = "x " * 1000 + "[F3]"  # 2004 characters
    verdict = verify_sentence(Sentence(4, text, True), Evidence(frozenset({"F3"}), {"F3": DIZZY}))
    assert [(f.code, f.reason, f.required_evidence, f.fact_ids) for f in verdict.failures] == [
        (INSUFFICIENT_EVIDENCE, "longer than 2000 characters: not one sentence",
         "the text split into sentences, each with its citations", ())]
    assert verdict.rationale == "INSUFFICIENT_EVIDENCE: longer than 2000 characters: not one sentence"
    assert (verdict.index, verdict.text, verdict.edited_by_user, verdict.cited_fact_ids) == (4, text, True, ("F3",))
    assert judge(GOOD.replace("[F3]", " " * (2000 - len(GOOD)) + "[F3]"), DIZZY).passed  # 2000 characters: judged


def test_a_sentence_with_no_claim_bearing_token_cannot_be_judged() -> None:
    verdict = judge("It was so. [F3]", DIZZY)
    assert [(f.code, f.reason, f.required_evidence, f.fact_ids) for f in verdict.failures] == [
        (INSUFFICIENT_EVIDENCE, "no claim-bearing token: nothing to verify",
         "a sentence stating a claim of the cited facts", ())]
    assert verdict.rationale == "INSUFFICIENT_EVIDENCE: no claim-bearing token: nothing to verify"
    assert INSUFFICIENT_EVIDENCE not in codes(judge("8.4%. [F3]", DIZZY))  # a number alone is a claim


def test_a_sentence_citing_no_known_allowed_fact_fails_on_its_citations_alone() -> None:
    verdict = judge("Dizziness was reported. [F9]", DIZZY, allowed=["F3", "F9"])
    assert [(f.code, f.fact_ids) for f in verdict.failures] == [("UNKNOWN_FACT", ("F9",))]
    assert verdict.rationale.startswith("UNKNOWN_FACT: ")


def test_the_sentence_record_carries_the_decision() -> None:
    record = judge(GOOD, DIZZY).to_record()
    assert record == {"index": 1, "text": GOOD, "cited_fact_ids": ["F3"], "edited_by_user": False, "outcome": "PASS",
                      "rationale": f"entailed by F3: 5 claim token(s) covered, 1 number(s) stated by the facts{KEPT}",
                      "failures": []}


def test_a_fact_whose_subject_is_a_pronoun_is_about_the_subject_the_citing_sentence_names() -> None:
    # a source split into sentences: "She ..." names no one, and the citation says whom it is about
    teacher = fact("P1", "She took a teaching position as a social studies teacher at Concord High School in 1983.")
    verdict = judge("Christa McAuliffe took a teaching position at Concord High School. [P1]", teacher)
    assert verdict.passed
    assert "= 'She', the subject of P1, which names no subject" in verdict.rationale
    # only the subject is resolved: any other name must still be stated
    assert not judge("Christa McAuliffe took a teaching position at Exeter High School. [P1]", teacher).passed


def test_a_fact_naming_its_subject_or_a_definite_noun_resolves_nothing() -> None:
    named = fact("P2", "Sharon Christa McAuliffe took a teaching position at Concord High School in 1983.")
    assert not judge("Barbara Morgan took a teaching position at Concord High School. [P2]", named).passed
    # "The drug" has content of its own: it does not stand for whichever drug the sentence names
    drug = fact("P3", "The drug lowered systolic blood pressure by 12 mmHg over 24 weeks.")
    assert not judge("Losartan lowered systolic blood pressure by 12 mmHg over 24 weeks. [P3]", drug).passed
    # two cited facts: whom each pronoun stands for is not for the verifier to guess
    founded, size = fact("P4", "It was founded in 1857."), fact("P5", "It has 1,200 members.")
    assert judge("Harrow Athletic Club was founded in 1857. [P4]", founded).passed
    assert not judge("Harrow Athletic Club was founded in 1857 and has 1,200 members. [P4][P5]", founded,
                     size).passed
