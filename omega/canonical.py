"""Canonical JSON and content hashes: the basis of every derived id, so replays give the same ids."""

from __future__ import annotations

import hashlib
import json


def canonical_json(value: object) -> str:
    """Deterministic JSON text: sorted keys, no spaces, UTF-8 kept, NaN refused."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def content_hash(value: object) -> str:
    """SHA-256 hex digest of the canonical JSON of `value`."""
    return hashlib.sha256(canonical_json(value).encode("utf-8", "surrogatepass")).hexdigest()


def derived_id(prefix: str, *parts: str) -> str:
    """A stable id from its inputs: `prefix` + the first 32 hex digits of SHA-256 over the parts."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"{prefix}{digest[:32]}"
