"""Numbers with their units, and the sample size a text states (years are not counts)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from omega.grounding.quantities import quantities, quantity_spans, sample_size, unit_named, unit_words
from omega.grounding.tokens import analyse


@pytest.mark.parametrize(("text", "size"), [
    ("412 adults", 412),
    ("in 2022, 412 adults", 412),  # a year is not a count
    ("1,950 adults", 1950),  # written with a thousands separator: a count, not the year 1950
    ("1900 adults", None), ("2100 adults", None),  # plain four digits from 1900 to 2100 read as a year
    ("1899 adults", 1899), ("2101 adults", 2101),
    ("12 mg", None),  # a figure with a unit is no count
])
def test_the_sample_size_is_the_largest_plain_count_and_years_are_not_counts(text: str, size: int | None) -> None:
    assert sample_size(quantities(text)) == size


def test_the_unit_words_include_the_words_of_multi_word_and_compound_units() -> None:
    assert {"per", "cent", "percentage", "point", "points", "dl"} <= unit_words()
    assert {"mg", "kg", "mmhg", "weeks"} <= unit_words()
    assert not any("/" in w or " " in w for w in unit_words())


def test_a_compound_unit_spelled_out_abbreviated_or_as_an_acronym_is_one_unit() -> None:
    spelled = quantities("4.1 litres per square metre per hour per bar")
    assert [(q.value, q.unit) for q in spelled] == [(Decimal("4.1"), "l/m2/hour/bar")]
    assert quantities("4.1 lmh/bar")[0].unit == "l/m2/hour/bar"
    assert quantities("4.1 l/m2/h/bar")[0].unit == "l/m2/hour/bar"
    assert quantities("20 mg per day")[0].unit == quantities("20 mg/day")[0].unit == "mg/day"
    assert quantities("3.1 grams per decilitre")[0].unit == "g/dl"  # the table's own form of a compound it names
    assert quantities("20 mg per fortnight")[0].unit == "mg"  # a part the table does not know: the first word
    assert unit_named("LMH/bar (litres per square metre per hour per bar)") == "l/m2/hour/bar"


def test_hours_a_day_is_hours_per_day_and_times_a_week_stays_a_fold() -> None:
    assert quantities("three hours a day")[0].unit == quantities("3 hours per day")[0].unit == "hour/day"
    assert quantities("5 times a week")[0].unit == "fold"


def test_a_range_after_from_or_between_shares_the_unit_written_after_its_second_number() -> None:
    units = [q.unit for _s, _e, q in quantity_spans("fell from 41.3 to 33.8 micrograms per cubic metre")]
    assert units == ["µg/m3", "µg/m3"]
    assert [q.unit for _s, _e, q in quantity_spans("between 20 and 30%")] == ["%", "%"]
    # a version before "to" and an age group are no range of the unit that follows
    assert next(q.unit for _s, _e, q in quantity_spans("with orrery 4.8 to 530 mb")) is None
    assert next(q.unit for _s, _e, q in quantity_spans("respondents aged 18 to 24 years")) is None


def test_three_in_every_four_is_three_quarters_and_every_is_part_of_the_number() -> None:
    assert [(q.value, q.unit) for _s, _e, q in quantity_spans("for three in every four of the pupils")] == [
        (Decimal(75), "%")]
    assert "every" not in analyse("Data were obtained for three in every four pupils.", claim=True).tokens


def test_a_written_unit_of_several_words_before_a_parenthesis_is_read_whole() -> None:
    # a `units` qualifier "per cent (of participants)": the unit is the table's "per cent", not a word of it
    assert unit_named("per cent (of participants)") == "%"
