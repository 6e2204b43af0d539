"""The labelled suite (tests/data/grounding/*.json): realistic scientific facts, supported sentences (rephrasings
and conjunctions of two facts) and at least five sentences per failure mode. The verifier never supports an
unsupported sentence; over-refusal is measured, not hidden. Also pins the contract metrics' definitions."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from omega.grounding.metrics import contract_metrics
from omega.grounding.model import FAILURE_CODES
from omega.grounding.paragraph import verify_paragraph
from omega.grounding.request import parse_facts, parse_request
from omega.grounding.verdict import SentenceVerdict

SUITE = sorted((Path(__file__).resolve().parents[3] / "data" / "grounding").glob("*.json"))


def _judged() -> list[tuple[SentenceVerdict, dict[str, Any]]]:
    out = []
    for path in SUITE:
        data = json.loads(path.read_text(encoding="utf-8"))
        facts = parse_facts(data["facts"])
        for paragraph in data["paragraphs"]:
            verdict = verify_paragraph(parse_request(paragraph, facts))
            labels = sorted(paragraph["sentences"], key=lambda s: s["order"])
            out += list(zip(verdict.sentences, labels, strict=True))
    return out


JUDGED = _judged()


def test_the_suite_is_large_enough_and_covers_every_failure_mode_five_times() -> None:
    assert len(JUDGED) >= 80
    assert sum(label["expected_supported"] for _, label in JUDGED) >= 30
    modes = Counter(m for _, label in JUDGED for m in label.get("expected_failure_modes", [])[:1])
    assert {code: modes[code] for code in FAILURE_CODES if modes[code] < 5} == {}


def test_conjunctions_of_two_facts_are_among_the_supported_sentences() -> None:
    assert sum(1 for v, label in JUDGED if label["expected_supported"] and len(v.cited_fact_ids) == 2) >= 5


def test_no_unsupported_sentence_passes() -> None:
    wrongly = [v.text for v, label in JUDGED if v.passed and not label["expected_supported"]]
    metrics = contract_metrics([(v.passed, label["expected_supported"]) for v, label in JUDGED], [])
    assert wrongly == []
    assert metrics.false_support_rate == 0.0
    assert metrics.correct_refusal_rate == 1.0


def test_every_refusal_names_its_expected_failure_mode_and_the_evidence_required() -> None:
    for verdict, label in JUDGED:
        if not label["expected_supported"]:
            assert set(label["expected_failure_modes"]) <= {f.code for f in verdict.failures}, verdict.text
            assert all(f.required_evidence for f in verdict.failures)


def test_over_refusal_is_limited_to_the_paraphrases_beyond_the_synonym_table() -> None:
    refused = [v for v, label in JUDGED if label["expected_supported"] and not v.passed]
    metrics = contract_metrics([(v.passed, label["expected_supported"]) for v, label in JUDGED], [])
    assert metrics.over_refusal_rate == pytest.approx(len(refused) / metrics.labelled_supported, abs=1e-6)
    assert all({f.code for f in v.failures} == {"NOT_ENTAILED"} for v in refused)  # wording, not substance
    assert len(refused) <= 2


def test_the_metrics_follow_their_definitions() -> None:
    # (passed, expected_supported): 2 supported (1 refused), 3 unsupported (1 passed), 1 unlabelled
    sentences = [(True, True), (False, True), (True, False), (False, False), (False, False), (True, None)]
    metrics = contract_metrics(sentences, [True, False, False, False])
    assert metrics.sentence_support_rate == pytest.approx(3 / 6, abs=1e-6)
    assert metrics.false_support_rate == pytest.approx(1 / 3, abs=1e-6)
    assert metrics.correct_refusal_rate == pytest.approx(2 / 3, abs=1e-6)
    assert metrics.over_refusal_rate == pytest.approx(1 / 2)
    assert metrics.verified_paragraph_rate == pytest.approx(1 / 4)


def test_a_rate_over_nothing_is_none_never_nan() -> None:
    metrics = contract_metrics([(True, None)], [])
    assert (metrics.false_support_rate, metrics.over_refusal_rate, metrics.verified_paragraph_rate) == (None,) * 3
