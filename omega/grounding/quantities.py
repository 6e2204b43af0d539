"""Numbers with their units, as stated in a sentence or a fact: digits ("1,200", "4.5"), percent signs and
a small table of spelled-out numbers ("twelve"). The unit is the normalised word right after the number when it
is in the unit table (mg, %, mmHg, weeks, ...), else None (a count of whatever follows: "120 adults").

Values are exact decimals, so "12.0" equals "12" but "12.4" does not equal "12": rounding is a change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

SPELLED = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
}
_NUMBER = re.compile(
    r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?|\b(?:" + "|".join(SPELLED) + r")\b)"
    r"(?:(?:\s*|-)(%|per ?cent\b|percentage points?\b|[a-zµ]+(?:/[a-z]+)?))?"
)

_DIGIT = re.compile(r"\d")
_LETTERS = re.compile(r"[a-z]+")
_SPELLED_WORDS = frozenset(SPELLED)

# Unit spellings -> one canonical unit; a unit is claim-bearing, so "12 weeks" and "12 months" differ.
UNITS = {
    "%": "%", "percent": "%", "per cent": "%", "percentage point": "pp", "percentage points": "pp", "pp": "pp",
    "mg": "mg", "milligram": "mg", "milligrams": "mg", "g": "g", "gram": "g", "grams": "g", "kg": "kg",
    "kilogram": "kg", "kilograms": "kg", "µg": "µg", "mcg": "µg", "microgram": "µg", "micrograms": "µg",
    "ng": "ng", "ml": "ml", "millilitre": "ml", "millilitres": "ml", "l": "l", "litre": "l", "litres": "l",
    "mmhg": "mmhg", "mah/g": "mah/g", "mah": "mah", "mmol/l": "mmol/l", "mg/dl": "mg/dl", "mg/kg": "mg/kg",
    "mmol": "mmol", "iu": "iu",
    "cm": "cm", "mm": "mm", "m": "m", "km": "km", "kcal": "kcal", "bpm": "bpm", "°c": "°c",
    "year": "year", "years": "year", "yr": "year", "month": "month", "months": "month", "week": "week",
    "weeks": "week", "day": "day", "days": "day", "hour": "hour", "hours": "hour", "h": "hour",
    "minute": "minute", "minutes": "minute", "min": "minute", "second": "second", "seconds": "second",
    "fold": "fold", "times": "fold",
    # issue 42: units of the manuscripts' other fields, spelled out and abbreviated
    "ms": "ms", "millisecond": "ms", "milliseconds": "ms", "µs": "µs", "microsecond": "µs", "microseconds": "µs",
    "kb": "kb", "kilobyte": "kb", "kilobytes": "kb", "mb": "mb", "megabyte": "mb", "megabytes": "mb",
    "gb": "gb", "gigabyte": "gb", "gigabytes": "gb", "mib": "mib", "gib": "gib",
    "g/dl": "g/dl", "mg/l": "mg/l", "µg/l": "µg/l", "ng/ml": "ng/ml", "ppm": "ppm", "ppb": "ppb",
    "metre": "m", "metres": "m", "meter": "m", "meters": "m", "centimetre": "cm", "centimetres": "cm",
    "millimetre": "mm", "millimetres": "mm", "kilometre": "km", "kilometres": "km", "nm": "nm",
    "nanometre": "nm", "nanometres": "nm", "µm": "µm", "micrometre": "µm", "micrometres": "µm",
    "ha": "ha", "hectare": "ha", "hectares": "ha", "mpa": "mpa", "gpa": "gpa", "kpa": "kpa", "mw": "mw",
    "kwh": "kwh", "mv": "mv",
}


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number as stated, its exact value and its canonical unit (None: a plain count or figure)."""

    text: str
    value: Decimal
    unit: str | None
    places: int

    def show(self) -> str:
        """The quantity as text, e.g. '12 week'."""
        return self.text if self.unit is None else f"{self.text} {self.unit}"


def quantities(lowered: str) -> tuple[Quantity, ...]:
    """Every number of a lower-cased text, with its unit, in order."""
    return tuple(q for _start, _end, q in quantity_spans(lowered))


def quantity_spans(lowered: str) -> list[tuple[int, int, Quantity]]:
    """Every number of a lower-cased text with its unit, and where it stands (start, end of number and unit)."""
    if not _DIGIT.search(lowered) and _SPELLED_WORDS.isdisjoint(_LETTERS.findall(lowered)):
        return []  # the common case, answered without the spelled-number alternation
    found: list[tuple[int, int, Quantity]] = []
    for match in _NUMBER.finditer(lowered):
        token, unit_text = match.group(1), match.group(2)
        if token.isalpha():
            value, places = Decimal(SPELLED[token]), 0
        else:
            try:
                value = Decimal(token.replace(",", ""))
            except InvalidOperation:  # pragma: no cover - the pattern only matches decimal text
                continue
            places = len(token.partition(".")[2])
        unit = None if unit_text is None else UNITS.get(unit_text.strip())
        found.append((match.start(), match.end(), Quantity(token, value, unit, places)))
    return found


def unit_words() -> frozenset[str]:
    """The single words of the unit table (owned by the numeric check, not by entailment)."""
    return frozenset(w for key in UNITS for w in re.split(r"[\s/]+", key) if w.isalpha())


def same_quantity(a: Quantity, b: Quantity) -> bool:
    """Equal values, and equal units when both state one."""
    return a.value == b.value and (a.unit is None or b.unit is None or a.unit == b.unit)


def sample_size(found: tuple[Quantity, ...]) -> Decimal | None:
    """The largest plain count of a text, taken as its sample size (years such as 2022 are not counts)."""
    counts = [q.value for q in found if q.unit is None and q.places == 0 and not _year(q)]
    return max(counts) if counts else None


def _year(quantity: Quantity) -> bool:
    return "," not in quantity.text and quantity.text.isdigit() and 1900 <= quantity.value <= 2100
