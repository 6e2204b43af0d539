"""A paragraph to verify, read from the JSON a generator (or the CLI's file) sends:

    {"paragraph_id", "version" (default 1), "event_time" (optional), "paragraph_spec" (optional object),
     "allowed_fact_ids" (optional: default every known fact), "facts" (optional: embedded Atomic Facts),
     "sentences": [{"order", "text", "edited_by_user" (optional), "expected_supported" (optional)}],
     "expected_verified" (optional)}

Embedded facts take precedence over the facts known from elsewhere (the facts topic, the file's `facts`).
The request then carries the content of its allowed facts, so its verdict is a function of the request alone.
Expected labels are evaluation data: they never reach the judgement or the request hash.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from omega.canonical import canonical_json, content_hash
from omega.grounding.facts import AtomicFact, FactError, parse_fact
from omega.grounding.verdict import Evidence, Sentence

EPOCH = "1970-01-01T00:00:00+00:00"
MAX_SENTENCES = 200
REQUEST_KEYS = frozenset({"paragraph_id", "version", "event_time", "paragraph_spec", "allowed_fact_ids", "facts",
                          "sentences", "expected_verified"})
SENTENCE_KEYS = frozenset({"order", "text", "edited_by_user", "expected_supported"})


class RequestError(ValueError):
    """A paragraph request that cannot be judged at all (its sentences can always be: FAIL with a reason)."""


@dataclass(frozen=True, slots=True)
class ParagraphRequest:
    """One version of a paragraph, its spec, allowed facts (with the known ones' content) and sentences."""

    paragraph_id: str
    version: int
    event_time: str
    paragraph_spec: Mapping[str, Any]
    allowed_fact_ids: tuple[str, ...]
    facts: tuple[AtomicFact, ...]
    sentences: tuple[Sentence, ...]
    expected_supported: tuple[bool | None, ...] = ()
    expected_verified: bool | None = None

    @property
    def evidence(self) -> Evidence:
        """The allowed ids and the known allowed facts."""
        return Evidence(frozenset(self.allowed_fact_ids), {f.id: f for f in self.facts})

    def to_record(self) -> dict[str, Any]:
        """Matches the `omega.grounding.GroundingRequest` record (labels left out)."""
        return {
            "paragraph_id": self.paragraph_id, "version": self.version, "event_time": self.event_time,
            "paragraph_spec": canonical_json(dict(self.paragraph_spec)),
            "allowed_fact_ids": list(self.allowed_fact_ids), "facts": [f.to_record() for f in self.facts],
            "sentences": [{"index": s.index, "text": s.text, "edited_by_user": s.edited_by_user, "extras": None}
                          for s in self.sentences],
            "extras": None,
        }

    @property
    def request_hash(self) -> str:
        """SHA-256 of the canonical request record."""
        return content_hash(self.to_record())


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RequestError(f"{what} must be an integer")
    return value


def _bool_or_none(value: object, what: str) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise RequestError(f"{what} must be true, false or absent")
    return value


def parse_sentences(raw: object) -> tuple[tuple[Sentence, ...], tuple[bool | None, ...]]:
    """Sentences in increasing `order`, and their expected labels; orders must be distinct integers."""
    if not isinstance(raw, list) or len(raw) > MAX_SENTENCES:
        raise RequestError(f"sentences must be a list of at most {MAX_SENTENCES} objects")
    parsed: list[tuple[Sentence, bool | None]] = []
    for number, item in enumerate(raw):
        if not isinstance(item, Mapping):
            raise RequestError(f"sentence {number} must be an object")
        order = _int(item.get("order"), f"sentence {number}: order")
        text = item.get("text")
        if not isinstance(text, str):
            raise RequestError(f"sentence {number}: text must be a string")
        edited = _bool_or_none(item.get("edited_by_user"), f"sentence {number}: edited_by_user")
        label = _bool_or_none(item.get("expected_supported"), f"sentence {number}: expected_supported")
        parsed.append((Sentence(order, text, bool(edited)), label))
    orders = [s.index for s, _ in parsed]
    if len(set(orders)) != len(orders):
        raise RequestError("sentence orders must be distinct")
    parsed.sort(key=lambda pair: pair[0].index)
    return tuple(s for s, _ in parsed), tuple(label for _, label in parsed)


def parse_facts(raw: object) -> dict[str, AtomicFact]:
    """A list of Atomic Facts by id; raises RequestError naming the bad fact."""
    if not isinstance(raw, list):
        raise RequestError("facts must be a list of Atomic Facts")
    facts: dict[str, AtomicFact] = {}
    for number, item in enumerate(raw):
        try:
            fact = parse_fact(item)
        except FactError as exc:
            raise RequestError(f"fact {number}: {exc}") from exc
        facts[fact.id] = fact
    return facts


def parse_request(obj: object, known: Mapping[str, AtomicFact], event_time: str = EPOCH) -> ParagraphRequest:
    """A paragraph request from its JSON object and the facts known beside it."""
    if not isinstance(obj, Mapping):
        raise RequestError("a paragraph must be a JSON object")
    paragraph_id = obj.get("paragraph_id")
    if not isinstance(paragraph_id, str) or not paragraph_id:
        raise RequestError("paragraph_id must be a non-empty string")
    version = _int(obj.get("version", 1), "version")
    if version < 1:
        raise RequestError("version must be at least 1")
    when = obj.get("event_time", event_time)
    spec = obj.get("paragraph_spec", {})
    if not isinstance(when, str) or not isinstance(spec, Mapping):
        raise RequestError("event_time must be a string and paragraph_spec an object")
    facts = {**known, **(parse_facts(obj["facts"]) if obj.get("facts") is not None else {})}
    allowed_raw = obj.get("allowed_fact_ids")
    if allowed_raw is None:
        allowed = tuple(sorted(facts))
    elif isinstance(allowed_raw, list) and all(isinstance(i, str) for i in allowed_raw):
        allowed = tuple(dict.fromkeys(allowed_raw))
    else:
        raise RequestError("allowed_fact_ids must be a list of strings")
    sentences, labels = parse_sentences(obj.get("sentences"))
    try:
        canonical_json(spec)
    except (TypeError, ValueError) as exc:
        raise RequestError(f"paragraph_spec is not JSON: {exc}") from exc
    return ParagraphRequest(
        paragraph_id, version, when, dict(spec), allowed, tuple(facts[i] for i in allowed if i in facts), sentences,
        labels, _bool_or_none(obj.get("expected_verified"), "expected_verified"))
