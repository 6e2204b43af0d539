"""The file commands, with no broker: `omega replay`, `omega check packets`, `omega check messages`."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import click
from rich.console import Console

from omega.agents.documents import read_documents
from omega.agents.model import MessageRejected, SessionEvent
from omega.agents.session import SessionState
from streams.cli.checking import Tally, check_options
from streams.cli.conformance_report import FORMATS, ReportSink
from streams.cli.options import (
    EXIT_OK,
    EXIT_REJECTED,
    auth_policy_option,
    existing_files,
    files_argument,
    input_failed,
    outputs_for,
    policy_or_exit,
    usage_error,
)
from streams.cli.progress import by_input_size
from streams.cli.summary import render_summary
from streams.records import json_view
from streams.replay import jobs as replay_jobs
from streams.replay.inputs import (
    MESSAGE_SUFFIXES,
    STDIN,
    InputError,
    InputRecord,
    Origin,
    input_stem,
    input_suffix,
    json_item_lines,
    read_input_bytes,
    read_inputs,
)
from streams.replay.replayer import Replayer, ReplaySummary
from streams.settings import Settings, SettingsError
from streams.stages.base import Emit, Source
from streams.stages.messages import MonitorStage
from streams.topics import AGENT_MESSAGES, ALERTS, DEAD_LETTERS, ESCALATIONS, TERMINATIONS, VERDICTS


@contextmanager
def _output(path: str | None) -> Iterator[IO[str] | None]:
    if path is None:
        yield None
    elif path == "-":
        yield sys.stdout
    else:
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            handle = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed below; only opening is an input error
        except OSError as exc:
            usage_error(f"cannot write {path}: {exc}")
        with handle:
            yield handle


lateness_option = click.option(
    "--max-lateness-ms", type=click.IntRange(min=0), default=None,
    help="Judge each episode's packets in event-time order, waiting up to this many ms of event time for late "
         "ones, as the worker does with the same OMEGA_MAX_LATENESS_MS (default: that variable, else 0: file order) "
         "and OMEGA_PARTITIONS (one watermark per packets partition).")


def _settings(auth_policy: Path | None = None, max_lateness_ms: int | None = None) -> Settings:
    """Only what the file commands read from the environment; a bad value ends the command with exit 2, naming it."""
    try:
        return Settings.offline_from_env(packet_auth_policy=auth_policy, max_lateness_ms=max_lateness_ms)
    except SettingsError as exc:
        usage_error(str(exc))


def _has_rejects(summary: ReplaySummary) -> bool:
    return bool(summary.verdicts.get("REJECTED") or sum(summary.dead_letters.values()))


@click.command()
@files_argument
@click.option("--out", "out_path", default=None, help="Write outputs as JSON lines here ('-' for stdout).")
@click.option("--summary/--no-summary", default=True, show_default=True, help="Print the readable summary.")
@auth_policy_option
@lateness_option
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes to judge in: episodes (and sessions) split by key as Kafka partitions them, outputs "
                   "merged in input order, the same bytes as one job. A maximum lateness or stdin runs one job.")
def replay(files: tuple[Path, ...], out_path: str | None, summary: bool, auth_policy: Path | None,
           max_lateness_ms: int | None, jobs: int) -> None:
    """Replay recorded events (JSON, JSONL, Avro container files) embedded, with no broker.

    FILES may be directories (their input files, recursively, by name), gzipped files, or `-` for JSONL on stdin."""
    paths = existing_files(files)
    settings = _settings(auth_policy, max_lateness_ms)
    outputs, policy = outputs_for(settings), policy_or_exit(settings.packet_auth_policy)
    console = Console(stderr=out_path == "-")
    with _output(out_path) as out:
        try:
            result = replay_jobs.replay(paths, outputs, settings.max_lateness_ms, jobs, out,
                                        lambda records: by_input_size(records, list(paths), console),
                                        partitions=settings.partitions, auth_policy=policy)
        except InputError as exc:
            usage_error(str(exc))
    if summary:
        render_summary(result, console, title=f"Replay of {len(paths)} file(s)")
    _say_when_empty(result.events_in)
    sys.exit(EXIT_REJECTED if _has_rejects(result) else EXIT_OK)


@click.command("packets")
@files_argument
@auth_policy_option
@lateness_option
@click.option("--report", is_flag=True,
              help="Print a producer conformance report instead of the JSON lines: what to fix per rule and field, "
                   "the fix that turns the most packets ACCEPTED first, then warnings and dead letters.")
@click.option("--report-format", type=click.Choice(FORMATS), default="text", show_default=True,
              help="The report's format (json: docs/conformance-report.md).")
@check_options
def check_packets(files: tuple[Path, ...], auth_policy: Path | None, max_lateness_ms: int | None, report: bool,
                  report_format: str, output_format: str, fail_on: str) -> None:
    """Check OMEN packets (JSON/JSONL/Avro; directories, gzip, `-` for stdin) against the validator; a summary on
    stderr; exit 1 if any is rejected (or `--fail-on` is crossed), 2 on an empty input or a YAML session."""
    paths = existing_files(files)
    yaml = [str(p) for p in paths if input_suffix(p) in MESSAGE_SUFFIXES]
    if yaml:
        usage_error(f"{yaml[0]}: an OMEGA-57 session (YAML); judge it with `omega check messages`")
    settings = _settings(auth_policy, max_lateness_ms)
    sink = ReportSink() if report else None
    outputs, policy = outputs_for(settings), policy_or_exit(settings.packet_auth_policy)
    replayer = Replayer(outputs, settings.max_lateness_ms, settings.partitions, origins=sink is None,
                        auth_policy=policy)
    tally = Tally(fail_on, output_format)
    sources = Sources()
    try:
        for record in read_inputs(paths):
            if record.stage == "message" and record.topic is None:
                usage_error(f"{record.source.topic}: an OMEGA-57 session (YAML); judge it with "
                            "`omega check messages`")
            emits = replayer.feed(record)
            _check_out(emits, sink, tally, record, sources.of(emits, replayer.origins))
        emits = replayer.finish()
        _check_out(emits, sink, tally, None, sources.of(emits, replayer.origins))
    except (OSError, InputError) as exc:
        input_failed(exc)
    if sink is not None:
        click.echo(sink.render(report_format), nl=False)
        if not replayer.summary.events_in:
            usage_error("empty input: no packets found")
        sys.exit(EXIT_REJECTED if _has_rejects(replayer.summary) else EXIT_OK)
    tally.finish("packets")


def _check_out(emits: list[Emit], sink: ReportSink | None, tally: Tally, record: InputRecord | None,
               origins: list[Origin | None]) -> None:
    """`check packets`' outputs: to the report when there is one, else one line each with its `source`, counted."""
    if sink is not None:
        sink.take(emits, record)
        return
    for emit, origin in zip(emits, origins, strict=True):
        line = check_line(emit, origin)
        status = str(line["status"]) if line["kind"] == "verdict" else None
        tally.line(line, status=status, rule=_rule(line), where=origin.where() if origin else "")


class Sources:
    """Where each output of `check packets` comes from: the input record that caused it (`Replayer.origins`), and
    for an output of the end of the log (an INV-011 timeout) the record of the directive it closes, named by its
    `source_event_id`, when that directive was judged here; else none."""

    def __init__(self) -> None:
        self._directives: dict[tuple[str, str], Origin] = {}  # (episode, packet id) -> the directive's record

    def of(self, emits: list[Emit], origins: list[Origin | None] | None) -> list[Origin | None]:
        """The origin of each of `emits`."""
        if origins is None:  # a report: no lines, no sources
            return [None] * len(emits)
        found: list[Origin | None] = []
        for emit, caused_by in zip(emits, origins, strict=True):
            record = emit.record
            origin = caused_by
            if origin is None and emit.topic is not VERDICTS:
                origin = self._directives.get((str(record.get("subject_id")), str(record.get("source_event_id"))))
            elif origin is not None and emit.topic is VERDICTS and record.get("packet_type") == DIRECTIVE \
                    and record.get("status") != "REJECTED":
                self._directives.setdefault((str(record.get("correlation_id")), str(record.get("packet_id"))),
                                            origin)
            found.append(origin)
        return found


DIRECTIVE = "TaskDirectivePacket"  # the packet whose task an INV-011 timeout closes


def _rule(line: dict[str, Any]) -> str:
    """The rule a rejection broke: the first violation's rule, a dead letter's error class."""
    violations = line.get("violations") or []
    if violations and isinstance(violations[0], dict):
        return str(violations[0].get("rule") or violations[0].get("code") or "")
    return str(line.get("error_class", ""))


def _say_when_empty(events: int) -> None:
    """An input with no records is not an error, but says so (stderr: stdout may carry the JSON lines)."""
    if not events:
        click.echo("0 events", err=True)


def check_line(emit: Emit, origin: Origin | None = None) -> dict[str, Any]:
    """One output of `check packets`: a verdict with `fsm{from,to}`, an alert (its own kind as `alert_kind`), an
    escalation or a dead letter; with `source` {file, line} (or {file, index}) when its input record is known. The
    rest is the live record's view (tests/integration/equivalence.py compares it)."""
    record = json_view(emit.record)
    if emit.topic is VERDICTS:
        before, after = record.pop("state_before"), record.pop("state_after")
        line = {"kind": "verdict", **record, "fsm": {"from": before, "to": after}}
    elif emit.topic.logical == ALERTS.logical:  # the alert's own `kind` (TASK_TIMEOUT, ...) must not hide the line's
        line = {"kind": "alert", "alert_kind": record.pop("kind"), **record}
    elif emit.topic is TERMINATIONS:
        line = {"kind": "termination", **record}
    else:
        line = {"kind": "escalation" if emit.topic.logical == ESCALATIONS.logical else "dead_letter", **record}
    if origin is not None:
        line["source"] = origin.view()
    return line


@click.command("messages")
@files_argument
@click.option("--session-id", default=None,
              help="Session id of all the messages, as one session (default: each file's stem, `stdin` for -).")
@click.option("--session-per-file/--one-session", "session_per_file", default=True, show_default=True,
              help="Judge each file as its own session (id: its stem; the default), or all files as one session "
                   "in the order given.")
@check_options
def check_messages(files: tuple[Path, ...], session_id: str | None, session_per_file: bool, output_format: str,
                   fail_on: str) -> None:
    """Check OMEGA-57 agent messages (YAML or JSON, gzipped or not, directories, `-` for stdin; one or many per
    file; a session's messages in order; one session per file unless --one-session).

    One JSON line per message {kind, file, session_id, message_id, agent_id, status, reasons, notes}, then any
    alert, escalation or termination report as it fires; a summary on stderr. Exit 1 if any message is rejected
    (or `--fail-on` is crossed), 2 on an empty input."""
    paths = existing_files(files)
    stage = MonitorStage(outputs_for(_settings()))
    states: dict[str, SessionState | None] = {}
    tally = Tally(fail_on, output_format)
    for number, path in enumerate(paths):
        try:
            raw = read_input_bytes(path).removeprefix(b"\xef\xbb\xbf")
        except (OSError, InputError) as exc:
            input_failed(exc)
        if not raw.strip():  # an empty file holds no message, not one empty (rejected) message
            continue
        # a session id given names the one session all files form
        session = session_id or (input_stem(path) if session_per_file else input_stem(paths[0]))
        step = stage.messages(states.get(session), raw, Source(f"file:{path}", 0, number), session)
        states[session] = step.state
        origins = message_origins(path, raw, len(step.events))
        for event, origin in zip(step.events, origins, strict=True):
            line = message_line(path, event, origin)
            tally.line(line, status=str(line["status"]), rule=", ".join(map(str, line["reasons"]))[:200],
                       where=origin.where())
        # each message's outputs follow its own record (accepted or dead letter): theirs is its source
        at = -1
        for emit in step.emits:
            if emit.topic is AGENT_MESSAGES or emit.topic is DEAD_LETTERS:
                at += 1
            else:
                tally.line(check_line(emit, origins[at] if at >= 0 else None))
    tally.finish("messages")


def message_origins(path: Path, raw: bytes, count: int) -> list[Origin]:
    """Where each of a file's `count` judged messages starts: the line of its document (a YAML `---` document, a
    JSON document), of a JSON array's item its own line, of a YAML list document's item the document's line with
    `item` (its 1-based number). When the documents do not give `count` messages (the file was refused whole:
    oversized, not UTF-8), each is named by its number in the file (`index`)."""
    name = str(STDIN) if path == STDIN else str(path)
    try:
        documents = read_documents(raw.decode("utf-8"))
    except UnicodeDecodeError:
        documents = []
    origins: list[Origin] = []
    for doc in (d for d in documents if d.errors or d.value is not None):  # as omega.agents.messages reads them
        items = doc.value if not doc.errors and isinstance(doc.value, list) and doc.value \
            and all(isinstance(item, dict) for item in doc.value) else None
        lines = json_item_lines(raw, len(items)) if items is not None and len(documents) == 1 else None
        if items is None:
            origins.append(Origin(name, doc.line))
        elif lines is not None:  # one JSON array: its items' own lines
            origins += [Origin(name, line) for line in lines]
        else:
            origins += [Origin(name, doc.line, item=n) for n in range(1, len(items) + 1)]
    if not documents or not origins:  # no message at all: one rejection, of the whole text
        origins = [Origin(name, 1)]
    if len(origins) != count:
        return [Origin(name, None, index=n) for n in range(1, count + 1)]
    return origins


def message_line(path: Path, event: SessionEvent, origin: Origin | None = None) -> dict[str, Any]:
    """One message's outcome in `check messages`, with its `source` when known."""
    line: dict[str, Any]
    if isinstance(event, MessageRejected):
        line = {"kind": "message", "file": str(path), "session_id": event.session_id,
                "message_id": event.message_id, "agent_id": event.agent_id, "status": "REJECTED",
                "reasons": list(event.reasons), "notes": []}
    else:
        line = {"kind": "message", "file": str(path), "session_id": event.session_id,
                "message_id": event.message_id, "agent_id": event.agent_id, "status": "ACCEPTED", "reasons": [],
                "notes": list(event.notes)}
    if origin is not None:
        line["source"] = origin.view()
    return line
