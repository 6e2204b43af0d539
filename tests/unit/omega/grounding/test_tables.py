"""One case per row of the grounding's equivalence tables, each asserting what the row lets a sentence say, so a
deleted row fails its case (the cases are written out by hand, never read from the tables):

* `tokens.SYNONYM_GROUPS` (§5.1 allowed rephrasing): a sentence saying it with one word of a group passes
  against a fact saying it with another word of the group.
* `words.DEMONYMS` (issue 19, rule 5, via `names.name_partners`): a sentence naming the demonym passes against a
  fact naming the country, and a sentence naming the country passes against a fact using the demonym
  attributively.
* `words.ABBREVIATIONS`: a sentence abbreviating the country passes against a fact spelling it out.
* `quantities.UNITS`: a number written with each spelling of a unit is read with the one canonical unit, so
  "12 milligrams" and "12 mg" are the same quantity.

A count test per table makes a new row add a case here. Two rows have no effect a case can observe, so only the
count pins them: DEMONYMS "czech" (the country is the demonym itself) and UNITS "°c" (never read, see below).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from omega.grounding.quantities import UNITS, quantities
from omega.grounding.tokens import SYNONYM_GROUPS
from omega.grounding.words import ABBREVIATIONS, DEMONYMS
from tests.unit.omega.grounding.support import fact, judge

# ------------------------------------------------------------------------------------------- SYNONYM_GROUPS
# (group, a sentence using one word of the group, a fact stating it with another word of the group)
SYNONYMS = [
    ("decrease", "Drug A reduced blood pressure.", "Drug A decreased blood pressure."),
    ("increase", "Exercise raised bone density.", "Exercise increased bone density."),
    ("participant", "Each enrollee kept a diary.", "Each participant kept a diary."),
    ("associate", "Smoking was linked with lung cancer.", "Smoking was associated with lung cancer."),
    ("treatment", "The therapy eased the headache.", "The treatment eased the headache."),
    ("mortality", "Deaths from malaria fell.", "Mortality from malaria fell."),
    ("older", "Elderly drivers caused fewer crashes.", "Older drivers caused fewer crashes."),
    ("use", "The clinic employs a new scanner.", "The clinic uses a new scanner."),
    ("versus", "Drug A was tested vs drug B.", "Drug A was tested versus drug B."),
    ("receive", "Patients were administered drug A.", "Patients received drug A."),
    ("measure", "Nurses assessed blood pressure.", "Nurses measured blood pressure."),
    ("improve", "Drug A was an improvement for sleep.", "Drug A improved sleep."),
    ("symptom", "Symptomatic patients took drug A.", "Patients with symptoms took drug A."),
    ("adverse", "Drug A had harmful effects.", "Drug A had adverse effects."),
    ("group", "The placebo arm had 40 patients.", "The placebo group had 40 patients."),
    ("effect", "Drug A had an impact on sleep.", "Drug A had an effect on sleep."),
    ("risk", "Smokers face a hazard of stroke.", "Smokers face a risk of stroke."),
    ("rate", "The incidence of flu dropped.", "The rate of flu dropped."),
    ("average", "The mean score was 60.", "The average score was 60."),
    ("mostly", "The choir sings mainly hymns.", "The choir sings mostly hymns."),
    ("film", "Varga directed a movie.", "Varga directed a film."),
    ("author", "Varga is a writer.", "Varga is an author."),
]


@pytest.mark.parametrize(("claim", "statement"), [pytest.param(c, s, id=g) for g, c, s in SYNONYMS])
def test_a_sentence_using_a_synonym_passes_against_a_fact_using_another_word_of_its_group(
        claim: str, statement: str) -> None:
    verdict = judge(f"{claim[:-1]} [S1].", fact("S1", statement))
    assert verdict.passed, verdict.rationale


def test_the_synonym_table_has_one_group_per_case() -> None:
    assert len(SYNONYM_GROUPS) == len(SYNONYMS)


# ------------------------------------------------------------------------------------------- DEMONYMS
# (demonym, the country as a sentence names it)
COUNTRIES = [
    ("American", "the United States"), ("British", "the United Kingdom"), ("English", "England"),
    ("Scottish", "Scotland"), ("Welsh", "Wales"), ("Irish", "Ireland"), ("French", "France"),
    ("German", "Germany"), ("Italian", "Italy"), ("Spanish", "Spain"), ("Portuguese", "Portugal"),
    ("Dutch", "the Netherlands"), ("Belgian", "Belgium"), ("Swiss", "Switzerland"), ("Austrian", "Austria"),
    ("Swedish", "Sweden"), ("Norwegian", "Norway"), ("Danish", "Denmark"), ("Finnish", "Finland"),
    ("Icelandic", "Iceland"), ("Polish", "Poland"), ("Czech", "Czech"),  # the row maps "czech" to itself
    ("Hungarian", "Hungary"),
    ("Greek", "Greece"), ("Turkish", "Turkey"), ("Russian", "Russia"), ("Ukrainian", "Ukraine"),
    ("Canadian", "Canada"), ("Mexican", "Mexico"), ("Brazilian", "Brazil"), ("Argentine", "Argentina"),
    ("Argentinian", "Argentina"), ("Chilean", "Chile"), ("Colombian", "Colombia"), ("Peruvian", "Peru"),
    ("Venezuelan", "Venezuela"), ("Cuban", "Cuba"), ("Jamaican", "Jamaica"), ("Australian", "Australia"),
    ("Chinese", "China"), ("Japanese", "Japan"), ("Korean", "Korea"), ("Indian", "India"),
    ("Pakistani", "Pakistan"), ("Bangladeshi", "Bangladesh"), ("Iranian", "Iran"), ("Iraqi", "Iraq"),
    ("Israeli", "Israel"), ("Egyptian", "Egypt"), ("Nigerian", "Nigeria"), ("Kenyan", "Kenya"),
    ("Ethiopian", "Ethiopia"), ("Somali", "Somalia"), ("Libyan", "Libya"), ("Moroccan", "Morocco"),
    ("Filipino", "the Philippines"), ("Indonesian", "Indonesia"), ("Thai", "Thailand"),
    ("Vietnamese", "Vietnam"), ("Malaysian", "Malaysia"), ("Singaporean", "Singapore"),
    ("Lithuanian", "Lithuania"), ("Latvian", "Latvia"), ("Estonian", "Estonia"), ("Romanian", "Romania"),
    ("Bulgarian", "Bulgaria"), ("Serbian", "Serbia"), ("Croatian", "Croatia"), ("European", "Europe"),
    ("African", "Africa"), ("Asian", "Asia"),
]
# The second demonym of a country states it one way only: "from Argentina" is matched to the first row's mark
# ("place:argentine"), so a fact saying "an Argentinian cellist" does not state "from Argentina".
ONE_WAY = {"Argentinian"}


@pytest.mark.parametrize(("demonym", "country"), [pytest.param(d, c, id=d.lower()) for d, c in COUNTRIES])
def test_a_demonym_states_its_country_and_the_country_its_attributive_demonym(demonym: str, country: str) -> None:
    article = "an" if demonym[0] in "AEIOU" else "a"
    by_demonym = f"Ilse Varga is {article} {demonym} cellist."
    by_country = f"Ilse Varga is a cellist from {country}."
    verdict = judge(f"{by_demonym[:-1]} [N1].", fact("N1", by_country))
    assert verdict.passed, verdict.rationale
    if demonym not in ONE_WAY:
        verdict = judge(f"{by_country[:-1]} [N2].", fact("N2", by_demonym))
        assert verdict.passed, verdict.rationale


def test_the_demonym_table_has_one_row_per_case() -> None:
    assert len(DEMONYMS) == len(COUNTRIES)


# ------------------------------------------------------------------------------------------- ABBREVIATIONS
# (case id, a sentence with the abbreviation, a fact spelling the name out)
ABBREVIATED = [
    ("us_dotted", "Ilse Varga is a cellist from the U.S.", "Ilse Varga is a cellist from the United States."),
    ("usa_dotted", "Ilse Varga is a cellist from the U.S.A.", "Ilse Varga is a cellist from the United States."),
    ("usa", "Ilse Varga is a cellist from the USA.", "Ilse Varga is a cellist from the United States."),
    ("uk_dotted", "Ilse Varga is a cellist from the U.K.", "Ilse Varga is a cellist from the United Kingdom."),
    ("uk", "Ilse Varga is a cellist from the UK.", "Ilse Varga is a cellist from the United Kingdom."),
    ("un_dotted", "Ilse Varga worked for the U.N.", "Ilse Varga worked for the United Nations."),
]


@pytest.mark.parametrize(("claim", "statement"), [pytest.param(c, s, id=i) for i, c, s in ABBREVIATED])
def test_an_abbreviated_name_is_the_name_spelt_out(claim: str, statement: str) -> None:
    verdict = judge(f"{claim} [A1]", fact("A1", statement))
    assert verdict.passed, verdict.rationale
    verdict = judge(f"{statement[:-1]} [A2].", fact("A2", claim))
    assert verdict.passed, verdict.rationale


def test_the_abbreviation_table_has_one_row_per_case() -> None:
    assert len(ABBREVIATIONS) == len(ABBREVIATED)


# ------------------------------------------------------------------------------------------- UNITS
# (case id, a number with the unit as a text writes it, the canonical unit)
UNIT_SPELLINGS = [
    ("percent_sign", "12%", "%"), ("percent", "12 percent", "%"), ("per_cent", "12 per cent", "%"),
    ("percentage_point", "12 percentage point", "pp"), ("percentage_points", "12 percentage points", "pp"),
    ("pp", "12 pp", "pp"),
    ("mg", "12 mg", "mg"), ("milligram", "12 milligram", "mg"), ("milligrams", "12 milligrams", "mg"),
    ("g", "12 g", "g"), ("gram", "12 gram", "g"), ("grams", "12 grams", "g"),
    ("kg", "12 kg", "kg"), ("kilogram", "12 kilogram", "kg"), ("kilograms", "12 kilograms", "kg"),
    ("micro_g", "12 \u00b5g", "\u00b5g"), ("mcg", "12 mcg", "\u00b5g"), ("microgram", "12 microgram", "\u00b5g"),
    ("micrograms", "12 micrograms", "\u00b5g"), ("ng", "12 ng", "ng"),
    ("ml", "12 ml", "ml"), ("millilitre", "12 millilitre", "ml"), ("millilitres", "12 millilitres", "ml"),
    ("l", "12 l", "l"), ("litre", "12 litre", "l"), ("litres", "12 litres", "l"),
    ("mmhg", "12 mmhg", "mmhg"), ("mah_per_g", "12 mah/g", "mah/g"), ("mah", "12 mah", "mah"),
    ("mmol_per_l", "12 mmol/l", "mmol/l"), ("mg_per_dl", "12 mg/dl", "mg/dl"), ("mg_per_kg", "12 mg/kg", "mg/kg"),
    ("mmol", "12 mmol", "mmol"), ("iu", "12 iu", "iu"),
    ("cm", "12 cm", "cm"), ("mm", "12 mm", "mm"), ("m", "12 m", "m"), ("km", "12 km", "km"),
    ("kcal", "12 kcal", "kcal"), ("bpm", "12 bpm", "bpm"),
    ("year", "12 year", "year"), ("years", "12 years", "year"), ("yr", "12 yr", "year"),
    ("month", "12 month", "month"), ("months", "12 months", "month"),
    ("week", "12 week", "week"), ("weeks", "12 weeks", "week"),
    ("day", "12 day", "day"), ("days", "12 days", "day"),
    ("hour", "12 hour", "hour"), ("hours", "12 hours", "hour"), ("h", "12 h", "hour"),
    ("minute", "12 minute", "minute"), ("minutes", "12 minutes", "minute"), ("min", "12 min", "minute"),
    ("second", "12 second", "second"), ("seconds", "12 seconds", "second"),
    ("fold", "12-fold", "fold"), ("times", "12 times", "fold"),
    # issue 42: software, materials and laboratory units, spelled out and abbreviated
    ("ms", "12 ms", "ms"), ("millisecond", "12 millisecond", "ms"), ("milliseconds", "12 milliseconds", "ms"),
    ("us", "12 \u00b5s", "\u00b5s"), ("microsecond", "12 microsecond", "\u00b5s"),
    ("microseconds", "12 microseconds", "\u00b5s"),
    ("kb", "12 kb", "kb"), ("kilobyte", "12 kilobyte", "kb"), ("kilobytes", "12 kilobytes", "kb"),
    ("mb", "12 mb", "mb"), ("megabyte", "12 megabyte", "mb"), ("megabytes", "12 megabytes", "mb"),
    ("gb", "12 gb", "gb"), ("gigabyte", "12 gigabyte", "gb"), ("gigabytes", "12 gigabytes", "gb"),
    ("mib", "12 mib", "mib"), ("gib", "12 gib", "gib"),
    ("g_per_dl", "12 g/dl", "g/dl"), ("mg_per_l", "12 mg/l", "mg/l"), ("ug_per_l", "12 \u00b5g/l", "\u00b5g/l"),
    ("ng_per_ml", "12 ng/ml", "ng/ml"), ("ppm", "12 ppm", "ppm"), ("ppb", "12 ppb", "ppb"),
    ("metre", "12 metre", "m"), ("metres", "12 metres", "m"), ("meter", "12 meter", "m"),
    ("meters", "12 meters", "m"), ("centimetre", "12 centimetre", "cm"), ("centimetres", "12 centimetres", "cm"),
    ("millimetre", "12 millimetre", "mm"), ("millimetres", "12 millimetres", "mm"),
    ("kilometre", "12 kilometre", "km"), ("kilometres", "12 kilometres", "km"), ("nm", "12 nm", "nm"),
    ("nanometre", "12 nanometre", "nm"), ("nanometres", "12 nanometres", "nm"), ("um", "12 \u00b5m", "\u00b5m"),
    ("micrometre", "12 micrometre", "\u00b5m"), ("micrometres", "12 micrometres", "\u00b5m"),
    ("ha", "12 ha", "ha"), ("hectare", "12 hectare", "ha"), ("hectares", "12 hectares", "ha"),
    ("mpa", "12 mpa", "mpa"), ("gpa", "12 gpa", "gpa"), ("kpa", "12 kpa", "kpa"), ("mw", "12 mw", "mw"),
    ("kwh", "12 kwh", "kwh"), ("mv", "12 mv", "mv"),
    ("grams_per_decilitre", "12 grams per decilitre", "g/dl"),
    ("grams_per_deciliter", "12 grams per deciliter", "g/dl"),
    ("milligrams_per_decilitre", "12 milligrams per decilitre", "mg/dl"),
    ("milligrams_per_litre", "12 milligrams per litre", "mg/l"),
    ("micrograms_per_litre", "12 micrograms per litre", "\u00b5g/l"),
    ("millimoles_per_litre", "12 millimoles per litre", "mmol/l"),
    ("milligrams_per_kilogram", "12 milligrams per kilogram", "mg/kg"),
    ("degree_sign", "12\u00b0", "degree"), ("degree", "12 degree", "degree"), ("degrees", "12 degrees", "degree"),
    ("celsius_sign", "12 \u00b0c", "\u00b0c"), ("degrees_celsius", "12 degrees celsius", "\u00b0c"),
    ("degree_celsius", "12 degree celsius", "\u00b0c"), ("fahrenheit_sign", "12 \u00b0f", "\u00b0f"),
    ("m2", "12 m2", "m2"), ("square_metre", "12 square metre", "m2"), ("square_metres", "12 square metres", "m2"),
    ("m3", "12 m3", "m3"), ("cubic_metre", "12 cubic metre", "m3"), ("cubic_metres", "12 cubic metres", "m3"),
    ("ug_per_m3", "12 \u00b5g/m3", "\u00b5g/m3"),
    ("micrograms_per_cubic_metre", "12 micrograms per cubic metre", "\u00b5g/m3"),
    ("mg_per_m3", "12 mg/m3", "mg/m3"), ("milligrams_per_cubic_metre", "12 milligrams per cubic metre", "mg/m3"),
]
UNREADABLE_UNITS: list[str] = []


@pytest.mark.parametrize(("written", "unit"), [pytest.param(w, u, id=i) for i, w, u in UNIT_SPELLINGS])
def test_a_number_is_read_with_the_canonical_unit_of_its_spelling(written: str, unit: str) -> None:
    [quantity] = quantities(written)
    assert (quantity.value, quantity.unit) == (Decimal(12), unit)


def test_the_unit_table_has_one_row_per_case() -> None:
    assert len(UNITS) == len(UNIT_SPELLINGS) + len(UNREADABLE_UNITS)
