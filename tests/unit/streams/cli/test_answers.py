"""`omega ingest`, `omega ask`, `omega check answers`, `omega check extraction`: outputs and exit codes 0/1/2."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from streams.cli.main import main
from tests.unit.omega.answers.support import PARAGRAPH, first_facts
from tests.unit.streams.fake_llm import FakeChatLLM, serving

SUITE = Path(__file__).resolve().parents[3] / "data" / "answers" / "suite.json"
SPELLINGS = SUITE.with_name("version_spellings.json")


def test_check_answers_meets_every_expectation_of_the_suite() -> None:
    result = CliRunner().invoke(main, ["check", "answers", str(SUITE)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == len(json.loads(SUITE.read_text())["questions"]) >= 25
    verdicts = {line["verdict"] for line in lines}
    assert verdicts == {"supported", "conflicting", "unsupported"}
    assert '"verdict_accuracy":1.0' in result.stderr


def test_check_answers_meets_the_version_spellings_suite() -> None:
    result = CliRunner().invoke(main, ["check", "answers", str(SPELLINGS)])
    assert result.exit_code == 0, result.output
    assert "rejected" not in result.stderr
    assert '"verdict_accuracy":1.0' in result.stderr


def test_check_answers_exits_1_when_an_expectation_is_not_met(tmp_path: Path) -> None:
    suite = json.loads(SUITE.read_text())
    suite["questions"] = [{**suite["questions"][0], "expectedAnswer": "99 minutes"}]
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite))
    result = CliRunner().invoke(main, ["check", "answers", str(path)])
    assert result.exit_code == 1
    assert "expected supported '99 minutes'" in result.stderr


def test_check_answers_exits_2_on_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"questions": [{"question": "x", "expectedVerdict": "maybe"}]}')
    assert CliRunner().invoke(main, ["check", "answers", str(bad)]).exit_code == 2
    assert CliRunner().invoke(main, ["check", "answers", str(tmp_path / "missing.json")]).exit_code == 2


def test_ingest_then_ask_answers_from_the_store_file(tmp_path: Path) -> None:
    doc, store = tmp_path / "spec.txt", tmp_path / "facts.jsonl"
    doc.write_text("In v2.0, session tokens expire after 15 minutes of inactivity.\n")
    runner = CliRunner()
    first = runner.invoke(main, ["ingest", str(doc), "--doc-id", "spec-v2", "--version", "v2.0", "--store", str(store)])
    again = runner.invoke(main, ["ingest", str(doc), "--doc-id", "spec-v2", "--version", "v2.0", "--store", str(store)])
    assert (first.exit_code, json.loads(first.stdout)["new"], json.loads(again.stdout)["new"]) == (0, 1, 0)
    asked = runner.invoke(main, ["ask", "If a user is inactive for 20 minutes in v2.0, is their session valid?",
                                 "--store", str(store)])
    assert asked.exit_code == 0
    contract = json.loads(asked.stdout)
    assert (contract["verdict"], contract["text"]) == ("supported", "No")
    assert [s["role"] for s in contract["factChain"]] == ["premise", "derived", "conclusion"]
    planned = runner.invoke(main, ["ask", "anything", "--store", str(store), "--plan",
                                   '{"subjects": ["session_token"], "predicates": ["owned_by"]}'])
    assert json.loads(planned.stdout)["verdict"] == "unsupported"


def test_ask_and_ingest_exit_2_on_bad_input(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["ask", "q", "--store", str(tmp_path / "s"), "--plan", "{nope"]).exit_code == 2
    assert runner.invoke(main, ["ask", "q", "--store", str(tmp_path / "s"), "--plan", '{"bogus": 1}']).exit_code == 2
    assert runner.invoke(main, ["ingest", str(tmp_path / "missing.txt"), "--doc-id", "d"]).exit_code == 2


def test_check_extraction_reports_mean_jaccard_per_chunk(tmp_path: Path) -> None:
    doc = tmp_path / "doc.txt"
    doc.write_text("Session tokens expire after 15 minutes.\n\nAdmin accounts require MFA.\n")
    result = CliRunner().invoke(main, ["check", "extraction", str(doc), "--runs", "3"])
    assert result.exit_code == 0
    assert [json.loads(line)["mean_jaccard"] for line in result.stdout.splitlines()] == [1.0, 1.0]
    assert CliRunner().invoke(main, ["check", "extraction", str(doc), "--runs", "0"]).exit_code == 2


# ---------------------------------------------------------------------------------- §8 exit codes, --llm-url
def _facts(count: int) -> str:
    """The LLM's reply: the first `count` sentences' facts as a JSON array (no source: the extractor adds it)."""
    return json.dumps(first_facts(count))


@pytest.fixture
def noisy_llm() -> Iterator[Callable[..., FakeChatLLM]]:
    """A noisy LLM: each request answered with the next scripted reply (the first `count` sentences' facts)."""
    with contextlib.ExitStack() as stack:
        yield lambda *counts: stack.enter_context(serving(FakeChatLLM([_facts(c) for c in counts])))


@pytest.mark.parametrize(("counts", "mean", "exit_code"), [
    ((5, 4), 0.8, 0),  # 4/5: exactly 0.8 is reliable (§8: unreliable only when < 0.8)
    ((6, 5), 5 / 6, 0),  # just above
    ((4, 3), 0.75, 1),  # just below: unreliable, exit 1
    ((6, 2), 1 / 3, 1),
])
def test_check_extraction_exits_1_when_the_mean_jaccard_is_below_0_8(
    tmp_path: Path, noisy_llm: Callable[..., FakeChatLLM], counts: tuple[int, int], mean: float, exit_code: int
) -> None:
    doc = tmp_path / "doc.txt"
    doc.write_text(PARAGRAPH + "\n", encoding="utf-8")
    llm = noisy_llm(*counts)
    result = CliRunner().invoke(main, ["check", "extraction", str(doc), "--runs", "2", "--llm-url", llm.url])
    assert len(llm.requests) == 2
    [line] = [json.loads(out) for out in result.stdout.splitlines()]
    assert (line["chunk_id"], line["fact_counts"]) == ("doc/c0", list(counts))
    assert line["mean_jaccard"] == pytest.approx(mean)
    assert line["reliable"] is (exit_code == 0)
    assert result.exit_code == exit_code, result.output
    assert ("extraction unreliable" in result.stderr) is (exit_code == 1)


def test_check_extraction_exits_1_when_any_one_chunk_is_unreliable(
    tmp_path: Path, noisy_llm: Callable[..., FakeChatLLM]
) -> None:
    doc = tmp_path / "doc.txt"
    doc.write_text(PARAGRAPH + "\n\n" + PARAGRAPH + "\n", encoding="utf-8")
    llm = noisy_llm(6, 6, 6, 3)  # chunk 0: 1.0, chunk 1: 3/6
    result = CliRunner().invoke(main, ["check", "extraction", str(doc), "--runs", "2", "--llm-url", llm.url])
    assert [json.loads(out)["reliable"] for out in result.stdout.splitlines()] == [True, False]
    assert result.exit_code == 1
    assert "doc/c1" in result.stderr
    assert "doc/c0" not in result.stderr
