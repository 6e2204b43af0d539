"""§2 ingest: text + metadata -> chunks -> extraction -> validate_and_filter -> facts and rejections.

Manual facts (the gold baseline) enter through `ingest_manual`, validated against the chunks they cite.
The metadata's version is kept as the producer wrote it (chunk ids and the facts that inherit it carry that
spelling); wherever it is compared, its canonical form is (`omega.answers.versions`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from omega.answers.chunking import chunk
from omega.answers.extraction import Extractor, rule_extract
from omega.answers.model import Chunk, Fact, Rejection
from omega.answers.validation import validate_and_filter
from omega.answers.vocabulary import DEFAULT_VOCABULARY, Vocabulary


@dataclass(frozen=True)
class Ingested:
    """What one ingestion produced: chunks, validated facts, and rejections with reasons."""

    chunks: tuple[Chunk, ...]
    facts: tuple[Fact, ...]
    rejections: tuple[Rejection, ...]


def ingest(text: str, metadata: Mapping[str, Any], extractor: Extractor = rule_extract,
           vocabulary: Vocabulary = DEFAULT_VOCABULARY) -> Ingested:
    """Chunk `text` (metadata: docId, optional version), extract each chunk, validate and filter."""
    version = metadata.get("version")
    chunks = chunk(text, str(metadata["docId"]), None if version is None else str(version))
    facts: list[Fact] = []
    rejections: list[Rejection] = []
    for piece in chunks:
        ok, bad = validate_and_filter(extractor(piece, vocabulary), piece, vocabulary)
        facts += ok
        rejections += bad
    return Ingested(tuple(chunks), tuple(facts), tuple(rejections))


def ingest_manual(candidates: Sequence[Any], chunks: Iterable[Chunk],
                  vocabulary: Vocabulary = DEFAULT_VOCABULARY) -> Ingested:
    """Manual facts, each validated against the chunk it cites (when that chunk is known)."""
    by_id = {c.chunk_id: c for c in chunks}
    facts: list[Fact] = []
    rejections: list[Rejection] = []
    for candidate in candidates:
        source = candidate.get("source") if isinstance(candidate, Mapping) else None
        cited = by_id.get(str(source.get("chunkId"))) if isinstance(source, Mapping) else None
        ok, bad = validate_and_filter([candidate], cited, vocabulary)
        facts += ok
        rejections += bad
    return Ingested((), tuple(facts), tuple(rejections))
