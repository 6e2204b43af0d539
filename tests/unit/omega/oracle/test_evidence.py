"""The Q-INV-06 evidence chain: h0 = sha256(case id), h(i+1) = sha256(h(i) + hash(step i))."""

from __future__ import annotations

import hashlib

from omega.canonical import content_hash
from omega.oracle.evidence import EvidenceStep, chain_hash, chain_record, verify_chain
from tests.unit.omega.oracle.support import EPOCH

STEP = EvidenceStep("oracle_a/RULE-PREC-001", "0" * 64, "1" * 64, "RULE-PREC-001", "PASS", EPOCH)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def test_the_chain_hash_folds_the_steps_in_order_seeded_with_the_case_id() -> None:
    assert chain_hash("Q-1", []) == _sha("Q-1")
    step_hash = content_hash({"step": "oracle_a/RULE-PREC-001", "input_hash": "0" * 64, "output_hash": "1" * 64,
                              "rule_applied": "RULE-PREC-001", "verdict": "PASS",
                              "timestamp_deterministic": EPOCH})
    assert chain_hash("Q-1", [STEP]) == _sha(_sha("Q-1") + step_hash)
    assert chain_hash("Q-1", [STEP, STEP]) == _sha(_sha(_sha("Q-1") + step_hash) + step_hash)
    record = chain_record("Q-1", [STEP])
    assert record == {"case_id": "Q-1", "steps": [STEP.to_dict()], "chain_hash": _sha(_sha("Q-1") + step_hash)}
    assert verify_chain(record)


def test_a_case_id_with_a_lone_surrogate_from_json_still_gets_a_chain() -> None:
    # JSON can carry "\ud800"; the id is hashed as UTF-8 with surrogates passed through (ED A0 80).
    expected = hashlib.sha256(b"Q-\xed\xa0\x80").hexdigest()
    assert chain_hash("Q-\ud800", []) == expected
    assert chain_record("Q-\ud800", [])["chain_hash"] == expected
