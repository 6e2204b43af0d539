"""§4.2 predicate vocabulary with argument types, and the checks of an object against its declared type.

Choice: relational predicates (object type `entity`) are multi-valued — "X requires A" and "X requires B"
agree — so their conflict key includes the object; every other predicate is functional (§4.4 default key).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from omega.answers.evaluators import duration_minutes, timestamp_ms
from omega.answers.text import canonical_entity

DEFAULT_VOCABULARY: dict[str, tuple[str, str]] = {
    "expires_after": ("entity", "duration"),
    "valid_for": ("entity", "duration"),
    "created_at": ("entity", "timestamp"),
    "requires": ("entity", "entity"),
    "contains": ("entity", "entity"),
    "part_of": ("entity", "entity"),
    "has_value": ("entity", "value"),
    "has_type": ("entity", "type"),
    "has_status": ("entity", "status"),
}
ARG_TYPES = frozenset({"entity", "duration", "timestamp", "value", "type", "status"})
Vocabulary = Mapping[str, tuple[str, str]]


class VocabularyError(ValueError):
    """A vocabulary that is not `{predicate: {argTypes: [subjectType, objectType]}}` over known types."""


def vocabulary_from_dict(value: Any) -> dict[str, tuple[str, str]]:
    """Parse `{predicate: {argTypes: [..., ...]}}` (the spec's shape); raises VocabularyError."""
    if not isinstance(value, Mapping) or not value:
        raise VocabularyError("predicateVocabulary must be a non-empty object")
    out: dict[str, tuple[str, str]] = {}
    for name, entry in value.items():
        types = entry.get("argTypes") if isinstance(entry, Mapping) else None
        if not isinstance(types, list) or len(types) != 2 or not all(t in ARG_TYPES for t in types):
            raise VocabularyError(f"{name}: argTypes must be two of {sorted(ARG_TYPES)}")
        out[str(name)] = (str(types[0]), str(types[1]))
    return out


def type_error(arg_type: str, value: object) -> str | None:
    """Why `value` is not of `arg_type`, or None when it is."""
    if arg_type == "duration":
        return None if duration_minutes(value) is not None else f"{value!r} is not a duration"
    if arg_type == "timestamp":
        return None if timestamp_ms(value) is not None else f"{value!r} is not an ISO-8601 timestamp"
    if arg_type == "value":
        return None if isinstance(value, str | int | float | bool) else f"{value!r} is not a scalar"
    if not isinstance(value, str) or not value.strip():
        return f"{value!r} is not a non-empty string"
    if arg_type == "entity" and canonical_entity(value) != value:
        return f"{value!r} is not a canonical entity (expected {canonical_entity(value)!r})"
    return None


def normalised_object(arg_type: str, value: object) -> object:
    """The object in comparable form: durations in minutes, timestamps in ms, strings lowercased."""
    if arg_type == "duration":
        return duration_minutes(value)
    if arg_type == "timestamp":
        return timestamp_ms(value)
    return value.strip().lower() if isinstance(value, str) else value


def is_multi_valued(vocabulary: Vocabulary, predicate: str) -> bool:
    """Relational predicates may hold several objects at once (their conflict key includes the object)."""
    types = vocabulary.get(predicate)
    return types is not None and types[1] == "entity"
