"""The broker commands: `omega worker`, `omega publish`, `omega tail`. Faust and aiokafka are imported inside
the commands, so the file commands start without them."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import click

from omega.eventtime import to_ms
from streams.auth_policy import PolicyError
from streams.cli.options import (
    EXIT_OK,
    EXIT_REJECTED,
    bootstrap_option,
    existing_files,
    files_argument,
    packet_stage_for,
    prefix_option,
    table_store_option,
    usage_error,
)
from streams.cli.topic_codec import decode_record, encode_for_topic, replay_line
from streams.logs import thin_repeats
from streams.replay.inputs import read_inputs
from streams.settings import Settings, SettingsError
from streams.topics import ALL_TOPICS, BY_LOGICAL, TopicSpec, topic_name
from streams.wire.confluent import closing_remote

_DEFAULTS = Settings()


def settings_or_exit(**overrides: object) -> Settings:
    """`Settings.from_env(**overrides)`; a bad variable ends the command with exit 2, naming it."""
    try:
        return Settings.from_env(None, **overrides)
    except SettingsError as exc:
        usage_error(str(exc))


class _BootstrapFailures(logging.Filter):
    """Holds back aiokafka's log line for each bootstrap server it cannot connect to, keeping the error: the
    command's one line says why (aiokafka's own exception only says that no server answered)."""

    def __init__(self) -> None:
        super().__init__()
        self.errors: list[BaseException] = []

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        if str(record.msg).startswith('Unable connect to "') and len(args) == 3 and isinstance(args[2], BaseException):
            self.errors.append(args[2])
            return False
        return True


@contextmanager
def kafka_errors(bootstrap: str) -> Iterator[None]:
    """End the command with one line and exit 2 when the broker at `bootstrap` cannot be reached or used, or a topic
    it is asked for does not exist (no traceback: nothing was judged)."""
    from aiokafka.errors import (
        AuthenticationFailedError,
        AuthenticationMethodNotSupported,
        KafkaConnectionError,
        KafkaError,
        KafkaTimeoutError,
        SaslAuthenticationFailed,
        UnsupportedSaslMechanismError,
    )

    from streams.kafka.clients import UnknownTopic

    refused = (AuthenticationFailedError, SaslAuthenticationFailed, AuthenticationMethodNotSupported,
               UnsupportedSaslMechanismError)
    failures = _BootstrapFailures()
    aiokafka_log = logging.getLogger("aiokafka")
    aiokafka_log.addFilter(failures)
    try:
        yield
    except UnknownTopic as exc:
        usage_error(str(exc))
    except (KafkaConnectionError, KafkaTimeoutError, OSError) as exc:
        cause = failures.errors[-1] if failures.errors else exc
        if isinstance(cause, refused):
            usage_error(f"Kafka at {bootstrap} refused our credentials: {_reason(cause)}")
        usage_error(f"cannot reach Kafka at {bootstrap}: {_reason(cause)}")
    except refused as exc:
        usage_error(f"Kafka at {bootstrap} refused our credentials: {_reason(exc)}")
    except KafkaError as exc:
        usage_error(f"Kafka at {bootstrap} failed: {_reason(exc)}")
    finally:
        aiokafka_log.removeFilter(failures)


TABLE_STORES = ("memory://", "rocksdb://")  # the Faust table stores the worker is built and documented for


def _unusable_directory(path: Path) -> str | None:
    """Why `path` can be neither used nor made as a writable directory (None when it can), making nothing."""
    if path.exists():
        return None if path.is_dir() and os.access(path, os.W_OK | os.X_OK) else "not a writable directory"
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        return f"{parent} is not a directory"
    return None if os.access(parent, os.W_OK | os.X_OK) else f"{parent} is not writable"


def _reason(exc: BaseException) -> str:
    """The error's own words, without aiokafka's `ClassName: ` prefix."""
    return str(exc).removeprefix(f"{type(exc).__name__}: ").strip() or type(exc).__name__


@click.command()
@bootstrap_option
@prefix_option
@table_store_option
# OMEGA_PARTITIONS is read by `Settings`, not click, so a bad value gets the same one-line message as any setting.
@click.option("--partitions", default=None, show_default=str(_DEFAULTS.partitions), type=int,
              help="Partitions of every topic and table [env OMEGA_PARTITIONS].")
@click.option("--app-id", envvar="OMEGA_APP_ID", default=_DEFAULTS.app_id, show_default=True,
              help="Faust app id, also the consumer group [env OMEGA_APP_ID].")
@click.option("--data-dir", envvar="OMEGA_DATA_DIR", default=str(_DEFAULTS.data_dir), show_default=True,
              type=click.Path(path_type=Path), help="Faust data directory [env OMEGA_DATA_DIR].")
def worker(bootstrap: str, prefix: str, store: str, partitions: int | None, app_id: str, data_dir: Path) -> None:
    """Run the stream worker: ingress, validator and OMEGA-57 monitor agents and their tables, against Kafka."""
    from faust.worker import Worker

    from streams.kafka.clients import ensure_topics, replication_mismatches
    from streams.worker.app import create_app
    from streams.worker.event_loop import use_event_loop

    settings = settings_or_exit(bootstrap_servers=bootstrap, topic_prefix=prefix, store=store,
                                partitions=partitions, app_id=app_id, data_dir=data_dir)
    # checked before the broker is asked anything (Faust would only fail once started, in many lines)
    if not store.startswith(TABLE_STORES):
        usage_error(f"--store {store!r}: expected {' or '.join(TABLE_STORES)}... [env OMEGA_STORE]")
    unusable = _unusable_directory(data_dir)
    if unusable:
        usage_error(f"cannot use the data directory {data_dir} [env OMEGA_DATA_DIR]: {unusable}")
    try:
        use_event_loop(settings.event_loop)  # before the first loop: the worker's and its consumer thread's
    except SettingsError as exc:
        usage_error(str(exc))
    names = [topic_name(t, prefix) for t in ALL_TOPICS]
    options = settings.kafka_client_options()
    try:
        with kafka_errors(bootstrap):
            asyncio.run(ensure_topics(bootstrap, names, settings.partitions, settings.replication_factor,
                                      min_insync=settings.min_insync, client_options=options))
    except Exception as exc:  # noqa: BLE001 - any other failure here means the broker is unusable too
        usage_error(f"cannot prepare topics on {bootstrap}: {exc}")
    try:
        omega = create_app(settings)
    except (PolicyError, SettingsError) as exc:  # an unusable policy, or a registry without its client library
        usage_error(str(exc))
    # the contract topics and the tables' changelogs (Faust creates those later, with our factor, when missing)
    names += [table.changelog_topic.get_topic_name() for table in omega.app.tables.values()]
    try:
        with kafka_errors(bootstrap):
            others = asyncio.run(replication_mismatches(bootstrap, names, settings.replication_factor,
                                                        client_options=options))
    except Exception as exc:  # noqa: BLE001 - as above
        usage_error(f"cannot describe topics on {bootstrap}: {exc}")
    if others:  # used as they are, never silently: one line
        click.echo(f"warning: OMEGA_REPLICATION_FACTOR={settings.replication_factor}, but "
                   + ", ".join(f"{name} has {rf}" for name, rf in sorted(others.items())), err=True)
    if settings.standbys and settings.memory_store:  # honoured, never silently: it costs CPU and buys nothing
        click.echo(f"warning: OMEGA_STANDBY_REPLICAS={settings.standbys} with the memory store: a standby's copy is "
                   "dropped when a recovery completes and a takeover reads the changelog from its start anyway "
                   "(streams/settings.py `standbys`)", err=True)
    thin_repeats()  # after create_app: the aiokafka and Faust modules, and so their loggers, exist now
    if settings.gc_freeze:
        _keep_gc_out_of_the_tail(omega.app)
    Worker(omega.app, loglevel=settings.log_level.lower(), quiet=True).execute_from_commandline()


def _keep_gc_out_of_the_tail(app: Any) -> None:
    """Freeze what survives full collections (worker/gc_pauses.py), checked once a second from the event loop."""
    from streams.worker.gc_pauses import GcPauses

    pauses = GcPauses()
    pauses.install()

    @app.timer(interval=1.0)  # type: ignore[untyped-decorator]  # faust is untyped
    async def gc_freeze() -> None:
        pauses.tick()


def _resolve_topic(topic: str, prefix: str) -> tuple[TopicSpec | None, str]:
    spec = BY_LOGICAL.get(topic) or next((t for t in ALL_TOPICS if topic in (t.name, prefix + t.name)), None)
    return spec, (topic_name(spec, prefix) if spec else topic)


@click.command()
@files_argument
@click.option("--topic", required=True, help="Topic: a logical name (packets_json, packets, ...) or a topic name.")
@click.option("--session-id", default=None,
              help="agent_messages_raw: the session id to key the records by (default: the file's name up to its "
                   "first dot, as `omega replay` and `check messages` name the session).")
@bootstrap_option
@prefix_option
def publish(files: tuple[Path, ...], topic: str, session_id: str | None, bootstrap: str, prefix: str) -> None:
    """Publish JSON/JSONL/Avro files to a topic: raw lines to the JSON ingress, single-object Avro elsewhere.

    \b
    Every record is keyed by its natural key, so that what is judged together meets on one partition, in order:
      packets_json, packets   the packet's header.correlation_id (its episode)
      agent_messages_raw      the session id (--session-id, else the file's name up to its first dot)
      oracle_requests         the case id
      documents, questions, grounding_facts, grounding_requests   the corpus ("default" when absent)
    A record whose natural key cannot be read keeps the key it had (none for lines of a file)."""
    from streams.kafka.clients import publish_records

    paths = existing_files(files)
    spec, name = _resolve_topic(topic, prefix)
    settings = settings_or_exit()
    packet_stage = packet_stage_for(settings)
    with kafka_errors(bootstrap):
        sent, refused = asyncio.run(publish_records(
            read_inputs(paths), partial(encode_for_topic, packet_stage, spec=spec, session_id=session_id), name,
            bootstrap, client_options=settings.kafka_client_options()))
    click.echo(f"published {sent} record(s) to {name}" + (f"; {refused} refused" if refused else ""), err=True)
    sys.exit(EXIT_REJECTED if refused else EXIT_OK)


@click.command()
@click.argument("topic")
@click.option("--follow", is_flag=True, help="Keep waiting for new records (from the end unless --from-start or "
              "--since says otherwise).")
@click.option("--from-end/--from-start", "from_end", default=None,
              help="Start at the end (only new records) or at the beginning. Default: the end with --follow, "
                   "else the beginning.")
@click.option("--since", "since", default=None, metavar="TIME",
              help="Start at the first record whose timestamp (event time) is at or after TIME (ISO 8601).")
@click.option("--key", "key", default=None, help="Only records with this key.")
@click.option("--partition", "partitions", type=int, multiple=True, help="Only this partition (repeatable).")
@click.option("--format", "output_format", type=click.Choice(["json", "replay"]), default="json", show_default=True,
              help="json: partition, offset, key, value per line. replay: what `omega replay` (packets topics: one "
                   "packet per line) and `omega project --from` (output topics) read back.")
@click.option("--max", "max_records", type=int, default=None, help="Stop after this many records.")
@click.option("--timeout", type=float, default=5.0, show_default=True,
              help="Without --follow: stop after this many idle seconds.")
@bootstrap_option
@prefix_option
def tail(topic: str, follow: bool, from_end: bool | None, since: str | None, key: str | None,
         partitions: tuple[int, ...], output_format: str, max_records: int | None, timeout: float, bootstrap: str,
         prefix: str) -> None:
    """Print a topic's records, decoded, as JSON lines."""
    from streams.kafka.clients import json_line, tail_topic

    spec, name = _resolve_topic(topic, prefix)
    since_ms = None if since is None else to_ms(since)
    if since is not None and since_ms is None:
        usage_error(f"--since {since!r}: not an ISO 8601 time (e.g. 2026-01-26T09:00:00Z)")
    settings = settings_or_exit()
    packet_stage = packet_stage_for(settings)
    render = json_line if output_format == "json" else partial(replay_line, spec, name)
    with kafka_errors(bootstrap), closing_remote(packet_stage.outputs.registry):
        asyncio.run(tail_topic(partial(decode_record, packet_stage), name, bootstrap, follow, max_records, timeout,
                               click.echo, client_options=settings.kafka_client_options(),
                               from_end=follow if from_end is None else from_end, since_ms=since_ms,
                               partitions=partitions or None, key=None if key is None else key.encode("utf-8"),
                               render=render))
