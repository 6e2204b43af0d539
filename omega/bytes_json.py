"""Bytes in JSON values and back: `{"utf8": text}` when they are UTF-8 text, else `{"base64": text}`.

The core itself carries no bytes; the pair lives here because the two shells write and read it on either side
of a file (`omega replay --out` and `omega tail` write records with it, `omega project --from` reads them back)
and the core is the one package both may import (projections imports nothing of streams).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any


def jsonable(value: Any) -> Any:
    """A record as JSON: bytes become `{"utf8": ...}` when they are text, else `{"base64": ...}`."""
    if isinstance(value, bytes):
        try:
            return {"utf8": value.decode("utf-8")}
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def unjsonable(value: Any) -> Any:
    """The inverse of `jsonable`: every `{"utf8": text}` / `{"base64": text}` object in `value` back to bytes.

    Only an object with exactly that one key and a text value is read as bytes: a record field that is a map
    holding a single "utf8" key would be misread, and the Avro contract has no such map."""
    if isinstance(value, dict):
        found = bytes_of(value)
        if found is not None:
            return found
        return {k: unjsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [unjsonable(v) for v in value]
    return value


def bytes_of(value: Any) -> bytes | None:
    """The bytes a `{"utf8": text}` / `{"base64": text}` object stands for; None for any other value.

    Raises binascii.Error (a ValueError) for base64 text that is not base64, a character outside the alphabet
    included: jsonable never writes one, so it is damaged, not bytes to guess at."""
    if isinstance(value, dict) and len(value) == 1:
        (name, inner), = value.items()
        if isinstance(inner, str):
            if name == "utf8":
                return inner.encode("utf-8")
            if name == "base64":
                try:
                    return base64.b64decode(inner, validate=True)
                except ValueError as exc:  # text that is not ASCII is refused with a plain ValueError
                    raise binascii.Error(str(exc)) from exc
    return None
