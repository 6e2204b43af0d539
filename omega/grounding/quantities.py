"""Numbers with their units, as stated in a sentence or a fact: digits ("1,200", "4.5"), percent signs,
spelled-out numbers ("twelve", "thirty-six", "six thousand two hundred") and proportions in words. The unit is
the normalised word (or "X per Y" phrase: "grams per decilitre") right after the number when it is in the unit
table (mg, %, mmHg, weeks, ...), else None (a count of whatever follows: "120 adults").

Values are exact decimals, so "12.0" equals "12" but "12.4" does not equal "12": rounding is a change.
Proportions in words (issue 42, §5.1 "rephrasing without changing meaning") are percentages with the exact
value of their fraction: "one in four" = "a quarter" = 25%, "half of" = 50%, "three in ten" = 30%. A fraction
with no exact decimal ("a third") is its value to 28 digits, which no stated "33.3%" equals: "about", "nearly"
and rounding stay changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

SPELLED = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000, "million": 10**6,
}
_MULTIPLIERS = {"hundred": 100, "thousand": 1000, "million": 10**6}
_SPELLED_RUN = r"(?:" + "|".join(SPELLED) + r")(?:(?:\s+|-)(?:and\s+)?(?:" + "|".join(SPELLED) + r"))*"
_NUMBER = re.compile(
    r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?|\b" + _SPELLED_RUN + r"\b)"
    r"(?:(?:\s*|-)(%|per ?cent\b|percentage points?\b|degrees? celsius\b|°c\b|°f\b|°|"
    r"[a-zµ]+ per (?:square |cubic )?[a-z]+(?: per [a-z]+)*\b|[a-z]+ an? (?:day|week|month|year|hour)\b|"
    r"(?:square |cubic )?[a-zµ]+[23]?(?:/[a-z]+[23]?)*))?"
)
_DENOMINATORS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5,
                 "fifths": 5, "sixth": 6, "eighth": 8, "eighths": 8, "tenth": 10, "tenths": 10}
FRACTION_WORDS = frozenset(_DENOMINATORS) | {"in", "a", "every"}  # "three in every four": one number
_SMALL = "one|two|three|four|five|six|seven|eight|nine"
_FRACTION_HINT = re.compile(r"half|third|quarter|fifth|sixth|eighth|tenth|\b(?:" + _SMALL + r"|\d) in ")
_FRACTION = re.compile(
    r"\b(?P<n>" + _SMALL + r"|\d) in (?:every )?"
    r"(?P<d>two|three|four|five|six|seven|eight|nine|ten|twenty|a hundred|\d{1,3})\b"
    r"|\b(?P<m>a|one|" + _SMALL + r")[- ](?P<part>" + "|".join(_DENOMINATORS) + r")\b"
    r"|(?:(?<=\bby )|(?<!the )(?<!first )(?<!second )(?<!last )\b(?=half (?:of|the|its|their)\b))(?P<half>half)\b"
)

_DIGIT = re.compile(r"\d")
_LETTERS = re.compile(r"[a-z]+")
_SPELLED_WORDS = frozenset(SPELLED)
_NUMBER_WORDS = _SPELLED_WORDS | {"half", "halves", "third", "thirds", "quarter", "quarters", "fifth", "fifths",
                                  "sixth", "eighth", "eighths", "tenth", "tenths"}

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
    "grams per decilitre": "g/dl", "grams per deciliter": "g/dl", "milligrams per decilitre": "mg/dl",
    "milligrams per litre": "mg/l", "micrograms per litre": "µg/l", "millimoles per litre": "mmol/l",
    "milligrams per kilogram": "mg/kg", "°": "degree", "degree": "degree", "degrees": "degree",
    "degrees celsius": "°c", "degree celsius": "°c", "°f": "°f",
    "m2": "m2", "square metre": "m2", "square metres": "m2", "m3": "m3", "cubic metre": "m3", "cubic metres": "m3",
    "µg/m3": "µg/m3", "micrograms per cubic metre": "µg/m3", "mg/m3": "mg/m3", "milligrams per cubic metre": "mg/m3",
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


# "95% CI 0.05 to 0.19", "95% confidence interval, -1.2 to 3.4": an interval qualifies the value before it
_INTERVAL = re.compile(r"\b\d{2}(?:\.\d+)?\s*%\s*(?:ci|confidence interval|credible interval)\b[\s:,]*"
                       r"[-\u2212\u2013]?\d[\d.,]*\s*(?:to|,|[-\u2013\u2014])\s*[-\u2212\u2013]?\d[\d.]*",
                       re.IGNORECASE)


def without_intervals(text: str) -> str:
    """The text with each confidence interval blanked, the same length (positions hold): its numbers are no values
    of a group and name none."""
    return _INTERVAL.sub(lambda m: " " * len(m.group(0)), text) if "%" in text else text


@lru_cache(maxsize=256)  # a paragraph's facts and sentence are read by several checks; about a paragraph
def quantity_spans(lowered: str) -> tuple[tuple[int, int, Quantity], ...]:
    """Every number of a lower-cased text with its unit, and where it stands (start, end of number and unit)."""
    if not _DIGIT.search(lowered) and _NUMBER_WORDS.isdisjoint(_LETTERS.findall(lowered)):
        return ()  # the common case, answered without the spelled-number alternation
    lowered = lowered.replace("\u03bc", "\u00b5")  # Greek mu (what NFKD makes of the micro sign) is the micro sign
    found = _fractions(lowered) if _FRACTION_HINT.search(lowered) else []
    taken = [(a, b) for a, b, _q in found]
    for match in _NUMBER.finditer(lowered):
        if any(a <= match.start() < b for a, b in taken):
            continue
        token, unit_text = match.group(1), match.group(2)
        if token[0].isalpha():
            value, places = _spelled(token), 0
        else:
            try:
                value = Decimal(token.replace(",", ""))
            except InvalidOperation:  # pragma: no cover - the pattern only matches decimal text
                continue
            places = len(token.partition(".")[2])
        unit, end = None, match.end(1)  # a word the table does not know is not a unit: "two control schools"
        if unit_text is not None:
            unit = UNITS.get(unit_text.strip()) or compound_unit(unit_text)
            end = match.end() if unit is not None else end
            if unit is None and re.search(r" (?:per|an?) ", unit_text):  # "mg per fortnight": the first word
                first = unit_text.split()[0]
                unit = UNITS.get(first)
                end = match.start(2) + len(first) if unit is not None else end
        found.append((match.start(), end, Quantity(token, value, unit, places)))
    return _shared_units(sorted(found, key=lambda f: f[0]), lowered)


_RANGE_JOIN = re.compile(r"\s*(?:to|and|or|-|\u2013)\s*")
_PAIR_JOIN = re.compile(r"\s*(?:versus|vs\.?)\s*")


def _shared_units(found: list[tuple[int, int, Quantity]], lowered: str) -> tuple[tuple[int, int, Quantity], ...]:
    """A range's first number takes the unit written once after the second ("from 41.3 to 33.8 micrograms per
    cubic metre", "between 6.1 and 8.3 pH units"), and two values set side by side ("18.4 versus 27.9 ms"); a
    range only after "from" or "between", where the two numbers are one range ("4.8 to 530 MB" names a version,
    "aged 18 to 24 years" a group)."""
    out = list(found)
    for i in range(len(out) - 2, -1, -1):
        (start, end, first), (_s, _e, second) = out[i], out[i + 1]
        if first.unit is None and second.unit is not None and (_PAIR_JOIN.fullmatch(lowered, end, _s) or (
                _RANGE_JOIN.fullmatch(lowered, end, _s) and re.search(r"\b(?:from|between)\s+$", lowered[:start]))):
            out[i] = (start, end, Quantity(first.text, first.value, second.unit, first.places))
    return tuple(out)


def _spelled(text: str) -> Decimal:
    """"thirty-six" = 36, "six thousand two hundred" = 6200."""
    total = current = 0
    for word in re.split(r"[\s-]+", text):
        if word == "and":
            continue
        if word == "hundred":
            current = max(current, 1) * 100
        elif word in _MULTIPLIERS:
            total += max(current, 1) * _MULTIPLIERS[word]
            current = 0
        else:
            current += SPELLED[word]
    return Decimal(total + current)


def _fractions(lowered: str) -> list[tuple[int, int, Quantity]]:
    """Proportions in words, as percentages of their exact value."""
    out: list[tuple[int, int, Quantity]] = []
    for match in _FRACTION.finditer(lowered):
        if match.group("half"):
            numerator, denominator = 1, 2
        elif match.group("part"):
            numerator = 1 if match.group("m") == "a" else int(_spelled(match.group("m")))
            denominator = _DENOMINATORS[match.group("part")]
        else:
            numerator = int(match.group("n")) if match.group("n").isdigit() else int(_spelled(match.group("n")))
            d = match.group("d").removeprefix("a ")
            denominator = int(d) if d.isdigit() else int(_spelled(d))
        if not 0 < numerator < denominator:
            continue
        value = Decimal(numerator) * 100 / Decimal(denominator)
        value = value.quantize(Decimal(1)) if value == value.to_integral_value() else value.normalize()
        places = max(0, -int(value.as_tuple().exponent))
        out.append((match.start(), match.end(), Quantity(match.group(0), value, "%", places)))
    return out


# Compound units (issue 42, "units spelled out and abbreviated"): "litres per square metre per hour per bar",
# "L/m2/h/bar" and "LMH/bar" are one unit, each part in its canonical form joined by "/" ("hours a day" = "hours per
# day"); a compound the table names itself ("grams per decilitre" = "g/dl") is looked up there first.
_PARTS = {"lmh": "l/m2/hour", "bar": "bar", "s": "second", "sec": "second", "d": "day", "wk": "week",
          "op": "operation", "ops": "operation", "operation": "operation", "operations": "operation",
          "request": "request", "requests": "request", "query": "query", "queries": "query"}
_COMPOUND = re.compile(r"\s+(?:per|a|an)\s+|\s*/\s*")


def compound_unit(written: str) -> str | None:
    """The canonical form of a unit of two parts or more ("mg per day" = "mg/day"), when every part is a unit."""
    parts = [p.strip() for p in _COMPOUND.split(written.strip()) if p.strip()]
    if len(parts) < 2:
        return None
    canonical = [_PARTS.get(p) or UNITS.get(p) for p in parts]
    if any(c is None or c in ("%", "fold") for c in canonical):
        return None
    return "/".join(c for c in canonical if c is not None)


def unit_named(written: str) -> str | None:
    """The canonical unit a written unit names ("µg/L"; "LMH/bar (litres per ...)": the unit before the
    parenthesis, else the first word the table knows)."""
    lowered = written.strip().lower().replace("\u03bc", "\u00b5")  # NFKD's Greek mu is the micro sign
    head = lowered.split("(", 1)[0].strip()
    return UNITS.get(lowered) or UNITS.get(head) or compound_unit(head) \
        or next((UNITS[w] for w in lowered.split() if w in UNITS), None)


def unit_words() -> frozenset[str]:
    """The single words of the unit table (owned by the numeric check, not by entailment)."""
    return frozenset(w for key in UNITS for w in re.split(r"[\s/]+", key) if w.isalpha())


_RATE_ADVERBS = {"daily": "day", "nightly": "night", "weekly": "week", "monthly": "month", "yearly": "year",
                 "annually": "year", "annual": "year", "hourly": "hour"}
_RATE_ADVERB = re.compile(r"\b(?:(" + "|".join(_RATE_ADVERBS) + r")|(?:per|a|an|each) (day|night|week|month|year|hour))"
                          r"\b")


def as_rates(quantity: Quantity, lowered: str) -> tuple[Quantity, ...]:
    """The quantity read per the period its sentence names apart from it ("mean daily activity ... 46.1 minutes",
    "52.4 minutes of activity per day" = minutes per day, §5.1): the rate is said once, not at the number."""
    if quantity.unit is None or "/" in quantity.unit:
        return ()
    periods = {_RATE_ADVERBS.get(adverb, period) for adverb, period in _RATE_ADVERB.findall(lowered)}
    return tuple(Quantity(quantity.text, quantity.value, f"{quantity.unit}/{period}", quantity.places)
                 for period in sorted(periods))


def same_quantity(a: Quantity, b: Quantity) -> bool:
    """Equal values, and equal units when both state one."""
    return a.value == b.value and (a.unit is None or b.unit is None or a.unit == b.unit)


def sample_size(found: tuple[Quantity, ...]) -> Decimal | None:
    """The largest plain count of a text, taken as its sample size (years such as 2022 are not counts)."""
    counts = [q.value for q in found if q.unit is None and q.places == 0 and not _year(q)]
    return max(counts) if counts else None


def plain_year(quantity: Quantity) -> bool:
    """A whole number without separators that reads as a year (1800-2100): a name of a time, not a value."""
    return quantity.places == 0 and "," not in quantity.text and 1800 <= quantity.value <= 2100


def _year(quantity: Quantity) -> bool:
    return "," not in quantity.text and quantity.text.isdigit() and 1900 <= quantity.value <= 2100
