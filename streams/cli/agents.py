"""`omega plan`: which OMEGA-57 agents to deploy for a problem (§1.1-§1.3)."""

from __future__ import annotations

import json

import click

from omega.agents.planner import LEVELS, PROBLEM_TYPES, plan_deployment
from streams.cli.options import usage_error

LEVEL_WORDS = {level[0]: level for level in LEVELS} | {level: level for level in LEVELS}  # H, M, L or the word


class Level(click.ParamType):
    """HIGH, MEDIUM or LOW, or their initials, in any case."""

    name = "H|M|L|HIGH|MEDIUM|LOW"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> str:
        """The level's full word; a usage error naming the accepted forms otherwise."""
        level = LEVEL_WORDS.get(str(value).strip().upper())
        if level is None:
            self.fail(f"{value!r} is not one of H, M, L, HIGH, MEDIUM, LOW", param, ctx)
        return level


TYPES_HELP = "; ".join(f"{kind}: {', '.join(subs)}" for kind, subs in PROBLEM_TYPES.items())


@click.command()
@click.option("--type", "problem_type", required=True,
              help=f"Problem type, optionally with its sub-type, e.g. EMPIRICAL or EMPIRICAL/CAUSAL (§1.1). Types and "
                   f"sub-types: {TYPES_HELP}.")
@click.option("--uncertainty", type=Level(), required=True, help="H, M or L (or HIGH, MEDIUM, LOW).")
@click.option("--stakes", type=Level(), required=True, help="H, M or L (or HIGH, MEDIUM, LOW).")
@click.option("--ill-defined", is_flag=True, help="The problem is not yet well defined (§1.2: clarity first).")
def plan(problem_type: str, uncertainty: str, stakes: str, ill_defined: bool) -> None:
    """Which OMEGA-57 agents to deploy, batch by batch (§1.1-§1.3), as JSON."""
    kind, _, subtype = problem_type.upper().partition("/")
    try:
        deployment = plan_deployment(kind, subtype or None, uncertainty, stakes,
                                     well_defined=not ill_defined)
    except ValueError as exc:
        usage_error(str(exc))
    click.echo(json.dumps(deployment.to_dict(), indent=2, sort_keys=True))
