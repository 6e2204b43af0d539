"""What every `omega check` command shares: `--format json|table`, `--fail-on`, the stderr summary (counts by
status, the first rejections with their rule), the exit code, and an empty input reported as an input error."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

import click

from omega.canonical import canonical_json
from streams.cli.options import EXIT_OK, EXIT_REJECTED, usage_error

FAIL_ON = ("rejected", "warning", "alert", "escalation")
FIRST_REJECTIONS = 5
F = TypeVar("F", bound=Callable[..., Any])

# The threshold: each level fails on its own findings and on every graver one (a warning run also fails when
# something was rejected), so `--fail-on escalation` is the most lenient gate.
_GRAVER = {"rejected": {"rejected"}, "escalation": {"rejected", "escalation"},
           "alert": {"rejected", "escalation", "alert"}, "warning": {"rejected", "escalation", "alert", "warning"}}


def check_options(func: F) -> F:
    """`--format` and `--fail-on`, the same on every check command."""
    func = click.option("--fail-on", "fail_on", type=click.Choice(FAIL_ON), default="rejected", show_default=True,
                        help="Exit 1 when this or anything graver is found (warning < alert < escalation < "
                             "rejected); a rejection always fails.")(func)
    return click.option("--format", "output_format", type=click.Choice(("json", "table")), default="json",
                        show_default=True, help="JSON lines, or one tab-separated row per line.")(func)


@dataclass
class Tally:
    """The findings of one check run, as the summary and the exit code read them."""

    fail_on: str = "rejected"
    output_format: str = "json"
    statuses: Counter[str] = field(default_factory=Counter)
    found: set[str] = field(default_factory=set)
    rejections: list[str] = field(default_factory=list)
    judged: int = 0

    def line(self, line: dict[str, Any], *, status: str | None = None, rule: str = "", where: str = "") -> None:
        """Print one output line and count it: `status` for a judged item, else the line's `kind`."""
        kind = str(line.get("kind", ""))
        label = status or kind
        self.statuses[label] += 1
        if status is not None:
            self.judged += 1
        level = _level(kind, status)
        if level:
            self.found.add(level)
        if level == "rejected" and len(self.rejections) < FIRST_REJECTIONS:
            self.rejections.append(f"{where}: {rule}" if where else rule)
        click.echo(canonical_json(line) if self.output_format == "json" else table_row(line))

    def finish(self, what: str) -> NoReturn:
        """The summary on stderr and the exit: 2 when nothing was read, 1 when `--fail-on` is crossed."""
        if not sum(self.statuses.values()):
            usage_error(f"empty input: no {what} found")
        counts = ", ".join(f"{name} {count}" for name, count in sorted(self.statuses.items()))
        click.echo(f"{self.judged} {what} judged: {counts}", err=True)
        for rejection in self.rejections:
            click.echo(f"  rejected {rejection}", err=True)
        sys.exit(EXIT_REJECTED if self.found & _GRAVER[self.fail_on] else EXIT_OK)


def _level(kind: str, status: str | None) -> str:
    # UNRELIABLE: `check extraction`'s chunk below the §8 threshold; a `violation` line (`check memories`) is a
    # rejection counted by kind, as a dead letter is
    if status in ("REJECTED", "FAIL", "DISAGREE", "UNRELIABLE") or kind in ("dead_letter", "violation"):
        return "rejected"
    if status in ("WARNING", "ACCEPTED_WITH_WARNINGS"):
        return "warning"
    return kind if kind in ("alert", "escalation") else ""


def table_row(line: dict[str, Any]) -> str:
    """One line as tab-separated `key=value` cells, nested values as compact JSON."""
    return "\t".join(f"{k}={v if isinstance(v, str) else canonical_json(v)}" for k, v in line.items())
