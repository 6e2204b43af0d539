"""The `omega` command line: the groups and their commands, each command in its own module.

Exit codes (`streams.cli.options`): 0 ok, 1 something rejected, 2 usage or I/O error."""

from __future__ import annotations

import click

from streams.cli.agents import plan
from streams.cli.answers import ask_command, check_answers, check_extraction, ingest_command
from streams.cli.auth import sign_group
from streams.cli.grounding import check_grounding
from streams.cli.kafka import publish, tail, worker
from streams.cli.memory import check_memories, memory, project
from streams.cli.oracle import check_oracle
from streams.cli.replay import check_messages, check_packets, replay
from streams.cli.schemas import schemas
from streams.cli.watch import watch
from streams.logs import configure_logging


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="omega-stream-verifier", prog_name="omega")
@click.option("--log-level", envvar="OMEGA_LOG_LEVEL", default="WARNING", show_default=True,
              help="structlog level [env OMEGA_LOG_LEVEL].")
def main(log_level: str) -> None:
    """OMEGA stream verifier: judge multi-agent LLM traffic live on Kafka or replayed from files."""
    configure_logging(log_level)


@click.group()
def check() -> None:
    """Judge files offline and print one JSON line per verdict or dead letter."""


for command in (replay, plan, worker, publish, tail, project, memory, ingest_command, ask_command, sign_group, watch,
                schemas, check):
    main.add_command(command)
for command in (check_packets, check_messages, check_memories, check_oracle, check_answers, check_extraction,
                check_grounding):
    check.add_command(command)


if __name__ == "__main__":
    main()
