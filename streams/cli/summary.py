"""The readable replay summary: events in, verdicts by status, alerts by kind, dead letters by class, and the
OMEGA-57 sessions with their terminations."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from streams.replay.replayer import ReplaySummary


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
    if summary.sessions:
        table.add_row("OMEGA-57 sessions", "", str(summary.sessions))
        table.add_row("agent messages accepted", "", str(summary.messages))
        for status, count in sorted(summary.terminations.items()):
            table.add_row("terminations", status, str(count))
    console.print(table)
