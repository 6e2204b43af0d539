"""The natural key of an input record: the key a producer should give it so that everything judged together meets
on one partition in log order (`omega publish` keys by it; the ingress counts records keyed otherwise).

    OMEN packets (JSON)          header.correlation_id: an episode is judged in order on one partition
    OMEGA-57 agent output        the session id (given by the caller: `--session-id` or the file's stem)
    Phase Q requests             the case `id`
    DS005 documents, questions;  the corpus (`corpus` field, default "default"): a corpus's facts and the
    grounding facts, requests    requests over them meet on one partition (stages/corpus.py)

A record whose natural key cannot be read (not JSON, no such field) keeps the key it was given: the stage that
reads it then names what is wrong with it.
"""

from __future__ import annotations

import json
from typing import Any

from streams.stages.base import InputRejected
from streams.stages.corpus import corpus_of
from streams.topics import (
    AGENT_MESSAGES_RAW,
    DOCUMENTS,
    GROUNDING_FACTS,
    GROUNDING_REQUESTS,
    ORACLE_REQUESTS,
    PACKETS_JSON,
    QUESTIONS,
    TopicSpec,
)

CORPUS_KEYED = (DOCUMENTS, QUESTIONS, GROUNDING_FACTS, GROUNDING_REQUESTS)


def natural_key(spec: TopicSpec | None, raw: bytes, given: bytes | None, session_id: str | None = None) -> bytes | None:
    """The key `raw` should carry on `spec`'s topic; `given` when the topic has none or it cannot be read."""
    if spec is AGENT_MESSAGES_RAW:
        return given if session_id is None else session_id.encode("utf-8")
    if spec is not PACKETS_JSON and spec is not ORACLE_REQUESTS and spec not in CORPUS_KEYED:
        return given
    value = _object(raw)
    if value is None:
        return given
    if spec is PACKETS_JSON:
        header = value.get("header")
        found = header.get("correlation_id") if isinstance(header, dict) else None
    elif spec is ORACLE_REQUESTS:
        found = value.get("id")
    else:
        try:
            found = corpus_of(value)
        except InputRejected:
            found = None
    return found.encode("utf-8") if isinstance(found, str) and found else given


def _object(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
