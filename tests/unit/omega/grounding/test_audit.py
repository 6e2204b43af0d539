"""§10 audit: every paragraph version is published with spec, allowed facts, sentences, cited facts, decision
and rationale; a projection rebuilds the paragraph's history from those events alone."""

from __future__ import annotations

import hashlib

from omega.grounding.audit import audit_record, reconstruct
from omega.grounding.paragraph import evolve
from omega.grounding.request import parse_request
from streams.wire.codec import SchemaRegistry
from tests.unit.omega.grounding.support import DIZZY, DIZZY_PLACEBO

REGISTRY = SchemaRegistry.from_directory()
GOOD = "Dizziness was reported by 8.4% of participants receiving drug A. [F3]"
BAD = "Dizziness was reported by 9% of participants receiving drug A. [F3]"


def _versions() -> list[dict[str, object]]:
    state = None
    records = []
    for version, text in ((1, BAD), (2, GOOD)):
        req = parse_request({"paragraph_id": "p1", "version": version, "paragraph_spec": {"section": "Safety"},
                             "allowed_fact_ids": ["F3", "F4"], "sentences": [{"order": 1, "text": text}]},
                            {"F3": DIZZY, "F4": DIZZY_PLACEBO})
        state, verdict = evolve(state, req)
        records.append(audit_record(verdict))
    return records


def test_audit_and_verdict_records_encode_with_their_avro_schemas_and_round_trip() -> None:
    for record in _versions():
        raw = REGISTRY.encode("omega.grounding.GroundingAuditEvent", record)
        assert REGISTRY.decode(raw) == ("omega.grounding.GroundingAuditEvent", record)


def test_an_audit_event_holds_the_spec_the_allowed_facts_and_each_decision_with_its_rationale() -> None:
    record = _versions()[0]
    assert record["paragraph_spec"] == '{"section":"Safety"}'
    assert [f["id"] for f in record["allowed_facts"]] == ["F3", "F4"]  # type: ignore[attr-defined]
    [sentence] = record["sentences"]  # type: ignore[misc]
    assert sentence["cited_fact_ids"] == ["F3"]
    assert sentence["outcome"] == "FAIL"
    assert sentence["rationale"].startswith("NUMERIC_MISMATCH")


def test_a_projection_rebuilds_the_paragraph_history_from_decoded_audit_events() -> None:
    decoded = [REGISTRY.decode(REGISTRY.encode("omega.grounding.GroundingAuditEvent", r))[1] for r in _versions()]
    history = reconstruct([decoded[1], decoded[0], decoded[1]])  # out of order and redelivered
    [(paragraph, versions)] = history.items()
    assert paragraph == "p1"
    assert [(v["version"], v["verified"]) for v in versions] == [(1, False), (2, True)]
    assert versions[0]["sentences"][0]["failure_modes"] == ["NUMERIC_MISMATCH"]
    assert versions[1]["sentences"][0]["cited_facts"] == {"F3": DIZZY.content}
    assert versions[1]["paragraph_spec"] == {"section": "Safety"}


def test_the_resolved_request_hashed_for_the_verdict_id_is_a_valid_grounding_request_record() -> None:
    req = parse_request({"paragraph_id": "p1", "sentences": [{"order": 1, "text": GOOD}]}, {"F3": DIZZY})
    raw = REGISTRY.encode("omega.grounding.GroundingRequest", req.to_record())
    assert REGISTRY.decode(raw)[1] == req.to_record()


def test_the_audit_id_derives_from_the_verdict_id_with_the_ga_prefix() -> None:
    records = _versions()
    for record in records:
        digest = hashlib.sha256(str(record["verdict_id"]).encode("utf-8")).hexdigest()[:32]
        assert record["audit_id"] == f"ga_{digest}"
    assert records[0]["audit_id"] != records[1]["audit_id"]


def test_a_reconstructed_version_names_every_part_of_the_decision() -> None:
    records = _versions()
    history = reconstruct(records)
    for record, rebuilt in zip(records, history["p1"], strict=True):
        [sentence] = record["sentences"]  # type: ignore[misc]
        assert rebuilt == {
            "version": record["version"], "verdict_id": record["verdict_id"], "paragraph_spec": {"section": "Safety"},
            "allowed_fact_ids": ["F3", "F4"], "verified": record["paragraph_verified"],
            "sentences": [{"index": 1, "text": sentence["text"], "outcome": sentence["outcome"],
                           "rationale": sentence["rationale"], "cited_facts": {"F3": DIZZY.content},
                           "failure_modes": [f["code"] for f in sentence["failures"]]}],
        }
    assert [v["sentences"][0]["text"] for v in history["p1"]] == [BAD, GOOD]
    assert [v["sentences"][0]["outcome"] for v in history["p1"]] == ["FAIL", "PASS"]
    assert history["p1"][1]["sentences"][0]["rationale"].startswith("entailed by F3")
