"""Text as words (issue 19, rules 1 and 4): tokenisation of names and abbreviations, and where clauses begin."""

from __future__ import annotations

from omega.grounding.tokens import analyse
from omega.grounding.words import clauses, life_dates, names, nominals, plain, set_aside, words
from tests.unit.omega.grounding.support import fact, judge


def _surfaces(text: str) -> list[str]:
    return [w.surface for w in words(plain(text))]


def test_non_ascii_names_stay_one_word_and_accents_fold() -> None:
    assert _surfaces("Noël Coward met Zoë in Kraków") == ["Noel", "Coward", "met", "Zoe", "in", "Krakow"]


def test_the_possessive_is_a_clitic_in_both_spellings() -> None:
    assert _surfaces("Bogart's film") == _surfaces("Bogart 's film") == ["Bogart", "film"]


def test_apostrophe_names_and_dotted_abbreviations_stay_whole() -> None:
    assert _surfaces("O'Neal joined Leeds F.C.") == ["O'Neal", "joined", "Leeds", "F.C."]
    assert _surfaces("born in the U.S.") == ["born", "in", "the", "United", "States"]


def test_treebank_escapes_read_as_brackets() -> None:
    assert plain("Prism -LRB- 2013 -RRB-") == "Prism ( 2013 )"


def test_an_ordinal_suffix_is_not_a_word() -> None:
    assert _surfaces("on November 22nd") == ["on", "November"]


def test_a_comma_before_a_new_predicate_cuts_an_enumeration_does_not() -> None:
    assert clauses("X is a film directed by P, written by Q, and produced by R.") == [
        "X is a film directed by P, ", "written by Q, ", "and produced by R."]
    assert clauses("She is a singer, songwriter, and actor.") == ["She is a singer, songwriter, and actor."]


def test_but_semicolons_and_relative_words_after_a_comma_cut() -> None:
    assert len(clauses("He won the race but lost the title; later he retired.")) == 3
    assert len(clauses("Ibsen attended the premiere, which took place in Munich.")) == 2


def test_a_claim_is_also_cut_before_a_participle_after_a_noun() -> None:
    assert clauses("Smith is a cricketer born in July.", claim=True) == ["Smith is a cricketer ", "born in July."]
    assert clauses("Smith is a cricketer born in July.") == ["Smith is a cricketer born in July."]


def test_a_bracket_after_the_subject_is_set_aside_a_later_one_stays_in_its_clause() -> None:
    assert set_aside("Vick (born 1980) graduated from Prism (2013) college") == (
        "Vick  graduated from Prism  2013  college", ["born 1980"])


def test_a_date_range_after_a_name_reads_as_birth_and_death() -> None:
    assert life_dates("April 14, 1866 \u2013 October 20, 1936") == ["born April 14, 1866", "died October 20, 1936"]
    assert life_dates("born 12 June 1875 \u2013 1 December 1947") == ["born 12 June 1875", "died 1 December 1947"]
    assert life_dates("also called House, M.D.") == ["also called House, M.D."]


def test_names_are_runs_of_capitalised_words_broken_by_punctuation() -> None:
    assert names("Ditko studied under Jerry Robinson, Stan Lee and the Kenneth \"Babyface\" Edmonds band") == (
        ("ditko",), ("jerry", "robinson"), ("stan", "lee"), ("kenneth", "babyface", "edmonds"))
    assert names("The film was shot in Sydney") == (("sydney",),)


def test_what_a_text_says_its_subject_is_stops_at_the_first_preposition() -> None:
    assert [[w.lower for w in n] for n in nominals("Prescott is a city in Yavapai County")] == [["city"]]
    assert [[w.lower for w in n] for n in nominals("It was released in 2001")] == []


def test_a_word_ending_in_eed_is_no_verb_form_so_a_comma_before_it_does_not_cut() -> None:
    assert clauses("The shop sells bread, seed and flour.") == ["The shop sells bread, seed and flour."]
    assert len(clauses("The shop sells bread, owned by Smith.")) == 2


def test_a_claim_is_not_cut_between_an_adverb_and_its_verb() -> None:
    assert clauses("Smith recently moved to Leeds.", claim=True) == ["Smith recently moved to Leeds."]
    assert clauses("Smith is a cricketer born in July.", claim=True) == ["Smith is a cricketer ", "born in July."]


def test_an_adverb_between_the_copula_and_its_determiner_is_skipped() -> None:
    assert [[w.lower for w in n] for n in nominals("Smith is also a singer in London")] == [["singer"]]
    assert [[w.lower for w in n] for n in nominals("Smith is now mainly a painter of ships")] == [["painter"]]


def test_the_get_passive_keeps_its_participle_in_the_clause_and_says_no_more_than_it() -> None:
    assert clauses("In 1986, Tatum O'Neal got married.", claim=True) == ["In 1986, Tatum O'Neal got married."]
    assert "get" not in analyse("In 1986, Tatum O'Neal got married.", claim=True).tokens
    wedding = fact("G1", "In 1986, O'Neal married professional tennis player John McEnroe.")
    assert judge("In 1986, O'Neal got married. [G1]", wedding).passed


def test_a_formula_whose_digits_are_glued_to_its_letters_is_one_word_and_no_negation() -> None:
    assert [w.lower for w in words("NO2 and PbI3 in H2O")] == ["no2", "and", "pbi3", "in", "h2o"]
    assert not analyse("Residential NO2 exposure was estimated with a regression model.").negated


def test_and_before_a_pronoun_and_its_verb_starts_a_clause() -> None:
    # found by a flip of issue 46: one clause made "gallery" and "1972" look stated together
    assert clauses("Vera Lind opened her first studio in 1972, and she opened a gallery in 1980.") == [
        "Vera Lind opened her first studio in 1972, ", "and she opened a gallery in 1980."]
    studio = fact("V1", "Vera Lind opened her first studio in 1972, and she opened a gallery in 1980.")
    assert not judge("Vera Lind opened her first gallery in 1972. [V1]", studio).passed


def test_only_two_dated_sides_read_as_born_and_died() -> None:
    # issue 46 (words.py life_dates, all -> any): "(1950 -- present)" after a name is a period, not a birth and a death
    assert life_dates("1950 \u2013 present") == ["1950", "present"]
    chemist = fact("P1", "Ada Vell (1950 -- present) is a British chemist.")
    assert not judge("Ada Vell died in present. [P1]", chemist).passed
    assert life_dates("April 14, 1866 \u2013 October 20, 1936") == ["born April 14, 1866", "died October 20, 1936"]


def test_a_contrast_word_second_in_its_text_still_cuts_a_clause() -> None:
    # "but" right after a one-word subject starts its own clause; only a text's first word is never cut before
    assert clauses("Prices but not wages rose.") == ["Prices ", "but not wages rose."]
    assert clauses("But wages fell.") == ["But wages fell."]
