"""Issue 46 (fault 3's class): each subset / overlap / equality and any / all choice in the grounding's frames,
qualifiers, binding and conflicts, pinned by a hand-written fact and sentence whose verdict follows from the
contract (spec/seeds/grounded-generation-contract.md, §-numbers as cited) or the module's docstring. Each test names the
line it pins; docs/mutation.md lists the flip each one kills."""

from __future__ import annotations

from omega.grounding.conflicts import conflict
from omega.grounding.model import CONFLICTING_FACTS, NOT_ENTAILED, QUALIFIER_ADDED
from tests.unit.omega.grounding.support import codes, fact, judge

# frames.py: roles and comparisons (issue 42, item 1)

COATING = fact("J1", "In coastal tests, the zinc coating reduced corrosion by 30% relative to bare steel.")
ZINC = fact("J2", "The zinc coating reduced corrosion of the steel by 30% relative to uncoated steel.")


def test_an_agent_made_of_the_baseline_and_a_word_stated_elsewhere_is_still_a_role_swap() -> None:
    # frames.py `_agrees`: the agent shares words with the fact's baseline (overlap), not only when it is all baseline
    assert not judge("Bare coastal steel reduced corrosion by 30% relative to the zinc coating in coastal tests. [J1]",
                     COATING).passed
    assert judge("In coastal tests, the zinc coating reduced corrosion by 30% relative to bare steel. [J1]",
                 COATING).passed


def test_an_agent_sharing_a_word_with_the_baseline_but_naming_the_facts_agent_is_no_swap() -> None:
    # frames.py `_agrees`: the swap needs an agent sharing nothing with the fact's agent, not one merely outside it
    assert judge("The steel's zinc coating reduced corrosion by 30% relative to uncoated steel. [J2]", ZINC).passed
    assert not judge("Uncoated steel reduced corrosion of the steel by 30% relative to the zinc coating. [J2]",
                     ZINC).passed


def test_sides_that_trade_their_modifiers_are_a_reversed_comparison_not_an_elided_one() -> None:
    # frames.py `_elided`: the moved words must all come from one side of the fact (subset), not from both
    plots = fact("Y1", "Wheat yields were higher in the northern irrigated plots than in the southern dry plots.")
    verdict = judge("Wheat yields were higher in the northern dry plots than in the southern irrigated plots. [Y1]",
                    plots)
    assert codes(verdict) == {NOT_ENTAILED}
    assert verdict.failures[0].reason.startswith("comparison reversed")


def test_a_modifier_carrying_a_value_moved_to_the_other_side_is_refused() -> None:
    # frames.py `_elided`: "A number never moves this way" holds when any moved word is a number, not only all
    dose = fact("D1", "Mortality was lower in the high-dose arm receiving 40 mg daily than in the placebo arm.")
    verdict = judge("Mortality was lower in the high-dose arm than in the placebo arm receiving 40 mg daily. [D1]",
                    dose)
    assert not verdict.passed
    assert verdict.failures[0].reason.startswith("comparison reversed")
    assert judge("Mortality was higher in the placebo arm than in the high-dose arm receiving 40 mg daily. [D1]",
                 dose).passed


def test_an_antonym_comparative_with_more_than_one_lemma_still_swaps_the_sides() -> None:
    # frames.py `_relation`: any lemma of the word among the antonyms makes it the opposite ("earlier": early, earlier)
    onset = fact("E1", "Symptom onset was later in the placebo group than in the treatment group.")
    roots = fact("E2", "Root systems were deeper in the irrigated plots than in the dry plots.")
    assert judge("Symptom onset was earlier in the treatment group than in the placebo group. [E1]", onset).passed
    assert judge("Root systems were shallower in the dry plots than in the irrigated plots. [E2]", roots).passed
    assert not judge("Symptom onset was earlier in the placebo group than in the treatment group. [E1]", onset).passed


def test_not_higher_reads_as_the_other_side_of_the_scale_like_did_not_exceed() -> None:
    # frames.py `_forms`: "not higher" is the side "higher" is not on, though "higher" itself is no member of a side
    mortality = fact("N1", "Mortality was lower in the treatment arm than in the placebo arm.")
    assert judge("Mortality was not higher in the treatment arm than in the placebo arm. [N1]", mortality).passed
    assert judge("Mortality in the treatment arm did not exceed mortality in the placebo arm. [N1]", mortality).passed
    assert not judge("Mortality was not higher in the placebo arm than in the treatment arm. [N1]", mortality).passed


def test_a_bare_second_side_sharing_a_word_with_the_phrase_after_the_comparative_makes_that_phrase_the_first() -> None:
    # frames.py `_bare_side`: the phrase is the first side when it shares any word with the second, not all of them,
    # even when the subject shares one too ("Soil nitrate in the plots")
    nitrate = fact("P1", "Soil nitrate was 12.4 mg/L in the northern plots and 7.1 mg/L in the southern plots.")
    assert judge("Soil nitrate in the plots was higher in the northern plots than the southern plots. [P1]",
                 nitrate).passed
    assert not judge("Soil nitrate in the plots was lower in the northern plots than the southern plots. [P1]",
                     nitrate).passed


# qualifiers.py: qualifier integrity (G-4)


def test_a_method_noun_used_once_as_the_trial_and_once_as_a_trial_claims_a_design() -> None:
    # qualifiers.py `_the_study`: the noun names the study back only when every use is "the/this trial"
    pressure = fact("F1", "Drug A lowered systolic blood pressure by 12 mmHg in 412 adults.")
    assert judge("In the trial, drug A lowered systolic blood pressure by 12 mmHg in 412 adults. [F1]",
                 pressure).passed
    verdict = judge("In the trial, drug A lowered systolic blood pressure by 12 mmHg in 412 adults, a trial. [F1]",
                    pressure)
    assert codes(verdict) == {QUALIFIER_ADDED}


def test_a_units_qualifier_outside_the_unit_table_is_dropped_by_a_bare_number() -> None:
    # qualifiers.py `_carried`: "points" is no unit of the table, so no quantity of the sentence is in it (any of
    # none is false) and the words must be there
    scores = fact("S", "Mean pain scores improved by 4 points.", {"units": "points"})
    assert judge("Mean pain scores improved by 4 points. [S]", scores).passed
    assert [f.reason for f in judge("Mean pain scores improved by 4. [S]", scores).failures] == [
        "units 'points' of S is dropped (G-4)"]


# binding.py: clause-local binding (issue 19, rule 1)


def test_a_binding_failure_names_only_what_the_best_clause_does_not_state() -> None:
    # binding.py `clause_local_binding`: a number is apart when no number of the best clause is it (any), so the
    # reason (§7.1 "why the sentence failed") does not name the year and count the clause does state
    studio = fact("B1", "Vera Lind opened her first studio in 1972 with 3 assistants; she opened a gallery in 1980.")
    [failure] = judge("Vera Lind opened a gallery in 1972 with 3 assistants. [B1]", studio).failures
    assert failure.reason == ("bound to another relation: 'gallery' stated by the cited facts, but not in the clause "
                              "that states 'assistants', 'opened'")


def test_a_demonym_is_lent_only_to_a_clause_stating_its_whole_country() -> None:
    # binding.py `_Option`: "American" is stated by a clause holding all of "United States" (subset), not by the
    # clause that says "United Kingdom" (overlap on "united")
    berg = fact("A1", "Anna Berg filmed Harbour Lights in the United Kingdom; she later filmed Winter Port in the "
                      "United States.")
    assert judge("Anna Berg filmed the American film Winter Port. [A1]", berg).passed
    verdict = judge("Anna Berg filmed the American film Harbour Lights. [A1]", berg)
    assert codes(verdict) == {NOT_ENTAILED}
    assert verdict.failures[0].reason.startswith("bound to another relation: 'american'")


# conflicts.py: §9 conflict policy


def test_two_named_versions_of_one_year_are_two_things_not_a_conflict() -> None:
    # conflicts.py `conflict`: facts whose naming numbers differ at all ({2023, 5.0} / {2023, 4.8}) are two things,
    # not only facts whose naming numbers share nothing
    new = fact("A", "In 2023, Orrery 5.0 sustained 1,200 requests per second under the batch workload.")
    old = fact("B", "In 2023, Orrery 4.8 sustained 900 requests per second under the batch workload.")
    assert conflict(new, old) is None
    assert judge("In 2023, Orrery 5.0 sustained 1,200 requests per second under the batch workload. [A]",
                 new, old).passed


def test_a_fact_adding_its_baseline_value_does_not_conflict_with_one_stating_only_the_change() -> None:
    # conflicts.py `conflict`: "the same units" is the same list of units, not units in common
    with_baseline = fact("A", "Drug A lowered systolic blood pressure by 12 mmHg from 148 mmHg.")
    change = fact("B", "Drug A lowered systolic blood pressure by 12 mmHg.")
    assert conflict(with_baseline, change) is None
    assert judge("Drug A lowered systolic blood pressure by 12 mmHg from 148 mmHg. [A][B]",
                 with_baseline, change).passed


def test_different_numbers_conflict_whichever_fact_holds_the_repeated_value() -> None:
    # conflicts.py `conflict`: the numbers differ as lists ([12, 12] / [8, 12]), not only when one fact has a value
    # the other lacks, so the check does not depend on which fact comes first
    same = fact("A", "Drug A lowered systolic blood pressure by 12 mmHg and diastolic blood pressure by 12 mmHg.")
    other = fact("B", "Drug A lowered systolic blood pressure by 12 mmHg and diastolic blood pressure by 8 mmHg.")
    assert conflict(same, other) == conflict(other, same) == "they report different numbers for the same measure"
    verdict = judge("Drug A lowered systolic blood pressure by 12 mmHg and diastolic blood pressure by 12 mmHg. [A]",
                    same, other)
    assert codes(verdict) == {CONFLICTING_FACTS}


def test_stating_one_of_a_facts_own_values_adopts_it_against_a_conflicting_allowed_fact() -> None:
    # conflicts.py `_adopts`: any of the cited fact's own values stated adopts it (G-5), not only all of them
    cited = fact("A", "Drug A lowered systolic blood pressure by 12 mmHg and diastolic blood pressure by 6 mmHg.")
    allowed = fact("B", "Drug A lowered systolic blood pressure by 10 mmHg and diastolic blood pressure by 4 mmHg.")
    verdict = judge("Drug A lowered systolic blood pressure by 12 mmHg. [A]", cited, allowed)
    assert codes(verdict) == {CONFLICTING_FACTS}
    assert verdict.failures[0].fact_ids == ("A", "B")


# names.py: names in another form (issue 19, rule 5)


def test_a_partial_name_stands_for_the_full_name_when_the_only_other_bearer_is_that_name_itself() -> None:
    # names.py `name_partners`: the partial name is a name strictly inside the sentence's (proper subset); the same
    # full name elsewhere in the facts is no rival and no partner
    film = fact("H1", "The 1942 film Casablanca starred Bogart; Ingrid Bergman and Humphrey Bogart later met in New "
                      "York.")
    assert judge("The 1942 film Casablanca starred Humphrey Bogart. [H1]", film).passed
    assert not judge("The 1942 film Casablanca starred Ingrid Bergman. [H1]", film).passed


def test_a_demonym_is_not_stated_by_a_country_sharing_one_word_with_its_own() -> None:
    # names.py `stated_by_name`: "American" is stated when all of "United States" is (subset), not by "United Kingdom"
    berg = fact("K1", "Anna Berg is a film director from the United Kingdom.")
    assert judge("Anna Berg is a British film director. [K1]", berg).passed
    verdict = judge("Anna Berg is an American film director. [K1]", berg)
    assert [f.reason for f in verdict.failures] == ["claim tokens not stated by the cited facts: 'american'"]


# explain.py: failure reasons a writer can act on (§7.1)


def test_unstated_words_spread_over_two_clauses_still_name_the_first_clause_holding_one() -> None:
    # explain.py `_clause_of`: the clause named is the first holding any unstated word, not one holding all of them
    sites = fact("S1", "The trial enrolled adults at 214 sites in 17 countries.",
                 {"population": "adults aged 60 or older", "timeframe": "2021 to 2023"})
    verdict = judge("The trial enrolled adults at 214 remote sites, which were chosen by lottery. [S1]", sites)
    [failure] = [f for f in verdict.failures if f.code == NOT_ENTAILED]
    assert failure.reason.endswith("(in the clause \"The trial enrolled adults at 214 remote sites\")")
