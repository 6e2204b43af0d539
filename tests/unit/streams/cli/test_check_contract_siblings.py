"""`check grounding`, `check answers`, `check extraction` and `check memories` on the contract `check packets` and
`check messages` share (issue 43 item 4, streams/cli/checking.py): `kind` on every line, snake_case keys,
`--format table` rows, `--fail-on`, the stderr summary naming the first rejections, exit 0 ok / 1 rejected / 2 bad
or empty input. Every expected summary below is worked by hand from the input it judges."""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from streams.cli.checking import FAIL_ON
from streams.cli.main import main
from streams.cli.options import EXIT_OK, EXIT_REJECTED, EXIT_USAGE
from tests.unit.omega.answers.support import PARAGRAPH, first_facts
from tests.unit.streams.fake_llm import FakeChatLLM, serving

REPO = Path(__file__).resolve().parents[4]
ANSWERS = REPO / "examples" / "answers"
FACT = {"id": "F1", "content": "Dizziness was reported by 8.4% of participants receiving drug A.",
        "source_type": "MANUAL", "source_span": {"document_id": "manual-entry"}, "qualifiers": {}, "confidence": 1.0}
GOOD = "Dizziness was reported by 8.4% of participants receiving drug A. [F1]"
BAD = "Dizziness was reported by 9% of participants receiving drug A. [F1]"  # 9% is not the fact's 8.4%
SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")


@pytest.fixture(autouse=True)
def no_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMEGA_JUDGE_URL", raising=False)


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["check", *args], prog_name="omega", catch_exceptions=False)


def _lines(result: Result) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def _assert_table_rows_match(table: Result, json_run: Result) -> None:
    """One tab-separated row of `key=value` cells per JSON line, the same keys, `kind` first."""
    rows, lines = table.stdout.splitlines(), _lines(json_run)
    assert len(rows) == len(lines) > 0
    for row, line in zip(rows, lines, strict=True):
        cells = dict(cell.split("=", 1) for cell in row.split("\t"))
        assert set(cells) == set(line)
        assert row.startswith(f"kind={line['kind']}\t")
    assert (table.exit_code, table.stderr) == (json_run.exit_code, json_run.stderr)


# ------------------------------------------------------------------------------------------- check grounding
def _grounding(tmp_path: Path, *paragraphs: list[str], name: str = "grounding.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"facts": [FACT], "paragraphs": [
        {"paragraph_id": f"p{n}", "sentences": [{"order": i, "text": t} for i, t in enumerate(texts, start=1)]}
        for n, texts in enumerate(paragraphs, start=1)]}), encoding="utf-8")
    return path


def test_grounding_a_failed_sentence_is_a_rejection_named_in_the_summary(tmp_path: Path) -> None:
    result = _invoke("grounding", str(_grounding(tmp_path, [GOOD, BAD])))
    assert result.exit_code == EXIT_REJECTED
    assert [(line["kind"], line.get("verdict")) for line in _lines(result)] == [
        ("sentence", "PASS"), ("sentence", "FAIL"), ("paragraph", None)]
    assert result.stderr == ("2 sentences judged: FAIL 1, PASS 1, paragraph 1\n"
                             "  rejected paragraph p1 version 1 sentence 2: NUMERIC_MISMATCH\n")


def test_grounding_all_verified_exits_0_and_eval_adds_a_metrics_line(tmp_path: Path) -> None:
    result = _invoke("grounding", str(_grounding(tmp_path, [GOOD], [GOOD])), "--eval")
    assert result.exit_code == EXIT_OK
    assert [line["kind"] for line in _lines(result)] == ["sentence", "paragraph", "sentence", "paragraph", "metrics"]
    assert _lines(result)[-1]["metrics"]["verified_paragraph_rate"] == 1.0
    assert result.stderr == "2 sentences judged: PASS 2, metrics 1, paragraph 2\n"


def test_grounding_a_paragraph_without_sentences_is_not_verified(tmp_path: Path) -> None:
    result = _invoke("grounding", str(_grounding(tmp_path, [])))
    assert result.exit_code == EXIT_REJECTED  # as before the contract: never verified
    assert [line["kind"] for line in _lines(result)] == ["paragraph"]
    assert result.stderr == "1 sentences judged: FAIL 1\n  rejected paragraph p1 version 1: no sentence to verify\n"


def test_grounding_format_table_and_fail_on(tmp_path: Path) -> None:
    failing, passing = _grounding(tmp_path, [GOOD, BAD]), _grounding(tmp_path, [GOOD], name="passing.json")
    _assert_table_rows_match(_invoke("grounding", "--format", "table", str(failing)),
                             _invoke("grounding", str(failing)))
    for level in FAIL_ON:  # no warning, alert or escalation in grounding: only a FAIL crosses any threshold
        assert _invoke("grounding", "--fail-on", level, str(passing)).exit_code == EXIT_OK, level
        assert _invoke("grounding", "--fail-on", level, str(failing)).exit_code == EXIT_REJECTED, level


def test_grounding_empty_input_and_a_bad_judge_timeout_exit_2_in_one_line(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    empty = _grounding(tmp_path)
    result = _invoke("grounding", str(empty), "--eval")
    assert (result.exit_code, result.stdout, result.stderr) == (
        EXIT_USAGE, "", "omega: empty input: no sentences found\n")
    monkeypatch.setenv("OMEGA_JUDGE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("OMEGA_JUDGE_TIMEOUT", "soon")
    result = _invoke("grounding", str(_grounding(tmp_path, [GOOD])))
    assert (result.exit_code, result.stdout) == (EXIT_USAGE, "")
    assert result.stderr.startswith("omega: OMEGA_JUDGE_TIMEOUT must be a number of seconds")
    assert len(result.stderr.splitlines()) == 1


# ------------------------------------------------------------------------------------------- check answers
def _suite(tmp_path: Path, **changes: dict[str, Any]) -> Path:
    """The bundled example suite with two of its questions, ex01 (v2.0: 30 days) and ex03 (conflicting), each
    updated by `changes[id]`."""
    suite = json.loads((ANSWERS / "suite.json").read_text(encoding="utf-8"))
    suite["questions"] = [{**q, **changes.get(q["id"], {})} for q in suite["questions"] if q["id"] in ("ex01", "ex03")]
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite), encoding="utf-8")
    return path


def _keys(value: Any, parent: str = "") -> Iterator[str]:
    """Every key of a line, except those of maps keyed by data (qualifier names, fact ids)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if parent not in ("qualifiers", "support_scores"):
                yield key
            yield from _keys(item, key)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item, parent)


def test_answers_lines_have_kind_status_and_snake_case_keys_with_the_values_kept(tmp_path: Path) -> None:
    result = _invoke("answers", str(_suite(tmp_path)))
    assert result.exit_code == EXIT_OK
    ex01, ex03 = _lines(result)
    assert [bad for line in (ex01, ex03) for bad in _keys(line) if not SNAKE.match(bad)] == []
    assert {k: ex01[k] for k in ("kind", "id", "status", "verdict", "text", "chunks_used")} == {
        "kind": "answer", "id": "ex01", "status": "PASS", "verdict": "supported", "text": "30 days",
        "chunks_used": ["service-guide@v2.0/c0"]}
    premise = ex01["fact_chain"][0]
    assert premise["role"] == "premise"
    assert premise["fact"]["source"] == {"doc_id": "service-guide", "chunk_id": "service-guide@v2.0/c0"}
    assert premise["fact"]["qualifiers"] == {"version": "v2.0"}
    assert premise["fact_id"] == premise["fact"]["fact_id"] in ex01["support_scores"]
    assert (ex03["status"], ex03["verdict"], ex03["text"]) == ("PASS", "conflicting", None)
    assert ex03["conflicts"][0]["fact1"]["source"]["doc_id"] == "service-guide"
    assert result.stderr == (
        'omega: answers: {"answer_exact_match":1.0,"conflict_precision":1.0,"conflict_recall":1.0,"passed":2,'
        '"questions":2,"refusal_accuracy":1.0,"verdict_accuracy":1.0}\n2 answers judged: PASS 2\n')


def test_answers_an_expectation_not_met_is_a_rejection_named_in_the_summary(tmp_path: Path) -> None:
    # ex01 asks about v2.0 (30 days); expecting v1.0's 90 days fails on the text, the verdict still agreeing
    result = _invoke("answers", str(_suite(tmp_path, ex01={"expectedAnswer": "90 days"})))
    assert result.exit_code == EXIT_REJECTED
    assert [(line["id"], line["status"]) for line in _lines(result)] == [("ex01", "FAIL"), ("ex03", "PASS")]
    assert result.stderr == (
        'omega: answers: {"answer_exact_match":0.0,"conflict_precision":1.0,"conflict_recall":1.0,"passed":1,'
        '"questions":2,"refusal_accuracy":1.0,"verdict_accuracy":1.0}\n'
        "2 answers judged: FAIL 1, PASS 1\n"
        "  rejected ex01: expected supported '90 days', got supported '30 days'\n")


def test_answers_format_table_fail_on_and_empty_input(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    _assert_table_rows_match(_invoke("answers", "--format", "table", str(suite)), _invoke("answers", str(suite)))
    for level in FAIL_ON:
        assert _invoke("answers", "--fail-on", level, str(suite)).exit_code == EXIT_OK, level
    failing = _suite(tmp_path, ex03={"expectedVerdict": "supported"})
    assert _invoke("answers", "--fail-on", "escalation", str(failing)).exit_code == EXIT_REJECTED
    empty = tmp_path / "empty.json"
    empty.write_text('{"corpus": [], "questions": []}', encoding="utf-8")
    result = _invoke("answers", str(empty))
    assert (result.exit_code, result.stdout) == (EXIT_USAGE, "")
    assert result.stderr == f"omega: bad suite {empty}: a suite needs at least one question\n"


# ------------------------------------------------------------------------------------------- check extraction
@contextlib.contextmanager
def _llm(*counts: int) -> Iterator[FakeChatLLM]:
    """An LLM answering each extraction run with the facts of the paragraph's first `count` sentences."""
    with serving(FakeChatLLM([json.dumps(first_facts(c)) for c in counts])) as llm:
        yield llm


def test_extraction_lines_are_snake_case_chunks_with_a_status(tmp_path: Path) -> None:
    result = _invoke("extraction", str(ANSWERS / "guide.txt"), "--runs", "3", "--doc-id", "guide")
    assert result.exit_code == EXIT_OK
    assert _lines(result) == [
        {"kind": "chunk", "chunk_id": "guide/c0", "runs": 3, "mean_jaccard": 1.0, "fact_counts": [2, 2, 2],
         "reliable": True, "status": "RELIABLE"},
        {"kind": "chunk", "chunk_id": "guide/c1", "runs": 3, "mean_jaccard": 1.0, "fact_counts": [1, 1, 1],
         "reliable": True, "status": "RELIABLE"}]
    assert result.stderr == "2 chunks judged: RELIABLE 2\n"


def test_extraction_an_unreliable_chunk_is_a_rejection_named_in_the_summary(tmp_path: Path) -> None:
    doc = tmp_path / "doc.txt"
    doc.write_text(PARAGRAPH + "\n", encoding="utf-8")
    with _llm(4, 3) as llm:  # run 1: 4 facts, run 2: 3 of them; Jaccard 3/4 = 0.75 < 0.8
        result = _invoke("extraction", str(doc), "--runs", "2", "--llm-url", llm.url)
    assert result.exit_code == EXIT_REJECTED
    [line] = _lines(result)
    assert (line["kind"], line["chunk_id"], line["status"], line["reliable"]) == (
        "chunk", "doc/c0", "UNRELIABLE", False)
    assert result.stderr == ("1 chunks judged: UNRELIABLE 1\n"
                             "  rejected doc/c0: extraction unreliable (mean Jaccard 0.75 < 0.8)\n")


def test_extraction_format_table_fail_on_and_empty_input(tmp_path: Path) -> None:
    guide = ANSWERS / "guide.txt"
    _assert_table_rows_match(_invoke("extraction", "--format", "table", "--runs", "2", str(guide)),
                             _invoke("extraction", "--runs", "2", str(guide)))
    for level in FAIL_ON:
        assert _invoke("extraction", "--fail-on", level, "--runs", "2", str(guide)).exit_code == EXIT_OK, level
    empty = tmp_path / "empty.txt"
    empty.write_text("\n\n", encoding="utf-8")
    result = _invoke("extraction", str(empty))
    assert (result.exit_code, result.stdout, result.stderr) == (EXIT_USAGE, "", "omega: empty input: no chunks found\n")


# ------------------------------------------------------------------------------------------- check memories
@pytest.fixture(scope="module")
def replay_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("replay") / "replay.jsonl"
    example = REPO / "examples" / "omega57" / "clean_success.yaml"
    result = CliRunner().invoke(main, ["replay", str(example), "--out", str(out), "--no-summary"])
    assert result.exit_code in (0, 1), result.output
    return out


def _store(replay: Path, path: Path) -> str:
    result = CliRunner().invoke(main, ["project", "--from", str(replay), "--store", f"sqlite:{path}"])
    assert result.exit_code == 0, result.output
    return f"sqlite:{path}"


def test_memories_a_consistent_session_is_judged_with_no_line(replay_file: Path, tmp_path: Path) -> None:
    store = _store(replay_file, tmp_path / "m.sqlite")
    result = _invoke("memories", "--store", store)
    assert (result.exit_code, result.stdout, result.stderr) == (EXIT_OK, "", "1 sessions judged: CONSISTENT 1\n")
    for level in FAIL_ON:
        assert _invoke("memories", "--fail-on", level, "--store", store).exit_code == EXIT_OK, level


def test_memories_violations_are_rejections_the_summary_names_the_first_five(replay_file: Path,
                                                                             tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    store = _store(replay_file, path)
    with sqlite3.connect(path) as conn:  # drop the timeline every other memory refers to
        conn.execute("DELETE FROM memory_documents WHERE kind = 'session'")
    result = _invoke("memories", "--store", store)
    lines = _lines(result)
    assert result.exit_code == EXIT_REJECTED
    assert len(lines) > 5  # more violations than the summary names
    assert all(line["kind"] == "violation" and line["session_id"] == "clean_success" for line in lines)
    assert all(line["violation"].startswith("rule 3: ") for line in lines)
    assert result.stderr == (f"1 sessions judged: INCONSISTENT 1, violation {len(lines)}\n"
                             + "".join(f"  rejected clean_success: {line['violation']}\n" for line in lines[:5]))
    _assert_table_rows_match(_invoke("memories", "--format", "table", "--store", store), result)
    for level in FAIL_ON:
        assert _invoke("memories", "--fail-on", level, "--store", store).exit_code == EXIT_REJECTED, level


def test_memories_a_read_model_without_sessions_is_an_empty_input(tmp_path: Path) -> None:
    nothing = tmp_path / "nothing.jsonl"
    nothing.write_text("", encoding="utf-8")
    result = _invoke("memories", "--store", _store(nothing, tmp_path / "m.sqlite"))
    assert (result.exit_code, result.stdout, result.stderr) == (
        EXIT_USAGE, "", "omega: empty input: no sessions found\n")
