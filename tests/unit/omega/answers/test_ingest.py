"""§2 ingest: every chunk's rejections are kept, and manual facts are validated against the chunk they cite (so
they inherit its version), each kept or rejected with its reasons."""

from __future__ import annotations

from typing import Any

from omega.answers.chunking import chunk
from omega.answers.ingest import ingest, ingest_manual
from omega.answers.model import Chunk
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB

TEXT = "Admin accounts require MFA.\n\nReports contain charts."
CHUNKS = chunk(TEXT, "doc", "v3")


def unknown_predicate_per_chunk(piece: Chunk, vocabulary: Any) -> list[Any]:
    return [{"span": {"start": 0, "end": 5}, "subject": "x", "predicate": "flies_to", "object": "y",
             "source": {"docId": piece.doc_id, "chunkId": piece.chunk_id}}]


def test_every_chunks_rejections_are_kept() -> None:
    done = ingest(TEXT, {"docId": "doc", "version": "v3"}, unknown_predicate_per_chunk, VOCAB)
    assert done.chunks == tuple(CHUNKS)
    assert done.facts == ()
    reason = (("UNKNOWN_PREDICATE", "'flies_to' is not in the predicate vocabulary", "predicate"),
              ("SUBJECT_NOT_IN_SPAN", "subject 'x' does not appear in the span", "subject"))
    assert [(r.chunk_id, r.reasons) for r in done.rejections] == [("doc@v3/c0", reason), ("doc@v3/c1", reason)]


def manual(subject: str, predicate: str, obj: str, chunk_id: str, end: int) -> dict[str, Any]:
    return {"span": {"start": 0, "end": end}, "subject": subject, "predicate": predicate, "object": obj,
            "source": {"docId": "doc", "chunkId": chunk_id}}


def test_manual_facts_are_validated_against_the_chunk_they_cite_and_inherit_its_version() -> None:
    candidates = [
        manual("admin_account", "requires", "mfa", "doc@v3/c0", 27),
        manual("report", "requires", "mfa", "doc@v3/c0", 27),  # not in the cited span
        manual("report", "contain", "chart", "doc@v3/c1", 23),  # not a predicate
        manual("report", "contains", "chart", "doc@v3/c1", 23),
        manual("dashboard", "contains", "widget", "doc@v9/c0", 5),  # unknown chunk: §4.3 checks skipped
    ]
    done = ingest_manual(candidates, CHUNKS, VOCAB)
    assert done.chunks == ()
    assert [(f.subject, f.object, f.chunk_id, f.version) for f in done.facts] == [
        ("admin_account", "mfa", "doc@v3/c0", "v3"),
        ("report", "chart", "doc@v3/c1", "v3"),
        ("dashboard", "widget", "doc@v9/c0", None),
    ]
    assert [(r.chunk_id, r.reasons) for r in done.rejections] == [
        ("doc@v3/c0", (("SUBJECT_NOT_IN_SPAN", "subject 'report' does not appear in the span", "subject"),)),
        ("doc@v3/c1", (("UNKNOWN_PREDICATE", "'contain' is not in the predicate vocabulary", "predicate"),)),
    ]
