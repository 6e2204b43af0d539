"""FEVER-Symmetric dev (tests/data/fever_symmetric/, vendored with its licence): claims and evidence nobody on the
team wrote. The metrics are recomputed from the data on every run, so a change that lets refuted claims through
fails the build (issue 19: false support at most 1%, support recall at least 35%; issue 42 raised the recall floor to
where it landed, 155 of 354, so a change that loses it fails too)."""

from __future__ import annotations

import json
from pathlib import Path

from omega.grounding.metrics import contract_metrics
from omega.grounding.paragraph import verify_paragraph
from omega.grounding.request import parse_facts, parse_request

DEV = Path(__file__).resolve().parents[3] / "data" / "fever_symmetric" / "dev.grounding.json"


def _judged() -> list[tuple[bool, bool]]:
    data = json.loads(DEV.read_text(encoding="utf-8"))
    facts = parse_facts(data["facts"])
    out = []
    for paragraph in data["paragraphs"]:
        verdict = verify_paragraph(parse_request(paragraph, facts))
        labels = sorted(paragraph["sentences"], key=lambda s: s["order"])
        out += [(v.passed, label["expected_supported"]) for v, label in zip(verdict.sentences, labels, strict=True)]
    return out


def test_the_dev_split_is_the_published_one() -> None:
    judged = _judged()
    assert len(judged) == 708
    assert sum(label for _, label in judged) == 354


def test_refuted_claims_pass_at_most_one_time_in_a_hundred_and_supported_ones_at_least_43_in_a_hundred() -> None:
    metrics = contract_metrics(_judged(), [])
    assert metrics.false_support_rate is not None
    assert metrics.over_refusal_rate is not None
    assert metrics.false_support_rate <= 0.01
    assert 1 - metrics.over_refusal_rate >= 0.435
