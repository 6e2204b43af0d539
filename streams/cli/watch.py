"""`omega watch`: the live view in a terminal (issue 25): episodes in trouble first with their budget bars, and the
last alerts, redrawn as the read model changes.

    --store URL    read a read model that a running `omega project` writes (opened read-only, polled)
    --bootstrap    no read model at hand: project the broker's topics into a temporary one here, and watch that
    --once         one frame, then exit (scripts, tests)

Ctrl-C ends it with exit 0. The rows come from projections.live.views, the same read model as the HTTP API.
"""

from __future__ import annotations

import asyncio
import math
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.table import Table
from rich.text import Text

from projections.live import views
from projections.projector import Projector
from projections.runner import EventSource, Runner
from projections.store.base import SqlStore
from streams.cli.memory import _opened  # the read commands' one way to open a store (read-only, exit 2 if absent)
from streams.cli.options import EXIT_OK, prefix_option, read_model_option, usage_error

BAR_WIDTH = 10
WIDE = 120
"""Terminal width from which every column is shown; narrower terminals drop the low-priority ones."""
BURN_HIGH = 0.8  # the read model counts an episode as in trouble from 80 % of a budget
WATCH_GROUP = "omega-watch"
"""Kafka consumer group of `--bootstrap` (its offsets are a monitoring aid only; kept apart from the projector's)."""


# ------------------------------------------------------------------------------------------- rendering
def budget_bar(name: str, budget: Mapping[str, Any], bar_width: int = BAR_WIDTH) -> Text:
    """One budget as `name ██████░░░░ 64%` (red over the limit, yellow from 80 %); without a limit, the usage."""
    used, limit, burn = budget.get("used"), budget.get("limit"), budget.get("burn")
    if limit is None or burn is None:
        return Text(f"{name} {_number(used)} (no limit)", style="dim")
    filled = math.floor(min(float(burn), 1.0) * bar_width + 0.5)  # half up: 25 % is 3 of 10, not banker's 2
    style = "bold red" if burn > 1 else "yellow" if burn >= BURN_HIGH else "green"
    bar = Text(f"{name} ")
    bar.append("█" * filled, style=style)
    bar.append("░" * (bar_width - filled), style="dim")
    bar.append(f" {round(float(burn) * 100)}%", style=style)
    return bar


def episodes_table(items: Sequence[Mapping[str, Any]], *, width: int = WIDE) -> Table:
    """The episodes as the read model orders them (in trouble first), one line per episode; under `WIDE` columns
    the last event is dropped and only the worst budget shown."""
    narrow = width < WIDE
    table = Table(title="Episodes, in trouble first", title_justify="left", expand=True)
    columns: list[tuple[str, dict[str, Any]]] = [("episode", {"ratio": 2, "min_width": 8}), ("state", {}),
                                                 ("a/w/r" if narrow else "packets a/w/r", {}),
                                                 ("worst budget" if narrow else "budgets", {"ratio": 4}),
                                                 ("alerts", {})]
    if not narrow:
        columns.append(("last event", {}))
    for column, kwargs in columns:
        table.add_column(column, no_wrap=True, overflow="ellipsis", **kwargs)
    for ep in items:
        packets = ep.get("packets") or {}
        state = Text(str(ep.get("fsm_state", "")))
        if ep.get("safe_mode"):
            state.append(" SAFE" if narrow else " SAFE MODE", style="bold white on red")
        counts = Text(f"{packets.get('accepted', 0)}/{packets.get('warnings', 0)}/")
        counts.append(str(packets.get("rejected", 0)), style="bold red" if packets.get("rejected") else "")
        # the worst burn first: the budget an ellipsis cuts is the least urgent
        budgets = sorted((ep.get("budgets") or {}).items(), key=_burn_first)[: 1 if narrow else None]
        # narrow: a half-length bar, so that the percentage is not the part cut off
        bars = Text("  ").join(budget_bar(name, b, BAR_WIDTH // 2 if narrow else BAR_WIDTH) for name, b in budgets)
        alerts = Text(str(ep.get("alerts", 0)))
        if ep.get("top_severity"):
            alerts.append(f" {ep['top_severity']}", style=_severity_style(ep["top_severity"]))
        cells: list[RenderableType] = [str(ep.get("episode_id", "")), state, counts, bars, alerts]
        if not narrow:
            cells.append(_time(ep.get("last_event_time")))
        table.add_row(*cells, style="on grey15" if ep.get("trouble") else None)
    if not items:
        table.caption = "no episodes in the read model yet"
    return table


def _burn_first(item: tuple[str, Mapping[str, Any]]) -> tuple[float, str]:
    """Sort key: the highest burn first, budgets without a limit last, then by name."""
    burn = item[1].get("burn")
    return (-float(burn) if burn is not None else math.inf, item[0])


def alerts_table(items: Sequence[Mapping[str, Any]], *, width: int = WIDE) -> Table:
    """The last alerts, newest first, one line each (cut with an ellipsis); under `WIDE` columns the time drops
    its year."""
    narrow = width < WIDE
    table = Table(title="Last alerts", title_justify="left", expand=True)
    columns: list[tuple[str, dict[str, Any]]] = [("time", {}), ("severity", {}), ("kind", {"ratio": 2}),
                                                 ("episode / subject", {"ratio": 2, "min_width": 8}),
                                                 ("summary", {"ratio": 3, "min_width": 8})]
    for column, kwargs in columns:
        table.add_column(column, no_wrap=True, overflow="ellipsis", **kwargs)
    for alert in items:
        severity = str(alert.get("severity", ""))
        moment = _time(alert.get("event_time"))
        table.add_row(moment[5:] if narrow else moment, Text(severity, style=_severity_style(severity)),
                      str(alert.get("kind", "")), str(alert.get("episode_id") or alert.get("subject_id") or ""),
                      str(alert.get("summary", "")))
    if not items:
        table.caption = "no alerts yet"
    return table


def frame(episodes: Sequence[Mapping[str, Any]], alerts: Sequence[Mapping[str, Any]], *, source: str,
          updated: str | None = None, width: int = WIDE) -> RenderableType:
    """One screen of `width` columns: a header line, the episodes, the alerts."""
    header = Text(f"omega watch  {source}", style="bold", no_wrap=True, overflow="ellipsis")
    if updated:
        header.append(f"  updated {updated}  (Ctrl-C to stop)", style="dim")
    return Group(header, episodes_table(episodes, width=width), alerts_table(alerts, width=width))


def _severity_style(severity: str) -> str:
    return {"CRITICAL": "bold white on red", "HIGH": "bold red", "MEDIUM": "yellow", "LOW": "cyan"}.get(severity,
                                                                                                         "dim")


def _time(value: Any) -> str:
    """`2025-12-27T16:01:35.000Z` as `2025-12-27 16:01:35` (UTC, as the read model keeps it)."""
    return str(value or "").replace("T", " ").removesuffix("Z").split(".")[0]


def _number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


# ------------------------------------------------------------------------------------------- reading
class AlertFeed:
    """The last `keep` alerts, newest event time first (ties: highest seq first): the first read takes the newest
    page, later reads only what arrived after the highest seq seen."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.items: list[dict[str, Any]] = []
        self.last_seq: int | None = None

    def refresh(self, store: SqlStore) -> None:
        """Read what is new since the last refresh."""
        if self.last_seq is None:
            fresh = list(views.alerts(store, limit=self.keep)["items"])
            self.last_seq = max((a["seq"] for a in fresh), default=0)
        else:
            fresh = []
            while True:
                page = views.alerts_after(store, self.last_seq, limit=100)
                fresh += page
                if not page:
                    break
                self.last_seq = max(self.last_seq, *(a["seq"] for a in page))
                if len(page) < 100:
                    break
        known = {a["alert_id"] for a in self.items}
        merged = [a for a in fresh if a["alert_id"] not in known] + self.items
        # event time, not seq: a replay or a late producer delivers alerts out of event-time order
        self.items = sorted(merged, key=_newest_first)[: self.keep]


def _newest_first(alert: Mapping[str, Any]) -> tuple[str, int]:
    """Sort key: the latest event time first, then the highest seq (ISO-8601 UTC strings order as times)."""
    moment = str(alert.get("event_time") or "")
    return ("".join(chr(0x10FFFF - ord(c)) for c in moment), -int(alert["seq"]))


def read_frame(store: SqlStore, feed: AlertFeed, *, source: str, limit: int, trouble_only: bool,
               updated: str | None, width: int = WIDE) -> RenderableType:
    """The current frame of the store, `width` columns wide."""
    feed.refresh(store)
    episodes = views.episodes(store, trouble_only=trouble_only, limit=limit)["items"]
    return frame(episodes, feed.items, source=source, updated=updated, width=width)


def _clock() -> str:
    return time.strftime("%H:%M:%S")


async def watch_loop(store: SqlStore, console: Console, *, source: str, limit: int, alerts: int,
                     trouble_only: bool, interval: float, frames: int | None = None,
                     clock: Callable[[], str] = _clock) -> None:
    """Redraw every `interval` seconds (`frames`: stop after that many, for tests; None: until cancelled)."""
    feed = AlertFeed(alerts)
    drawn = 0
    with Live(console=console, auto_refresh=False, transient=False) as live:
        while frames is None or drawn < frames:
            live.update(read_frame(store, feed, source=source, limit=limit, trouble_only=trouble_only,
                                   updated=clock(), width=console.width), refresh=True)
            drawn += 1
            if frames is None or drawn < frames:
                await asyncio.sleep(interval)


async def watch_projecting(store: SqlStore, source: EventSource, console: Console, *, label: str, limit: int,
                           alerts: int, trouble_only: bool, interval: float, once: bool, idle: float) -> None:
    """Project `source` into `store` (a fresh read model) while watching it; `once`: project until `idle` seconds
    without a record (or the end of the source), then print one frame."""
    runner = Runner(Projector(store), source, until_idle=idle if once else None)
    projecting = asyncio.create_task(runner.run())
    viewing: asyncio.Task[None] | None = None
    try:
        if once:
            await projecting
            console.print(read_frame(store, AlertFeed(alerts), source=label, limit=limit, trouble_only=trouble_only,
                                     updated=None, width=console.width))
            return
        viewing = asyncio.create_task(watch_loop(store, console, source=label, limit=limit, alerts=alerts,
                                                 trouble_only=trouble_only, interval=interval))
        done, _ = await asyncio.wait({projecting, viewing}, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()  # a projector that failed ends the watch with its error
    finally:
        if viewing is not None:
            viewing.cancel()
        runner.request_stop()  # graceful: the batch in hand commits, the source is released
        if not projecting.done():
            await projecting


@contextmanager
def _scratch_store() -> Iterator[SqlStore]:
    """A new, empty SQLite read model in a temporary directory, removed afterwards."""
    from projections.store.sqlite import SqliteStore

    with tempfile.TemporaryDirectory(prefix="omega-watch-") as scratch:
        store = SqliteStore(str(Path(scratch) / "memories.sqlite"))
        store.open()
        try:
            yield store
        finally:
            store.close()


# ------------------------------------------------------------------------------------------- the command
@click.command("watch")
@read_model_option
@click.option("--bootstrap", default=None,
              help="Instead of --store: project this broker's topics into a temporary read model and watch that "
                   "(starts from the beginning of the log).")
@prefix_option
@click.option("--interval", type=click.FloatRange(min=0.1), default=1.0, show_default=True,
              help="Seconds between redraws.")
@click.option("--limit", type=click.IntRange(min=1), default=15, show_default=True, help="Episodes shown.")
@click.option("--alerts", "alert_count", type=click.IntRange(min=1), default=10, show_default=True,
              help="Last alerts shown.")
@click.option("--trouble-only", is_flag=True, help="Only the episodes in trouble.")
@click.option("--once", is_flag=True, help="Print one frame and exit (with --bootstrap: once the log is idle).")
@click.option("--idle", type=click.FloatRange(min=0.1), default=3.0, show_default=True,
              help="With --bootstrap --once: seconds without a record that end the projection.")
def watch(store_url: str, bootstrap: str | None, prefix: str, interval: float, limit: int, alert_count: int,
          trouble_only: bool, once: bool, idle: float) -> None:
    """Watch episodes in trouble and the last alerts live in the terminal (Ctrl-C to stop)."""
    if bootstrap and click.get_current_context().get_parameter_source("store_url") is ParameterSource.COMMANDLINE:
        usage_error("--store and --bootstrap exclude each other: watch a read model, or project one here")
    console = Console()
    try:
        if bootstrap:
            _watch_broker(bootstrap, prefix, console, limit=limit, alerts=alert_count, trouble_only=trouble_only,
                          interval=interval, once=once, idle=idle)
        else:
            with _opened(store_url, read_only=True) as store:
                if once:
                    console.print(read_frame(store, AlertFeed(alert_count), source=store_url, limit=limit,
                                             trouble_only=trouble_only, updated=None, width=console.width))
                else:
                    asyncio.run(watch_loop(store, console, source=store_url, limit=limit, alerts=alert_count,
                                           trouble_only=trouble_only, interval=interval))
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a watch ends
    sys.exit(EXIT_OK)


def _watch_broker(bootstrap: str, prefix: str, console: Console, **options: Any) -> None:
    from streams.cli.kafka import kafka_errors, settings_or_exit
    from streams.kafka.projection_source import KafkaSource
    from streams.wire.confluent import with_registry

    settings = settings_or_exit()
    source = KafkaSource(bootstrap, prefix=prefix, group_id=WATCH_GROUP,
                         client_options=settings.kafka_client_options(), registry=with_registry(settings))
    with _scratch_store() as store, kafka_errors(bootstrap):
        asyncio.run(watch_projecting(store, source, console, label=f"kafka {bootstrap} (projected here)",
                                     **options))
