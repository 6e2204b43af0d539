"""§4.2 predicate vocabulary: parsing `{predicate: {argTypes: [..]}}` with its messages, the argument type checks,
and the normalised objects that comparisons read."""

from __future__ import annotations

from typing import Any

import pytest

from omega.answers.vocabulary import VocabularyError, normalised_object, type_error, vocabulary_from_dict

TYPES = "['duration', 'entity', 'status', 'timestamp', 'type', 'value']"


def test_a_vocabulary_is_parsed_into_subject_and_object_types() -> None:
    assert vocabulary_from_dict({"runs_on": {"argTypes": ["entity", "entity"]},
                                 "rated_at": {"argTypes": ["entity", "value"]}}) == \
        {"runs_on": ("entity", "entity"), "rated_at": ("entity", "value")}


@pytest.mark.parametrize("value", [{}, [], None, [{"runs_on": {"argTypes": ["entity", "entity"]}}], "runs_on"])
def test_a_vocabulary_that_is_not_a_non_empty_object_is_refused(value: Any) -> None:
    with pytest.raises(VocabularyError, match=r"^predicateVocabulary must be a non-empty object$"):
        vocabulary_from_dict(value)


@pytest.mark.parametrize("entry", [
    {"argTypes": ["entity"]},  # one type
    {"argTypes": ["entity", "entity", "entity"]},  # three types
    {"argTypes": ["entity", "colour"]},  # an unknown type
    {"argTypes": "entity, entity"},  # not a list
    ["entity", "entity"],  # not an object
    {},  # no argTypes
])
def test_an_entry_that_is_not_two_known_types_is_refused_naming_the_predicate_and_the_types(entry: Any) -> None:
    with pytest.raises(VocabularyError) as caught:
        vocabulary_from_dict({"requires": {"argTypes": ["entity", "entity"]}, "runs_on": entry})
    assert str(caught.value) == f"runs_on: argTypes must be two of {TYPES}"


def test_a_timestamp_argument_must_be_an_iso_8601_date() -> None:
    assert type_error("timestamp", "2023-06-01") is None
    assert type_error("timestamp", "2023-06-01T10:00:00Z") is None
    assert type_error("timestamp", "yesterday") == "'yesterday' is not an ISO-8601 timestamp"


@pytest.mark.parametrize(("arg_type", "value", "error"), [
    ("status", "  ", "'  ' is not a non-empty string"),
    ("type", "", "'' is not a non-empty string"),
    ("status", 5, "5 is not a non-empty string"),
    ("entity", None, "None is not a non-empty string"),
    ("status", "deprecated", None),
])
def test_status_type_and_entity_arguments_are_non_empty_strings(arg_type: str, value: Any, error: str | None) -> None:
    assert type_error(arg_type, value) == error


def test_objects_are_compared_as_minutes_epoch_ms_or_trimmed_lowercase_text() -> None:
    assert normalised_object("duration", "2 hours") == 120.0
    assert normalised_object("timestamp", "2023-06-01") == 1_685_577_600_000
    assert normalised_object("timestamp", "2023-06-01T00:00:01Z") == 1_685_577_601_000
    assert normalised_object("status", " Deprecated ") == "deprecated"
    assert normalised_object("value", 5) == 5
