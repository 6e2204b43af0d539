"""What the `omega` commands share: the exit codes, the options several commands take (defaults and environment
variables as `Settings` reads them), and the checks of those options' values that end a command with exit 2."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from omega.packets.authenticity import AuthPolicy
from projections.store.urls import DEFAULT_STORE as DEFAULT_READ_MODEL
from streams.auth_policy import PolicyError, policy_for
from streams.logs import masked
from streams.replay.inputs import INPUT_SUFFIXES, STDIN, InputError, directory_inputs, open_input
from streams.settings import Settings, SettingsError
from streams.stages.base import Outputs
from streams.stages.packets import PacketStage

EXIT_OK = 0
EXIT_REJECTED = 1  # something judged was refused: a packet, a message, an undecodable record, a violation
EXIT_FAILED = 1  # an expectation was not met: an answer, an extraction, a grounded paragraph, an oracle case
EXIT_USAGE = 2  # bad usage, unreadable input, an unusable setting or an unreachable broker: nothing was judged

DEFAULT_FACT_STORE = Path(".omega-data") / "facts.jsonl"

_DEFAULTS = Settings()

bootstrap_option = click.option(
    "--bootstrap", envvar="KAFKA_BOOTSTRAP_SERVERS", default=_DEFAULTS.bootstrap_servers, show_default=True,
    help="Kafka bootstrap servers [env KAFKA_BOOTSTRAP_SERVERS].",
)
prefix_option = click.option(
    "--prefix", envvar="OMEGA_TOPIC_PREFIX", default=_DEFAULTS.topic_prefix,
    help="Topic name prefix [env OMEGA_TOPIC_PREFIX].",
)
table_store_option = click.option(
    "--store", envvar="OMEGA_STORE", default=_DEFAULTS.store, show_default=True,
    help="Faust table store: memory:// or rocksdb:// [env OMEGA_STORE].",
)
read_model_option = click.option(
    "--store", "store_url", envvar="OMEGA_READ_MODEL", default=DEFAULT_READ_MODEL, show_default=True,
    help="Read model: sqlite:PATH or postgresql://... [env OMEGA_READ_MODEL].",
)
fact_store_option = click.option(
    "--store", "store_path", type=click.Path(path_type=Path), envvar="OMEGA_FACT_STORE", default=DEFAULT_FACT_STORE,
    show_default=True, help="Fact-store file (JSON lines) [env OMEGA_FACT_STORE].",
)
auth_policy_option = click.option(
    "--auth-policy", "auth_policy", envvar="OMEGA_PACKET_AUTH_POLICY", default=None,
    type=click.Path(path_type=Path),
    help="Packet signing policy (YAML/JSON): packets claiming Layer 1 or Integrity authority must be signed by an "
         "authorised key [env OMEGA_PACKET_AUTH_POLICY].",
)
files_argument = click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))


def usage_error(message: str) -> NoReturn:
    """End the command with `omega: message` on stderr, one line with URL passwords masked, and exit 2."""
    click.echo(f"omega: {one_line(message)}", err=True)
    sys.exit(EXIT_USAGE)


def one_line(message: str) -> str:
    """A message as the CLI prints it: one line (a driver's multi-line error folded), URL passwords masked."""
    return masked(" ".join(message.split()))


def input_failed(exc: OSError | InputError) -> NoReturn:
    """An input that could not be read ends the command with exit 2; a reader that stopped reading our output (a
    broken pipe: `| head`) is not an input error and goes up to end the command quietly."""
    if isinstance(exc, BrokenPipeError):
        raise exc
    usage_error(str(exc))


def existing_files(files: tuple[Path, ...]) -> list[Path]:
    """The inputs, in order: a directory becomes its input files (streams.replay.inputs.directory_inputs), `-` stays for
    stdin (once). Missing files (all named), an empty directory or a binary file end the command with exit 2."""
    missing = [str(f) for f in files if f != STDIN and not f.exists()]
    if missing:
        usage_error(f"no such file: {', '.join(missing)}")
    if files.count(STDIN) > 1:
        usage_error("- (stdin) given more than once")
    paths: list[Path] = []
    for given in files:
        if given.is_dir():
            found = directory_inputs(given)
            if not found:
                usage_error(f"{given}: no input files in this directory ({', '.join(sorted(INPUT_SUFFIXES))}, .gz)")
            paths.extend(found)
        elif given == STDIN or given.is_file():
            paths.append(given)
        else:
            usage_error(f"no such file: {given}")
    for path in paths:
        if path != STDIN:  # stdin is judged as it is read: sniffing it here would consume it
            try:
                with open_input(path):
                    pass
            except (InputError, OSError) as exc:
                usage_error(str(exc))
    return paths


def policy_or_exit(path: Path | None) -> AuthPolicy | None:
    """The policy at `path` (None without one); a bad policy file ends the command with exit 2."""
    try:
        return policy_for(path)
    except PolicyError as exc:
        usage_error(str(exc))


def outputs_for(settings: Settings) -> Outputs:
    """The encoder the file and Kafka commands judge and encode with (the worker's: its schema registry and bound)."""
    from streams.wire.confluent import with_registry

    try:
        registry = with_registry(settings)
    except SettingsError as exc:
        usage_error(str(exc))
    return Outputs(registry, settings.max_event_bytes)


def packet_stage_for(settings: Settings, policy: AuthPolicy | None = None) -> PacketStage:
    """The OMEN packet stage `omega publish` and `omega tail` encode and decode packets with."""
    return PacketStage(outputs_for(settings), policy)
