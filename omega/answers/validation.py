"""`validate_and_filter`: §4.1 schema, §4.2 vocabulary with argument types, §4.3 span validation.

Every refused candidate comes back as a Rejection with all its reasons (never silently dropped). Codes:
UNPARSEABLE, SCHEMA_INVALID, SOURCE_MISMATCH, UNKNOWN_PREDICATE, ARG_TYPE_MISMATCH, SPAN_OUT_OF_RANGE,
SUBJECT_NOT_IN_SPAN, NUMBER_NOT_VERBATIM, POLARITY_MISMATCH, CONFIDENCE_OUT_OF_RANGE.
Choice: a fact without `qualifiers.version` inherits its chunk's (document) version (§4.4 "often copied from
document metadata"). A version is kept as written, the fact's own or the document's (any string passes §4.1);
it is compared only in canonical form (`Fact.version_key`, `omega.answers.versions`), so a fact written `2.0`
in a document versioned `v2.0` is in that document's version. Manual facts whose chunk text is unknown skip the
§4.3 checks (they are the gold baseline of §8) but pass §4.1 and §4.2.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from omega.answers.extraction import Unparseable
from omega.answers.model import POLARITIES, Chunk, Fact, Rejection, fact_from_dict
from omega.answers.text import contains_entity, is_negated, numbers_in
from omega.answers.vocabulary import Vocabulary, type_error

Reason = tuple[str, str, str | None]


def _schema(candidate: Mapping[str, Any]) -> list[Reason]:
    """§4.1 mandatory and optional fields, with their types."""
    reasons: list[Reason] = []
    span = candidate.get("span")
    if not (isinstance(span, Mapping) and all(type(span.get(k)) is int for k in ("start", "end"))):
        reasons.append(("SCHEMA_INVALID", "span must be {start, end} integers", "span"))
    for name in ("subject", "predicate"):
        if not isinstance(candidate.get(name), str) or not candidate[name]:
            reasons.append(("SCHEMA_INVALID", f"{name} must be a non-empty string", name))
    if not isinstance(candidate.get("object"), str | int | float | bool):
        reasons.append(("SCHEMA_INVALID", "object must be a string, number or boolean", "object"))
    source = candidate.get("source")
    if not (isinstance(source, Mapping) and all(isinstance(source.get(k), str) and source[k]
                                                for k in ("docId", "chunkId"))):
        reasons.append(("SCHEMA_INVALID", "source must be {docId, chunkId} strings", "source"))
    if candidate.get("polarity") is not None and candidate["polarity"] not in POLARITIES:
        reasons.append(("SCHEMA_INVALID", "polarity must be affirm or negate", "polarity"))
    if not isinstance(candidate.get("qualifiers") or {}, Mapping):
        reasons.append(("SCHEMA_INVALID", "qualifiers must be an object", "qualifiers"))
    elif (candidate.get("qualifiers") or {}).get("version") is not None \
            and not isinstance(candidate["qualifiers"]["version"], str):
        reasons.append(("SCHEMA_INVALID", "qualifiers.version must be a string", "qualifiers.version"))
    confidence = candidate.get("confidence")
    if confidence is not None and (isinstance(confidence, bool) or not isinstance(confidence, int | float)
                                   or not 0.0 <= confidence <= 1.0):
        reasons.append(("CONFIDENCE_OUT_OF_RANGE", f"confidence {confidence!r} is not a number in [0, 1]",
                        "confidence"))
    return reasons


def _vocabulary(candidate: Mapping[str, Any], vocabulary: Vocabulary) -> list[Reason]:
    """§4.2: the predicate is declared and both arguments have its declared types."""
    types = vocabulary.get(candidate["predicate"])
    if types is None:
        return [("UNKNOWN_PREDICATE", f"{candidate['predicate']!r} is not in the predicate vocabulary", "predicate")]
    reasons: list[Reason] = []
    for name, arg_type in zip(("subject", "object"), types, strict=True):
        error = type_error(arg_type, candidate[name])
        if error:
            reasons.append(("ARG_TYPE_MISMATCH", f"{name} ({arg_type}): {error}", name))
    return reasons


def _span(candidate: Mapping[str, Any], chunk: Chunk) -> list[Reason]:
    """§4.3 evidence hygiene: span inside the chunk, subject in it, numbers verbatim, polarity vs negation."""
    start, end = candidate["span"]["start"], candidate["span"]["end"]
    if not 0 <= start < end <= len(chunk.text):
        return [("SPAN_OUT_OF_RANGE", f"span [{start}, {end}) is outside the chunk (length {len(chunk.text)})",
                 "span")]
    text = chunk.text[start:end]
    reasons: list[Reason] = []
    if not contains_entity(text, candidate["subject"]):
        reasons.append(("SUBJECT_NOT_IN_SPAN", f"subject {candidate['subject']!r} does not appear in the span",
                        "subject"))
    obj = candidate["object"]
    numbers = [] if isinstance(obj, bool) else numbers_in(str(obj))
    written = set(numbers_in(text))
    missing = [n for n in numbers if n not in written]
    if missing:
        reasons.append(("NUMBER_NOT_VERBATIM", f"number(s) {', '.join(missing)} not written in the span", "object"))
    negate = (candidate.get("polarity") or "affirm") == "negate"
    if is_negated(text) != negate:
        said = "negates" if is_negated(text) else "does not negate"
        reasons.append(("POLARITY_MISMATCH", f"the span {said} but polarity is {'negate' if negate else 'affirm'}",
                        "polarity"))
    return reasons


def validate_one(candidate: Any, chunk: Chunk | None, vocabulary: Vocabulary) -> Fact | list[Reason]:
    """A Fact, or every reason the candidate fails (schema first: later checks need its fields)."""
    if isinstance(candidate, Unparseable):
        return [("UNPARSEABLE", candidate.error, None)]
    if not isinstance(candidate, Mapping):
        return [("SCHEMA_INVALID", f"a fact is a JSON object, got {type(candidate).__name__}", None)]
    reasons = _schema(candidate)
    if reasons:
        return reasons
    reasons = _vocabulary(candidate, vocabulary)
    if chunk is not None:
        if candidate["source"]["chunkId"] != chunk.chunk_id or candidate["source"]["docId"] != chunk.doc_id:
            reasons.append(("SOURCE_MISMATCH", f"source is not chunk {chunk.chunk_id} of {chunk.doc_id}", "source"))
        reasons += _span(candidate, chunk)
    if reasons:
        return reasons
    qualifiers = dict(candidate.get("qualifiers") or {})
    if qualifiers.get("version") is None and chunk is not None and chunk.version is not None:
        qualifiers["version"] = chunk.version
    fact = {k: v for k, v in candidate.items() if k != "factId"}
    fact["qualifiers"] = qualifiers
    return fact_from_dict(fact)


def validate_and_filter(candidates: Sequence[Any], chunk: Chunk | None, vocabulary: Vocabulary,
                        doc_id: str = "", chunk_id: str = "") -> tuple[list[Fact], list[Rejection]]:
    """Split candidates into validated facts and rejections with reasons; order is kept, duplicates merged."""
    facts: dict[str, Fact] = {}
    rejections: list[Rejection] = []
    for candidate in candidates:
        result = validate_one(candidate, chunk, vocabulary)
        if isinstance(result, Fact):
            facts.setdefault(result.fact_id, result)
            continue
        raw = candidate.raw if isinstance(candidate, Unparseable) else candidate
        source = candidate.get("source") if isinstance(candidate, Mapping) else None
        where = source if isinstance(source, Mapping) else {}
        rejections.append(Rejection(raw, str(where.get("docId") or (chunk.doc_id if chunk else doc_id)),
                                    str(where.get("chunkId") or (chunk.chunk_id if chunk else chunk_id)),
                                    tuple(result)))
    return list(facts.values()), rejections
