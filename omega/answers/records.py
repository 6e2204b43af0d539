"""DS005 records: a fact's §4.1 JSON form (`Fact.to_dict()`) <-> the `omega.answers.Fact` record, an answer
contract (`AnswerContract.to_dict()`) <-> the `omega.answers.Answer` record, and the answer id.

Plain dicts matching their `schemas_avro/` records field for field (see the rule in `omega`'s docstring): the
record side is snake_case with typed envelope fields; nested JSON values (qualifiers, chain facts, conflicting
facts) travel as canonical JSON text (logicalType `omega.json`). Optional fields are always written, as null
when absent, and nothing ever writes null into a non-nullable field: the record either carries the value or
the conversion raises ValueError. `*_from_record` inverts `*_to_record` exactly, so a fact or a contract
round-trips to an equal dict.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from omega.canonical import canonical_json, derived_id

FACT_SCHEMA = "omega.answers.Fact"  # the schemas_avro/ records these builders match
ANSWER_SCHEMA = "omega.answers.Answer"
EPOCH = "1970-01-01T00:00:00Z"  # the event time of a record whose input carries none
# keys of Fact.to_dict() that have a typed Avro field; any other key travels in `extras`
_FACT_KEYS = frozenset({"factId", "span", "subject", "predicate", "object", "source", "qualifiers", "polarity",
                        "confidence"})


def _json_map(value: Mapping[str, Any] | None) -> dict[str, str] | None:
    return None if not value else {str(k): canonical_json(v) for k, v in value.items()}


def _from_json_map(value: Mapping[str, str] | None) -> dict[str, Any]:
    return {} if value is None else {k: json.loads(v) for k, v in value.items()}


def _required(value: Mapping[str, Any], key: str) -> Any:
    """A mandatory field; missing or null is an error rather than a null written into a non-nullable field."""
    got = value.get(key)
    if got is None:
        raise ValueError(f"missing mandatory field {key!r}")
    return got


def fact_to_record(fact: Mapping[str, Any], event_time: str) -> dict[str, Any]:
    """A fact in its §4.1 JSON form (`Fact.to_dict()`) -> an `omega.answers.Fact` datum."""
    qualifiers = dict(fact.get("qualifiers") or {})
    version = qualifiers.pop("version", None)  # lifted into the typed field, not repeated in qualifiers
    span, source = _required(fact, "span"), _required(fact, "source")
    obj = _required(fact, "object")
    if not isinstance(obj, (str, int, float, bool)):
        raise ValueError(f"fact object must be a JSON scalar, got {type(obj).__name__}")
    confidence = fact.get("confidence")
    return {
        "fact_id": str(_required(fact, "factId")),
        "event_time": event_time,
        "span": {"start": int(_required(span, "start")), "end": int(_required(span, "end"))},
        "subject": str(_required(fact, "subject")),
        "predicate": str(_required(fact, "predicate")),
        "object": obj,
        "source": {"doc_id": str(_required(source, "docId")), "chunk_id": str(_required(source, "chunkId"))},
        "version": None if version is None else str(version),
        "qualifiers": _json_map(qualifiers),
        "polarity": fact.get("polarity"),
        "confidence": None if confidence is None else float(confidence),
        "extras": _json_map({k: v for k, v in fact.items() if k not in _FACT_KEYS}),
    }


def fact_from_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """An `omega.answers.Fact` datum -> the §4.1 JSON form (`Fact.to_dict()`); event_time is dropped."""
    qualifiers = _from_json_map(record.get("qualifiers"))
    if record.get("version") is not None:
        qualifiers["version"] = record["version"]
    out: dict[str, Any] = {
        "factId": record["fact_id"],
        "span": {"start": record["span"]["start"], "end": record["span"]["end"]},
        "subject": record["subject"],
        "predicate": record["predicate"],
        "object": record["object"],
        "source": {"docId": record["source"]["doc_id"], "chunkId": record["source"]["chunk_id"]},
        "qualifiers": qualifiers,
    }
    if record.get("polarity") is not None:
        out["polarity"] = record["polarity"]
    if record.get("confidence") is not None:
        out["confidence"] = record["confidence"]
    out.update(_from_json_map(record.get("extras")))
    return out


def answer_id_of(question_id: str, plan: Mapping[str, Any], contract: Mapping[str, Any]) -> str:
    """Deterministic answer id: question id, canonical plan, and the sorted ids of the facts used (chain and
    conflicts), so a redelivery gives the same id and a grown corpus that changes the evidence a new one."""
    used = {str(step["factId"]) for step in contract.get("factChain") or ()}
    for conflict in contract.get("conflicts") or ():
        used.update(str(conflict[side].get("factId", canonical_json(conflict[side]))) for side in ("fact1", "fact2"))
    return derived_id("ans_", question_id, canonical_json(dict(plan)), *sorted(used))


def answer_to_record(contract: Mapping[str, Any], question_id: str, plan: Mapping[str, Any],
                     event_time: str | None) -> dict[str, Any]:
    """An answer contract (`AnswerContract.to_dict()`) -> an `omega.answers.Answer` datum."""
    return {
        "answer_id": answer_id_of(question_id, plan, contract),
        "question_id": question_id,
        "event_time": event_time or EPOCH,
        "text": contract.get("text"),
        "verdict": str(_required(contract, "verdict")),
        "chunksUsed": [str(c) for c in contract.get("chunksUsed") or ()],
        "factChain": [{"factId": str(s["factId"]), "role": str(s["role"]), "fact": canonical_json(s["fact"])}
                      for s in contract.get("factChain") or ()],
        "supportScores": {str(k): float(v) for k, v in (contract.get("supportScores") or {}).items()},
        "conflicts": [{"fact1": canonical_json(c["fact1"]), "fact2": canonical_json(c["fact2"]),
                       "reason": str(c["reason"])} for c in contract.get("conflicts") or ()],
        "reason": contract.get("reason"),
    }


def answer_from_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """An `omega.answers.Answer` datum -> the answer contract dict (envelope fields dropped)."""
    return {
        "text": record.get("text"),
        "verdict": record["verdict"],
        "chunksUsed": list(record["chunksUsed"]),
        "factChain": [{"factId": s["factId"], "role": s["role"], "fact": json.loads(s["fact"])}
                      for s in record["factChain"]],
        "supportScores": dict(record["supportScores"]),
        "conflicts": [{"fact1": json.loads(c["fact1"]), "fact2": json.loads(c["fact2"]), "reason": c["reason"]}
                      for c in record["conflicts"]],
        "reason": record.get("reason"),
    }
