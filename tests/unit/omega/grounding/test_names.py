"""Names stated in another form (issue 19, rule 5): partial names without a rival, demonyms."""

from __future__ import annotations

from tests.unit.omega.grounding.support import codes, fact, judge


def test_a_surname_in_the_fact_covers_the_full_name_when_no_one_else_bears_it() -> None:
    alone = fact("N1", "Okafor scored the winning goal in the 2019 final.")
    assert judge("Chidi Okafor scored the winning goal in the 2019 final. [N1]", alone).passed


def test_another_bearer_of_the_name_in_the_facts_leaves_the_given_name_unstated() -> None:
    rivals = fact("N2", "Okafor scored the winning goal in the 2019 final; Ada Okafor coached the team.")
    verdict = judge("Chidi Okafor scored the winning goal in the 2019 final. [N2]", rivals)
    assert codes(verdict) == {"NOT_ENTAILED"}
    assert "'chidi'" in verdict.failures[0].reason


def test_a_title_subset_covers_the_full_title() -> None:
    assert judge("Yale University has graduated five presidents. [N3]",
                 fact("N3", "Yale has graduated five presidents.")).passed


def test_an_attributive_demonym_states_its_country_and_the_country_its_demonym() -> None:
    cellist = fact("N4", "Ilse Varga is a Hungarian cellist.")
    assert judge("Ilse Varga is a cellist from Hungary. [N4]", cellist).passed
    assert not judge("Ilse Varga is a cellist from Austria. [N4]", cellist).passed
    assert judge("Ilse Varga is an Irish cellist. [N5]", fact("N5", "Ilse Varga is a cellist from Ireland.")).passed


def test_a_demonym_naming_a_language_does_not_state_the_country() -> None:
    school = fact("N6", "The school (known in Chinese as Beida) is located in Thailand.")
    assert not judge("The school is in China. [N6]", school).passed


def test_a_short_given_name_is_the_full_one_when_the_last_name_is_the_same() -> None:
    kyle = fact("K", "Christopher Scott Kyle served in the navy.")
    assert judge("Chris Kyle served in the navy. [K]", kyle).passed
    assert judge("Chris Berg directed the film. [B]", fact("B", "Anna Christina Berg directed the film.")).passed


def test_a_short_given_name_is_not_resolved_when_two_names_share_the_last_name() -> None:
    kyle = fact("K", "Christopher Scott Kyle served in the navy.")
    other = fact("K2", "Christopher Lee Kyle served in the army.")
    verdict = judge("Chris Kyle served in the navy. [K][K2]", kyle, other)
    assert [(f.code, f.reason) for f in verdict.failures] == [
        ("NOT_ENTAILED", "claim tokens not stated by the cited facts: 'chris'")]


def test_every_short_given_name_of_a_longer_name_is_resolved() -> None:
    smith = fact("S", "Alexander Benjamin Smith won the race.")
    assert judge("Alex Ben Smith won the race. [S]", smith).passed


def test_an_acronym_in_capitals_is_the_words_in_a_row_whose_initials_it_spells() -> None:
    infections = fact("A1", "In the post-intervention period, the adjusted incidence rate ratio of hospital-onset "
                            "infection was 0.71.")
    assert judge("In the post-intervention period, the adjusted IRR of hospital-onset infection was 0.71. [A1]",
                 infections).passed
    # letters that spell no run of the fact's words stay unstated
    assert codes(judge("In the post-intervention period, the adjusted HR of hospital-onset infection was 0.71. [A1]",
                       infections)) == {"NOT_ENTAILED"}


def test_a_genus_shortened_to_its_initial_is_the_genus_before_the_same_species_word() -> None:
    isolates = fact("A2", "Escherichia coli isolates resistant to ciprofloxacin fell to 19.2% in 2020.")
    assert judge("E. coli isolates resistant to ciprofloxacin fell to 19.2% in 2020. [A2]", isolates).passed
    assert codes(judge("K. coli isolates resistant to ciprofloxacin fell to 19.2% in 2020. [A2]", isolates)) \
        == {"NOT_ENTAILED"}


def test_words_in_a_row_whose_initials_spell_a_facts_acronym_are_stated_by_it() -> None:
    shape = fact("A3", "The Weibull shape parameter was 1.8 (95% CI 1.5 to 2.1).")
    assert judge("The Weibull shape parameter was 1.8, with a 95% confidence interval of 1.5 to 2.1. [A3]",
                 shape).passed
    # words that spell no acronym of the facts stay unstated
    assert codes(judge("The Weibull shape parameter was 1.8, with a 95% credible range of 1.5 to 2.1. [A3]",
                       shape)) == {"NOT_ENTAILED"}
