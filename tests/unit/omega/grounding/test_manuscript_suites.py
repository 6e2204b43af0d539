"""Issue 42: grounding on manuscript prose. The own manuscript suite (tests/data/grounding_manuscript: six fields,
each label with its contract basis) and the blind halves written from the contract alone
(tests/data/grounding_blind, tests/data/grounding_blind_2 .. tests/data/grounding_blind_8) are judged on every
build. The bounds are the figures measured when they landed (BENCHMARKS.md, `make grounding-eval`), as floors
against regression; the first two blind halves also at the issue's goal (false support <= 1%, recall >= 60%),
which the third to eighth, written on 2026-11-29 and 2026-11-30, do not meet yet (their floors are where they
stand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from omega.grounding.paragraph import verify_paragraph
from omega.grounding.request import parse_facts, parse_request

DATA = Path(__file__).resolve().parents[3] / "data"


def _judged(folder: str) -> list[tuple[bool, bool, str]]:
    """(passed, expected_supported, basis) per sentence of every file of a labelled folder."""
    out = []
    for path in sorted((DATA / folder).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        facts = parse_facts(data["facts"])
        for paragraph in data["paragraphs"]:
            verdict = verify_paragraph(parse_request(paragraph, facts))
            labels = sorted(paragraph["sentences"], key=lambda s: s["order"])
            out += [(v.passed, label["expected_supported"], label.get("basis", ""))
                    for v, label in zip(verdict.sentences, labels, strict=True)]
    return out


@pytest.mark.parametrize(("folder", "max_false", "min_passed"), [
    ("grounding_manuscript", 0, 76), ("grounding_blind", 0, 21), ("grounding_blind_2", 0, 40),
    ("grounding_blind_3", 0, 46), ("grounding_blind_4", 0, 40), ("grounding_blind_5", 10, 31),
    ("grounding_blind_6", 2, 13), ("grounding_blind_7", 1, 19), ("grounding_blind_8", 0, 16),
])
def test_false_support_and_recall_stay_at_least_where_they_landed(folder: str, max_false: int,
                                                                  min_passed: int) -> None:
    judged = _judged(folder)
    false_support = sum(1 for passed, supported, _ in judged if passed and not supported)
    recall = sum(1 for passed, supported, _ in judged if passed and supported)
    assert false_support <= max_false
    assert recall >= min_passed


def test_the_manuscript_suite_covers_six_fields_and_every_label_has_its_basis() -> None:
    assert len(list((DATA / "grounding_manuscript").glob("*.json"))) >= 6
    judged = _judged("grounding_manuscript")
    assert len(judged) >= 150
    assert all("§" in basis or "G-" in basis for _, _, basis in judged)


@pytest.mark.parametrize("folder", ["grounding_blind", "grounding_blind_2"])
def test_each_blind_half_meets_the_goal(folder: str) -> None:
    judged = _judged(folder)
    unsupported = [passed for passed, supported, _ in judged if not supported]
    supported = [passed for passed, supported, _ in judged if supported]
    assert sum(unsupported) <= 0.01 * len(unsupported)
    assert sum(supported) >= 0.60 * len(supported)
