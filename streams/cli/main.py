"""The `omega` command line: the groups and their commands, each command in its own module.

Exit codes (`streams.cli.options`): 0 ok, 1 something rejected, 2 usage, input, configuration, network or server
error; `ContractGroup` keeps that contract for whatever a command lets escape."""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any, NoReturn

import click

from streams.cli.agents import plan
from streams.cli.answers import ask_command, check_answers, check_extraction, ingest_command
from streams.cli.auth import sign_group
from streams.cli.grounding import check_grounding
from streams.cli.kafka import publish, tail, worker
from streams.cli.memory import check_memories, memory, project
from streams.cli.options import EXIT_OK, EXIT_USAGE, one_line
from streams.cli.oracle import check_oracle
from streams.cli.replay import check_messages, check_packets, replay
from streams.cli.schemas import schemas
from streams.cli.watch import watch
from streams.logs import configure_logging

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL")  # a level logging knows by name


class ContractGroup(click.Group):
    """The `omega` group, keeping the CLI's one contract whatever a command raises (docs/cli.md): exit 0 ok, 1
    something rejected, 2 usage, input, configuration, network or server errors, always one line on stderr and
    never a traceback; a reader that stops reading (`| head`) ends the command quietly."""

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; what it lets escape is one line and exit 2 (the traceback under OMEGA_LOG_LEVEL=DEBUG)."""
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, SystemExit):
            raise
        except BrokenPipeError:
            _quiet_after_broken_pipe()
        except KeyboardInterrupt:
            sys.exit(130)
        except Exception as exc:  # noqa: BLE001 - the contract: one line, never a traceback
            if os.environ.get("OMEGA_LOG_LEVEL", "").upper() == "DEBUG":
                traceback.print_exc()
            hint = "" if os.environ.get("OMEGA_LOG_LEVEL", "").upper() == "DEBUG" else \
                " (OMEGA_LOG_LEVEL=DEBUG shows the traceback)"
            click.echo(f"omega: {one_line(f'{type(exc).__name__}: {exc}')}{hint}", err=True)
            sys.exit(EXIT_USAGE)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """click's main, except that a usage error is one line (click prints four) and a broken pipe (the reader
        went away) is a quiet exit 0, not click's exit 1."""
        if kwargs.get("standalone_mode", True) is False:
            return super().main(*args, **kwargs)
        try:
            code = super().main(*args, **{**kwargs, "standalone_mode": False})
        except click.ClickException as exc:
            where = f" (omega {exc.ctx.command_path.partition(' ')[2]} -h for help)".replace("  -h", " -h") \
                if isinstance(exc, click.UsageError) and exc.ctx is not None else ""
            click.echo(f"omega: {one_line(exc.format_message())}{where}", err=True)
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            click.echo("omega: aborted", err=True)
            sys.exit(130)
        except BrokenPipeError:
            _quiet_after_broken_pipe()
        sys.exit(code if isinstance(code, int) else EXIT_OK)


def _quiet_after_broken_pipe() -> NoReturn:
    # Python's advice (signal module docs): point stdout at devnull so the interpreter's final flush does not fail
    # again, then leave; what was written is what the reader wanted
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(EXIT_OK)


@click.group(cls=ContractGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="omega-stream-verifier", prog_name="omega")
@click.option("--log-level", envvar="OMEGA_LOG_LEVEL", default="WARNING", show_default=True,
              type=click.Choice(LOG_LEVELS, case_sensitive=False), help="structlog level [env OMEGA_LOG_LEVEL].")
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
