"""The DS005 data model: chunks, facts (§4.1), rejections, query plans (§5.1) and their JSON forms.

JSON forms keep the spec's camelCase field names (`docId`, `chunkId`, `factId`); a fact's version lives in
`qualifiers.version` as the spec says, and is lifted into `Fact.version` because conflict keys and version
filters read it on every query. `version` fields (chunk, fact, given plan) hold the producer's spelling, as
written; comparisons read its canonical form (`Fact.version_key`, `omega.answers.versions`), never the spelling.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from omega.answers.versions import version_key
from omega.canonical import canonical_json, derived_id

Scalar = str | int | float | bool
POLARITIES = ("affirm", "negate")


@dataclass(frozen=True)
class Chunk:
    """A piece of a document: its stable id, the document, version and text, and where it starts."""

    chunk_id: str
    doc_id: str
    version: str | None
    index: int
    start: int
    text: str


@dataclass(frozen=True)
class Fact:
    """A validated fact (§4.1); `qualifiers` holds everything but the version, values as JSON values."""

    fact_id: str
    subject: str
    predicate: str
    object: Scalar
    doc_id: str
    chunk_id: str
    span_start: int
    span_end: int
    version: str | None = None
    polarity: str = "affirm"
    confidence: float | None = None
    qualifiers: tuple[tuple[str, Any], ...] = ()

    @property
    def version_key(self) -> str | None:
        """The canonical version (what version filters and conflict reasons compare); `version` keeps the
        spelling as written (display, audit, the fact id)."""
        return version_key(self.version)

    def to_dict(self) -> dict[str, Any]:
        """The spec's JSON form: span, subject, predicate, object, source, qualifiers, polarity, confidence."""
        qualifiers = dict(self.qualifiers)
        if self.version is not None:
            qualifiers["version"] = self.version
        out: dict[str, Any] = {
            "factId": self.fact_id,
            "span": {"start": self.span_start, "end": self.span_end},
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "source": {"docId": self.doc_id, "chunkId": self.chunk_id},
            "qualifiers": qualifiers,
            "polarity": self.polarity,
        }
        if self.confidence is not None:
            out["confidence"] = self.confidence
        return out

    @property
    def condition(self) -> Any:
        """The `condition` qualifier (part of the conflict key, §4.4), or None."""
        return dict(self.qualifiers).get("condition")


def fact_id_of(subject: str, predicate: str, obj: Scalar, polarity: str, doc_id: str, chunk_id: str,
               start: int, end: int, version: str | None, qualifiers: Mapping[str, Any]) -> str:
    """Deterministic fact id: a hash of the source, span and normalised triple (redelivery gives the same id).
    The version enters as written, not canonical: ids stay what they were before versions were canonicalised,
    and the chunk id (part of the hash) carries the document's spelling anyway."""
    return derived_id("fact_", doc_id, chunk_id, str(start), str(end), subject, predicate,
                      canonical_json(obj), polarity, version or "", canonical_json(dict(qualifiers)))


def fact_from_dict(value: Mapping[str, Any]) -> Fact:
    """A Fact from its (already validated) JSON form; the id is recomputed when absent."""
    qualifiers = dict(value.get("qualifiers") or {})
    version = qualifiers.pop("version", None)
    span, source = value["span"], value["source"]
    polarity = value.get("polarity") or "affirm"
    fid = value.get("factId") or fact_id_of(value["subject"], value["predicate"], value["object"], polarity,
                                             source["docId"], source["chunkId"], span["start"], span["end"],
                                             None if version is None else str(version), qualifiers)
    confidence = value.get("confidence")
    return Fact(
        fact_id=str(fid), subject=value["subject"], predicate=value["predicate"], object=value["object"],
        doc_id=source["docId"], chunk_id=source["chunkId"], span_start=int(span["start"]), span_end=int(span["end"]),
        version=None if version is None else str(version), polarity=polarity,
        confidence=None if confidence is None else float(confidence),
        qualifiers=tuple(sorted(qualifiers.items())),
    )


@dataclass(frozen=True)
class Rejection:
    """A candidate the validator refused, with every reason (code, message, field)."""

    candidate: Any
    doc_id: str
    chunk_id: str
    reasons: tuple[tuple[str, str, str | None], ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON form: candidate, source and reasons [{code, message, field}]."""
        return {
            "candidate": self.candidate,
            "source": {"docId": self.doc_id, "chunkId": self.chunk_id},
            "reasons": [{"code": c, "message": m, "field": f} for c, m, f in self.reasons],
        }


@dataclass(frozen=True)
class QueryPlan:
    """§5.1 structured query plan; every field optional. `goal` is a pattern dict (values may be '?vars').
    `version` is kept as given (a given plan's spelling; the planner gives the canonical form)."""

    version: str | None = None
    subjects: tuple[str, ...] = ()
    predicates: tuple[str, ...] = ()
    goal: Mapping[str, Any] | None = None
    params: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form with only the fields that are set."""
        out: dict[str, Any] = {}
        if self.version is not None:
            out["version"] = self.version
        if self.subjects:
            out["subjects"] = list(self.subjects)
        if self.predicates:
            out["predicates"] = list(self.predicates)
        if self.goal is not None:
            out["goal"] = dict(self.goal)
        if self.params:
            out["params"] = dict(self.params)
        return out


PLAN_FIELDS = frozenset({"version", "subjects", "predicates", "goal", "params"})
GOAL_FIELDS = frozenset({"subject", "predicate", "object", "qualifiers"})


class PlanError(ValueError):
    """A plan that does not follow §5.1 (unknown field, wrong type)."""


def plan_from_dict(value: Any) -> QueryPlan:
    """Strictly validate a §5.1 plan (allowed fields and types only, §5.2) and build it; raises PlanError."""
    if not isinstance(value, Mapping):
        raise PlanError("a plan is a JSON object")
    unknown = sorted(set(value) - PLAN_FIELDS)
    if unknown:
        raise PlanError(f"unknown plan field(s): {', '.join(unknown)}")
    version = value.get("version")
    if version is not None and not isinstance(version, str):
        raise PlanError("plan.version must be a string")
    lists = {}
    for name in ("subjects", "predicates"):
        items = value.get(name) or []
        if not isinstance(items, list) or not all(isinstance(i, str) and i for i in items):
            raise PlanError(f"plan.{name} must be a list of non-empty strings")
        lists[name] = tuple(items)
    goal = value.get("goal")
    if goal is not None:
        if not isinstance(goal, Mapping) or "predicate" not in goal:
            raise PlanError("plan.goal must be an object with a predicate")
        extra = sorted(set(goal) - GOAL_FIELDS)
        if extra:
            raise PlanError(f"unknown goal field(s): {', '.join(extra)}")
    params = value.get("params") or {}
    if not isinstance(params, Mapping):
        raise PlanError("plan.params must be an object")
    return QueryPlan(version, lists["subjects"], lists["predicates"], None if goal is None else dict(goal),
                     dict(params))
