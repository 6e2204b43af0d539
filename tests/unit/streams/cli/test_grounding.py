"""`omega check grounding` through click's CliRunner: one line per sentence and paragraph, --eval metrics,
edits as versions, exit 0/1/2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_FAILED, EXIT_OK, EXIT_USAGE

SUITE = Path(__file__).resolve().parents[3] / "data" / "grounding"
FACT = {"id": "F1", "content": "Dizziness was reported by 8.4% of participants receiving drug A.",
        "source_type": "MANUAL", "source_span": {"document_id": "manual-entry"}, "qualifiers": {}, "confidence": 1.0}
GOOD = "Dizziness was reported by 8.4% of participants receiving drug A. [F1]"
BAD = "Dizziness was reported by 9% of participants receiving drug A. [F1]"


@pytest.fixture(autouse=True)
def no_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMEGA_JUDGE_URL", raising=False)


def _invoke(path: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["check", "grounding", str(path), *args], prog_name="omega",
                              catch_exceptions=False)


def _lines(result: Result) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def _file(tmp_path: Path, paragraphs: list[dict[str, Any]], facts: list[Any] | None = None) -> Path:
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"facts": [FACT] if facts is None else facts, "paragraphs": paragraphs}),
                    encoding="utf-8")
    return path


def test_a_verified_paragraph_gives_sentence_and_paragraph_lines_and_exit_0(tmp_path: Path) -> None:
    path = _file(tmp_path, [{"paragraph_id": "p", "sentences": [{"order": 1, "text": GOOD}]}])
    result = _invoke(path)
    sentence, paragraph = _lines(result)
    assert result.exit_code == EXIT_OK
    source = {"file": str(path), "paragraph": 1}
    assert sentence == {"kind": "sentence", "paragraph_id": "p", "version": 1, "order": 1, "verdict": "PASS",
                        "failure_modes": [], "reasons": [], "evidence_required": [], "cited_fact_ids": ["F1"],
                        "source": source}
    assert paragraph == {"kind": "paragraph", "paragraph_id": "p", "version": 1, "verified": True,
                         "display_text": GOOD, "source": source}


def test_a_failed_sentence_is_explained_suppressed_from_display_and_exits_1(tmp_path: Path) -> None:
    sentences = [{"order": 1, "text": GOOD}, {"order": 2, "text": BAD}]
    result = _invoke(_file(tmp_path, [{"paragraph_id": "p", "sentences": sentences}]))
    _, failed, paragraph = _lines(result)
    assert result.exit_code == EXIT_FAILED
    assert (failed["verdict"], failed["failure_modes"]) == ("FAIL", ["NUMERIC_MISMATCH"])
    assert failed["evidence_required"] == ["a cited fact stating '9 %' exactly"]
    assert paragraph["display_text"] == GOOD
    assert paragraph["verified"] is False


def test_an_edit_is_a_later_version_of_the_same_paragraph(tmp_path: Path) -> None:
    paragraphs = [{"paragraph_id": "p", "sentences": [{"order": 1, "text": BAD}]},
                  {"paragraph_id": "p", "version": 2, "sentences": [{"order": 1, "text": GOOD}]}]
    result = _invoke(_file(tmp_path, paragraphs))
    assert [(line["version"], line["verified"]) for line in _lines(result) if "verified" in line] == [
        (1, False), (2, True)]
    assert result.exit_code == EXIT_FAILED  # version 1 was not verified


def test_eval_prints_the_contract_metrics_of_the_labels(tmp_path: Path) -> None:
    sentences = [{"order": 1, "text": GOOD, "expected_supported": True},
                 {"order": 2, "text": BAD, "expected_supported": False}]
    result = _invoke(_file(tmp_path, [{"paragraph_id": "p", "sentences": sentences}]), "--eval")
    metrics = _lines(result)[-1]["metrics"]
    assert metrics["false_support_rate"] == 0.0
    assert metrics["correct_refusal_rate"] == 1.0
    assert metrics["over_refusal_rate"] == 0.0
    assert metrics["sentence_support_rate"] == 0.5
    assert metrics["verified_paragraph_rate"] == 0.0


def test_eval_on_the_labelled_suite_shows_no_false_support(tmp_path: Path) -> None:
    result = _invoke(SUITE / "coffee_cohort.json", "--eval")
    assert result.exit_code == EXIT_FAILED
    assert _lines(result)[-1]["metrics"]["false_support_rate"] == 0.0


@pytest.mark.parametrize("content", [
    "{not json", "[]", '{"facts": []}', '{"facts": [{"id": "F"}], "paragraphs": []}',
    '{"paragraphs": [{"paragraph_id": "p", "sentences": [{"order": 1, "text": 7}]}]}',
    '{"paragraphs": [{"paragraph_id": "p", "sentences": [{"order": 1, "text": "a"}, {"order": 1, "text": "b"}]}]}',
    '{"paragraphs": [], "facts": [], "x": NaN}',
])
def test_bad_input_judges_nothing_and_exits_2(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    result = _invoke(path)
    assert result.exit_code == EXIT_USAGE
    assert result.stdout == ""
    assert result.stderr.startswith("omega: ")


def test_a_missing_file_exits_2(tmp_path: Path) -> None:
    assert _invoke(tmp_path / "absent.json").exit_code == EXIT_USAGE
