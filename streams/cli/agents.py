"""`omega plan`: which OMEGA-57 agents to deploy for a problem (§1.1-§1.3)."""

from __future__ import annotations

import json

import click

from omega.agents.planner import plan_deployment
from streams.cli.options import usage_error


@click.command()
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
        usage_error(str(exc))
    click.echo(json.dumps(deployment.to_dict(), indent=2, sort_keys=True))
