"""Deterministic chunking with stable chunk ids.

Choice: a chunk is a paragraph (text between blank lines), with its offset kept; its id is
`{docId}@{version}/c{index}` (`{docId}/c{index}` without a version): readable in `chunksUsed`, stable
across re-ingestion of the same document version, and different across versions.
"""

from __future__ import annotations

import re

from omega.answers.model import Chunk

_PARAGRAPH = re.compile(r"\S(?:.*?\S)??(?=\n[ \t]*\n|\s*\Z)", re.DOTALL)


def chunk_id(doc_id: str, version: str | None, index: int) -> str:
    """The stable id of a document version's index-th chunk."""
    return f"{doc_id}@{version}/c{index}" if version else f"{doc_id}/c{index}"


def chunk(text: str, doc_id: str, version: str | None = None) -> list[Chunk]:
    """Split `text` into paragraph chunks in order; empty text gives no chunks."""
    return [Chunk(chunk_id(doc_id, version, i), doc_id, version, i, m.start(), m.group(0))
            for i, m in enumerate(_PARAGRAPH.finditer(text))]
