"""Q-INV-06 traceability: one evidence record per evaluation step and the case's hashed chain.

A step's `input_hash` and `output_hash` are content hashes of what the step read and what it decided.
The chain hash folds the steps in order, `h0 = sha256(case_id)`, `h(i+1) = sha256(h(i) + hash(step i))`,
so changing, dropping or reordering any step changes it. Timestamps are the case's event time, never the
clock, so two runs give the same chain.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from omega.canonical import content_hash

HEX64 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class EvidenceStep:
    """One step's evidence record `{step, input_hash, output_hash, rule_applied, verdict, timestamp_deterministic}`."""

    step: str
    input_hash: str
    output_hash: str
    rule_applied: str
    verdict: str
    timestamp_deterministic: str

    def to_dict(self) -> dict[str, Any]:
        """The record as the report schema and the Avro EvidenceStep spell it."""
        return {"step": self.step, "input_hash": self.input_hash, "output_hash": self.output_hash,
                "rule_applied": self.rule_applied, "verdict": self.verdict,
                "timestamp_deterministic": self.timestamp_deterministic}


def make_step(step: str, rule: str, read: object, decided: object, verdict: str, timestamp: str) -> EvidenceStep:
    """The evidence of one step from what it read and what it decided (both hashed, canonical JSON)."""
    return EvidenceStep(step, content_hash(read), content_hash(decided), rule, verdict, timestamp)


def chain_hash(case_id: str, steps: Sequence[EvidenceStep]) -> str:
    """The fold of the steps' hashes in order, seeded with the case id."""
    head = hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).hexdigest()
    for step in steps:
        head = hashlib.sha256((head + content_hash(step.to_dict())).encode("ascii")).hexdigest()
    return head


def chain_record(case_id: str, steps: Sequence[EvidenceStep]) -> dict[str, Any]:
    """The report's EvidenceChain `{case_id, steps, chain_hash}`."""
    return {"case_id": case_id, "steps": [s.to_dict() for s in steps], "chain_hash": chain_hash(case_id, steps)}


def verify_chain(record: Mapping[str, Any]) -> bool:
    """Whether an EvidenceChain record's hash matches its steps and every step hash is SHA-256 hex."""
    steps = [EvidenceStep(**s) for s in record["steps"]]
    hashes_ok = all(HEX64.match(s.input_hash) and HEX64.match(s.output_hash) for s in steps)
    return hashes_ok and chain_hash(str(record["case_id"]), steps) == record["chain_hash"]
