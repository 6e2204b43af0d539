"""Numbers with units, and §6.1 numerical accuracy: no changed, rounded or computed number except the
documented difference."""

from __future__ import annotations

from decimal import Decimal

import pytest

from omega.grounding.frames import numeric_sides
from omega.grounding.model import NOT_ENTAILED, NUMERIC_MISMATCH, QUALIFIER_DROPPED
from omega.grounding.numeric import directions_shown, from_to, numerical_accuracy, superlatives_shown
from omega.grounding.quantities import quantities, quantity_spans, sample_size
from omega.grounding.tokens import analyse, normal
from tests.unit.omega.grounding.support import BASELINE, DIZZY, TRIAL, codes, fact, judge


def test_numbers_are_read_with_their_canonical_units() -> None:
    found = quantities("1,200 adults lost 4.5 kg, 12% per cent, over twelve weeks and a 24-week follow-up")
    assert [(q.value, q.unit) for q in found] == [
        (Decimal(1200), None), (Decimal("4.5"), "kg"), (Decimal(12), "%"), (Decimal(12), "week"),
        (Decimal(24), "week")]


def test_the_sample_size_is_the_largest_plain_count_and_a_year_is_not_one() -> None:
    assert sample_size(quantities("in 2022, 1,150 nurses aged 40 to 65")) == 1150
    assert sample_size(quantities("in 2022")) is None


def test_numbers_stated_by_the_cited_facts_pass() -> None:
    assert numerical_accuracy(analyse("a 12 mmHg fall at 24 weeks"), [TRIAL]).failures == ()
    assert numerical_accuracy(analyse("8.4% reported dizziness"), [DIZZY]).failures == ()


def test_an_equal_value_written_differently_is_the_same_number() -> None:
    assert numerical_accuracy(analyse("8.40% reported dizziness"), [DIZZY]).failures == ()


def test_the_documented_difference_of_two_same_unit_quantities_is_allowed_beside_them() -> None:
    result = numerical_accuracy(analyse("pressure fell by 12 mmHg, from 148 to 136 mmHg"), [BASELINE])
    assert result.failures == ()
    assert result.derivations == ("12 mmhg = |148 mmhg - 136 mmhg|",)


def test_a_difference_in_place_of_its_two_numbers_is_a_number_no_fact_states() -> None:
    # §5.2 numerical modification: "fell by 12 mmHg" alone states a number the fact does not
    [failure] = numerical_accuracy(analyse("pressure fell by 12 mmHg"), [BASELINE]).failures
    assert failure.code == NUMERIC_MISMATCH


def test_a_changed_number_fails() -> None:
    [failure] = numerical_accuracy(analyse("a 13 mmHg fall"), [TRIAL]).failures
    assert failure.code == NUMERIC_MISMATCH
    assert "not stated" in failure.reason


def test_a_rounded_number_fails_as_a_rounding() -> None:
    [failure] = numerical_accuracy(analyse("8% reported dizziness"), [DIZZY]).failures
    assert "rounding of '8.4 %'" in failure.reason


def test_a_number_with_another_unit_fails() -> None:
    [failure] = numerical_accuracy(analyse("a 12 mg fall"), [TRIAL]).failures
    assert "another unit" in failure.reason


def test_a_ratio_is_not_a_documented_derivation() -> None:
    verdict = judge("Dizziness was reported by 2.7 times more participants receiving drug A. [F3]", DIZZY)
    assert NUMERIC_MISMATCH in codes(verdict)


def test_a_number_stated_with_other_units_names_every_unit_it_is_stated_with() -> None:
    twelves = fact("T12", "Drug A lowered blood pressure by 12 mmHg in 40 participants over 12 weeks.")
    [failure] = numerical_accuracy(analyse("Drug A lowered blood pressure by 12 mg."), [twelves]).failures
    assert failure.reason == "'12 mg' is stated by the cited facts with another unit (mmhg, week)"
    assert failure.required_evidence == "a cited fact stating '12 mg' exactly"


def test_a_number_that_no_rounding_of_a_fact_number_gives_is_not_stated() -> None:
    [failure] = numerical_accuracy(analyse("9% reported dizziness"), [DIZZY]).failures
    assert failure.reason == "'9 %' is not stated by the cited facts (changed or computed)"


def test_a_rounding_to_one_decimal_place_is_named_as_a_rounding() -> None:
    precise = fact("P", "Dizziness was reported by 8.46% of participants.")
    [failure] = numerical_accuracy(analyse("8.5% reported dizziness"), [precise]).failures
    assert failure.reason == "'8.5 %' is a rounding of '8.46 %'"


@pytest.mark.parametrize(("written", "value"), [
    ("one in four", "25"), ("a quarter of", "25"), ("1 in 4", "25"), ("three quarters of", "75"),
    ("half of the women", "50"), ("fell by half", "50"), ("three in ten", "30"), ("one-tenth of", "10"),
])
def test_a_proportion_in_words_is_its_exact_percentage(written: str, value: str) -> None:
    [quantity] = quantities(written)
    assert (quantity.value, quantity.unit) == (Decimal(value), "%")


def test_a_fraction_without_an_exact_decimal_equals_no_rounded_percentage() -> None:
    [third] = quantities("a third of the plots")
    assert third.value != Decimal("33.3")
    assert third.value != Decimal("33")


def test_spelled_compound_numbers_are_read_whole_and_unknown_words_are_not_units() -> None:
    assert [q.value for q in quantities("thirty-six ponds")] == [Decimal(36)]
    assert [q.value for q in quantities("six thousand two hundred steps")] == [Decimal(6200)]
    assert [q.unit for q in quantities("two control schools")] == [None]
    assert quantities("in the first half of 2022")[0].value == Decimal(2022)


MEMORY = fact("M1", "Peak resident memory was 410 MB with Orrery 4.8 and 530 MB with Orrery 5.0.", {"units": "MB"})
RATE = fact("R1", "The unemployment rate fell from 6.4% in 2022 to 5.1% in 2023.")


def test_a_direction_the_sentences_own_numbers_show_needs_no_direction_word_in_the_fact() -> None:
    assert judge("Peak resident memory increased from 410 MB with Orrery 4.8 to 530 MB with Orrery 5.0. [M1]",
                 MEMORY).passed
    assert judge("With Orrery 5.0, peak resident memory was higher (530 MB) than with Orrery 4.8 (410 MB). [M1]",
                 MEMORY).passed


def test_a_direction_the_numbers_contradict_is_refused() -> None:
    assert not judge("Peak resident memory decreased from 410 MB with Orrery 4.8 to 530 MB with Orrery 5.0. [M1]",
                     MEMORY).passed


def test_a_change_stated_the_other_way_round_is_refused() -> None:
    for text in ("The unemployment rate rose from 5.1% in 2023 to 6.4% in 2022. [R1]",
                 "The unemployment rate fell from 5.1% in 2023 to 6.4% in 2022. [R1]"):
        [failure] = judge(text, RATE).failures
        assert failure.reason.startswith("from/to reversed")


def test_a_value_moved_to_the_other_group_is_refused() -> None:
    verdict = judge("Peak resident memory was 530 MB with Orrery 4.8. [M1]", MEMORY)
    assert [f.reason.split(":")[0] for f in verdict.failures] == ["value moved to another group"]


def test_two_percentages_differ_by_percentage_points() -> None:
    assert judge("The unemployment rate fell by 1.3 percentage points, from 6.4% in 2022 to 5.1% in 2023. [R1]",
                 RATE).passed
    assert NUMERIC_MISMATCH in codes(judge("The unemployment rate fell by 1.3%, from 6.4% in 2022 to 5.1% in "
                                           "2023. [R1]", RATE))


def test_the_micro_sign_and_its_spelling_are_one_unit() -> None:
    ferritin = fact("F9", "Mean serum ferritin rose from 9 \u00b5g/L at baseline to 21 \u00b5g/L at 6 weeks.",
                    {"units": "\u00b5g/L"})
    assert judge("Mean serum ferritin increased from 9 micrograms per litre at baseline to 21 micrograms per litre "
                 "at 6 weeks. [F9]", ferritin).passed


def test_a_value_moved_between_the_clauses_of_one_fact_is_refused() -> None:
    # the groups in two clauses ("41% of nurses in rural hospitals ..., compared with 33% of nurses in urban
    # hospitals"), each group's words ending where the predicate starts
    burnout = fact("B1", "In the 2022 survey, 41% of nurses in rural hospitals reported burnout, compared with 33% "
                         "of nurses in urban hospitals.", {"timeframe": "2022 survey"})
    moved = judge("In the 2022 survey, 41% of nurses in urban hospitals reported burnout. [B1]", burnout)
    assert moved.failures[0].reason.startswith("value moved to another group: 41")
    assert judge("In the 2022 survey, 41% of nurses in rural hospitals reported burnout. [B1]", burnout).passed
    assert judge("In the 2022 survey, 33% of nurses in urban hospitals reported burnout. [B1]", burnout).passed


def test_a_year_the_fact_attaches_to_its_last_group_does_not_keep_a_moved_value_in_place() -> None:
    nests = fact("N1", "Nest success was 62% at woodland-edge sites and 48% at interior sites in 2021.",
                 {"timeframe": "2021"})
    moved = judge("Nest success was 48% at woodland-edge sites in 2021. [N1]", nests)
    assert moved.failures[0].reason.startswith("value moved to another group: 48")
    assert judge("Nest success was 48% at interior sites in 2021. [N1]", nests).passed
    assert judge("In 2021, nest success was 62% at woodland-edge sites. [N1]", nests).passed


def test_scores_without_a_unit_are_values_of_their_groups_unless_beside_measured_numbers() -> None:
    recall = fact("R1", "Recall of the classifier was 0.91 on the validation set and 0.84 on the test set.")
    assert NOT_ENTAILED in codes(judge("Recall was 0.91 on the test set. [R1]", recall))
    assert judge("Recall was 0.91 on the validation set. [R1]", recall).passed
    # "Orrery 4.8" beside milliseconds names a version: it is no value of the latency's groups
    latency = fact("L9", "Median latency was 1.8 ms with Orrery 5.0 and 2.6 ms with Orrery 4.8.")
    assert judge("Median latency with Orrery 4.8 was 2.6 ms. [L9]", latency).passed
    assert NOT_ENTAILED in codes(judge("Median latency with Orrery 4.8 was 1.8 ms. [L9]", latency))


def test_two_numbers_set_side_by_side_after_a_comparison_belong_to_its_sides_in_order() -> None:
    headache = fact("H2", "Headache was reported by 6.5% of participants receiving drug A and by 4.0% of participants "
                          "receiving placebo.", {"units": "%"})
    stem = "Headache was more common among participants receiving drug A than among those receiving placebo"
    assert judge(f"{stem} (6.5% versus 4.0%). [H2]", headache).passed
    swapped = judge(f"{stem} (4.0% versus 6.5%). [H2]", headache)
    assert swapped.failures[0].reason.startswith("value moved to another group: 4.0")


# §5.1 restating in academic prose: a rate said once, a stated difference named as one (facts written by hand).
ACTIVITY = fact("A1", "At 12 months, pupils in programme schools accumulated a mean of 5.8 more minutes per day of "
                      "physical activity than pupils in control schools.",
                {"timeframe": "12 months", "units": "minutes per day"})


def test_a_rate_said_once_in_the_sentence_is_the_facts_unit() -> None:
    # "daily ... 5.8 minutes" and "5.8 minutes of activity per day" both say minutes per day
    assert judge("At 12 months, daily physical activity was 5.8 minutes higher among pupils in programme schools "
                 "than among pupils in control schools. [A1]", ACTIVITY).passed
    assert judge("At 12 months, pupils in programme schools accumulated 5.8 more minutes of physical activity per "
                 "day than pupils in control schools. [A1]", ACTIVITY).passed


def test_a_rate_never_reads_a_number_in_another_unit() -> None:
    # the period is read onto the number's own unit only: 5.8 hours a day is not 5.8 minutes per day
    verdict = judge("At 12 months, daily physical activity was 5.8 hours higher among pupils in programme schools "
                    "than among pupils in control schools. [A1]", ACTIVITY)
    assert not verdict.passed
    assert QUALIFIER_DROPPED in codes(verdict)  # the fact's minutes per day are not what the sentence states


def test_a_difference_the_fact_states_may_be_called_the_difference() -> None:
    assert judge("At 12 months, the mean difference in physical activity between pupils in programme schools and "
                 "pupils in control schools was 5.8 minutes per day. [A1]", ACTIVITY).passed
    # a number the fact does not state as a difference is not one
    assert not judge("At 12 months, the mean difference in physical activity between pupils in programme schools "
                     "and pupils in control schools was 12 minutes per day. [A1]", ACTIVITY).passed


PONDS = fact("B1", "Newts were detected in 14 of 36 ponds surveyed in 2022.", {"timeframe": "2022"})
PAIN = fact("B2", "Injection-site pain was reported by 24.1% of vaccine recipients and 8.7% of placebo recipients.")


def test_a_strict_bound_every_stated_proportion_meets_is_entailed() -> None:
    # 14 of 36 = 38.9%: below a half, above a third
    verdict = judge("Newts were detected in fewer than half of the 36 ponds surveyed in 2022. [B1]", PONDS)
    assert verdict.passed
    assert "fewer than half: 14 of 36" in verdict.rationale
    assert judge("Newts were detected in more than a third of the 36 ponds surveyed in 2022. [B1]", PONDS).passed
    assert not judge("Newts were detected in more than half of the 36 ponds surveyed in 2022. [B1]", PONDS).passed
    assert not judge("Newts were detected in fewer than a third of the 36 ponds surveyed in 2022. [B1]",
                     PONDS).passed


def test_a_bound_reads_only_the_proportion_out_of_the_total_the_sentence_names() -> None:
    # 14 of 36 = 38.9% meets "fewer than half of the 36 ponds"; 30 of 40 (75%) is out of another total
    both = fact("B3", "Newts were detected in 14 of 36 ponds and frogs in 30 of 40 ponds surveyed in 2022.",
                {"timeframe": "2022"})
    verdict = judge("Newts were detected in fewer than half of the 36 ponds surveyed in 2022. [B3]", both)
    assert verdict.passed
    assert "fewer than half: 14 of 36" in verdict.rationale


def test_an_approximation_is_no_bound_and_a_bound_one_stated_share_breaks_is_refused() -> None:
    assert not judge("Newts were detected in nearly half of the 36 ponds surveyed in 2022. [B1]", PONDS).passed
    # 24.1% is below a quarter but 8.7% is below it too: "more than a quarter" is met by neither
    assert not judge("Injection-site pain was reported by more than a quarter of vaccine recipients. [B2]",
                     PAIN).passed
    # "fewer than 10%" holds for placebo (8.7%) but not for vaccine recipients (24.1%): which one is unsaid
    assert not judge("Injection-site pain was reported by fewer than 10% of recipients. [B2]", PAIN).passed


NOISE = fact("N1", "Among cohort children, each 10 dB increase in night-time noise was associated with 6.2 minutes "
                   "(95% CI 2.4 to 10.0) shorter sleep.")


def test_an_amount_keeps_its_direction_in_other_words() -> None:
    # "10 dB higher" = "10 dB increase"; "6.2 minutes less" = "6.2 minutes (CI) shorter": same amounts, same ways
    assert judge("Among cohort children, each 10 dB higher night-time noise was associated with 6.2 minutes less "
                 "sleep. [N1]", NOISE).passed
    # the other direction is not the same difference
    assert not judge("Among cohort children, each 10 dB higher night-time noise was associated with 6.2 minutes "
                     "more sleep. [N1]", NOISE).passed


LATENCY_PAIR = fact("L1", "Under the batch workload, p99 latency was 18.4 ms for Heron 2.0 and 27.9 ms for Heron 1.5.",
                    {"units": "ms"})


def test_values_set_side_by_side_after_a_comparative_show_its_direction_and_share_its_unit() -> None:
    assert judge("Under the batch workload, Heron 2.0 had a lower p99 latency than Heron 1.5 (18.4 versus 27.9 ms). "
                 "[L1]", LATENCY_PAIR).passed
    # the pair in the other order contradicts "lower"
    assert not judge("Under the batch workload, Heron 2.0 had a lower p99 latency than Heron 1.5 (27.9 versus 18.4 "
                     "ms). [L1]", LATENCY_PAIR).passed
    assert [q.unit for _s, _e, q in quantity_spans("(18.4 versus 27.9 ms)")] == ["ms", "ms"]


def test_a_number_in_a_plain_unit_is_the_facts_rate_when_the_sentence_names_the_period_elsewhere() -> None:
    # the fact writes the rate at the number ("52.4 minutes per day"); the sentence says it once, apart from it
    minutes = fact("R1", "At 12 months, pupils in programme schools accumulated 52.4 minutes per day of physical "
                         "activity.", {"timeframe": "12 months", "units": "minutes per day"})
    assert judge("At 12 months, daily physical activity of pupils in programme schools was 52.4 minutes. [R1]",
                 minutes).passed
    assert judge("At 12 months, pupils in programme schools accumulated 52.4 minutes of physical activity per day. "
                 "[R1]", minutes).passed


@pytest.mark.parametrize(("sentence", "passes"), [
    ("Carlos Santana was born in the fifties. [Y1]", True),
    ("Carlos Santana was born in the 1950s. [Y1]", True),
    ("Carlos Santana was born in the '50s. [Y1]", True),
    ("Carlos Santana was born in the forties. [Y1]", False),
    ("Carlos Santana was born in the 1850s. [Y1]", False),  # the century written is the century checked
    ("Carlos Santana was born in the 1940s. [Y1]", False),
])
def test_a_decade_is_met_by_a_stated_year_within_it(sentence: str, passes: bool) -> None:
    born = fact("Y1", "Carlos Santana (born July 20, 1957) is a Mexican and American musician.")
    assert judge(sentence, born).passed is passes


def test_a_comparative_its_own_numbers_contradict_is_not_shown_by_them() -> None:
    # 530 > 410 shows "higher"; 410 against 530 shows nothing (the comparative is left to the facts to decide)
    for text, shown in (("Peak memory was higher with GCC (530 MB) than with Clang (410 MB).", {"higher"}),
                        ("Peak memory was higher with GCC (410 MB) than with Clang (530 MB).", set())):
        assert directions_shown(analyse(text, claim=True), text, numeric_sides(text)) == shown, text


def test_a_change_is_read_with_thousands_separators_and_written_to_before_from() -> None:
    assert from_to("Throughput rose from 48,200 to 61,700 transactions per second.") == [
        (Decimal(48200), Decimal(61700))]
    assert from_to("Throughput rose to 61,700 transactions per second from 48,200.") == [
        (Decimal(48200), Decimal(61700))]
    assert from_to("It rose from 1,200, and by 2020 to 5") == []  # a comma between the two ends the change


def test_a_change_s_value_moved_across_its_event_is_refused() -> None:
    # the fact goes from 48,200 to 61,700 after the upgrade: 48,200 is the time before it, 61,700 after
    upgrade = fact("C1", "Throughput rose to 61,700 transactions per second from 48,200 after the upgrade.",
                   {"units": "transactions per second"})
    moved = judge("Before the upgrade, throughput was 61,700 transactions per second. [C1]", upgrade)
    assert codes(moved) == {NOT_ENTAILED}
    assert "value moved: the sentence gives 61,700 before the upgrade" in moved.rationale
    assert not judge("After the upgrade, throughput was 48,200 transactions per second. [C1]", upgrade).passed
    assert judge("Before the upgrade, throughput was 48,200 transactions per second. [C1]", upgrade).passed
    assert judge("After the upgrade, throughput was 61,700 transactions per second. [C1]", upgrade).passed
    policy = fact("C2", "Following the policy change, the readmission rate fell from 12.4% to 8.1%.", {"units": "%"})
    assert not judge("Before the policy change, the readmission rate was 8.1%. [C2]", policy).passed
    assert judge("Before the policy change, the readmission rate was 12.4%. [C2]", policy).passed
    assert judge("After the policy change, the readmission rate was 8.1%. [C2]", policy).passed


def test_a_difference_computed_beside_the_difference_the_fact_names_is_refused() -> None:
    # 0.84 - 0.71 = 0.13, but the fact names its (adjusted) difference: 0.12 is "the difference", 0.13 is not
    gait = fact("C3", "At 12 weeks, mean gait speed was 0.84 m/s in the training arm and 0.71 m/s in the usual-care "
                      "arm (adjusted mean difference 0.12 m/s).", {"units": "m/s"})
    computed = judge("At 12 weeks, the adjusted mean difference in gait speed between the arms was 0.13 m/s. [C3]",
                     gait)
    assert codes(computed) == {NUMERIC_MISMATCH}
    assert judge("At 12 weeks, mean gait speed was 0.13 m/s higher in the training arm (0.84 m/s) than in the "
                 "usual-care arm (0.71 m/s). [C3]", gait).passed


def test_counts_without_a_unit_on_each_side_of_a_comparison_show_its_direction() -> None:
    cycles = fact("C4", "Median cycles to failure were 186,000 for SFRC and 54,000 for PC.")
    assert judge("The median number of cycles to failure was lower for PC (54,000) than for SFRC (186,000). [C4]",
                 cycles).passed
    assert not judge("The median number of cycles to failure was higher for PC (54,000) than for SFRC (186,000). "
                     "[C4]", cycles).passed


SPRINGS = fact("K3", "Over 2019-2021, the median nitrate concentration was 38.5 mg/L at Spring A, 24.1 mg/L at "
                     "Spring B and 12.7 mg/L at Spring C.", {"population": "Springs A, B and C"})


def test_a_count_of_what_the_facts_label_by_letter_is_the_number_of_its_labels() -> None:
    counted = numerical_accuracy(analyse("Of the three springs, Spring C had the median of 12.7 mg/L over 2019-2021.",
                                         claim=True), [SPRINGS])
    assert counted.failures == ()
    assert counted.derivations == ("three springs: A, B, C",)
    wrong = numerical_accuracy(analyse("Of the four springs, Spring C had the median of 12.7 mg/L over 2019-2021.",
                                       claim=True), [SPRINGS])
    assert [f.code for f in wrong.failures] == [NUMERIC_MISMATCH]


def test_a_superlative_is_shown_by_the_largest_or_smallest_value_of_the_fact_that_states_it() -> None:
    def shown(sentence: str) -> frozenset[str]:
        return superlatives_shown(analyse(sentence, claim=True), [SPRINGS])

    assert shown("Median nitrate was highest at Spring A (38.5 mg/L) and lowest at Spring C (12.7 mg/L).") \
        == {normal("highest"), normal("lowest")}
    assert shown("Median nitrate was lowest at Spring B (24.1 mg/L).") == frozenset()
    assert shown("Median nitrate was highest at Spring C (12.7 mg/L).") == frozenset()
    gains = fact("W1", "In the trial, mean weight gain was 2.1 kg in the monepantel group, 1.4 kg in the control group "
                       "and 1.7 kg in the ivermectin group.")
    assert judge("In the trial, mean weight gain was highest in the monepantel group, at 2.1 kg. [W1]", gains).passed
    assert judge("In the trial, mean weight gain was lowest in the control group, at 1.4 kg. [W1]", gains).passed
    assert NOT_ENTAILED in codes(judge("In the trial, mean weight gain was highest in the ivermectin group, at 1.7 kg. "
                                       "[W1]", gains))


def test_based_on_a_number_says_a_sample_size_and_nothing_else_based_is_read_so() -> None:
    storms = fact("K8", "During storm events at Spring B in 2020-2021, sensor-measured nitrate fell by a median of 31% "
                        "within 24 hours of peak discharge (n = 14 events).")
    assert judge("During storm events at Spring B in 2020-2021, sensor-measured nitrate fell by a median of 31% within "
                 "24 hours of peak discharge, based on 14 events. [K8]", storms).passed
    unsaid = judge("During storm events at Spring B in 2020-2021, sensor-measured nitrate fell by a median of 31% "
                   "within 24 hours of peak discharge, based on sensor readings. [K8]", storms)
    assert NOT_ENTAILED in codes(unsaid)
