"""§6.1 qualifier integrity (G-4): no qualifier added, dropped or altered."""

from __future__ import annotations

from omega.grounding.model import QUALIFIER_ADDED, QUALIFIER_DRIFT, QUALIFIER_DROPPED
from omega.grounding.qualifiers import category, qualifier_integrity
from omega.grounding.tokens import analyse
from tests.unit.omega.grounding.support import DIZZY, TRIAL, codes, fact, judge

FULL = ("In a randomised controlled trial, drug A lowered systolic blood pressure by 12 mmHg over 24 weeks in adults "
        "aged 65 or older.")


def test_a_sentence_carrying_every_qualifier_passes() -> None:
    assert qualifier_integrity(analyse(FULL), [TRIAL]) == []


def test_half_the_words_of_a_qualifier_carry_it() -> None:
    sentence = FULL.replace("adults aged 65 or older", "older adults")
    assert qualifier_integrity(analyse(sentence), [TRIAL]) == []


def test_a_units_qualifier_matters_only_beside_a_number() -> None:
    pressure = fact("U", "Drug A lowered systolic blood pressure by 12 mmHg.", {"units": "mmHg"})
    assert qualifier_integrity(analyse("Drug A lowered systolic blood pressure."), [pressure]) == []
    assert [f.code for f in qualifier_integrity(analyse("Drug A lowered it by 12."), [pressure])] == [
        QUALIFIER_DROPPED]


def test_a_qualifier_the_facts_do_not_state_is_added() -> None:
    [failure] = qualifier_integrity(analyse("Dizziness was reported by 8.4% of hospitalised participants."), [DIZZY])
    assert (failure.code, failure.fact_ids) == (QUALIFIER_ADDED, ("F3",))
    assert "setting 'hospitalised'" in failure.reason


def test_a_qualifier_of_a_kind_the_fact_qualifies_otherwise_is_drift() -> None:
    failures = qualifier_integrity(analyse(FULL.replace("adults aged 65 or older", "children")), [TRIAL])
    assert [f.code for f in failures] == [QUALIFIER_DRIFT]
    assert "population altered: 'children'" in failures[0].reason


def test_a_timeframe_changed_is_drift() -> None:
    failures = qualifier_integrity(analyse(FULL.replace("24 weeks", "24 months")), [TRIAL])
    assert [f.code for f in failures] == [QUALIFIER_DRIFT]


def test_a_qualifier_left_out_is_dropped() -> None:
    failures = qualifier_integrity(analyse(FULL.replace(" in adults aged 65 or older", "")), [TRIAL])
    assert [(f.code, f.reason) for f in failures] == [
        (QUALIFIER_DROPPED, "population 'adults aged 65 or older' of F1 is dropped (G-4)")]


def test_any_key_of_the_qualifiers_object_is_a_qualifier_such_as_a_dose() -> None:
    dosed = fact("D", "Drug A 10 mg daily lowered blood pressure.", {"dose": "10 mg daily"})
    assert [f.code for f in qualifier_integrity(analyse("Drug A lowered blood pressure."), [dosed])] == [
        QUALIFIER_DROPPED]


AT_24_WEEKS = fact("T", "Drug A lowered blood pressure by 12 mmHg over 24 weeks in adults.",
                   {"population": "adults", "duration": "24 weeks"})


def test_an_aliased_qualifier_key_names_its_kind_and_drift_names_the_fact_value() -> None:
    sentence = "Drug A lowered blood pressure by 12 mmHg over 24 months in adults."
    assert [(f.code, f.reason, f.fact_ids) for f in qualifier_integrity(analyse(sentence), [AT_24_WEEKS])] == [
        (QUALIFIER_DRIFT, "timeframe altered: 'months' where the cited facts state T: '24 weeks'", ("T",))]


def test_qualifier_keys_are_read_case_blind_through_their_aliases() -> None:
    assert [category(k) for k in ("Duration", "follow_up", "sample", "Study_Design", "site", "dosage", "setting")] \
        == ["timeframe", "timeframe", "population", "method", "setting", "dose", "setting"]


def test_a_units_qualifier_is_carried_by_a_number_in_that_unit_however_it_is_spelled() -> None:
    dose = fact("M", "Drug A was given at 40 mg.", {"units": "milligrams"})
    assert qualifier_integrity(analyse("Drug A was given at 40 mg."), [dose]) == []
    assert [f.reason for f in qualifier_integrity(analyse("Drug A was given at 40 g."), [dose])] == [
        "units 'milligrams' of M is dropped (G-4)"]


def test_a_units_qualifier_outside_the_unit_table_is_carried_by_its_words() -> None:
    rate = fact("B", "Heart rate was 72 beats per minute.", {"units": "beats per minute"})
    assert qualifier_integrity(analyse("Heart rate was 72 beats per minute."), [rate]) == []
    assert [f.code for f in qualifier_integrity(analyse("Heart rate was 72."), [rate])] == [QUALIFIER_DROPPED]


def test_a_units_qualifier_outside_the_unit_table_is_not_dropped_by_a_sentence_without_its_numbers() -> None:
    # "At 6 weeks" is a number of its own unit; the scores (3.1, 4.4) are not stated, so "points" is not dropped
    pain = fact("P", "Mean pain scores at 6 weeks were lower with physiotherapy (3.1) than with surgery (4.4).",
                {"units": "points"})
    assert qualifier_integrity(analyse("At 6 weeks, mean pain scores were higher with surgery than with "
                                       "physiotherapy."), [pain]) == []
    assert [f.code for f in qualifier_integrity(analyse("At 6 weeks, mean pain scores were 3.1 with physiotherapy."),
                                                [pain])] == [QUALIFIER_DROPPED]


def test_a_qualifier_with_no_words_cannot_be_dropped() -> None:
    blank = fact("N", "Drug A lowered blood pressure.", {"setting": "-"})
    assert qualifier_integrity(analyse("Drug A lowered blood pressure."), [blank]) == []


def test_one_word_of_a_three_word_qualifier_does_not_carry_it() -> None:
    rural = fact("R", "Drug A lowered blood pressure in adults in rural hospitals.",
                 {"population": "adults in rural hospitals"})
    assert [(f.code, f.reason) for f in qualifier_integrity(analyse("Drug A lowered blood pressure in adults."),
                                                            [rural])] == [
        (QUALIFIER_DROPPED, "population 'adults in rural hospitals' of R is dropped (G-4)")]
    assert qualifier_integrity(analyse("Drug A lowered blood pressure in adults in hospitals."), [rural]) == []


EFFICACY = fact("E1", "In 8,412 adults aged 60 years or older, vaccine RV-3 showed 71.6% efficacy over one season.",
                {"population": "adults aged 60 years or older", "timeframe": "one season",
                 "method": "phase 3 randomised placebo-controlled trial", "units": "%"})


def test_a_method_qualifier_may_be_left_out_but_not_a_timeframe() -> None:
    assert judge("Over one season, RV-3 showed 71.6% efficacy in adults aged 60 years or older. [E1]",
                 EFFICACY).passed
    assert QUALIFIER_DROPPED in codes(judge("RV-3 showed 71.6% efficacy in adults aged 60 years or older. [E1]",
                                            EFFICACY))


def test_units_are_dropped_only_beside_the_facts_numbers_in_that_unit() -> None:
    assert judge("Over one season, the vaccine was studied in 8,412 adults aged 60 years or older. [E1]",
                 EFFICACY).passed
    dropped = judge("Over one season, RV-3 showed an efficacy of 71.6 in adults aged 60 years or older. [E1]",
                    EFFICACY)
    assert any(f.code == QUALIFIER_DROPPED and "units" in f.reason for f in dropped.failures)


def test_that_year_refers_back_to_the_year_the_sentence_states_and_adds_no_timeframe() -> None:
    peak = fact("E7", "In 2022, caterpillar biomass on oak branches peaked on 12 May.", {"timeframe": "2022"})
    nests = fact("E10", "In 2022, nest-box occupancy by blue tits did not differ between edge and interior sites.",
                 {"timeframe": "2022"})
    assert judge("In 2022, caterpillar biomass on oak branches peaked on 12 May, and nest-box occupancy by blue tits "
                 "did not differ between edge and interior sites that year. [E7][E10]", peak, nests).passed
    following = judge("In 2022, caterpillar biomass on oak branches peaked on 12 May, and in the following year "
                      "nest-box occupancy by blue tits did not differ between edge and interior sites. [E7][E10]",
                      peak, nests)
    assert QUALIFIER_DRIFT in codes(following)
    unstated = judge("Caterpillar biomass on oak branches peaked on 12 May, and nest-box occupancy by blue tits did "
                     "not differ between edge and interior sites that year. [E7][E10]", peak, nests)
    assert QUALIFIER_DROPPED in codes(unstated)


def test_the_same_period_refers_back_to_the_years_the_sentence_states() -> None:
    wages = fact("W1", "Median weekly earnings in Eastdale rose by 3.8% between 2022 and 2023.",
                 {"setting": "Eastdale", "timeframe": "2022 to 2023"})
    prices = fact("W2", "Consumer prices in Eastdale rose by 5.2% between 2022 and 2023.",
                  {"setting": "Eastdale", "timeframe": "2022 to 2023"})
    assert judge("Median weekly earnings in Eastdale rose by 3.8% between 2022 and 2023, and consumer prices in "
                 "Eastdale rose by 5.2% over the same period. [W1][W2]", wages, prices).passed
    # without a time of its own in the sentence, "the same period" refers to nothing the facts state
    assert not judge("Consumer prices in Eastdale rose by 5.2% over the same period. [W2]", prices).passed


def test_daily_is_the_per_day_of_the_facts_unit() -> None:
    steps = fact("D1", "Participants walked a mean of 6,200 steps per day at 12 months.",
                 {"timeframe": "12 months", "units": "steps per day"})
    assert judge("At 12 months, participants' mean daily step count was 6,200 steps. [D1]", steps).passed


def test_the_trial_names_the_study_back_and_a_trial_claims_a_design() -> None:
    dose = fact("M1", "Participants received a single 120-microgram intramuscular dose of RV-3 or placebo.",
                {"method": "intramuscular injection"})
    assert judge("Participants in the trial received a single 120-microgram intramuscular dose of RV-3 or "
                 "placebo. [M1]", dose).passed
    verdict = judge("Participants in a randomised trial received a single 120-microgram intramuscular dose of RV-3 "
                    "or placebo. [M1]", dose)
    assert QUALIFIER_DRIFT in codes(verdict)


def test_an_altered_population_names_every_word_of_it_and_the_fact_s_own() -> None:
    # §7.1: the writer reads which words drifted from which stated qualifier, each quoted (sorted by normal form)
    verdict = judge("Over 24 weeks, drug A lowered systolic blood pressure by 12 mmHg in women and children. [F1]",
                    TRIAL)
    [failure] = verdict.failures
    assert failure.reason == ("population altered: 'children', 'women' where the cited facts state F1: 'adults aged "
                              "65 or older'")
    assert failure.required_evidence == "a cited fact whose population is 'children', 'women'"


def test_a_method_that_tells_two_cited_values_apart_cannot_be_left_out() -> None:
    # the method is provenance, but here it is all that tells 9.5 hours from the other cited fact's 7.8 hours
    maker = fact("T1", "Median battery life was 9.5 hours in the manufacturer's test.",
                 {"method": "manufacturer's test", "units": "hours"})
    independent = fact("T2", "Median battery life was 7.8 hours in the independent test.",
                       {"method": "independent test", "units": "hours"})
    verdict = judge("Median battery life was 9.5 hours. [T1][T2]", maker, independent)
    assert QUALIFIER_DROPPED in codes(verdict)
    assert "method 'manufacturer's test' of T1 is dropped" in verdict.rationale
    assert judge("Median battery life was 9.5 hours in the manufacturer's test. [T1]", maker).passed
    assert judge("Median battery life was 9.5 hours. [T1]", maker).passed  # alone, the method may be left out


def test_two_values_by_one_method_are_a_conflict_not_a_dropped_method() -> None:
    first = fact("T3", "Median battery life was 9.5 hours in the manufacturer's test.",
                 {"method": "manufacturer's test", "units": "hours"})
    second = fact("T4", "Median battery life was 7.8 hours in the manufacturer's test.",
                  {"method": "manufacturer's test", "units": "hours"})
    assert QUALIFIER_DROPPED not in codes(judge("Median battery life was 9.5 hours. [T3][T4]", first, second))


def test_a_statistic_in_parts_is_carried_by_the_part_that_names_the_stated_numbers() -> None:
    speeds = fact("Q40", "At 12 weeks, mean gait speed was 0.84 m/s in the training arm and 0.71 m/s in the usual-care "
                         "arm (adjusted mean difference 0.12 m/s, 95% CI 0.05 to 0.19).",
                  {"timeframe": "12 weeks", "statistic": "arm means; adjusted mean difference with 95% CI",
                   "units": "m/s"})
    assert judge("Mean gait speed at 12 weeks was slower in the usual-care arm than in the training arm (0.71 versus "
                 "0.84 m/s). [Q40]", speeds).passed
    # a timeframe in parts holds whole
    survey = fact("Q41", "In the 2023 survey, 19% of respondents reported loneliness in the previous four weeks.",
                  {"timeframe": "previous four weeks; 2023 survey", "units": "%"})
    assert QUALIFIER_DROPPED in codes(judge("In the 2023 survey, 19% of respondents reported loneliness. [Q41]",
                                            survey))


def test_a_population_word_is_not_restated_through_a_synonym_of_its_synonym() -> None:
    # WordNet relates "adult" to "grown", which the synonym table reads as "increased": two steps, not a restatement
    whiting = fact("Q42", "Total survey biomass of whiting in the Irish Sea increased from 21,300 tonnes in 2015 to "
                          "30,100 tonnes in 2022.", {"population": "whiting", "units": "tonnes"})
    added = judge("Total survey biomass of adult whiting in the Irish Sea increased from 21,300 tonnes in 2015 to "
                  "30,100 tonnes in 2022. [Q42]", whiting)
    assert codes(added) == {QUALIFIER_DRIFT}
    assert "'adult'" in added.rationale


def test_a_timeframe_s_period_named_without_its_number_is_not_carried() -> None:
    outages = fact("Q43", "In the 2021 survey, 25% of rural households reported a power outage in the preceding 12 "
                          "months.", {"timeframe": "12 months preceding the 2021 survey", "units": "%"})
    assert QUALIFIER_DROPPED in codes(judge("In the 2021 survey, 25% of rural households reported a power outage in "
                                            "the preceding month. [Q43]", outages))
    assert judge("In the 2021 survey, a quarter of rural households reported a power outage in the preceding 12 "
                 "months. [Q43]", outages).passed


def test_each_part_of_a_population_in_parts_must_be_carried() -> None:
    # "urban" and "rural" carry half the words, but the means are of grid-connected households only (G-4)
    energy = fact("Q44", "In the 2021 survey, mean monthly electricity consumption among grid-connected households was "
                         "212 kWh in urban areas and 118 kWh in rural areas.",
                  {"population": "grid-connected households, urban and rural", "units": "kWh per month"})
    dropped = judge("In the 2021 survey, mean monthly electricity consumption was 212 kWh among urban households and "
                    "118 kWh among rural households. [Q44]", energy)
    assert QUALIFIER_DROPPED in codes(dropped)
    assert judge("In the 2021 survey, mean monthly electricity consumption of grid-connected households was 212 kWh in "
                 "urban areas and 118 kWh in rural areas. [Q44]", energy).passed


def test_a_population_is_carried_without_its_other_name_or_breakdown_in_brackets() -> None:
    whiting = fact("Q45", "In 2022, mean survey CPUE of whiting was 42.7 kg per tow in the Irish Sea and 27.5 kg per "
                          "tow in the Celtic Sea.",
                   {"population": "whiting (Merlangius merlangus)", "units": "kg per tow"})
    assert judge("Mean 2022 survey CPUE of whiting was lower in the Celtic Sea (27.5 kg per tow) than in the Irish Sea "
                 "(42.7 kg per tow). [Q45]", whiting).passed
    sample = fact("Q46", "The survey interviewed 4,800 households in Valdoria Province between March and June 2021.",
                  {"population": "households in Valdoria Province (2,900 urban, 1,900 rural)"})
    assert judge("Between March and June 2021, the survey interviewed 4,800 households in Valdoria Province. [Q46]",
                 sample).passed


def test_a_test_condition_that_tells_two_allowed_facts_values_apart_may_not_be_left_out() -> None:
    # the method is provenance, but "maximum stress level 0.75" is the condition that gives 186,000 rather than
    # the allowed fact's 12,400 at 0.85 (G-5): the sentence must keep it
    low = fact("Q47", "At 20 °C and 5 Hz with a maximum stress level of 0.75, median cycles to failure were 186,000 "
                      "for SFRC and 54,000 for PC.", {"method": "cyclic compression, 5 Hz, maximum stress level 0.75",
                                                   "units": "cycles to failure"})
    high = fact("Q48", "At 20 °C and 5 Hz with a maximum stress level of 0.85, median cycles to failure were 12,400 "
                       "for SFRC and 3,100 for PC.", {"method": "cyclic compression, 5 Hz, maximum stress level 0.85",
                                                  "units": "cycles to failure"})
    dropped = judge("At 20 °C and 5 Hz, median cycles to failure were 186,000 for SFRC and 54,000 for PC. [Q47]",
                    low, high)
    assert codes(dropped) == {QUALIFIER_DROPPED}
    assert "maximum stress level 0.75" in dropped.rationale
    assert judge("At 20 °C and 5 Hz with a maximum stress level of 0.75, median cycles to failure were 186,000 for "
                 "SFRC and 54,000 for PC. [Q47]", low, high).passed


def test_a_restricting_word_of_a_qualifier_is_kept_whatever_else_is() -> None:
    # "daytime" and "2015-2022" carry half the timeframe's words; the season is what the means are of (G-4)
    heat = fact("Q49", "Over 2015-2022, mean summer (June-August) daytime land surface temperature in the urban core "
                       "was 44.7 °C in Seville and 31.5 °C in Rotterdam.",
                {"timeframe": "summer (June-August) daytime, 2015-2022", "units": "°C"})
    dropped = judge("Over 2015-2022, mean daytime land surface temperature in the urban core was 44.7 °C in Seville "
                    "and 31.5 °C in Rotterdam. [Q49]", heat)
    assert codes(dropped) == {QUALIFIER_DROPPED}
    assert judge("Over 2015-2022, mean daytime land surface temperature from June to August in the urban core was "
                 "44.7 °C in Seville and 31.5 °C in Rotterdam. [Q49]", heat).passed
    ratio = fact("Q50", "The post-intervention period was associated with a lower infection incidence (adjusted "
                        "incidence rate ratio 0.71).", {"statistic": "adjusted incidence rate ratio"})
    assert QUALIFIER_DROPPED in codes(judge("The post-intervention period was associated with a lower infection "
                                            "incidence (incidence rate ratio 0.71). [Q50]", ratio))
    assert judge("After adjustment, the post-intervention period was associated with a lower infection incidence "
                 "(incidence rate ratio 0.71). [Q50]", ratio).passed


def test_a_restricting_word_written_with_a_capital_is_kept_by_the_same_word() -> None:
    # a site named "Spring B" carries its name: the capital is no other word
    sensor = fact("Q51", "At Spring B, sensor-measured nitrate fell by a median of 31% within 24 hours of peak "
                         "discharge.", {"setting": "Spring B"})
    assert judge("At Spring B, sensor-measured nitrate fell by a median of 31% within 24 hours of peak discharge. "
                 "[Q51]", sensor).passed
    assert QUALIFIER_DROPPED in codes(judge("Sensor-measured nitrate fell by a median of 31% within 24 hours of peak "
                                            "discharge. [Q51]", sensor))


def test_a_condition_in_another_unit_than_the_measure_does_not_make_a_method_tell_values_apart() -> None:
    # the % is the measure (`units`); the allowed fact's "10 °C" is a condition, not another value of it, so the
    # pulse method stays provenance and may be left out
    resistance = fact("Q60", "Resistance rose by 62% in cells cycled at 45 °C and by 24% in cells cycled at 25 °C.",
                      {"method": "10 s pulse at 50% state of charge", "units": "%"})
    plating = fact("Q61", "Lithium plating was found in cells cycled at 10 °C.", {"method": "teardown analysis"})
    assert judge("Resistance rose by 62% in cells cycled at 45 °C and by 24% in cells cycled at 25 °C. [Q60]",
                 resistance, plating).passed


def test_a_value_of_a_pool_given_to_one_member_the_qualifier_lists_is_refused() -> None:
    # the fact gives one coefficient for the two ports together; Antwerp alone has none of its own (§5.2 drift),
    # though the sentence carries most of the setting's words
    pooled = fact("Q62", "Across container berths pooled from the two ports, dwell time was correlated with crane "
                         "count (r = 0.52).", {"setting": "container berths pooled from Antwerp and Hamburg"})
    assert codes(judge("Across pooled container berths in Antwerp, dwell time was correlated with crane count "
                       "(r = 0.52). [Q62]", pooled)) == {QUALIFIER_DROPPED}
    assert judge("Across container berths pooled from Antwerp and Hamburg, dwell time was correlated with crane "
                 "count (r = 0.52). [Q62]", pooled).passed
    # a member the fact's statement gives a value of its own may be named alone
    each = fact("Q63", "Dwell time was 31 hours in Antwerp and 27 hours in Hamburg.",
                {"setting": "container berths in Antwerp and Hamburg"})
    assert judge("At container berths in Antwerp, dwell time was 31 hours. [Q63]", each).passed


def test_another_measure_in_the_same_unit_does_not_make_a_method_tell_values_apart() -> None:
    # the allowed fact's 64% is a response rate, not another share of car commuters: the definition stays
    # provenance and may be left out
    share = fact("Q64", "Cars were the main commuting mode of 58% of respondents.",
                 {"method": "main mode = mode used for the longest distance", "units": "% of respondents"})
    response = fact("Q65", "The survey's response rate was 64%.", {"method": "telephone and online interviews"})
    assert judge("Cars were the main commuting mode of 58% of respondents. [Q64]", share, response).passed


def test_an_adjustment_in_a_method_is_kept_whatever_else_of_it_is_left_out() -> None:
    # "adjusted for household size" is what the 47% is: dropped, the estimate reads as a crude one (G-4)
    adjusted = fact("Q66", "Owning an electric heater was associated with 47% higher electricity use after adjustment "
                           "for household size.", {"method": "cross-sectional regression adjusted for household size"})
    assert codes(judge("Owning an electric heater was associated with 47% higher electricity use. [Q66]",
                       adjusted)) == {QUALIFIER_DROPPED}
    assert judge("After adjustment for household size, owning an electric heater was associated with 47% higher "
                 "electricity use. [Q66]", adjusted).passed
    # a method in parts names different numbers: the arm means are not the adjusted difference's
    parts = fact("Q67", "The score fell by 5.1 points in the home group and 3.9 points in the ward group; the adjusted "
                        "difference was 1.2 points.", {"method": "symptom score; adjusted analysis"})
    assert judge("The score fell by 5.1 points in the home group and 3.9 points in the ward group. [Q67]",
                 parts).passed
