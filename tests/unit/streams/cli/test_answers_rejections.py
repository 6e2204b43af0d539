"""The facts a store refuses, on stderr: snake_case keys in `check answers` (as its lines), the §4.1 camelCase in
`omega ingest` (what it appends to the fact store is camelCase too). The expected lines are worked by hand from
omega/answers/validation.py: a polarity other than affirm/negate is the one schema reason of these candidates."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_OK
from tests.unit.streams.fake_llm import FakeChatLLM, serving

REPO = Path(__file__).resolve().parents[4]
SUITE = REPO / "examples" / "answers" / "suite.json"
BAD = {"subject": "Plan A", "predicate": "has_refund_window", "object": "30 days", "span": {"start": 0, "end": 6},
       "polarity": "maybe", "qualifiers": {"versionTag": "x"}}


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), prog_name="omega", catch_exceptions=False)


def test_check_answers_prints_a_refused_manual_fact_in_snake_case_its_qualifiers_kept(tmp_path: Path) -> None:
    suite = json.loads(SUITE.read_text(encoding="utf-8"))
    suite["questions"] = [q for q in suite["questions"] if q["id"] == "ex01"]
    suite["manualFacts"] = [{**BAD, "source": {"docId": "manual", "chunkId": "manual/c0"}}]
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite), encoding="utf-8")
    result = _invoke("check", "answers", str(path))
    assert result.exit_code == EXIT_OK  # a refused fact is reported, not a failed expectation
    rejected = [line for line in result.stderr.splitlines() if line.startswith("omega: rejected: ")]
    assert rejected == [
        'omega: rejected: {"candidate":{"object":"30 days","polarity":"maybe","predicate":"has_refund_window",'
        '"qualifiers":{"versionTag":"x"},"source":{"chunk_id":"manual/c0","doc_id":"manual"},'
        '"span":{"end":6,"start":0},"subject":"Plan A"},'
        '"reasons":[{"code":"SCHEMA_INVALID","field":"polarity","message":"polarity must be affirm or negate"}],'
        '"source":{"chunk_id":"manual/c0","doc_id":"manual"}}']
    assert result.stderr.startswith(rejected[0] + "\n")  # before the scores and the summary
    assert result.stderr.endswith("1 answers judged: PASS 1\n")


def test_ingest_keeps_the_camel_case_of_the_fact_store(tmp_path: Path) -> None:
    doc = tmp_path / "doc.txt"
    doc.write_text("Plan A has a refund window of 30 days.\n", encoding="utf-8")
    with serving(FakeChatLLM([json.dumps([BAD])])) as llm:
        result = _invoke("ingest", str(doc), "--doc-id", "d", "--store", str(tmp_path / "facts.jsonl"),
                         "--llm-url", llm.url)
    assert result.exit_code == EXIT_OK
    (rejected,) = result.stderr.splitlines()
    assert rejected.startswith("omega: rejected: ")
    shown = json.loads(rejected.removeprefix("omega: rejected: "))
    assert shown["source"] == shown["candidate"]["source"] == {"docId": "d", "chunkId": "d/c0"}
    assert shown["reasons"] == [{"code": "SCHEMA_INVALID", "field": "polarity",
                                 "message": "polarity must be affirm or negate"}]
    assert json.loads(result.stdout)["rejected"] == 1
