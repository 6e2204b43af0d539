"""The contract metrics of a labelled evaluation, worked by hand on tiny inputs from their definitions."""

from __future__ import annotations

from omega.grounding.metrics import contract_metrics

# (passed, expected_supported): two labelled supported (one passed), three labelled unsupported (one passed,
# two refused), one unlabelled that passed.
SENTENCES = [(True, True), (False, True), (True, False), (False, False), (False, False), (True, None)]


def test_each_rate_is_its_definition_worked_on_the_labels_and_reported_to_six_decimals() -> None:
    metrics = contract_metrics(SENTENCES, [True, False, False])
    assert metrics.to_dict() == {
        "sentence_support_rate": 0.5,  # 3 PASS of 6 sentences
        "false_support_rate": 0.333333,  # 1 PASS of 3 labelled unsupported
        "verified_paragraph_rate": 0.333333,  # 1 verified of 3 paragraphs
        "correct_refusal_rate": 0.666667,  # 2 FAIL of 3 labelled unsupported
        "over_refusal_rate": 0.5,  # 1 FAIL of 2 labelled supported
        "sentences": 6, "labelled_supported": 2, "labelled_unsupported": 3, "paragraphs": 3,
    }


def test_a_rate_over_an_empty_population_is_none_and_the_counts_are_zero() -> None:
    metrics = contract_metrics([], [])
    assert metrics.to_dict() == {
        "sentence_support_rate": None, "false_support_rate": None, "verified_paragraph_rate": None,
        "correct_refusal_rate": None, "over_refusal_rate": None,
        "sentences": 0, "labelled_supported": 0, "labelled_unsupported": 0, "paragraphs": 0,
    }


def test_unlabelled_sentences_count_only_towards_the_support_rate() -> None:
    metrics = contract_metrics([(False, None), (True, None)], [True])
    assert (metrics.sentence_support_rate, metrics.sentences, metrics.paragraphs) == (0.5, 2, 1)
    assert (metrics.labelled_supported, metrics.labelled_unsupported) == (0, 0)
    assert (metrics.false_support_rate, metrics.correct_refusal_rate, metrics.over_refusal_rate) == (None, None, None)
    assert metrics.verified_paragraph_rate == 1.0
