"""Canonical JSON and content hashes: the basis of every derived id, so replays give the same ids."""

from __future__ import annotations

import hashlib
import json

import orjson


def canonical_json(value: object) -> str:
    """Deterministic JSON text: sorted keys, no spaces, UTF-8 kept, NaN refused."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def content_hash(value: object) -> str:
    """SHA-256 hex digest of compact, key-sorted JSON of `value` (orjson's form; a hash, never shown)."""
    # orjson is ~7x faster than the stdlib encoder, and a packet is hashed on every evolve. It refuses what
    # the stdlib takes (ints past 64 bits, lone surrogates, non-str keys); those hash the canonical text.
    # Its float text differs from `canonical_json` ("1e16", not "1e+16"), so the two are not interchangeable.
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        data = canonical_json(value).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def derived_id(prefix: str, *parts: str) -> str:
    """A stable id from its inputs: `prefix` + the first 32 hex digits of SHA-256 over the parts."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"{prefix}{digest[:32]}"
