"""§10 audit: for every paragraph version, one event with the Paragraph Spec, the allowed facts (content and
provenance), each sentence, its cited facts, and the decision with its rationale; and the projection that
rebuilds any paragraph's history from those events alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from omega.canonical import canonical_json, derived_id
from omega.grounding.model import CONTRACT_VERSION
from omega.grounding.paragraph import ParagraphVerdict


def audit_record(verdict: ParagraphVerdict) -> dict[str, Any]:
    """Matches the `omega.grounding.GroundingAuditEvent` record; its id derives from the verdict's."""
    request = verdict.request
    return {
        "audit_id": derived_id("ga_", verdict.verdict_id), "event_time": request.event_time,
        "paragraph_id": request.paragraph_id, "version": request.version, "verdict_id": verdict.verdict_id,
        "request_hash": verdict.request_hash, "contract_version": CONTRACT_VERSION,
        "paragraph_spec": canonical_json(dict(request.paragraph_spec)),
        "allowed_fact_ids": list(request.allowed_fact_ids), "allowed_facts": [f.to_record() for f in request.facts],
        "sentences": [s.to_record() for s in verdict.sentences], "paragraph_verified": verdict.verified,
    }


def reconstruct(records: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each paragraph's history, version by version (a redelivered event counts once; a later event for the
    same version replaces it), from audit records as decoded."""
    versions: dict[str, dict[int, dict[str, Any]]] = {}
    for record in records:
        facts = {f["id"]: f["content"] for f in record["allowed_facts"]}
        versions.setdefault(record["paragraph_id"], {})[int(record["version"])] = {
            "version": record["version"], "verdict_id": record["verdict_id"],
            "paragraph_spec": json.loads(record["paragraph_spec"]),
            "allowed_fact_ids": list(record["allowed_fact_ids"]), "verified": record["paragraph_verified"],
            "sentences": [{"index": s["index"], "text": s["text"], "outcome": s["outcome"],
                           "rationale": s["rationale"], "cited_facts": {i: facts.get(i) for i in s["cited_fact_ids"]},
                           "failure_modes": [f["code"] for f in s["failures"]]} for s in record["sentences"]],
        }
    return {pid: [by_version[v] for v in sorted(by_version)] for pid, by_version in sorted(versions.items())}
