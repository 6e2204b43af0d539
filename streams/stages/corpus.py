"""The corpus: the Kafka key that co-partitions a corpus's facts with the questions or paragraphs judged over them.

DS005 (documents, facts, questions) and grounded generation (facts, paragraph requests) both key their input
topics by corpus, so every fact of a corpus and every request over it meet on one partition; tables beside them
are keyed `corpus/id`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from streams.stages.base import InputRejected

DEFAULT_CORPUS = "default"


def corpus_of(value: Mapping[str, Any]) -> str:
    """The corpus a record belongs to: its `corpus` field, else the default."""
    corpus = value.get("corpus", DEFAULT_CORPUS)
    if not isinstance(corpus, str) or not corpus or "/" in corpus:
        raise InputRejected("INVALID_CORPUS", "corpus must be a non-empty string without '/' or absent")
    return corpus


def fact_key(corpus: str, item_id: str) -> str:
    """A corpus table's key: corpus, then the item's id."""
    return f"{corpus}/{item_id}"


def keyed_by(corpus: str, key: bytes | None) -> bool:
    """Whether a record's Kafka key is its corpus (else it is re-published keyed by it)."""
    return key == corpus.encode("utf-8")


class CorpusView(Mapping[str, Any]):
    """One corpus's entries of a `corpus/id`-keyed table, by id (a read-only view; nothing is copied)."""

    def __init__(self, table: Any, corpus: str) -> None:
        self.table, self.prefix = table, f"{corpus}/"

    def __getitem__(self, item_id: str) -> Any:
        value = self.table.get(self.prefix + item_id)
        if value is None:
            raise KeyError(item_id)
        return value

    def __iter__(self) -> Iterator[str]:
        size = len(self.prefix)
        return (str(k)[size:] for k in list(self.table.keys()) if str(k).startswith(self.prefix))

    def __len__(self) -> int:
        return sum(1 for _ in self)
