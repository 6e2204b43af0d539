"""Values moved between a fact's clauses (issue 42, §5.2 "Numerical modification"): a value stated with the name
or the direction another clause of its fact gives its own value. Facts and sentences written by hand."""

from __future__ import annotations

from omega.grounding.clause_values import moved_between_clauses
from omega.grounding.model import NOT_ENTAILED
from tests.unit.omega.grounding.support import codes, fact, judge

EMISSIONS = fact("K1", "Emissions fell by 12% between 2010 and 2020 in the EU, while they rose by 5% in the US.")


def test_a_value_stated_with_the_name_of_the_other_clause_is_moved() -> None:
    moved = judge("In the US, emissions fell by 12% between 2010 and 2020. [K1]", EMISSIONS)
    assert moved.failures[0].reason.startswith("value moved to another group: 12 is stated for 'us'")
    assert judge("In the EU, emissions fell by 12% between 2010 and 2020. [K1]", EMISSIONS).passed


def test_a_value_given_the_direction_of_the_other_clause_is_moved() -> None:
    # the verdict binds "rose" to the US clause first; the clause reading says the same of the value itself
    assert not judge("Emissions rose by 12% between 2010 and 2020 in the EU. [K1]", EMISSIONS).passed
    [moved] = moved_between_clauses("Emissions rose by 12% between 2010 and 2020 in the EU.", [EMISSIONS])
    assert moved.reason.startswith("value moved to another group: 12 goes down in K1")


def test_a_count_of_a_bracketed_breakdown_given_to_its_other_word_is_refused() -> None:
    sample = fact("M9", "The survey interviewed 4,800 households in the province (2,900 urban and 1,900 rural) between "
                        "March and June 2021.")
    swapped = judge("The survey interviewed 4,800 households in the province (2,900 rural and 1,900 urban) between "
                    "March and June 2021. [M9]", sample)
    assert codes(swapped) == {NOT_ENTAILED}
    assert "2,900 is stated for 'rural', but M9 gives 2,900 for 'urban'" in swapped.rationale
    assert judge("Between March and June 2021, the survey interviewed 4,800 households in the province, 1,900 rural "
                 "and 2,900 urban. [M9]", sample).passed


def test_two_values_of_a_list_exchanged_are_refused_with_or_without_units() -> None:
    fleet = fact("M10", "Of the 308 turbines, 164 were fitted with Norvik GX-3 gearboxes and 144 with Teramec T500 "
                        "gearboxes.")
    exchanged = judge("Of the 308 turbines, 144 were fitted with Norvik GX-3 gearboxes and 164 with Teramec T500 "
                      "gearboxes. [M10]", fleet)
    assert codes(exchanged) == {NOT_ENTAILED}
    assert "values exchanged: the sentence gives 144 for" in exchanged.rationale
    assert judge("Of the 308 turbines, 144 had Teramec T500 gearboxes and 164 had Norvik GX-3 gearboxes. [M10]",
                 fleet).passed
    wards = fact("M11", "Carbapenem consumption was 61 DDD per 1,000 patient-days on the intensive care ward, 18 on "
                        "the medical ward and 12 on the surgical ward.")
    assert not judge("Carbapenem consumption was 61 DDD per 1,000 patient-days on the intensive care ward, 12 on the "
                     "medical ward and 18 on the surgical ward. [M11]", wards).passed
