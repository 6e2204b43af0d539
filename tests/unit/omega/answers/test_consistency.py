"""§8 extraction consistency: the normalised fact texts a run is compared by, validation against the chunk, and
the degenerate runs (a single run, no run)."""

from __future__ import annotations

from typing import Any

import pytest

from omega.answers.consistency import Consistency, extraction_consistency, normalised_facts
from omega.answers.model import Chunk
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB
from tests.unit.omega.answers.support import PARAGRAPH, first_facts

CHUNK = Chunk("doc/c0", "doc", None, 0, 0, PARAGRAPH)
SOURCE = {"docId": "doc", "chunkId": "doc/c0"}
SESSION = '["session_token","expires_after",15.0,"affirm"]'
API_KEY = '["api_key","expires_after",43200.0,"affirm"]'
ADMIN = '["admin_account","requires","mfa","affirm"]'


def test_a_fact_is_compared_as_subject_predicate_normalised_object_and_polarity() -> None:
    # durations in minutes (30 days = 43200)
    assert normalised_facts(first_facts(3, SOURCE), CHUNK, VOCAB) == frozenset({SESSION, API_KEY, ADMIN})


def test_a_candidate_that_fails_span_validation_against_the_chunk_drops_and_later_candidates_still_count() -> None:
    session, api_key = first_facts(2, SOURCE)
    misplaced = {**api_key, "subject": "session_token"}  # the API key sentence does not name session tokens
    assert normalised_facts([misplaced, session], CHUNK, VOCAB) == frozenset({SESSION})
    assert normalised_facts(["not a fact", session, {"subject": "x"}, api_key], CHUNK, VOCAB) == \
        frozenset({SESSION, API_KEY})


def test_runs_are_validated_against_the_chunk_so_a_misplaced_extra_fact_does_not_lower_the_mean() -> None:
    session, api_key = first_facts(2, SOURCE)
    misplaced = {**api_key, "subject": "session_token"}
    outputs = iter([[session], [session, misplaced]])

    def extractor(piece: Chunk, vocabulary: Any) -> list[Any]:
        return next(outputs)

    assert extraction_consistency(CHUNK, extractor, VOCAB, runs=2) == Consistency(2, 1.0, (1, 1))


def test_a_single_run_is_fully_consistent() -> None:
    result = extraction_consistency(CHUNK, lambda piece, vocabulary: first_facts(2, SOURCE), VOCAB, runs=1)
    assert result == Consistency(1, 1.0, (2,))
    assert result.reliable


@pytest.mark.parametrize("runs", [0, -1])
def test_fewer_than_one_run_is_refused(runs: int) -> None:
    with pytest.raises(ValueError, match=r"^runs must be at least 1$"):
        extraction_consistency(CHUNK, lambda piece, vocabulary: [], VOCAB, runs=runs)
