"""Progress bars (rich, transient) for the commands that work through many events, only when a person watches:
on a terminal, and for inputs large enough to wait for. Without a terminal nothing is drawn or written."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

from rich.console import Console
from rich.progress import Progress

from streams.replay.inputs import STDIN

T = TypeVar("T")

CHECK_THRESHOLD = 10_000
"""Fewer items than this go by too fast for a bar to be worth drawing."""
REPLAY_THRESHOLD_BYTES = 5_000_000


def stderr_console() -> Console:
    """The console the check commands draw on: stderr, as their stdout carries the JSON lines."""
    return Console(stderr=True)


def with_progress(items: Iterable[T], total: int, description: str, console: Console | None = None) -> Iterator[T]:
    """`items`, drawing a bar on stderr while they are worked through, when stderr is a terminal, stdout is not,
    and there are at least `CHECK_THRESHOLD` of them."""
    console = console or stderr_console()
    # A stdout on the terminal as well shows the progress itself, line by line, and would tear the bar: click.echo
    # writes past rich's stdout redirection, so a line lands after the bar and the next refresh erases it.
    if total < CHECK_THRESHOLD or not console.is_terminal or sys.stdout.isatty():
        yield from items
        return
    # No redirection: rich would route stdout's writes onto the bar's console, stderr.
    with Progress(console=console, transient=True, redirect_stdout=False) as progress:
        task = progress.add_task(description, total=total)
        for item in items:
            yield item
            progress.advance(task)


def by_input_size(records: Iterator[T], paths: list[Path], console: Console) -> Iterator[T]:
    """`omega replay`'s bar: on a terminal for inputs of `REPLAY_THRESHOLD_BYTES` or more (stdin not counted);
    the number of records is not known ahead, so it counts without a total."""
    total_bytes = sum(p.stat().st_size for p in paths if p != STDIN)
    if not console.is_terminal or total_bytes < REPLAY_THRESHOLD_BYTES:
        yield from records
        return
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("replaying", total=None)
        for record in records:
            progress.advance(task)
            yield record
