"""Roles and comparisons bound (issue 42, item 1): the same words on the other side are another claim."""

from __future__ import annotations

from decimal import Decimal

from omega.grounding.frame_reading import frames
from omega.grounding.frames import FrameCheck, comparisons_and_roles, numeric_sides, relation
from omega.grounding.model import NOT_ENTAILED, NUMERIC_MISMATCH
from tests.unit.omega.grounding.support import codes, fact, judge

LATENCY = fact("C1", "Median latency was lower in version 2.4 than in version 2.3.")
NITRATE = fact("C2", "Nitrate concentrations were higher in the northern plots than in the southern plots.")
TUTOR = fact("R1", "Dr Alvarez tutored Dr Chen during the first year of the programme.")
RELEASE = fact("R2", "Release 5 replaced release 4 in the production clusters in March 2024.")


def test_a_comparison_restated_with_its_sides_passes() -> None:
    assert judge("Median latency was lower in version 2.4 than in version 2.3. [C1]", LATENCY).passed


def test_a_comparison_with_its_sides_reversed_is_refused_naming_the_moved_words() -> None:
    verdict = judge("Median latency was lower in version 2.3 than in version 2.4. [C1]", LATENCY)
    assert codes(verdict) == {NOT_ENTAILED}
    [failure] = verdict.failures
    assert failure.reason.startswith("comparison reversed")
    assert "'2.3', '2.4'" in failure.reason


def test_the_antonym_with_the_sides_swapped_is_the_same_comparison() -> None:
    assert judge("Median latency was higher in version 2.3 than in version 2.4. [C1]", LATENCY).passed
    assert judge("Nitrate concentrations were lower in the southern plots than in the northern plots. [C2]",
                 NITRATE).passed


def test_the_antonym_with_the_sides_kept_is_refused() -> None:
    assert not judge("Median latency was higher in version 2.4 than in version 2.3. [C1]", LATENCY).passed
    assert not judge("Nitrate concentrations were lower in the northern plots than in the southern plots. [C2]",
                     NITRATE).passed


def test_swapped_roles_are_refused_and_the_passive_keeps_them() -> None:
    assert judge("Dr Chen was tutored by Dr Alvarez during the first year of the programme. [R1]", TUTOR).passed
    swapped = judge("Dr Chen tutored Dr Alvarez during the first year of the programme. [R1]", TUTOR)
    assert [f.reason.split(":")[0] for f in swapped.failures] == ["roles swapped"]
    assert not judge("Dr Alvarez was tutored by Dr Chen during the first year of the programme. [R1]", TUTOR).passed


def test_which_version_replaced_which_is_bound_by_its_numbers() -> None:
    assert judge("Release 4 was replaced by release 5 in the production clusters in March 2024. [R2]", RELEASE).passed
    assert not judge("Release 4 replaced release 5 in the production clusters in March 2024. [R2]", RELEASE).passed


def test_frames_read_the_sides_of_than_and_the_agent_after_by() -> None:
    [comparison] = frames("Yield was higher in plot A than in plot B.")
    assert (comparison.kind, comparison.predicate) == ("comparison", "higher")
    assert "entitya" in comparison.first
    assert "entityb" in comparison.second
    [role] = frames("Plot B was grazed by sheep.")
    assert (role.kind, role.first, role.second) == ("role", frozenset({"sheep"}), frozenset({"plot", "entityb"}))


def test_a_negated_comparative_reads_as_its_antonym() -> None:
    [frame] = frames("Latency in version 2.3 did not exceed that in version 2.4.")
    assert frame.predicate == "not exceed"


def test_a_negation_four_words_before_the_comparative_belongs_to_the_side_not_the_predicate() -> None:
    [frame] = frames("Plots that were not irrigated had a higher yield than the irrigated plots.")
    assert frame.predicate == "higher"
    assert frame.first == {"not", "plot", "irrigat"}
    assert frame.second == {"plot", "irrigat"}


IRRIGATED = fact("I1", "Irrigated plots had a higher yield than plots that were not irrigated.")


def test_a_side_negated_in_the_sentence_is_not_the_side_it_excludes() -> None:
    # the same words both ways round: only the negation tells the sides apart (G-1)
    assert not judge("Plots that were not irrigated had a higher yield than the irrigated plots. [I1]",
                     IRRIGATED).passed
    assert judge("Plots that were not irrigated had a lower yield than the irrigated plots. [I1]", IRRIGATED).passed
    without = fact("M1", "The membrane with an interlayer retained more capacity than the membrane without one.")
    assert not judge("The membrane without an interlayer retained more capacity than the membrane with one. [M1]",
                     without).passed


def test_a_comparison_about_other_things_borrows_no_reading_from_a_fact_frame() -> None:
    # the same pair of antonyms, sides that share no word: not the fact's comparison read the other way round
    throughput = fact("T1", "Throughput was higher on cluster X than on cluster Y.")
    assert comparisons_and_roles("Latency was lower in release 3 than in release 4.", [throughput], {}) \
        == FrameCheck((), {}, ())
    swapped = comparisons_and_roles("Throughput was lower on cluster Y than on cluster X.", [throughput], {})
    assert swapped.readings == ("lower than = higher than, sides swapped",)


def test_did_not_exceed_is_entailed_by_lower_with_the_same_sides_and_refused_reversed() -> None:
    assert judge("Median latency in version 2.4 did not exceed that in version 2.3. [C1]", LATENCY).passed
    assert not judge("Median latency in version 2.3 did not exceed that in version 2.4. [C1]", LATENCY).passed


LATENCY_VALUES = fact("L1", "Median latency was 5.1 ms with Orrery 5.0 and 7.2 ms with Orrery 4.8.", {"units": "ms"})


def test_a_comparison_the_facts_numbers_decide_passes_and_the_reverse_is_refused() -> None:
    assert judge("Median latency was lower with Orrery 5.0 than with Orrery 4.8. [L1]", LATENCY_VALUES).passed
    assert judge("Median latency was higher with Orrery 4.8 than with Orrery 5.0. [L1]", LATENCY_VALUES).passed
    reversed_ = judge("Median latency was higher with Orrery 5.0 than with Orrery 4.8. [L1]", LATENCY_VALUES)
    assert reversed_.failures[0].reason.startswith("comparison reversed")
    assert "5.1 and 7.2" in reversed_.failures[0].reason


# Two cited facts, one value each for the same measure (issue 42, item 3 "combination of two cited facts when each
# part is entailed"): the comparison they decide is entailed; the reverse, or a comparison of two different measures,
# is not.
IV = fact("H1", "Mean haemoglobin at 6 weeks was 12.4 g/dL in the intravenous iron arm.", {"timeframe": "6 weeks"})
ORAL = fact("H2", "Mean haemoglobin at 6 weeks was 11.5 g/dL in the oral iron arm.", {"timeframe": "6 weeks"})
NEW = fact("Q1", "Median query latency on the read-heavy workload was 4.2 ms with Orrery 5.0.")
OLD = fact("Q2", "Median query latency on the read-heavy workload was 6.8 ms with Orrery 4.8.")


def test_two_facts_one_value_each_decide_a_comparison_and_its_reverse_is_refused() -> None:
    assert judge("At 6 weeks, mean haemoglobin was higher in the intravenous iron arm than in the oral iron arm. "
                 "[H1][H2]", IV, ORAL).passed
    reversed_ = judge("At 6 weeks, mean haemoglobin was lower in the intravenous iron arm than in the oral iron arm. "
                      "[H1][H2]", IV, ORAL)
    assert reversed_.failures[0].reason.startswith("comparison reversed")
    assert "12.4 and 11.5" in reversed_.failures[0].reason


def test_a_bare_second_side_is_parallel_to_the_subject() -> None:
    assert judge("Orrery 5.0 had a lower median query latency on the read-heavy workload than Orrery 4.8. [Q1][Q2]",
                 NEW, OLD).passed
    assert frames("Orrery 5.0 had a lower median latency on the workload than Orrery 4.8.")[0].first \
        == frozenset({"orrery", "5.0"})
    reversed_ = judge("Median query latency on the read-heavy workload was higher with Orrery 5.0 than with Orrery "
                      "4.8. [Q1][Q2]", NEW, OLD)
    assert "4.2 and 6.8" in reversed_.failures[0].reason


def test_more_common_and_more_participants_are_decided_by_two_proportions() -> None:
    # DIZZY-like facts: 8.4% on drug A, 3.1% on placebo
    drug = fact("D1", "Dizziness was reported by 8.4% of participants receiving drug A.")
    placebo = fact("D2", "Dizziness was reported by 3.1% of participants receiving placebo.")
    assert judge("Dizziness was more common among participants receiving drug A than among those receiving placebo. "
                 "[D1][D2]", drug, placebo).passed
    assert judge("Dizziness was reported by more participants receiving drug A than participants receiving placebo. "
                 "[D1][D2]", drug, placebo).passed
    assert not judge("Dizziness was less common among participants receiving drug A than among those receiving "
                     "placebo. [D1][D2]", drug, placebo).passed


def test_two_facts_about_different_measures_decide_no_comparison() -> None:
    systolic = fact("S1", "Mean systolic blood pressure was 131 mmHg in arm A at 24 weeks.")
    diastolic = fact("S2", "Mean diastolic blood pressure was 84 mmHg in arm B at 24 weeks.")
    verdict = judge("Mean blood pressure at 24 weeks was higher in arm A than in arm B. [S1][S2]", systolic, diastolic)
    assert NOT_ENTAILED in codes(verdict)
    assert "'higher'" in verdict.rationale


def test_a_value_moved_to_the_group_of_another_cited_fact_is_refused() -> None:
    moved = judge("Mean haemoglobin at 6 weeks was 11.5 g/dL in the intravenous iron arm. [H1][H2]", IV, ORAL)
    assert moved.failures[0].reason.startswith("value moved to another group: 11.5")
    assert judge("Mean haemoglobin at 6 weeks was 11.5 g/dL in the oral iron arm. [H1][H2]", IV, ORAL).passed
    assert not judge("Median query latency on the read-heavy workload was 6.8 ms with Orrery 5.0. [Q1][Q2]",
                     NEW, OLD).passed


def test_a_bare_second_side_sharing_the_phrase_after_the_comparative_is_that_phrase_elided() -> None:
    found = frames("Nitrate was higher in the northern plots than the southern plots.")[0]
    assert (found.first, found.second) == (frozenset({"northern", "plot"}), frozenset({"southern", "plot"}))


def test_the_baseline_of_a_change_made_its_agent_is_a_role_swap() -> None:
    coating = fact("J1", "The coating reduced corrosion rates by 30% relative to uncoated steel.")
    swapped = judge("Uncoated steel reduced corrosion rates by 30% relative to the coating. [J1]", coating)
    assert swapped.failures[0].reason.startswith("roles swapped")
    assert judge("The coating reduced corrosion rates by 30% relative to uncoated steel. [J1]", coating).passed
    assert judge("Relative to uncoated steel, the coating reduced corrosion rates by 30%. [J1]", coating).passed


def test_a_side_naming_part_of_its_groups_name_still_picks_that_group() -> None:
    # issue 46 (fault 3's class): a side names a group when it shares any of its distinctive words ("the ferric arm"
    # for "the ferric carboxymaltose arm"), not only all of them
    arms = fact("G1", "Mean haemoglobin at 6 weeks was 12.4 g/dL in the ferric carboxymaltose arm and 11.5 g/dL in the "
                      "oral ferrous sulfate arm.")
    assert judge("At 6 weeks, mean haemoglobin was higher in the ferric arm than in the oral arm. [G1]", arms).passed
    reversed_ = judge("At 6 weeks, mean haemoglobin was lower in the ferric arm than in the oral arm. [G1]", arms)
    assert "12.4 and 11.5" in reversed_.failures[0].reason


# Hand-written facts of the shape the contract's manuscripts use (§5.1: the same comparison told from the other side).
THROUGHPUT = fact("T1", "Under the batch workload with 64 clients, Heron 2.0 sustained a higher median throughput "
                        "(9,100 requests per second) than Heron 1.5 (7,300 requests per second).")
SLEEP = fact("S1", "Mean sleep duration was shorter among children in the highest quartile of traffic noise "
                   "(9.1 hours) than among children in the lowest quartile (9.4 hours).")
MEMORY = fact("M1", "Peak memory of Heron 2.0 was 14% higher than that of Heron 1.5 under the batch workload.")


def test_the_converse_told_from_the_subject_keeps_the_scene_and_the_verb_out_of_the_sides() -> None:
    # "Under the batch workload," is the scene of both sides and "sustained ... throughput" the compared quantity
    claim = ("Under the batch workload with 64 clients, Heron 1.5 sustained a lower median throughput "
             "(7,300 requests per second) than Heron 2.0 (9,100 requests per second). [T1]")
    assert judge(claim, THROUGHPUT).passed
    [frame] = frames(claim.removesuffix(" [T1]"))
    assert frame.first == {"heron", "1.5"}
    reversed_claim = ("Under the batch workload with 64 clients, Heron 2.0 sustained a lower median throughput "
                      "than Heron 1.5. [T1]")
    assert not judge(reversed_claim, THROUGHPUT).passed


def test_a_modifier_stated_on_one_side_and_elided_on_the_other_is_not_a_swap() -> None:
    # "those in the highest quartile" leaves "of traffic noise" unsaid: the quartiles land where the fact puts them
    assert judge("Mean sleep duration was longer among children in the lowest quartile of traffic noise (9.4 hours) "
                 "than among those in the highest quartile (9.1 hours). [S1]", SLEEP).passed
    assert not judge("Mean sleep duration was longer among children in the highest quartile of traffic noise "
                     "than among those in the lowest quartile. [S1]", SLEEP).passed


def test_a_ratio_does_not_hold_with_its_sides_swapped_but_the_direction_does() -> None:
    # 14% higher than 1.5 makes 1.5 about 12.3% lower than 2.0, not 14%
    verdict = judge("Peak memory of Heron 1.5 was 14% lower than that of Heron 2.0 under the batch workload. [M1]",
                    MEMORY)
    assert NUMERIC_MISMATCH in codes(verdict)
    assert judge("Peak memory of Heron 1.5 was lower than that of Heron 2.0 under the batch workload. [M1]",
                 MEMORY).passed


STREET = fact("S2", "The association between traffic noise and shorter sleep was stronger among children whose bedroom "
                    "faced a street (8.7 minutes shorter per 10 dB) than among children whose bedroom faced a "
                    "courtyard (2.9 minutes shorter per 10 dB).")
MODELS = fact("S3", "In predicting NO2 concentrations at 40 sites, the regression model outperformed the dispersion "
                    "model.")


def test_a_comparative_inside_brackets_measures_a_side_and_is_not_the_comparison() -> None:
    claim = ("The association between traffic noise and shorter sleep was weaker among children whose bedroom faced "
             "a courtyard (2.9 minutes shorter per 10 dB) than among those whose bedroom faced a street (8.7 minutes "
             "shorter per 10 dB). [S2]")
    [frame] = frames(claim.removesuffix(" [S2]"))
    assert frame.predicate == "weaker"
    assert judge(claim, STREET).passed
    assert not judge(claim.replace("weaker", "stronger"), STREET).passed


def test_the_digits_of_a_name_are_no_value_on_a_side() -> None:
    # "NO2" names a pollutant: its 2 is not a number moved between the sides
    [frame] = frames("Sleep was longer among children in the lowest quartile of NO2 exposure than among those in the "
                     "highest quartile.")
    assert "2" not in frame.first


def test_better_is_the_comparative_of_outperformed() -> None:
    assert judge("In predicting NO2 concentrations at 40 sites, the regression model did better than the dispersion "
                 "model. [S3]", MODELS).passed
    assert not judge("In predicting NO2 concentrations at 40 sites, the dispersion model did better than the "
                     "regression model. [S3]", MODELS).passed


FIT = fact("S4", "In tests at 12 sites, the regression model outperformed the dispersion model (R² 0.81 versus 0.66).")


def test_a_comparing_verb_keeps_its_fronted_scene_and_bracketed_values_off_its_sides() -> None:
    assert judge("In tests at 12 sites, the dispersion model was outperformed by the regression model (R² 0.81 for "
                 "the regression model and 0.66 for the dispersion model). [S4]", FIT).passed
    assert not judge("In tests at 12 sites, the regression model was outperformed by the dispersion model. [S4]",
                     FIT).passed


def test_values_set_side_by_side_after_a_comparing_verb_belong_to_its_sides_in_order() -> None:
    # the fact gives 0.81 to the regression model and 0.66 to the dispersion model
    verdict = judge("In tests at 12 sites, the dispersion model was outperformed by the regression model (R² 0.66 "
                    "for the regression model and 0.81 for the dispersion model). [S4]", FIT)
    assert "value moved to another group" in verdict.rationale


def test_a_baseline_made_the_agent_is_a_swap_even_when_the_agent_shares_a_word_with_it() -> None:
    # found by flipping the baseline test (issue 46): the agent's phrase ends at "of" ("the steel"), which the
    # baseline "uncoated steel" shares; the words only the baseline has ("uncoated") decide
    coating = fact("R3", "The epoxy coating of the steel reduced corrosion by 30% relative to uncoated steel.")
    verdict = judge("Uncoated steel reduced corrosion by 30% relative to the epoxy coating. [R3]", coating)
    assert "roles swapped" in verdict.rationale
    assert judge("The epoxy coating of the steel reduced corrosion by 30% relative to uncoated steel. [R3]",
                 coating).passed


def test_a_participle_after_a_count_is_an_adjective_and_a_name_with_digits_is_no_count() -> None:
    found = frames("The survey reached 1,150 registered nurses in Ontario.")
    assert not [f for f in found if f.predicate == "registered"]
    [replaced] = [f for f in frames("In the stack, a monolayer of Me-4PACz replaced PTAA as the transport layer.")
                  if f.predicate == "replaced"]
    assert "pta" in replaced.second


def test_fell_short_of_is_one_comparing_verb_with_its_two_sides() -> None:
    # "A fell short of B": A is compared with B, as in "A exceeded B", with the opposite direction (issue 42 item 1)
    [frame] = frames("Heron 2.0 fell short of Heron 1.5 in throughput.")
    assert (frame.kind, frame.predicate) == ("comparison", "fell short")
    assert frame.first == {"heron", "2.0"}
    assert frame.second == {"heron", "1.5", "throughput"}
    assert frames("The membrane was short of water.") == ()  # "short" alone compares nothing


def test_each_side_measured_by_its_own_number_is_read_even_with_a_participle_after_its_noun() -> None:
    # "the build compiled by GCC": a participle inside a side does not cut the comparison in two
    assert numeric_sides("Peak memory was higher with the build compiled by GCC (530 MB) than with the build "
                         "compiled by Clang (410 MB).") == [("higher", Decimal(530), Decimal(410))]


def test_a_comparative_and_a_verb_outside_the_comparatives_are_not_read_as_antonyms() -> None:
    assert relation("higher", "lower") == "opposite"
    assert relation("higher", "greater") == "same"
    # only two comparatives are placed on the up/down scale against each other: "reduced" is no comparative
    assert relation("higher", "reduced") is None
    assert relation("faster", "recovered") is None


GRANT = fact("G1", "The grant funded the consortium, and the consortium trained 40 technicians.")
MIGRAINE = fact("K1", "Compared with placebo, drug K reduced the incidence of migraine by 38%.")


def test_the_fact_s_patient_given_another_agent_the_facts_name_is_refused_naming_it() -> None:
    verdict = judge("The grant trained 40 technicians. [G1]", GRANT)
    assert not verdict.passed
    assert verdict.failures[0].reason.startswith("agent replaced: the sentence makes 'grant' the agent of 'trained'")
    assert judge("The consortium trained 40 technicians. [G1]", GRANT).passed
    assert not judge("Compared with drug K, placebo reduced the incidence of migraine by 38%. [K1]", MIGRAINE).passed
    assert judge("Drug K reduced the incidence of migraine by 38% compared with placebo. [K1]", MIGRAINE).passed


def test_an_agent_said_in_more_or_fewer_words_is_the_same_agent() -> None:
    # the words next to the verb differ ("trial" / "participants"; "monolayer" / "Me-4PACz"), the phrases share one
    dose = fact("M1", "Participants received a single dose of RV-3 or placebo.")
    assert judge("Participants in the trial received a single dose of RV-3 or placebo. [M1]", dose).passed
    layer = fact("L1", "In the optimised stack, a self-assembled monolayer of Me-4PACz replaced PTAA.")
    assert judge("PTAA was replaced by a self-assembled monolayer of Me-4PACz in the optimised stack. [L1]",
                 layer).passed


def test_a_verb_form_right_after_an_opening_bracket_has_no_agent_before_the_bracket() -> None:
    assert frames("Body mass index did not differ between the schools (adjusted difference -0.03).") == ()


UPTAKE = fact("U1", "Nitrogen uptake was twice as high in inoculated seedlings as in uninoculated seedlings.")


def test_a_ratio_said_as_an_equative_is_a_relative_comparison_of_its_two_sides() -> None:
    [frame] = frames("Nitrogen uptake was twice as high in inoculated seedlings as in uninoculated seedlings.")
    assert (frame.kind, frame.predicate, frame.relative) == ("comparison", "high", True)
    assert frame.first == {"inoculat", "seedling"}
    assert frame.second == {"uninoculat", "seedling"}
    assert frames("Uptake was half as high in the first plot as in the second plot.") == ()


def test_an_equative_with_its_sides_swapped_is_refused() -> None:
    assert judge("Nitrogen uptake was twice as high in inoculated seedlings as in uninoculated seedlings. [U1]",
                 UPTAKE).passed
    assert not judge("Nitrogen uptake was twice as high in uninoculated seedlings as in inoculated seedlings. [U1]",
                     UPTAKE).passed


def test_an_agent_replaced_is_told_even_when_both_patients_are_one_word_by_synonym() -> None:
    # "loss" and "decline" both read as a decrease: the patients agree, the agents ("sea ice" / "polar bear body
    # condition") do not, whatever word the agent phrases share with the patients
    ice = fact("E1", "Loss of sea ice preceded the decline in polar bear body condition in the Beaufort Sea.",
               {"setting": "Beaufort Sea"})
    assert not judge("In the Beaufort Sea, the decline in polar bear body condition preceded the loss of sea ice. "
                     "[E1]", ice).passed


ENERGY = fact("K4", "Compared with the 2019 baseline, household energy use in the pilot district was 14% lower in "
                    "2022.", {"setting": "pilot district"})


def test_a_comparison_whose_marker_opens_the_clause_has_the_fronted_phrase_as_its_second_side() -> None:
    [frame] = frames(ENERGY.content)
    assert (frame.predicate, frame.first, frame.second) == ("lower", {"2022"}, {"2019", "baselin"})
    assert judge("In the pilot district, household energy use was 14% lower in 2022 than in 2019. [K4]", ENERGY).passed
    assert not judge("In the pilot district, household energy use in 2019 was 14% lower than in 2022. [K4]",
                     ENERGY).passed
    # a fronted phrase before a verb of change is a role's baseline, not a comparison
    [role] = frames("Compared with placebo, drug K reduced the incidence of migraine by 38%.")
    assert role.kind == "role"


REFERRAL = fact("L3", "Hospital A referred 120 patients to Hospital B for cardiac surgery in 2022.",
                {"timeframe": "2022"})


def test_two_agents_of_one_kind_told_apart_only_by_their_names_are_not_one_agent() -> None:
    assert not judge("In 2022, Hospital B referred 120 patients to Hospital A for cardiac surgery. [L3]",
                     REFERRAL).passed
    assert not judge("In 2022, 120 patients were referred by Hospital B to Hospital A for cardiac surgery. [L3]",
                     REFERRAL).passed
    assert judge("In 2022, 120 patients were referred by Hospital A to Hospital B for cardiac surgery. [L3]",
                 REFERRAL).passed


def test_roles_swapped_between_two_subjects_with_modifiers_are_refused() -> None:
    # the words next to the verb ("programme", "district") share nothing: the whole subject phrases decide
    nurses = fact("R9", "Nurses trained by the programme supervised the community health workers in each district.")
    verdict = judge("The community health workers in each district supervised nurses trained by the programme. [R9]",
                    nurses)
    assert codes(verdict) == {NOT_ENTAILED}
    assert "roles swapped" in verdict.rationale
    assert judge("The community health workers in each district were supervised by nurses trained by the "
                 "programme. [R9]", nurses).passed
    assert judge("Nurses trained by the programme supervised community health workers. [R9]", nurses).passed


def test_a_subject_with_a_modifier_is_read_by_its_head_not_by_the_modifier_next_to_the_verb() -> None:
    # "schools" ends both sides' phrases: the heads ("students", "younger pupils") decide who tutored whom
    tutoring = fact("R10", "Students in the intervention schools tutored younger pupils from neighbouring schools "
                           "twice a week.")
    swapped = judge("Younger pupils from neighbouring schools tutored students in the intervention schools twice a "
                    "week. [R10]", tutoring)
    assert codes(swapped) == {NOT_ENTAILED}
    assert "roles swapped" in swapped.rationale
    assert judge("Younger pupils from neighbouring schools were tutored by students in the intervention schools "
                 "twice a week. [R10]", tutoring).passed
    mentoring = fact("R11", "Engineers at the northern plant mentored technicians at the southern plant during the "
                            "transition.")
    assert not judge("Technicians at the southern plant mentored engineers at the northern plant during the "
                     "transition. [R11]",
                     mentoring).passed
    assert judge("During the transition, technicians at the southern plant were mentored by engineers at the "
                 "northern plant. [R11]", mentoring).passed


def test_a_hyphenated_word_opening_the_patient_is_part_of_it_not_a_preposition() -> None:
    # "in-situ", "on-site": the "in"/"on" of a compound does not end the phrase after the verb, so the agent is read
    samples = fact("H1", "The regional water board supplied on-site flow readings from 9 gauges to the university "
                         "hydrology group.")
    replaced = judge("The university hydrology group supplied on-site flow readings from 9 gauges to the regional "
                     "water board. [H1]", samples)
    assert codes(replaced) == {NOT_ENTAILED}
    assert "agent replaced" in replaced.rationale
    assert judge("The regional water board supplied on-site flow readings from 9 gauges to the university hydrology "
                 "group. [H1]", samples).passed


def test_an_adverb_between_the_auxiliary_and_the_participle_keeps_the_passive_and_its_agent() -> None:
    audit = fact("H2", "Each invoice was first checked by the finance office and then approved by the site manager.")
    swapped = judge("Each invoice was first checked by the site manager and then approved by the finance office. [H2]",
                    audit)
    assert codes(swapped) == {NOT_ENTAILED}
    assert "agent replaced" in swapped.rationale
    assert judge("Each invoice was first checked by the finance office and then approved by the site manager. [H2]",
                 audit).passed
    (scored,) = frames("The samples were independently scored by two pathologists.")
    assert scored.predicate == "scored"
    assert "two" in scored.first
    assert "sampl" not in scored.first


def test_a_comparison_with_several_numbers_a_side_is_measured_by_the_values_in_brackets() -> None:
    # "at 40 °C (57%) than ... at 20 °C (21%)": the temperatures name the sides, the bracketed values measure them
    swelling = fact("H3", "After 500 cycles, electrode swelling had reached 57% in cells cycled at 40 °C and 21% in "
                          "cells cycled at 20 °C.", {"units": "% swelling"})
    assert numeric_sides("After 500 cycles, swelling was larger in cells cycled at 40 °C (57%) than in cells cycled at "
                         "20 °C (21%).") == [("larger", Decimal(57), Decimal(21))]
    assert judge("After 500 cycles, electrode swelling was larger in cells cycled at 40 °C (57%) than in cells cycled "
                 "at 20 °C (21%). [H3]", swelling).passed
    assert not judge("After 500 cycles, electrode swelling was larger in cells cycled at 20 °C (21%) than in cells "
                     "cycled at 40 °C (57%). [H3]", swelling).passed
