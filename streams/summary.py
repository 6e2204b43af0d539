"""The readable replay summary: events in, verdicts by status, alerts by kind, dead letters by class."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from streams.replay import ReplaySummary


def render_summary(summary: ReplaySummary, console: Console, title: str = "Replay") -> None:
    """Print the summary as one rich table."""
    table = Table(title=title, show_lines=False)
    table.add_column("what")
    table.add_column("kind")
    table.add_column("count", justify="right")
    table.add_row("events in", "", str(summary.events_in))
    table.add_row("episodes", "", str(summary.episodes))
    for label, counter in (("verdicts", summary.verdicts), ("alerts", summary.alerts),
                           ("dead letters", summary.dead_letters)):
        if not counter:
            table.add_row(label, "-", "0")
        for kind, count in sorted(counter.items()):
            table.add_row(label, kind, str(count))
    table.add_row("escalations", "", str(summary.escalations))
    console.print(table)
