"""`omega check oracle FILE... [--config FILE] [--report OUT.json]`: the Phase Q oracles over test sets.

FILES are NDJSON test-set files, directories (their *.ndjson and *.jsonl files, gzipped or not, recursively, by
name) or `-` for stdin, judged in the order given. On the contract every `omega check` shares
(`streams.cli.checking`: `--format json|table`, `--fail-on`, the summary on stderr, the exit code): one line per
case `{kind: "case", id, verdict, oracles: {A, B, C: {verdict, violations, metrics}}, status, source: {file, line}}`
(`source`: the file as given, `-` for stdin, and the case's 1-based line), its `status` AGREE
or DISAGREE (a rejection) when the case carries `expected.verdict`, else its verdict PASS or FAIL (a FAIL is a
rejection). When cases carry `expected.verdict`, the agreement with it (`agreement with expected.verdict: A/N`)
and each disagreement are printed on stderr before the summary `N cases judged: ...`. A malformed line is reported
on stderr as FILE:LINE and the other lines are still judged. Exit 1 when a case is rejected, 0 otherwise, 2 on bad
or empty input or when a line was malformed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from omega.oracle.case import CaseError, parse_case
from omega.oracle.config import ConfigError
from omega.oracle.report import CaseJudgement, build_report, judge_case, report_text
from streams.cli.checking import Tally, check_options
from streams.cli.options import EXIT_USAGE, existing_files, files_argument, input_failed, usage_error
from streams.cli.progress import with_progress
from streams.replay.inputs import STDIN, InputError, input_suffix, read_input_bytes
from streams.settings import Settings, SettingsError
from streams.stages.base import InputRejected, parse_json_object
from streams.stages.oracle import CONFIG_ENV, read_config

CASE_SUFFIXES = {".ndjson", ".jsonl"}
"""What a directory given to `check oracle` contributes (gzipped or not): test-set files."""
AGREE, DISAGREE = "AGREE", "DISAGREE"


@click.command("oracle")
@files_argument
@click.option("--config", "config_path", type=click.Path(path_type=Path), default=None,
              help=f"Phase Q config [default: ${CONFIG_ENV}, else the bundled copy of the shared one].")
@click.option("--report", "report_path", type=click.Path(path_type=Path), default=None,
              help="Write the Phase Q report (key-sorted JSON, schema phase-q-report.schema.json) here.")
@check_options
def check_oracle(files: tuple[Path, ...], config_path: Path | None, report_path: Path | None, output_format: str,
                 fail_on: str) -> None:
    """Judge Phase Q cases (NDJSON test-set lines; files, directories of *.ndjson/*.jsonl, `-` for stdin) with
    Oracle-A, -B and -C: one line per case, `status` AGREE/DISAGREE with its expected verdict (without one: its
    verdict PASS/FAIL); a summary on stderr; exit 1 on a DISAGREE or a FAIL (or `--fail-on` crossed), 2 on bad,
    malformed or empty input."""
    paths = case_files(files)
    try:
        config = read_config(config_path)
    except (ConfigError, OSError) as exc:
        usage_error(str(exc))
    try:
        max_bytes = Settings.offline_from_env().max_event_bytes
    except SettingsError as exc:
        usage_error(str(exc))
    if report_path is not None:  # an unwritable report ends the command before anything is judged
        _report_or_exit(report_path)
    lines: list[tuple[Path, int, bytes]] = []
    for path in paths:
        try:
            data = read_input_bytes(path)
        except (OSError, InputError) as exc:
            input_failed(exc)
        lines += [(path, number, line) for number, line in enumerate(data.split(b"\n"), start=1)]
    judged: list[CaseJudgement] = []
    tally = Tally(fail_on, output_format)
    malformed = 0
    for path, number, line in with_progress(lines, len(lines), "judging cases"):
        if not line.strip():
            continue
        name = "stdin" if path == STDIN else str(path)
        try:
            judgement = judge_case(parse_case(parse_json_object(line, max_bytes)), config)
        except InputRejected as exc:
            reason = f"{exc.error_class}: {exc.reason}"
        except CaseError as exc:
            reason = f"INVALID_CASE: {exc}"
        else:
            judged.append(judgement)
            status, rule = case_status(judgement)
            source = {"file": str(path), "line": number}  # `-` for stdin, as given
            tally.line({"kind": "case", **judgement.to_line(), "status": status, "source": source}, status=status,
                       rule=rule, where=f"{name}:{number} {judgement.case.id}")
            continue
        malformed += 1
        click.echo(f"omega: {name}:{number}: malformed line, not judged: {reason}", err=True)
    _agreement(judged)
    if report_path is not None:
        _report_or_exit(report_path, report_text(build_report(judged, config)))
    if malformed:
        sys.exit(EXIT_USAGE)
    tally.finish("cases")


def _report_or_exit(report_path: Path, text: str | None = None) -> None:
    """Make the report's directory and, given `text`, write the report; an OSError ends the command with exit 2."""
    try:
        report_path.parent.mkdir(parents=True, exist_ok=True)
        if text is not None:
            report_path.write_text(text, encoding="utf-8", newline="\n")
    except OSError as exc:
        usage_error(f"cannot write the report {report_path}: {exc}")


def case_files(files: tuple[Path, ...]) -> list[Path]:
    """The inputs in order: a directory gives its *.ndjson and *.jsonl files (gzipped or not) recursively by name,
    `-` is stdin. A missing or binary input, or a directory without a case file, ends the command with exit 2."""
    given: list[Path] = []
    for named in files:
        if named != STDIN and named.is_dir():
            found = sorted(p.relative_to(named) for p in named.rglob("*")
                           if input_suffix(p) in CASE_SUFFIXES and p.is_file())
            if not found:
                usage_error(f"{named}: no case files in this directory (.ndjson, .jsonl, gzipped or not)")
            given += [named / p for p in found]
        else:
            given.append(named)
    return existing_files(tuple(given))  # refuses missing and binary files, and stdin given twice


def case_status(judgement: CaseJudgement) -> tuple[str, str]:
    """A case's status and, for a rejected one, what the summary says of it: with `expected.verdict`, AGREE or
    DISAGREE (`expected PASS, got FAIL (RULE-...)`), else its verdict PASS or FAIL (the rules that failed it: the
    first violation's rule of each failing oracle)."""
    rules = ", ".join(result.violations[0].rule_id for result in (judgement.a, judgement.b, judgement.c)
                      if result.violations)
    expected = judgement.case.expected.verdict if judgement.case.expected else None
    if not expected:
        return judgement.verdict, rules
    if judgement.verdict == expected:
        return AGREE, ""
    return DISAGREE, f"expected {expected}, got {judgement.verdict}" + (f" ({rules})" if rules else "")


def _agreement(judged: list[CaseJudgement]) -> None:
    """Print how many verdicts agree with `expected.verdict`, and which do not, on stderr (nothing when no case
    gives one)."""
    expected = [(j, j.case.expected.verdict) for j in judged if j.case.expected and j.case.expected.verdict]
    if not expected:
        return
    agree = sum(j.verdict == verdict for j, verdict in expected)
    click.echo(f"agreement with expected.verdict: {agree}/{len(expected)}", err=True)
    for j, verdict in expected:
        if j.verdict != verdict:
            click.echo(f"  {j.case.id}: expected {verdict}, got {j.verdict}", err=True)
