"""The memory commands of the `omega` CLI: `project`, `memory show|serve|hash`, `check memories`.

Exit codes as in `streams.cli.options`: 0 ok, 1 something rejected (undecodable records skipped, an unknown session,
consistency violations), 2 usage or I/O error. `check memories` is on the contract every `omega check` shares
(`streams.cli.checking`: `--format json|table`, `--fail-on`, `N sessions judged: ...` on stderr); a read model
with no session is an empty input (exit 2).
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

import click
import structlog
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.tree import Tree

from omega.canonical import canonical_json
from projections.memories.consistency import check_consistency
from projections.memories.documents import KINDS
from projections.metrics import ProjectorMetrics
from projections.projector import DEFAULT_BATCH, REBUILD_BATCH, Projector
from projections.runner import EventSource, FileSource, ProgressLog, Runner, RunStats
from projections.store.base import SqlStore
from projections.store.urls import open_store
from streams.cli.checking import Tally, check_options
from streams.cli.options import (
    EXIT_OK,
    EXIT_REJECTED,
    bootstrap_option,
    existing_files,
    input_failed,
    prefix_option,
    read_model_option,
    usage_error,
)
from streams.cli.progress import with_progress
from streams.logs import masked
from streams.replay.inputs import STDIN, InputError, directory_inputs, gzip_checked, input_suffix, open_input
from streams.settings import SettingsError, kafka_client_options

log = structlog.get_logger("omega.projections")


@contextmanager
def _opened(store_url: str, *, read_only: bool = False) -> Iterator[SqlStore]:
    """The store, open; `read_only` (the read commands): opened so that it cannot be written, and a SQLite file
    that is not there is a usage error, not a new empty read model in which every session is unknown and every
    check passes."""
    path = store_url.removeprefix("sqlite:").removeprefix("//") if store_url.startswith("sqlite:") else None
    if read_only and path and path != ":memory:" and not Path(path).is_file():
        usage_error(f"no read model at {path}: project into it first (omega project ... --store {store_url})")
    try:
        store = open_store(store_url, read_only=read_only)
        store.open()
    except Exception as exc:  # noqa: BLE001 - a bad URL, a missing driver or a refused connection: a usage error
        usage_error(f"cannot open the read model {store_url}: {exc}")
    try:
        yield store
    finally:
        store.close()


# ------------------------------------------------------------------------------------------- omega project
REPLAY_SUFFIXES = {".jsonl"}
"""What a directory given to `--from` contributes (gzipped or not): the JSON lines `omega replay --out` writes."""


def replay_files(files: tuple[Path, ...]) -> list[Path]:
    """The `--from` inputs in order: a directory gives its .jsonl files (gzipped or not) recursively by name, `-`
    is stdin. A missing, binary or Avro input, or a directory without one, ends the command with exit 2."""
    given: list[Path] = []
    for named in files:
        if named != STDIN and named.is_dir():
            found = [p for p in directory_inputs(named) if input_suffix(p) in REPLAY_SUFFIXES]
            if not found:
                usage_error(f"{named}: no replay files in this directory (.jsonl, .jsonl.gz)")
            given += found
        else:
            given.append(named)
    paths = existing_files(tuple(given))  # refuses missing and binary files, each on one line
    for path in paths:
        if path != STDIN:
            with open_input(path) as (_, kind):
                if kind == "avro":
                    usage_error(f"{path}: an Avro container file, not the JSON lines `omega replay --out` writes")
    return paths


@contextmanager
def replay_lines(path: Path) -> Iterator[Iterable[bytes]]:
    """The lines of one `--from` input, gunzipped when gzip (by extension or magic), `-` from stdin; InputError
    when it is binary or its gzip stream breaks off."""
    with open_input(path) as (handle, _):
        yield _gzip_checked(path, handle)


def _gzip_checked(path: Path, lines: Iterable[bytes]) -> Iterator[bytes]:
    with gzip_checked(path):
        yield from lines


@click.command()
@click.option("--from", "files", multiple=True, type=click.Path(path_type=Path),
              help="Project `omega replay --out` JSON lines instead of Kafka (repeatable): files, gzipped or not, "
                   "directories (their .jsonl files, recursively, by name), `-` for stdin.")
@bootstrap_option
@prefix_option
@read_model_option
@click.option("--rebuild", is_flag=True, help="Empty the read model and replay from the beginning of the log.")
@click.option("--until-idle", type=float, default=None,
              help="Stop after this many seconds without a new record (default: run until SIGTERM/SIGINT).")
@click.option("--batch", "batch_size", type=click.IntRange(min=1), default=None,
              help=f"Most events per transaction [default: {DEFAULT_BATCH:,}; {REBUILD_BATCH:,} with --rebuild]. "
                   "A bound: a batch holds what is fetched, topped up (at most a second in all) while the "
                   "broker holds more past it.")
@click.option("--group-id", envvar="OMEGA_PROJECTOR_GROUP", default="omega-projector", show_default=True,
              help="Kafka consumer group (offsets committed for monitoring only) [env OMEGA_PROJECTOR_GROUP].")
@click.option("--metrics-port", envvar="OMEGA_PROJECTOR_METRICS_PORT", type=click.IntRange(0, 65535), default=0,
              show_default=True, help="Serve Prometheus /metrics on this port while running (0: off) "
              "[env OMEGA_PROJECTOR_METRICS_PORT].")
@click.option("--audit", is_flag=True,
              help="Also record every applied event (source, partition, offset, event id) in memory_applied.")
def project(files: tuple[Path, ...], bootstrap: str, prefix: str, store_url: str, rebuild: bool,
            until_idle: float | None, batch_size: int | None, group_id: str, metrics_port: int, audit: bool) -> None:
    """Rebuild Session, Pattern, Failure and Success Memory from the log into the read model, exactly once.

    Prints the run's figures as one JSON line; exit 1 when undecodable records were skipped."""
    from streams.cli.kafka import kafka_errors, settings_or_exit
    from streams.kafka.projection_source import KafkaSource, projected_topics
    from streams.wire.confluent import with_registry

    # A rebuild has no reader waiting: larger transactions rewrite each session's documents less often.
    batch_size = batch_size or (REBUILD_BATCH if rebuild else DEFAULT_BATCH)
    paths = replay_files(files)
    with _opened(store_url) as store:
        store.audit = audit
        source: EventSource
        if paths:
            # `omega replay` writes unprefixed topic names; a prefixed export maps back as well.
            source = FileSource(paths, {**projected_topics(""), **projected_topics(prefix)},
                                log=log.warning, opener=replay_lines)
        else:
            settings = settings_or_exit()
            source = KafkaSource(bootstrap, prefix=prefix, group_id=group_id, max_fetch=batch_size,
                                 client_options=settings.kafka_client_options(), registry=with_registry(settings))
        metrics = ProjectorMetrics()
        runner = Runner(Projector(store, batch_size=batch_size), source, batch_size=batch_size,
                        until_idle=until_idle, progress=ProgressLog(log.info), on_batch=metrics.observe)
        if metrics_port:
            try:
                metrics.serve(metrics_port)
            except OSError as exc:
                usage_error(f"cannot serve metrics on port {metrics_port}: {exc}")
            click.echo(f"omega: metrics on http://0.0.0.0:{metrics_port}/metrics", err=True)
        broker: AbstractContextManager[None] = nullcontext() if paths else kafka_errors(bootstrap)
        try:
            with broker:
                stats = asyncio.run(_run_until_signalled(runner, rebuild))
            metrics.observe(stats)  # the undecodable count is final only at the end
        except (OSError, InputError) as exc:
            input_failed(exc)
    click.echo(canonical_json(stats.as_dict()))
    sys.exit(EXIT_REJECTED if stats.undecodable else EXIT_OK)


async def _run_until_signalled(runner: Runner, rebuild: bool) -> RunStats:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, runner.request_stop)  # graceful: the batch in hand commits first
    try:
        return await runner.run(rebuild=rebuild)
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)


# ------------------------------------------------------------------------------------------- omega memory
@click.group()
def memory() -> None:
    """Read the memories the projector built."""


@memory.command("show")
@click.argument("session_id")
@click.option("--kind", type=click.Choice(KINDS), default=None, help="Only this memory (default: all four).")
@read_model_option
def memory_show(session_id: str, kind: str | None, store_url: str) -> None:
    """Print a session's memories readably; exit 1 when the session is unknown."""
    with _opened(store_url, read_only=True) as store:
        documents = store.session(session_id)
    console = Console()
    if not documents:
        click.echo(f"omega: unknown session {session_id!r} in {store_url}", err=True)
        sys.exit(EXIT_REJECTED)
    kinds = [kind] if kind else [k for k in KINDS if k in documents]
    for name in kinds:
        doc = documents.get(name)
        if doc is None:
            console.print(f"[dim]{name} memory: nothing recorded[/dim]")
            continue
        console.print(Panel(render_document(doc), title=f"{name.title()} Memory of {session_id}",
                            title_align="left"))


MAX_ROWS = 15
HIDDEN = {"id", "event_id", "source_event_id", "pattern_id"}


def render_document(doc: Mapping[str, Any]) -> RenderableType:
    """A memory document as rich renderables: scalars as lines, lists of objects as tables, objects as trees."""
    parts: list[RenderableType] = []
    scalars = Table.grid(padding=(0, 2))
    for key, value in doc.items():
        if not isinstance(value, dict | list):
            scalars.add_row(f"[bold]{key}[/bold]", _cell(value))
    parts.append(scalars)
    for key, value in doc.items():
        if isinstance(value, list):
            parts.append(_table(key, value))
        elif isinstance(value, dict):
            tree = Tree(f"[bold]{key}[/bold]")
            _branch(tree, value)
            parts.append(tree)
    return Group(*parts)


def _cell(value: Any, width: int = 70) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 1] + "…"


def _table(title: str, entries: list[Any]) -> RenderableType:
    if not entries:
        return f"[bold]{title}[/bold]: [dim]none[/dim]"
    if not all(isinstance(e, dict) for e in entries):
        return f"[bold]{title}[/bold]: {_cell(entries, 110)}"
    columns: list[str] = []
    for entry in entries[:MAX_ROWS]:
        # ids are long hashes that crowd out the readable columns; the JSON API has them
        columns += [k for k, v in entry.items()
                    if k not in columns and k not in HIDDEN and not isinstance(v, dict | list)]
    columns = columns[:6]
    table = Table(title=f"{title} ({len(entries)})", title_justify="left", show_lines=False)
    for column in columns:
        table.add_column(column, overflow="fold", max_width=48)
    for entry in entries[:MAX_ROWS]:
        table.add_row(*(_cell(entry.get(c), 48) if entry.get(c) is not None else "" for c in columns))
    if len(entries) > MAX_ROWS:
        table.caption = f"… {len(entries) - MAX_ROWS} more"
    return table


def _branch(tree: Tree, node: Mapping[str, Any]) -> None:
    for key, value in node.items():
        if isinstance(value, dict):
            _branch(tree.add(f"[bold]{key}[/bold]"), value)
        elif isinstance(value, list):
            tree.add(f"[bold]{key}[/bold] ({len(value)}): {_cell(value)}")
        else:
            tree.add(f"[bold]{key}[/bold]: {_cell(value)}")


@memory.command("hash")
@read_model_option
def memory_hash(store_url: str) -> None:
    """Print the read model's content hash (equal for equal memories, whatever the backend)."""
    with _opened(store_url, read_only=True) as store:
        click.echo(store.content_hash())


@memory.command("serve")
@read_model_option
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=8080, show_default=True)
@click.option("--bootstrap", envvar="KAFKA_BOOTSTRAP_SERVERS", default=None,
              help="Broker to report the projector's lag from in /health [env KAFKA_BOOTSTRAP_SERVERS].")
@prefix_option
def memory_serve(store_url: str, host: str, port: int, bootstrap: str | None, prefix: str) -> None:
    """Serve the HTTP read API (JSON; OpenAPI at /openapi.json, docs at /docs)."""
    import uvicorn

    from projections.http.app import read_model_api
    from projections.http.operations import LagProbe

    probe: LagProbe | None = None
    if bootstrap:
        try:  # the probe reads the security settings per request: a bad one is refused now, not as a failing /health
            kafka_client_options()
        except SettingsError as exc:
            usage_error(str(exc))
        from streams.kafka.projection_source import kafka_lag

        async def probe_lag(positions: Mapping[tuple[str, int], int]) -> int | None:
            return await kafka_lag(bootstrap, prefix, positions)

        probe = probe_lag
    with _opened(store_url, read_only=True) as store:
        _port_free_or_exit(host, port)
        url = f"http://{host}:{port}/"
        click.echo(f"omega: serving {masked(store_url)} on {url} (API docs {url}docs); Ctrl-C stops", err=True)
        uvicorn.run(read_model_api(store, lag=probe), host=host, port=port, log_level="warning")


def _port_free_or_exit(host: str, port: int) -> None:
    """A port another process holds (or a host this machine does not have) is exit 2 with one line, before the
    server starts: uvicorn would log its own error and exit 3."""
    try:
        with socket.create_server((host, port)):
            pass
    except OSError as exc:
        usage_error(f"cannot serve on {host}:{port}: {exc.strerror or exc}")


# ------------------------------------------------------------------------------------------- check memories
@click.command("memories")
@read_model_option
@check_options
def check_memories(store_url: str, output_format: str, fail_on: str) -> None:
    """Check §3.5.5 cross-memory consistency of every session: one line per violation {kind: "violation",
    session_id, violation}; a summary on stderr (sessions CONSISTENT or INCONSISTENT); exit 1 if any violation (or
    `--fail-on` is crossed), 2 when the read model has no session."""
    tally = Tally(fail_on, output_format)
    with _opened(store_url, read_only=True) as store:
        sessions = store.sessions()
        for sid in with_progress(sessions, len(sessions), "checking sessions"):
            violations = check_consistency(store.session(sid))
            for violation in violations:
                tally.line({"kind": "violation", "session_id": sid, "violation": violation}, rule=violation[:200],
                           where=sid)
            # the session is the judged item; it has no line of its own (its violations are its lines)
            tally.statuses["INCONSISTENT" if violations else "CONSISTENT"] += 1
            tally.judged += 1
    tally.finish("sessions")
