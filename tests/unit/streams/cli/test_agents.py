"""`omega plan` through click's CliRunner: the deployment as JSON, exit codes 0/2."""

from __future__ import annotations

import json

import pytest
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


@pytest.mark.parametrize(("uncertainty", "stakes"), [("H", "l"), ("high", "LOW"), ("h", "Low")])
def test_plan_accepts_the_initials_and_the_words_in_any_case(uncertainty: str, stakes: str) -> None:
    result = _invoke("plan", "--type", "EMPIRICAL", "--uncertainty", uncertainty, "--stakes", stakes)
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert (plan["uncertainty"], plan["stakes"]) == ("HIGH", "LOW")


def test_plan_refuses_another_level_naming_the_accepted_forms() -> None:
    result = _invoke("plan", "--type", "EMPIRICAL", "--uncertainty", "X", "--stakes", "L")
    assert result.exit_code == 2
    assert "'X' is not one of H, M, L, HIGH, MEDIUM, LOW" in result.output


def test_plan_names_the_valid_subtypes_of_the_type_for_a_wrong_one_and_its_help_lists_the_types() -> None:
    result = _invoke("plan", "--type", "EMPIRICAL/QUANTUM", "--uncertainty", "H", "--stakes", "L")
    assert result.exit_code == 2
    assert result.output == ("omega: subtype 'QUANTUM' is not a subtype of EMPIRICAL (allowed: "
                             "CAUSAL|DESCRIPTIVE|PREDICTIVE or None)\n")
    assert "META: TRACTABILITY, FRAMING, DECOMPOSITION" in " ".join(_invoke("plan", "--help").output.split())
