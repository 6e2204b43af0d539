"""`omega check oracle FILE.ndjson [--config FILE] [--report OUT.json]`: the Phase Q oracles over a test set.

One JSON line per case on stdout `{id, verdict, oracles: {A, B, C: {verdict, violations, metrics}}}`; a
malformed line is reported on stderr with its line number and the other lines are still judged; when
cases carry `expected.verdict`, the agreement with it is summarised on stderr. Exit 1 when a verdict disagrees with
its `expected.verdict` (or, with none given, when a case fails), 0 otherwise, 2 on bad or empty input.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from omega.canonical import canonical_json
from omega.oracle.case import CaseError, parse_case
from omega.oracle.config import ConfigError
from omega.oracle.report import CaseJudgement, build_report, judge_case, report_text
from streams.cli.options import EXIT_FAILED, EXIT_OK, EXIT_USAGE, usage_error
from streams.cli.progress import with_progress
from streams.settings import Settings, SettingsError
from streams.stages.base import InputRejected, parse_json_object
from streams.stages.oracle import CONFIG_ENV, read_config


@click.command("oracle")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--config", "config_path", type=click.Path(path_type=Path), default=None,
              help=f"Phase Q config [default: ${CONFIG_ENV}, else the bundled copy of the shared one].")
@click.option("--report", "report_path", type=click.Path(path_type=Path), default=None,
              help="Write the Phase Q report (key-sorted JSON, schema phase-q-report.schema.json) here.")
def check_oracle(file: Path, config_path: Path | None, report_path: Path | None) -> None:
    """Judge Phase Q cases (NDJSON test-set lines) with Oracle-A, -B and -C; exit 1 on a disagreement with the
    expected verdicts (without them: on a FAIL), 2 on an empty input."""
    try:
        config = read_config(config_path)
        data = file.read_bytes()
    except (ConfigError, OSError) as exc:
        usage_error(str(exc))
    try:
        max_bytes = Settings.offline_from_env().max_event_bytes
    except SettingsError as exc:
        usage_error(str(exc))
    judged: list[CaseJudgement] = []
    malformed = 0
    lines = data.split(b"\n")
    for number, line in with_progress(enumerate(lines, start=1), len(lines), "judging cases"):
        if not line.strip():
            continue
        try:
            judgement = judge_case(parse_case(parse_json_object(line, max_bytes)), config)
        except InputRejected as exc:
            reason = f"{exc.error_class}: {exc.reason}"
        except CaseError as exc:
            reason = f"INVALID_CASE: {exc}"
        else:
            judged.append(judgement)
            click.echo(canonical_json(judgement.to_line()))
            continue
        malformed += 1
        click.echo(f"omega: {file}:{number}: malformed line, not judged: {reason}", err=True)
    disagree = _agreement(judged)
    if report_path is not None:
        report_path.parent.mkdir(parents=True, exist_ok=True)
        report_path.write_text(report_text(build_report(judged, config)), encoding="utf-8", newline="\n")
    if malformed:
        sys.exit(EXIT_USAGE)
    if not judged:
        usage_error(f"empty input: no cases found in {file}")
    # with expected verdicts the gate is agreement (a FAIL expected is a success); without, any FAIL fails
    failed = disagree if disagree is not None else any(j.verdict != "PASS" for j in judged)
    sys.exit(EXIT_FAILED if failed else EXIT_OK)


def _agreement(judged: list[CaseJudgement]) -> bool | None:
    """Print how many verdicts agree with `expected.verdict`, and which do not, on stderr; whether any disagrees
    (None when no case gives one)."""
    expected = [(j, j.case.expected.verdict) for j in judged if j.case.expected and j.case.expected.verdict]
    if not expected:
        return None
    agree = sum(j.verdict == verdict for j, verdict in expected)
    click.echo(f"agreement with expected.verdict: {agree}/{len(expected)}", err=True)
    for j, verdict in expected:
        if j.verdict != verdict:
            click.echo(f"  {j.case.id}: expected {verdict}, got {j.verdict}", err=True)
    return agree != len(expected)
