"""The Avro contract of the four non-OMEN domains (OMEGA-57, Phase Q, grounded generation, DS005).

Pins: every schema file parses with its cross-file named types resolved; one realistic record per
top-level event (from the specs' own examples where they have one) survives a binary round trip;
every named type and field is documented; every public Phase Q case converts to an OracleCase.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import fastavro
import pytest
from fastavro.schema import load_schema

from tests.external_data import PHASE_Q_DEV, needs

ROOT = Path(__file__).resolve().parents[3]
SCHEMA_DIR = ROOT / "schemas_avro"
# the bundled examples (ours) stand for one case; the public cases are external data (tests.external_data)
EXAMPLE_CASES = ROOT / "examples" / "oracle" / "cases.ndjson"

NAMESPACES = ("omega.agents", "omega.oracle", "omega.grounding", "omega.answers")
DOMAIN_FILES = sorted(
    p for p in SCHEMA_DIR.glob("*.avsc") if p.name.startswith(tuple(f"{n}." for n in NAMESPACES))
)

TOP_LEVEL = {
    "omega.agents.AgentMessage",
    "omega.agents.TerminationReport",
    "omega.oracle.OracleCase",
    "omega.oracle.OracleVerdict",
    "omega.grounding.AtomicFact",
    "omega.grounding.GroundingRequest",
    "omega.grounding.GroundingVerdict",
    "omega.grounding.GroundingAuditEvent",
    "omega.answers.Document",
    "omega.answers.Fact",
    "omega.answers.FactRejection",
    "omega.answers.Question",
    "omega.answers.QueryPlan",
    "omega.answers.Answer",
}

# Keys of a Phase Q test-set line that OracleCase models as fields; anything else goes to extras.
CASE_KEYS = {"id", "category", "input", "candidate_output", "expected"}
INPUT_KEYS = {"context", "facts", "constraints"}
EXPECTED_KEYS = {
    "verdict", "must_find", "must_not_find", "contradiction_ids", "expected_props",
    "max_unsupported_claims", "notes",
}
T0 = "2026-01-26T09:00:00Z"
H = "0" * 63  # prefix of a fake SHA-256 hex digest


def js(value: Any) -> str:
    """Canonical JSON text, the encoding of the `omega.json` logical type."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def extras_of(obj: dict[str, Any], known: set[str]) -> dict[str, str] | None:
    """Unknown keys as canonical JSON text per key, or None when there are none."""
    extra = {k: js(v) for k, v in obj.items() if k not in known}
    return extra or None


def sha(n: int) -> str:
    return H + format(n % 16, "x")


def load(fullname: str) -> Any:
    return load_schema(str(SCHEMA_DIR / f"{fullname}.avsc"))


def round_trip(fullname: str, record: dict[str, Any]) -> dict[str, Any]:
    schema = load(fullname)
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, schema, record)
    buf.seek(0)
    out = fastavro.schemaless_reader(buf, schema, schema)
    assert buf.read() == b"", "reader left bytes unread"
    assert isinstance(out, dict)
    return out


def with_defaults(fullname: str, record: dict[str, Any]) -> dict[str, Any]:
    """The record as the reader returns it: omitted fields carry their schema default."""
    schema = load(fullname)
    return {f["name"]: record.get(f["name"], f.get("default")) for f in schema["fields"]}


def case_to_record(line: dict[str, Any], event_time: str) -> dict[str, Any]:
    """A Phase Q test-set line as an OracleCase record (the test-local twin of the ingress converter)."""
    inp = line["input"]
    record: dict[str, Any] = {
        "id": line["id"],
        "event_time": event_time,
        "category": line["category"],
        "input": {
            "context": inp["context"],
            "facts": inp["facts"],
            "constraints": inp["constraints"],
            "extras": extras_of(inp, INPUT_KEYS),
        },
        "candidate_output": line["candidate_output"],
        "expected": None,
        "extras": extras_of(line, CASE_KEYS),
    }
    exp = line.get("expected")
    if exp is not None:
        record["expected"] = {
            **{k: exp.get(k) for k in EXPECTED_KEYS},  # absent stays null, so the way back is lossless
            "extras": extras_of(exp, EXPECTED_KEYS),
        }
    return record


def record_to_case(record: dict[str, Any]) -> dict[str, Any]:
    """Back from an OracleCase record to the test-set line (drops event_time, restores extras)."""
    inp = record["input"]
    line: dict[str, Any] = {
        "id": record["id"],
        "category": record["category"],
        "input": {
            "context": inp["context"],
            "facts": inp["facts"],
            "constraints": inp["constraints"],
            **{k: json.loads(v) for k, v in (inp["extras"] or {}).items()},
        },
        "candidate_output": record["candidate_output"],
        **{k: json.loads(v) for k, v in (record["extras"] or {}).items()},
    }
    exp = record["expected"]
    if exp is not None:
        line["expected"] = {k: exp[k] for k in EXPECTED_KEYS if exp[k] is not None}
        line["expected"].update({k: json.loads(v) for k, v in (exp["extras"] or {}).items()})
    return line


# ---------------------------------------------------------------------------------------------------
# Examples, one per top-level record (compact on purpose: data, not logic)
# ---------------------------------------------------------------------------------------------------
# fmt: off

TIER0_VERDICT = "[SUPPORTS] Causal link confirmed with 2 confounders | CONF: 73% | FLAGS: none"  # §5.1


def agent_message() -> dict[str, Any]:
    # OMEGA-57 §2.1 message; the summary verdict is the Tier 0 example line of §5.1.
    return {
        "session_id": "sess-7f3a", "message_id": None,
        "header": {"agent_id": 33, "agent_name": "Causal Verifier", "agent_tier": "VERIFICATION",
                   "timestamp": "2026-01-26T09:14:03Z", "iteration": 2, "responding_to": "PHI_QUERY",
                   "extras": None},
        "summary": {"verdict": TIER0_VERDICT, "confidence": 0.73,
                    "confidence_basis": "two independent datasets", "extras": None},
        "body": {"tier": 0, "content": js({"claim": "X causes Y", "confounders": ["age", "dose"]}),
                 "extras": None},
        "dependencies": {"inputs_used": [{"agent_id": 2, "element": "cohort data summary",
                                          "how_used": "baseline rates", "extras": None}],
                         "outputs_for": [39, 57], "extras": None},
        "flags": {"contradiction_detected": True, "contradiction_with": 37, "requires_resolution": True,
                  "blocks_progress": False, "confidence_critical": False,
                  "extras": {"needs_input": js(False)}},
        "meta": {"tokens_used": 1834, "processing_notes": None, "extras": None},
        "references": [{"type": "CONTRADICTS", "source_agent": 37,
                        "source_element": "historical failure rate 80%",
                        "relationship": "newer data disagrees", "confidence_impact": "-0.05",
                        "extras": None}],
        "extras": {"model": js("some-llm-2026")},
    }


def termination_report() -> dict[str, Any]:
    # OMEGA-57 §6.5, PARTIAL branch.
    return {
        "report_id": "term-" + sha(1), "session_id": "sess-7f3a", "event_time": "2026-01-26T10:02:11Z",
        "status": "PARTIAL", "degradation_level": 2,
        "answer": None, "confidence": 0.55, "caveats": None, "supporting_evidence": None, "verified_by": None,
        "survived_attacks_from": None,
        "partial_answer": "X plausibly causes Y in adults over 60.", "answered": ["direction of effect"],
        "unanswered": ["effect size in under-60s"], "why_stopped": "diminishing returns over 2 iterations",
        "what_would_complete": "a cohort under 60",
        "failure_type": None, "what_was_attempted": None, "why_failed": None, "what_was_learned": None,
        "recommendation": None,
        "metrics": {"iterations": 4, "agents_deployed": 19, "total_tokens": 412_000,
                    "time_elapsed": "PT48M8S", "extras": None},
        "audit_trail": [
            {"timestamp": "2026-01-26T09:14:00Z", "event": "deployment batch 1", "extras": None},
            {"timestamp": "2026-01-26T10:02:11Z", "event": "terminated: partial", "extras": None},
        ],
        "extras": None,
    }


def oracle_case() -> dict[str, Any]:
    first = json.loads(EXAMPLE_CASES.read_text(encoding="utf-8").splitlines()[0])
    return case_to_record(first, T0)


def oracle_verdict() -> dict[str, Any]:
    # Q-CASE-0002 (unsupported radiation claim): Oracle-A fails it on RULE-PREC-001.
    step = {"step": "oracle_a/RULE-PREC-001", "input_hash": sha(2), "output_hash": sha(3),
            "rule_applied": "RULE-PREC-001", "verdict": "FAIL", "timestamp_deterministic": T0}
    ok = {"verdict": "PASS", "violations": [], "metrics": {}, "evidence": []}
    return {
        "verdict_id": "qv-" + sha(4), "event_time": T0, "id": "Q-CASE-0002", "category": "precision",
        "verdict": "FAIL",
        "oracles": {
            "A": {"verdict": "FAIL",
                  "violations": [{"invariant_id": "Q-INV-01", "rule_id": "RULE-PREC-001",
                                  "message": "1 unsupported claim > UNSUPPORTED_MAX=0",
                                  "severity": "CRITICAL", "details": "radiation levels are critical"}],
                  "metrics": {"unsupported_count": 1, "necessity_ratio": 1.0, "strict": True,
                              "mode": "substring"},
                  "evidence": [step]},
            "B": ok,
            "C": ok,
        },
        "evidence_chain": {"case_id": "Q-CASE-0002", "steps": [step], "chain_hash": sha(5)},
        "config_hash": sha(6), "result_hash": sha(7),
    }


def atomic_fact(fid: str = "FACT_012") -> dict[str, Any]:
    # Grounded-generation §3.1 schema, a PDF-derived fact.
    return {
        "id": fid, "content": "Treatment X reduced symptom severity by 30% in adults aged 65+ over 12 weeks.",
        "source_type": "PDF",
        "source_span": {"document_id": "trial-2024.pdf", "page": 4, "start_char": 1022, "end_char": 1104,
                        "quote": "severity fell by 30% (65+, 12 wk)", "extras": None},
        "qualifiers": js({"population": "adults aged 65+", "timeframe": "12 weeks", "units": "%"}),
        "confidence": 0.92, "event_time": None, "extras": None,
    }


SENTENCE = "Treatment X reduced symptom severity in older adults. [FACT_012][FACT_018]"  # contract §3.3
EDITED = "Treatment X cures the disease. [FACT_012]"


def grounding_request() -> dict[str, Any]:
    manual = atomic_fact("FACT_018") | {
        "content": "Participants were aged 65 or older.", "source_type": "MANUAL",
        "source_span": {"document_id": "manual", "page": None, "start_char": None, "end_char": None,
                        "quote": None, "extras": None},
        "qualifiers": js({}), "confidence": 1.0,
    }
    return {
        "paragraph_id": "para-3", "version": 2, "event_time": T0,
        "paragraph_spec": js({"section": "Results", "goal": "summarise efficacy"}),
        "allowed_fact_ids": ["FACT_012", "FACT_018"], "facts": [atomic_fact(), manual],
        "sentences": [{"index": 0, "text": SENTENCE, "edited_by_user": None, "extras": None},
                      {"index": 1, "text": EDITED, "edited_by_user": True, "extras": None}],
        "extras": None,
    }


def sentence_verdicts() -> list[dict[str, Any]]:
    return [
        {"index": 0, "text": SENTENCE, "cited_fact_ids": ["FACT_012", "FACT_018"], "edited_by_user": False,
         "outcome": "PASS", "rationale": "entailed by FACT_012 with population from FACT_018",
         "failures": []},
        {"index": 1, "text": EDITED, "cited_fact_ids": ["FACT_012"], "edited_by_user": True,
         "outcome": "FAIL", "rationale": "claim strengthened beyond FACT_012",
         "failures": [{"code": "CLAIM_STRENGTHENED",
                       "reason": "'cures' strengthens 'reduced symptom severity'",
                       "required_evidence": "a fact reporting cure rates for Treatment X",
                       "fact_ids": ["FACT_012"]}]},
    ]


def grounding_verdict() -> dict[str, Any]:
    return {
        "verdict_id": "gv-" + sha(8), "event_time": T0, "paragraph_id": "para-3", "version": 2,
        "request_hash": sha(9), "contract_version": "1.0", "sentences": sentence_verdicts(),
        "paragraph_verified": False, "displayable_paragraph": SENTENCE,
    }


def grounding_audit() -> dict[str, Any]:
    req = grounding_request()
    return {
        "audit_id": "ga-" + sha(10), "event_time": T0, "paragraph_id": "para-3", "version": 2,
        "verdict_id": "gv-" + sha(8), "request_hash": sha(9), "contract_version": "1.0",
        "paragraph_spec": req["paragraph_spec"], "allowed_fact_ids": req["allowed_fact_ids"],
        "allowed_facts": req["facts"], "sentences": sentence_verdicts(), "paragraph_verified": False,
    }


def document() -> dict[str, Any]:
    # DS005 §2: brain.ingest('Alice enters room_A. Bob picks up the key.', { docId: 'demo' })
    return {"doc_id": "demo", "version": None, "event_time": T0,
            "text": "Alice enters room_A. Bob picks up the key.", "metadata": js({"docId": "demo"})}


def fact() -> dict[str, Any]:
    # DS005 §6.3: expires_after(session_token, 15 minutes, version=v2.0) from spec-v2 chunk c17.
    return {
        "fact_id": "f-" + sha(11), "event_time": T0, "span": {"start": 0, "end": 48},
        "subject": "session_token", "predicate": "expires_after", "object": "15 minutes",
        "source": {"doc_id": "spec-v2", "chunk_id": "c17"}, "version": "v2.0",
        "qualifiers": {"condition": js("inactivity")}, "polarity": "affirm", "confidence": 0.9,
        "extras": None,
    }


def fact_rejection() -> dict[str, Any]:
    return {
        "rejection_id": "fr-" + sha(12), "event_time": T0, "source": {"doc_id": "spec-v2", "chunk_id": "c17"},
        "candidate": js({"subject": "session_token", "predicate": "lasts", "object": 15}),
        "reasons": [{"code": "UNKNOWN_PREDICATE", "message": "'lasts' is not in the predicate vocabulary",
                     "field": "predicate"},
                    {"code": "SCHEMA_INVALID", "message": "missing mandatory field span", "field": "span"}],
    }


def query_plan() -> dict[str, Any]:
    # DS005 §5.3 planner output for "How long before session tokens expire from inactivity?"
    return {
        "version": None, "subjects": ["session_token"], "predicates": ["expires_after"],
        "goal": {"subject": js("session_token"), "predicate": js("expires_after"), "object": js("?duration"),
                 "qualifiers": None, "extras": None},
        "params": None, "extras": None,
    }


def question() -> dict[str, Any]:
    # DS005 §6.3: the multi-hop session-validity question and its planner output.
    return {
        "question_id": "q-1", "event_time": T0,
        "text": "If a user is inactive for 20 minutes in v2.0, is their session valid?",
        "plan": {"version": "v2.0", "subjects": ["session_token"], "predicates": ["expires_after"],
                 "goal": None, "params": {"inactivityMinutes": js(20)}, "extras": None},
        "limit_facts": None, "limit_chunks": None,
    }


def answer() -> dict[str, Any]:
    # DS005 §6.3: verdict supported, text 'No', chunksUsed ['c17'], chain premise -> derived -> conclusion.
    premise = {"subject": "session_token", "predicate": "expires_after", "object": "15 minutes",
               "qualifiers": {"version": "v2.0"}, "source": {"docId": "spec-v2", "chunkId": "c17"}}
    derived = {"subject": "session_token", "predicate": "session_expired", "object": True}
    return {
        "answer_id": "a-" + sha(13), "question_id": "q-1", "event_time": T0,
        "text": "No", "verdict": "supported", "chunksUsed": ["c17"],
        "factChain": [{"factId": "f-" + sha(11), "role": "premise", "fact": js(premise)},
                      {"factId": "d-" + sha(14), "role": "derived", "fact": js(derived)},
                      {"factId": "c-" + sha(15), "role": "conclusion",
                       "fact": js({"question": "session valid?", "value": "No"})}],
        "supportScores": {"f-" + sha(11): 1.0},
        "conflicts": [],
    }

# fmt: on

EXAMPLES = {
    "omega.agents.AgentMessage": agent_message,
    "omega.agents.TerminationReport": termination_report,
    "omega.oracle.OracleCase": oracle_case,
    "omega.oracle.OracleVerdict": oracle_verdict,
    "omega.grounding.AtomicFact": atomic_fact,
    "omega.grounding.GroundingRequest": grounding_request,
    "omega.grounding.GroundingVerdict": grounding_verdict,
    "omega.grounding.GroundingAuditEvent": grounding_audit,
    "omega.answers.Document": document,
    "omega.answers.Fact": fact,
    "omega.answers.FactRejection": fact_rejection,
    "omega.answers.Question": question,
    "omega.answers.QueryPlan": query_plan,
    "omega.answers.Answer": answer,
}


# ---------------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------------


def test_every_domain_schema_file_exists_for_each_top_level_record() -> None:
    names = {p.stem for p in DOMAIN_FILES}
    assert names >= TOP_LEVEL, f"missing: {sorted(TOP_LEVEL - names)}"
    assert len(DOMAIN_FILES) >= 40


@pytest.mark.parametrize("path", DOMAIN_FILES, ids=lambda p: p.stem)
def test_schema_file_parses_and_is_named_after_its_full_name(path: Path) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert f"{raw['namespace']}.{raw['name']}" == path.stem
    parsed = load_schema(str(path))  # raises on an unresolved or malformed type
    assert isinstance(parsed, dict)
    assert parsed["name"] == path.stem


@pytest.mark.parametrize("path", DOMAIN_FILES, ids=lambda p: p.stem)
def test_every_named_type_and_field_has_a_doc(path: Path) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert raw.get("doc", "").strip(), f"{path.stem} has no doc"
    undocumented = [f["name"] for f in raw.get("fields", []) if not f.get("doc", "").strip()]
    assert undocumented == [], f"{path.stem}: fields without doc {undocumented}"


@pytest.mark.parametrize("path", DOMAIN_FILES, ids=lambda p: p.stem)
def test_field_names_are_snake_case_except_the_ds005_answer_contract(path: Path) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))
    camel_ok = {"omega.answers.Answer", "omega.answers.FactChainStep"}
    fixed_shape = {"omega.oracle.OracleResults"}  # fields A, B, C: the verdict's published shape
    for field in raw.get("fields", []):
        name = field["name"]
        if path.stem in camel_ok or path.stem in fixed_shape:
            continue
        assert name == name.lower(), f"{path.stem}.{name} is not snake_case"


@pytest.mark.parametrize("path", DOMAIN_FILES, ids=lambda p: p.stem)
def test_optional_fields_are_null_unions_and_nothing_else_has_a_default(path: Path) -> None:
    # The JSON<->Avro converter reads "absent" as null: a non-null default ([] or false) would turn an
    # absent key into a null the writer cannot carry, and lose absent-vs-empty on the way back.
    raw = json.loads(path.read_text(encoding="utf-8"))
    for field in raw.get("fields", []):
        typ, where = field["type"], f"{path.stem}.{field['name']}"
        if isinstance(typ, list) and "null" in typ:
            assert typ[0] == "null", f"{where}: null must come first"
            assert "default" in field, f"{where}: optional field without default"
            assert field["default"] is None, f"{where}: default must be null"
        else:
            assert "default" not in field, f"{where}: a required field has a default"


@pytest.mark.parametrize("fullname", sorted(EXAMPLES))
def test_example_record_round_trips_unchanged(fullname: str) -> None:
    record = EXAMPLES[fullname]()
    assert round_trip(fullname, record) == with_defaults(fullname, record)


def test_omitted_optional_fields_decode_as_their_defaults() -> None:
    sparse = {"question_id": "q-2", "event_time": T0, "text": "Where is Alice?"}
    out = round_trip("omega.answers.Question", sparse)
    assert out == {**sparse, "plan": None, "limit_facts": None, "limit_chunks": None}


def test_producer_vocabulary_values_decode_for_the_validator_instead_of_failing() -> None:
    msg = agent_message()
    msg["header"]["agent_tier"] = "WIZARD"
    msg["header"]["responding_to"] = "nobody"
    msg["references"][0]["type"] = "LIKES"
    out = round_trip("omega.agents.AgentMessage", msg)
    assert out["header"]["agent_tier"] == "WIZARD"
    assert out["header"]["responding_to"] == "nobody"
    assert out["references"][0]["type"] == "LIKES"


def test_responding_to_keeps_an_agent_id_as_int() -> None:
    msg = agent_message()
    msg["header"]["responding_to"] = 48
    assert round_trip("omega.agents.AgentMessage", msg)["header"]["responding_to"] == 48


def _agent_message_before_notes() -> Any:
    """The AgentMessage schema as it was before the optional `notes` field (added for issue 18)."""
    current = load("omega.agents.AgentMessage")
    before = {k: v for k, v in current.items() if not k.startswith("__")}
    before["fields"] = [f for f in current["fields"] if f["name"] != "notes"]
    return fastavro.parse_schema(before)


def test_agent_message_notes_evolve_both_ways() -> None:
    # Old writer, new reader: a record written before `notes` existed reads with notes null. New writer, old
    # reader: the notes are skipped and everything else reads unchanged.
    old, new = _agent_message_before_notes(), load("omega.agents.AgentMessage")
    msg = agent_message()
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, old, msg)
    buf.seek(0)
    assert fastavro.schemaless_reader(buf, old, new) == {**msg, "notes": None}
    noted = {**msg, "notes": ["header.responding_to: 'batch 3' read as 'BATCH_3' (a §1.3.3 batch)"]}
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, new, noted)
    buf.seek(0)
    assert fastavro.schemaless_reader(buf, new, old) == msg


def test_our_own_verdicts_are_closed_enums() -> None:
    verdict = oracle_verdict()
    verdict["verdict"] = "MAYBE"
    with pytest.raises(ValueError, match="MAYBE"):
        fastavro.schemaless_writer(io.BytesIO(), load("omega.oracle.OracleVerdict"), verdict)
    ans = answer()
    ans["verdict"] = "probably"
    with pytest.raises(ValueError, match="probably"):
        fastavro.schemaless_writer(io.BytesIO(), load("omega.answers.Answer"), ans)


def test_fact_object_keeps_its_json_scalar_type() -> None:
    for value in ("15 minutes", 15, 0.5, True):
        rec = fact() | {"object": value}
        out = round_trip("omega.answers.Fact", rec)["object"]
        assert out == value
        assert type(out) is type(value)


@needs(PHASE_Q_DEV)
def test_every_public_phase_q_case_converts_to_an_oracle_case_and_back() -> None:
    lines = [
        json.loads(line) for line in PHASE_Q_DEV.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    assert len(lines) == 34
    schema = load("omega.oracle.OracleCase")
    for line in lines:
        record = case_to_record(line, T0)
        assert fastavro.validate(record, schema, raise_errors=True)
        out = round_trip("omega.oracle.OracleCase", record)
        assert out == record, line["id"]
        assert record_to_case(out) == line, line["id"]


def test_crlf_in_candidate_output_survives_the_contract() -> None:
    lines = [json.loads(line) for line in EXAMPLE_CASES.read_text(encoding="utf-8").splitlines()]
    crlf = [line for line in lines if "\r\n" in line["candidate_output"]]
    assert crlf, "the bundled examples have a CRLF case (Q-EXAMPLE-0004)"
    for line in crlf:
        out = round_trip("omega.oracle.OracleCase", case_to_record(line, T0))
        assert out["candidate_output"] == line["candidate_output"]


def test_unknown_test_set_keys_are_preserved_in_extras() -> None:
    line = json.loads(EXAMPLE_CASES.read_text(encoding="utf-8").splitlines()[0])
    line["variant_of"] = "Q-CASE-0039"
    line["input"]["changed_fields"] = ["facts[0]"]
    line["expected"]["max_unsupported_claims"] = 2
    out = round_trip("omega.oracle.OracleCase", case_to_record(line, T0))
    assert out["extras"] == {"variant_of": js("Q-CASE-0039")}
    assert out["input"]["extras"] == {"changed_fields": js(["facts[0]"])}
    assert out["expected"]["max_unsupported_claims"] == 2
    assert record_to_case(out) == line


def test_case_without_expectations_is_an_oracle_case() -> None:
    line = json.loads(EXAMPLE_CASES.read_text(encoding="utf-8").splitlines()[0])
    del line["expected"]
    out = round_trip("omega.oracle.OracleCase", case_to_record(line, T0))
    assert out["expected"] is None


def test_absent_expectation_keys_stay_absent_on_the_way_back() -> None:
    line = json.loads(EXAMPLE_CASES.read_text(encoding="utf-8").splitlines()[0])
    del line["expected"]["must_not_find"], line["expected"]["notes"]
    out = round_trip("omega.oracle.OracleCase", case_to_record(line, T0))
    assert out["expected"]["must_not_find"] is None
    assert record_to_case(out) == line
