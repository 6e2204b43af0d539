"""Normalisation (Q-INV-05), segments and word-boundary term matching."""

from __future__ import annotations

import pytest

from omega.oracle.normalise import has_negation, has_term, match_key, normalise, numbers, segments


def test_normalise_turns_crlf_and_cr_into_lf_and_collapses_whitespace() -> None:
    assert normalise("  a\r\nb\rc \t\n\n d  ") == "a b c d"
    assert match_key("  The Valve IS open.  ") == "the valve is open"


def test_segments_split_at_sentence_ends_and_line_breaks_but_not_inside_numbers_or_names() -> None:
    text = "Fuel at 3.2 MPa.\n\nUser john.doe ok! Really? 1.15 ratio\nlast line"
    assert [s.text for s in segments(text)] == ["Fuel at 3.2 MPa.", "User john.doe ok!", "Really?", "1.15 ratio",
                                                "last line"]
    assert segments("... -- !") == []


@pytest.mark.parametrize(("term", "text", "found"), [
    ("valid", "the configuration is invalid", False),
    ("valid", "the configuration is valid", True),
    ("Valid", "VALID.", True),
    ("3.2", "13.2 mpa", False),
    ("1", "ratio 1.15", False),
    ("0.02", "offset +0.02mm", True),
    ("mpa", "3.2mpa", True),
    ("t+120s", "reached at t+120s.", True),
    ("beam c4", "on beam c4 is", True),
    ("where 1=1", "users where 1=1; --", True),
])
def test_term_matching_respects_word_boundaries(term: str, text: str, found: bool) -> None:
    assert has_term(term, match_key(text)) is found


def test_negation_words_and_numbers() -> None:
    assert has_negation("it isn't open")
    assert has_negation("never")
    assert not has_negation("nothingness is known")
    assert numbers("beam c4 at 12.7 kn, 120/80, t+120s, g/cm3") == ["12.7", "120", "80", "120"]


def test_typographic_apostrophes_are_folded_so_a_contracted_negation_is_a_negation() -> None:
    assert match_key("It isn\u2019t open, it\u02bcs shut") == "it isn't open, it's shut"
    assert has_negation(match_key("The valve isn\u2019t open"))
    assert normalise("isn\u2019t") == "isn\u2019t"  # the normalised text (Q-INV-05 evidence) keeps the character


def test_a_lone_cr_ends_a_segment_like_a_line_break_and_segments_are_numbered_in_order() -> None:
    assert [(s.index, s.text, s.key) for s in segments("Valve open\rPump on\r\nFan off")] == [
        (0, "Valve open", "valve open"), (1, "Pump on", "pump on"), (2, "Fan off", "fan off")]
