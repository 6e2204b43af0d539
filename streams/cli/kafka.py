"""The broker commands: `omega worker`, `omega publish`, `omega tail`. Faust and aiokafka are imported inside
the commands, so the file commands start without them."""

from __future__ import annotations

import asyncio
import sys
from functools import partial
from pathlib import Path

import click

from streams.auth_policy import PolicyError
from streams.cli.options import (
    EXIT_OK,
    EXIT_REJECTED,
    bootstrap_option,
    existing_files,
    files_argument,
    pipeline,
    prefix_option,
    table_store_option,
    usage_error,
)
from streams.logs import thin_repeats
from streams.replay import decode_record, encode_for_topic, read_inputs
from streams.settings import Settings
from streams.topics import ALL_TOPICS, BY_LOGICAL, TopicSpec, topic_name

_DEFAULTS = Settings()


@click.command()
@bootstrap_option
@prefix_option
@table_store_option
@click.option("--partitions", envvar="OMEGA_PARTITIONS", default=_DEFAULTS.partitions, show_default=True, type=int,
              help="Partitions of every topic and table [env OMEGA_PARTITIONS].")
@click.option("--app-id", envvar="OMEGA_APP_ID", default=_DEFAULTS.app_id, show_default=True,
              help="Faust app id, also the consumer group [env OMEGA_APP_ID].")
@click.option("--data-dir", envvar="OMEGA_DATA_DIR", default=str(_DEFAULTS.data_dir), show_default=True,
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
        usage_error(f"bad setting: {exc}")
    try:
        asyncio.run(ensure_topics(bootstrap, [topic_name(t, prefix) for t in ALL_TOPICS], partitions,
                                  client_options=settings.kafka_client_options()))
    except Exception as exc:  # noqa: BLE001 - any failure here means the broker is unusable
        usage_error(f"cannot prepare topics on {bootstrap}: {exc}")
    try:
        omega = create_app(settings)
    except PolicyError as exc:  # OMEGA_PACKET_AUTH_POLICY names an unusable policy
        usage_error(str(exc))
    thin_repeats()  # after create_app: the aiokafka and Faust modules, and so their loggers, exist now
    Worker(omega.app, loglevel=settings.log_level.lower(), quiet=True).execute_from_commandline()


def _resolve_topic(topic: str, prefix: str) -> tuple[TopicSpec | None, str]:
    spec = BY_LOGICAL.get(topic) or next((t for t in ALL_TOPICS if topic in (t.name, prefix + t.name)), None)
    return spec, (topic_name(spec, prefix) if spec else topic)


@click.command()
@files_argument
@click.option("--topic", required=True, help="Topic: a logical name (packets_json, packets, ...) or a topic name.")
@bootstrap_option
@prefix_option
def publish(files: tuple[Path, ...], topic: str, bootstrap: str, prefix: str) -> None:
    """Publish JSON/JSONL/Avro files to a topic: raw lines to the JSON ingress, single-object Avro elsewhere."""
    from streams.kafka.clients import publish_records

    paths = existing_files(files)
    spec, name = _resolve_topic(topic, prefix)
    packets = pipeline(Settings.from_env())
    try:
        sent, refused = asyncio.run(publish_records(
            read_inputs(paths), partial(encode_for_topic, packets, spec=spec), name, bootstrap))
    except OSError as exc:
        usage_error(f"cannot reach Kafka at {bootstrap}: {exc}")
    click.echo(f"published {sent} record(s) to {name}" + (f"; {refused} refused" if refused else ""), err=True)
    sys.exit(EXIT_REJECTED if refused else EXIT_OK)


@click.command()
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
    packets = pipeline(Settings.from_env())
    try:
        asyncio.run(tail_topic(partial(decode_record, packets), name, bootstrap, follow, max_records, timeout,
                               click.echo))
    except OSError as exc:
        usage_error(f"cannot reach Kafka at {bootstrap}: {exc}")
