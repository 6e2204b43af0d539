"""JSON text to values, strictly: Python's decoder admits NaN, Infinity and -Infinity, which JSON does not."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NoReturn


class NonFiniteConstant(ValueError):
    """NaN, Infinity or -Infinity in JSON text; `constant` is the word as written."""

    def __init__(self, constant: str) -> None:
        super().__init__(f"{constant} is not JSON")
        self.constant = constant


def reject_constant(name: str) -> NoReturn:
    """A `parse_constant` hook for `json.loads` that refuses every non-finite constant."""
    raise NonFiniteConstant(name)


def loads(text: str | bytes | bytearray,
          object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """`json.loads`, but NaN, Infinity and -Infinity raise NonFiniteConstant ("NaN is not JSON")."""
    return json.loads(text, parse_constant=reject_constant, object_pairs_hook=object_pairs_hook)
