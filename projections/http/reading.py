"""The one store connection the request threads share, lent behind a lock (a SQLite connection must not run two
statements at once), and the error answers every router declares."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar

from fastapi import HTTPException
from pydantic import BaseModel

from projections.store.base import SqlStore

T = TypeVar("T")
Reading = Callable[[], AbstractContextManager[SqlStore]]
"""Lends the shared open store for one read."""


class Problem(BaseModel):
    """An error answer."""

    detail: str


NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": Problem}}
REFUSED: dict[int | str, dict[str, Any]] = {422: {"model": Problem, "description": "a refused argument"}}


def locked(store: SqlStore) -> Reading:
    """A `Reading` of `store` that lends it to one caller at a time."""
    lock = threading.Lock()

    @contextmanager
    def reading() -> Iterator[SqlStore]:
        with lock:
            yield store

    return reading


def read_checked(reading: Reading, call: Callable[[SqlStore], T]) -> T:
    """`call(store)` on the lent store, its ValueError (a refused argument) answered 422."""
    with reading() as store:
        try:
            return call(store)
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from exc


def read_found(reading: Reading, call: Callable[[SqlStore], T | None], unknown: str) -> T:
    """`read_checked(reading, call)`, its None answered 404 with the text `unknown`."""
    found = read_checked(reading, call)
    if found is None:
        raise HTTPException(404, unknown)
    return found
