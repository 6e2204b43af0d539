"""The `omega` command line. Exit codes: 0 ok, 1 something rejected, 2 usage or I/O error."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import click
from rich.console import Console

from omega.agents.model import MessageRejected, SessionEvent
from omega.agents.planner import plan_deployment
from omega.agents.session import SessionState
from omega.canonical import canonical_json
from omega.packets.authenticity import AuthPolicy
from streams.auth_policy import PolicyError
from streams.cli.auth import auth_policy_option, policy_or_exit, sign_group
from streams.cli.summary import render_summary
from streams.logs import configure_logging, thin_repeats
from streams.replay import Replayer, ReplaySummary, jsonable, read_inputs
from streams.settings import Settings
from streams.stages.base import Emit, Source
from streams.stages.messages import MonitorStage
from streams.stages.packets import Pipeline
from streams.topics import (
    AGENT_MESSAGES,
    ALERTS,
    ALL_TOPICS,
    BY_LOGICAL,
    DEAD_LETTERS,
    ESCALATIONS,
    TERMINATIONS,
    VERDICTS,
    TopicSpec,
    topic_name,
)
from streams.wire.codec import SchemaRegistry

EXIT_OK, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2

bootstrap_option = click.option(
    "--bootstrap", envvar="KAFKA_BOOTSTRAP_SERVERS", default="127.0.0.1:9092", show_default=True,
    help="Kafka bootstrap servers [env KAFKA_BOOTSTRAP_SERVERS].",
)
prefix_option = click.option(
    "--prefix", envvar="OMEGA_TOPIC_PREFIX", default="", help="Topic name prefix [env OMEGA_TOPIC_PREFIX].",
)
files_argument = click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))


def _existing(files: tuple[Path, ...]) -> list[Path]:
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        click.echo(f"omega: no such file: {', '.join(missing)}", err=True)
        sys.exit(EXIT_USAGE)
    return list(files)


def _pipeline(settings: Settings, policy: AuthPolicy | None = None) -> Pipeline:
    return Pipeline(SchemaRegistry.from_directory(), settings.max_event_bytes, policy)


@contextmanager
def _output(path: str | None) -> Iterator[IO[str] | None]:
    if path is None:
        yield None
    elif path == "-":
        yield sys.stdout
    else:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            yield handle


def _has_rejects(summary: ReplaySummary) -> bool:
    return bool(summary.verdicts.get("REJECTED") or sum(summary.dead_letters.values()))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--log-level", envvar="OMEGA_LOG_LEVEL", default="WARNING", show_default=True,
              help="structlog level [env OMEGA_LOG_LEVEL].")
def main(log_level: str) -> None:
    """OMEGA stream verifier: judge multi-agent LLM traffic live on Kafka or replayed from files."""
    configure_logging(log_level)


@main.command()
@files_argument
@click.option("--out", "out_path", default=None, help="Write outputs as JSON lines here ('-' for stdout).")
@click.option("--summary/--no-summary", default=True, show_default=True, help="Print the readable summary.")
@auth_policy_option
def replay(files: tuple[Path, ...], out_path: str | None, summary: bool, auth_policy: Path | None) -> None:
    """Replay recorded events (JSON, JSONL, Avro container files) embedded, with no broker."""
    paths = _existing(files)
    settings = Settings.from_env(packet_auth_policy=auth_policy)
    replayer = Replayer(_pipeline(settings, policy_or_exit(settings.packet_auth_policy)))
    console = Console(stderr=out_path == "-")
    with _output(out_path) as out:
        result = replayer.run(_with_progress(read_inputs(paths), paths, console), out)
    if summary:
        render_summary(result, console, title=f"Replay of {len(paths)} file(s)")
    sys.exit(EXIT_REJECTED if _has_rejects(result) else EXIT_OK)


def _with_progress(records: Iterator[Any], paths: list[Path], console: Console) -> Iterator[Any]:
    """A progress bar on a terminal for inputs large enough to wait for."""
    total_bytes = sum(p.stat().st_size for p in paths)
    if not console.is_terminal or total_bytes < 5_000_000:
        yield from records
        return
    from rich.progress import Progress

    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("replaying", total=None)
        for record in records:
            progress.advance(task)
            yield record


@main.group()
def check() -> None:
    """Judge files offline and print one JSON line per verdict or dead letter."""


@check.command("packets")
@files_argument
@auth_policy_option
def check_packets(files: tuple[Path, ...], auth_policy: Path | None) -> None:
    """Check OMEN packets (JSON/JSONL/Avro) against the validator; exit 1 if any is rejected."""
    paths = _existing(files)
    settings = Settings.from_env(packet_auth_policy=auth_policy)
    replayer = Replayer(_pipeline(settings, policy_or_exit(settings.packet_auth_policy)))
    try:
        for record in read_inputs(paths):
            for emit in replayer.feed(record):
                click.echo(canonical_json(check_line(emit)))
        for emit in replayer.finish():
            click.echo(canonical_json(check_line(emit)))
    except OSError as exc:
        click.echo(f"omega: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_REJECTED if _has_rejects(replayer.summary) else EXIT_OK)


def check_line(emit: Emit) -> dict[str, Any]:
    """One output of `check packets`: a verdict with `fsm{from,to}`, an alert (its own kind as `alert_kind`), an
    escalation or a dead letter."""
    record = jsonable(dict(emit.record))
    if emit.topic is VERDICTS:
        before, after = record.pop("state_before"), record.pop("state_after")
        return {"kind": "verdict", **record, "fsm": {"from": before, "to": after}}
    if emit.topic.logical == ALERTS.logical:  # the alert's own `kind` (TASK_TIMEOUT, ...) must not hide the line's
        return {"kind": "alert", "alert_kind": record.pop("kind"), **record}
    if emit.topic is TERMINATIONS:
        return {"kind": "termination", **record}
    kind = "escalation" if emit.topic.logical == ESCALATIONS.logical else "dead_letter"
    return {"kind": kind, **record}


@check.command("messages")
@files_argument
@click.option("--session-id", default=None, help="Session id of the messages (default: the first file's stem).")
@click.option("--session-per-file", is_flag=True, help="Judge each file as its own session (id: its stem).")
def check_messages(files: tuple[Path, ...], session_id: str | None, session_per_file: bool) -> None:
    """Check OMEGA-57 agent messages (YAML or JSON; one or many per file; a session's messages in order).

    One JSON line per message {file, agent_id, status, reasons, notes}, then any alert, escalation or
    termination report as it fires; `notes` says what the reader normalised in an accepted message (a batch
    reference, bare-id dependencies, ...). Exit 1 if any message is rejected."""
    paths = _existing(files)
    stage = MonitorStage(_pipeline(Settings.from_env()))
    states: dict[str, SessionState | None] = {}
    rejected = False
    for number, path in enumerate(paths):
        try:
            raw = path.read_bytes()
        except OSError as exc:
            click.echo(f"omega: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        session = path.stem if session_per_file else (session_id or paths[0].stem)
        step = stage.messages(states.get(session), raw, Source(f"file:{path}", 0, number), session)
        states[session] = step.state
        for event in step.events:
            rejected = rejected or isinstance(event, MessageRejected)
            click.echo(canonical_json(message_line(path, event)))
        for emit in step.emits:
            if emit.topic is not AGENT_MESSAGES and emit.topic is not DEAD_LETTERS:
                click.echo(canonical_json(check_line(emit)))
    sys.exit(EXIT_REJECTED if rejected else EXIT_OK)


def message_line(path: Path, event: SessionEvent) -> dict[str, Any]:
    """One message's outcome in `check messages`."""
    if isinstance(event, MessageRejected):
        return {"kind": "message", "file": str(path), "session_id": event.session_id, "message_id": event.message_id,
                "agent_id": event.agent_id, "status": "REJECTED", "reasons": list(event.reasons), "notes": []}
    return {"kind": "message", "file": str(path), "session_id": event.session_id, "message_id": event.message_id,
            "agent_id": event.agent_id, "status": "ACCEPTED", "reasons": [], "notes": list(event.notes)}


@main.command()
@click.option("--type", "problem_type", required=True,
              help="Problem type, optionally with its sub-type: EMPIRICAL or EMPIRICAL/CAUSAL (§1.1).")
@click.option("--uncertainty", type=click.Choice(["HIGH", "MEDIUM", "LOW"], case_sensitive=False), required=True)
@click.option("--stakes", type=click.Choice(["HIGH", "MEDIUM", "LOW"], case_sensitive=False), required=True)
@click.option("--ill-defined", is_flag=True, help="The problem is not yet well defined (§1.2: clarity first).")
def plan(problem_type: str, uncertainty: str, stakes: str, ill_defined: bool) -> None:
    """Which OMEGA-57 agents to deploy, batch by batch (§1.1-§1.3), as JSON."""
    kind, _, subtype = problem_type.upper().partition("/")
    try:
        deployment = plan_deployment(kind, subtype or None, uncertainty.upper(), stakes.upper(),
                                     well_defined=not ill_defined)
    except ValueError as exc:
        click.echo(f"omega: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(json.dumps(deployment.to_dict(), indent=2, sort_keys=True))


@main.command()
@bootstrap_option
@prefix_option
@click.option("--store", envvar="OMEGA_STORE", default="memory://", show_default=True,
              help="Faust table store: memory:// or rocksdb:// [env OMEGA_STORE].")
@click.option("--partitions", envvar="OMEGA_PARTITIONS", default=4, show_default=True, type=int,
              help="Partitions of every topic and table [env OMEGA_PARTITIONS].")
@click.option("--app-id", envvar="OMEGA_APP_ID", default="omega-verifier", show_default=True,
              help="Faust app id, also the consumer group [env OMEGA_APP_ID].")
@click.option("--data-dir", envvar="OMEGA_DATA_DIR", default=".omega-data", show_default=True,
              type=click.Path(path_type=Path), help="Faust data directory [env OMEGA_DATA_DIR].")
def worker(bootstrap: str, prefix: str, store: str, partitions: int, app_id: str, data_dir: Path) -> None:
    """Run the stream worker: ingress, validator and OMEGA-57 monitor agents and their tables, against Kafka."""
    from faust.worker import Worker

    from streams.kafka.clients import ensure_topics
    from streams.worker.app import create_app

    try:
        settings = Settings.from_env(bootstrap_servers=bootstrap, topic_prefix=prefix, store=store,
                                     partitions=partitions, app_id=app_id, data_dir=data_dir)
    except ValueError as exc:  # e.g. KAFKA_SECURITY_PROTOCOL or a SASL setting the client cannot use
        click.echo(f"omega: bad setting: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    try:
        asyncio.run(ensure_topics(bootstrap, [topic_name(t, prefix) for t in ALL_TOPICS], partitions,
                                  client_options=settings.kafka_client_options()))
    except Exception as exc:  # noqa: BLE001 - any failure here means the broker is unusable
        click.echo(f"omega: cannot prepare topics on {bootstrap}: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    try:
        omega = create_app(settings)
    except PolicyError as exc:  # OMEGA_PACKET_AUTH_POLICY names an unusable policy
        click.echo(f"omega: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    thin_repeats()  # after create_app: the aiokafka and Faust modules, and so their loggers, exist now
    Worker(omega.app, loglevel=settings.log_level.lower(), quiet=True).execute_from_commandline()


def _resolve_topic(topic: str, prefix: str) -> tuple[TopicSpec | None, str]:
    spec = BY_LOGICAL.get(topic) or next((t for t in ALL_TOPICS if topic in (t.name, prefix + t.name)), None)
    return spec, (topic_name(spec, prefix) if spec else topic)


@main.command()
@files_argument
@click.option("--topic", required=True, help="Topic: a logical name (packets_json, packets, ...) or a topic name.")
@bootstrap_option
@prefix_option
def publish(files: tuple[Path, ...], topic: str, bootstrap: str, prefix: str) -> None:
    """Publish JSON/JSONL/Avro files to a topic: raw lines to the JSON ingress, single-object Avro elsewhere."""
    from streams.kafka.clients import publish_records

    paths = _existing(files)
    spec, name = _resolve_topic(topic, prefix)
    pipeline = _pipeline(Settings.from_env())
    try:
        sent, refused = asyncio.run(publish_records(pipeline, read_inputs(paths), spec, name, bootstrap))
    except OSError as exc:
        click.echo(f"omega: cannot reach Kafka at {bootstrap}: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(f"published {sent} record(s) to {name}" + (f"; {refused} refused" if refused else ""), err=True)
    sys.exit(EXIT_REJECTED if refused else EXIT_OK)


@main.command()
@click.argument("topic")
@click.option("--follow", is_flag=True, help="Keep waiting for new records.")
@click.option("--max", "max_records", type=int, default=None, help="Stop after this many records.")
@click.option("--timeout", type=float, default=5.0, show_default=True,
              help="Without --follow: stop after this many idle seconds.")
@bootstrap_option
@prefix_option
def tail(topic: str, follow: bool, max_records: int | None, timeout: float, bootstrap: str, prefix: str) -> None:
    """Print a topic's records from the beginning, decoded, as JSON lines."""
    from streams.kafka.clients import tail_topic

    _, name = _resolve_topic(topic, prefix)
    pipeline = _pipeline(Settings.from_env())
    try:
        asyncio.run(tail_topic(pipeline, name, bootstrap, follow, max_records, timeout, click.echo))
    except OSError as exc:
        click.echo(f"omega: cannot reach Kafka at {bootstrap}: {exc}", err=True)
        sys.exit(EXIT_USAGE)


from streams.cli.memory import check_memories, memory, project  # noqa: E402 - registered on the groups above

main.add_command(project)
main.add_command(memory)
check.add_command(check_memories)

from streams.cli.oracle import check_oracle  # noqa: E402 - registered on the check group

check.add_command(check_oracle)

from streams.cli.answers import ask_command, check_answers, check_extraction, ingest_command  # noqa: E402

for command in (ingest_command, ask_command):
    main.add_command(command)
check.add_command(check_answers)
check.add_command(check_extraction)

from streams.cli.grounding import check_grounding  # noqa: E402 - registered on the check group

check.add_command(check_grounding)
main.add_command(sign_group)  # `omega sign packets` (issue 9), from streams.cli.auth


@main.command("bench", add_help_option=False,
              context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def bench(args: tuple[str, ...]) -> None:
    """Run the benchmark suite and rewrite BENCHMARKS.md's generated section (`omega bench --help`)."""
    import importlib

    root = Path(__file__).resolve().parents[2]
    if not (root / "tests" / "bench" / "suite.py").is_file():  # the suite lives in the source checkout
        click.echo("omega: `omega bench` needs the source checkout (tests/bench/suite.py not found)", err=True)
        sys.exit(EXIT_USAGE)
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    suite = importlib.import_module("tests.bench.suite")  # lazily: the suite imports every benchmark
    sys.exit(suite.main(list(args)))


if __name__ == "__main__":
    main()
