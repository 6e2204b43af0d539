"""The text and JSON views of records (a record here: a dict as a topic carries it): a record key as text, and
an output record as `omega replay --out`, `omega check` and `omega tail` show it (its bytes by
`omega.bytes_json.jsonable`, which the projector's file reader inverts: projections imports no shell).

Used by replay, the check commands, the Kafka tail and the worker alike, so the views are one; imports nothing
of the shell (kafka/ and cli/ use it without reaching the stages).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, overload

from omega.bytes_json import jsonable


@overload
def key_text(key: bytes | None, absent: str) -> str: ...


@overload
def key_text(key: bytes | None, absent: None = None) -> str | None: ...


def key_text(key: bytes | None, absent: str | None = None) -> str | None:
    """A record key as text, bytes that are not UTF-8 replaced (U+FFFD); `absent` for a record without a key."""
    return absent if key is None else key.decode("utf-8", "replace")


def json_view(record: Mapping[str, Any]) -> dict[str, Any]:
    """An output record as its JSON views show it (replay --out, check lines, tail): `jsonable`, and `details`,
    which the Avro record carries as JSON text, as the object it encodes (issue 23; text that is not a JSON object
    or array stays text)."""
    view: dict[str, Any] = jsonable(dict(record))
    return details_decoded(view)


def details_decoded(view: dict[str, Any]) -> dict[str, Any]:
    """`view` with its `details` JSON text as the object or array it encodes (replaced in place)."""
    details = view.get("details")
    if isinstance(details, str):
        try:
            decoded = json.loads(details)
        except ValueError:
            return view
        if isinstance(decoded, dict | list):
            view["details"] = decoded
    return view
