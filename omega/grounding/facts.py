"""§3.1 Atomic Facts with provenance, validated on entry. PDF-derived and manual facts have one shape and are
judged alike (§8): `source_type` is provenance, never a reason to trust a fact more.

A fact's qualifiers (§3.1 "population, setting, timeframe, method, measurement units") are a JSON object of
strings; their text is part of what the fact states, so a cited fact covers the words of its qualifiers too.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from omega.canonical import canonical_json
from omega.grounding.tokens import Analysis, analyse

SOURCE_TYPES = ("PDF", "MANUAL")
FACT_KEYS = frozenset({"id", "content", "source_type", "source_span", "qualifiers", "confidence", "event_time"})
SPAN_KEYS = frozenset({"document_id", "page", "start_char", "end_char", "quote"})


class FactError(ValueError):
    """An Atomic Fact that does not satisfy the §3.1 schema."""


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """§3.1 source_span: where the source states the fact."""

    document_id: str
    page: int | None = None
    start_char: int | None = None
    end_char: int | None = None
    quote: str | None = None
    extras: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class AtomicFact:
    """A §3.1 Atomic Fact; `analysis` covers its content and the text of its qualifiers."""

    id: str
    content: str
    source_type: str
    source_span: SourceSpan
    qualifiers: Mapping[str, Any]
    confidence: float
    event_time: str | None = None
    extras: Mapping[str, Any] | None = None

    @property
    def statement(self) -> str:
        """Content plus qualifier values: all the text the fact states."""
        return " ".join([self.content, *(qualifier_text(v) for v in self.qualifiers.values())])

    @property
    def analysis(self) -> Analysis:
        """The analysed statement (computed once per fact and cached by `analysed`)."""
        return analysed(self)

    def to_json(self) -> dict[str, Any]:
        """The fact as a producer writes it (qualifiers as an object); `parse_fact` reads it back."""
        span = self.source_span
        out: dict[str, Any] = {
            "id": self.id, "content": self.content, "source_type": self.source_type,
            "source_span": {"document_id": span.document_id, "page": span.page, "start_char": span.start_char,
                            "end_char": span.end_char, "quote": span.quote, **dict(span.extras or {})},
            "qualifiers": dict(self.qualifiers), "confidence": self.confidence, **dict(self.extras or {}),
        }
        if self.event_time is not None:
            out["event_time"] = self.event_time
        return out

    def to_record(self) -> dict[str, Any]:
        """Matches the `omega.grounding.AtomicFact` record: JSON values as canonical text, no null where the
        schema has none."""
        span = self.source_span
        return {
            "id": self.id, "content": self.content, "source_type": self.source_type,
            "source_span": {"document_id": span.document_id, "page": span.page, "start_char": span.start_char,
                            "end_char": span.end_char, "quote": span.quote, "extras": _extras(span.extras)},
            "qualifiers": canonical_json(dict(self.qualifiers)), "confidence": float(self.confidence),
            "event_time": self.event_time, "extras": _extras(self.extras),
        }


_ANALYSES: dict[tuple[str, str], Analysis] = {}


_BY_OBJECT: dict[int, tuple[AtomicFact, Analysis]] = {}


def analysed(fact: AtomicFact) -> Analysis:
    """The fact's analysis, memoised by id and statement (facts are immutable values); the same fact object,
    asked again by the next check, is answered without rebuilding its statement."""
    held = _BY_OBJECT.get(id(fact))
    if held is not None and held[0] is fact:  # the entry holds the fact, so its id cannot have been reused
        return held[1]
    if len(_BY_OBJECT) > 100_000:
        _BY_OBJECT.clear()
    found = _by_statement(fact)
    _BY_OBJECT[id(fact)] = (fact, found)
    return found


def _by_statement(fact: AtomicFact) -> Analysis:
    key = (fact.id, fact.statement)
    found = _ANALYSES.get(key)
    if found is None:
        if len(_ANALYSES) > 100_000:
            _ANALYSES.clear()  # a bound, not a policy: a re-analysis is only slower
        found = _ANALYSES[key] = analyse(fact.content, [qualifier_text(v) for v in fact.qualifiers.values()])
    return found


def qualifier_text(value: object) -> str:
    """A qualifier value as text (strings as is, anything else as canonical JSON)."""
    return value if isinstance(value, str) else canonical_json(value)


def _extras(extras: Mapping[str, Any] | None) -> dict[str, str] | None:
    return {k: canonical_json(v) for k, v in extras.items()} if extras else None


def _optional_int(span: Mapping[str, Any], key: str) -> int | None:
    value = span.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise FactError(f"source_span.{key} must be an integer or null")
    return value


def parse_fact(obj: object) -> AtomicFact:
    """Validate a fact dict (§3.1 schema); raises FactError with a readable reason."""
    if not isinstance(obj, Mapping):
        raise FactError(f"a fact must be an object, got {type(obj).__name__}")
    fact_id, content = obj.get("id"), obj.get("content")
    if not isinstance(fact_id, str) or not fact_id.strip() or "[" in fact_id or "]" in fact_id:
        raise FactError("fact id must be a non-empty string without brackets")
    if not isinstance(content, str) or not content.strip():
        raise FactError(f"fact {fact_id}: content must be a non-empty string")
    source_type = obj.get("source_type")
    if source_type not in SOURCE_TYPES:
        raise FactError(f"fact {fact_id}: source_type must be PDF or MANUAL, got {source_type!r}")
    span = obj.get("source_span")
    if not isinstance(span, Mapping) or not isinstance(span.get("document_id"), str):
        raise FactError(f"fact {fact_id}: source_span must be an object with a document_id string")
    quote = span.get("quote")
    if quote is not None and not isinstance(quote, str):
        raise FactError(f"fact {fact_id}: source_span.quote must be a string or null")
    qualifiers = obj.get("qualifiers", {})
    if not isinstance(qualifiers, Mapping):
        raise FactError(f"fact {fact_id}: qualifiers must be a JSON object")
    confidence = obj.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not math.isfinite(confidence) \
            or not 0.0 <= confidence <= 1.0:
        raise FactError(f"fact {fact_id}: confidence must be a number in [0, 1]")
    event_time = obj.get("event_time")
    if event_time is not None and not isinstance(event_time, str):
        raise FactError(f"fact {fact_id}: event_time must be a string or null")
    try:
        canonical_json(qualifiers)
    except (TypeError, ValueError) as exc:
        raise FactError(f"fact {fact_id}: qualifiers are not JSON: {exc}") from exc
    return AtomicFact(
        id=fact_id, content=content, source_type=source_type,
        source_span=SourceSpan(span["document_id"], _optional_int(span, "page"), _optional_int(span, "start_char"),
                               _optional_int(span, "end_char"), quote,
                               {k: v for k, v in span.items() if k not in SPAN_KEYS} or None),
        qualifiers=dict(qualifiers), confidence=float(confidence), event_time=event_time,
        extras={k: v for k, v in obj.items() if k not in FACT_KEYS} or None,
    )


def fact_from_record(record: Mapping[str, Any]) -> AtomicFact:
    """An `omega.grounding.AtomicFact` record (as decoded) back to the fact."""
    span = record["source_span"]
    return AtomicFact(
        id=record["id"], content=record["content"], source_type=record["source_type"],
        source_span=SourceSpan(span["document_id"], span.get("page"), span.get("start_char"), span.get("end_char"),
                               span.get("quote"),
                               {k: json.loads(v) for k, v in (span.get("extras") or {}).items()} or None),
        qualifiers=json.loads(record["qualifiers"]), confidence=record["confidence"],
        event_time=record.get("event_time"),
        extras={k: json.loads(v) for k, v in (record.get("extras") or {}).items()} or None,
    )
