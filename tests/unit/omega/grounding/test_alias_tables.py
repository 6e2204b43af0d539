"""Issue 46 (fault 2's class): every alias table of the grounding maps each spelling one way, to a canonical name,
and none of its spellings is another entry's canonical name. Expected rewrites written by hand from the module
docstrings (`omega/grounding/qualifiers.py`: the qualifier kinds population, setting, timeframe, method, dose and
units; `omega/grounding/words.py`: "U.S. = United States")."""

from __future__ import annotations

import pytest

from omega.grounding.qualifiers import ALIASES, QUALIFIER_TERMS, category
from omega.grounding.words import ABBREVIATIONS

KINDS = {"population", "setting", "timeframe", "method", "dose", "units"}


@pytest.mark.parametrize(("key", "kind"), [
    ("Duration", "timeframe"), ("follow_up", "timeframe"), ("period", "timeframe"), ("time", "timeframe"),
    ("sample", "population"), ("participants", "population"),
    ("design", "method"), ("study_design", "method"),
    ("location", "setting"), ("site", "setting"), ("COUNTRY", "setting"),
    ("dosage", "dose"), ("unit", "units"),
    ("population", "population"), ("timeframe", "timeframe"), ("dose", "dose"),  # a kind names itself
])
def test_a_qualifier_key_names_its_kind_through_the_aliases(key: str, kind: str) -> None:
    assert category(key) == kind


def test_every_qualifier_alias_names_a_kind_and_no_alias_is_itself_a_kind() -> None:
    assert set(QUALIFIER_TERMS) <= KINDS
    assert set(ALIASES.values()) <= KINDS
    assert not set(ALIASES) & KINDS  # a kind never re-read as another kind
    assert all(key == key.lower() for key in ALIASES)  # category() looks keys up lower-cased


def test_every_country_abbreviation_reads_as_the_country_it_abbreviates() -> None:
    assert ABBREVIATIONS == {"u.s.": "United States", "u.s.a.": "United States", "usa": "United States",
                             "u.k.": "United Kingdom", "uk": "United Kingdom", "u.n.": "United Nations"}
    expansions = {name.lower() for name in ABBREVIATIONS.values()}
    assert not expansions & set(ABBREVIATIONS)  # no expansion is itself an abbreviation
    assert all(key == key.lower() for key in ABBREVIATIONS)
