"""`omega plan` through click's CliRunner: the deployment as JSON, exit codes 0/2."""

from __future__ import annotations

import json

from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_OK, EXIT_USAGE


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), prog_name="omega", catch_exceptions=False)


def test_plan_prints_batches_within_the_parallel_limit_with_the_mandatory_agents() -> None:
    result = _invoke("plan", "--type", "EMPIRICAL/CAUSAL", "--uncertainty", "HIGH", "--stakes", "HIGH")
    plan = json.loads(result.stdout)
    assert result.exit_code == EXIT_OK
    deployed = {a for batch in plan["batches"] for a in batch["agents"]} | set(plan["persistent"])
    assert {48, 52, 53} <= deployed
    assert all(len(batch["agents"]) + len(plan["persistent"]) <= 10 for batch in plan["batches"])
    assert set(range(35, 47)) <= deployed  # HIGH stakes: the full adversary battery


def test_plan_exits_2_with_a_readable_reason_on_a_subtype_of_another_type() -> None:
    result = CliRunner().invoke(main, ["plan", "--type", "EMPIRICAL/ETHICAL", "--uncertainty", "LOW",
                                       "--stakes", "LOW"])
    assert result.exit_code == EXIT_USAGE
    assert "ETHICAL" in result.stderr
