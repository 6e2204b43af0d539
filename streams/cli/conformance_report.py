"""`omega check packets --report`: the producer conformance report (omega/packets/conformance.py) of the outputs,
each verdict and dead letter placed at the input it came from, rendered as text, Markdown or JSON.

Where an input is: `FILE:LINE` for a line of a JSONL file (`-` for stdin), `FILE#N` for the N-th item (from 0)
of a JSON array or record of an Avro file (`FILE#0` for a lone JSON packet). A verdict is placed by its packet
id: each input's `header.packet_id` is queued when it is read, and a verdict takes the oldest queued place of
its id, so a packet held back by a maximum lateness is still placed right; a dead letter by its source.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from omega import strictjson
from omega.packets.conformance import STATUSES, Conformance
from streams.records import json_view
from streams.replay.inputs import STDIN, InputRecord, input_suffix
from streams.stages.base import Emit, Source
from streams.topics import DEAD_LETTERS, VERDICTS
from streams.wire.omen_avro import PACKET_AS_SENT_SCHEMA

FORMATS = ("text", "markdown", "json")


def place(source: Source) -> str | None:
    """Where an input record was read, `FILE:LINE` or `FILE#N`; None for a record of no file."""
    if source.topic == "stdin":
        return f"-:{source.offset}"
    if not source.topic.startswith("file:"):
        return None
    path = source.topic.removeprefix("file:")
    line = Path(path) == STDIN or input_suffix(Path(path)) == ".jsonl"
    return f"{path}:{source.offset}" if line else f"{path}#{source.offset}"


def _packet_id(record: InputRecord) -> str | None:
    """The `header.packet_id` of an input record, when it has a readable one."""
    packet: Any = None
    if record.stage == "avro" and record.schema_name == PACKET_AS_SENT_SCHEMA and isinstance(record.datum, dict):
        packet = _loads(str(record.datum.get("packet_json")).encode("utf-8"))
    elif record.stage == "avro":
        packet = record.datum
    elif record.stage in ("json", "single"):
        packet = _loads(record.raw)
    header = packet.get("header") if isinstance(packet, dict) else None
    packet_id = header.get("packet_id") if isinstance(header, dict) else None
    return packet_id if isinstance(packet_id, str) else None


def _loads(raw: bytes) -> Any:
    try:
        return strictjson.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


class ReportSink:
    """Takes `check packets`' outputs in place of printing them, and renders the report at the end."""

    def __init__(self) -> None:
        self.conformance = Conformance()
        self._queued: dict[str, deque[str | None]] = {}

    def take(self, emits: Iterable[Emit], record: InputRecord | None = None) -> None:
        """The outputs of one input record (`Replayer.feed`), or of the end of the log (`record` None)."""
        emits = list(emits)
        here = None if record is None else place(record.source)
        if record is not None and not any(e.topic is DEAD_LETTERS and _is_from(e, record.source) for e in emits):
            packet_id = _packet_id(record)
            if packet_id is not None:
                self._queued.setdefault(packet_id, deque()).append(here)
        for emit in emits:
            if emit.topic is VERDICTS:
                view = json_view(emit.record)
                self.conformance.add_verdict(view, self._place_of(str(view["packet_id"]), here))
            elif emit.topic is DEAD_LETTERS:
                letter = json_view(emit.record)
                source = Source(str(letter["source_topic"]), 0, int(letter["source_offset"]))
                self.conformance.add_dead_letter(letter, place(source) or here)

    def _place_of(self, packet_id: str, here: str | None) -> str | None:
        queued = self._queued.get(packet_id)
        if not queued:
            return here
        where = queued.popleft()
        if not queued:
            del self._queued[packet_id]
        return where

    def render(self, report_format: str) -> str:
        """The report as `text`, `markdown` or `json` (keys sorted, indented), ending with a newline."""
        report = self.conformance.report()
        if report_format == "json":
            return json.dumps(report, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
        return render_markdown(report) if report_format == "markdown" else render_text(report)


def _is_from(emit: Emit, source: Source) -> bool:
    return bool(emit.record.get("source_topic") == source.topic and emit.record.get("source_offset") == source.offset)


# ------------------------------------------------------------------ renderers
def _totals_line(report: dict[str, Any]) -> str:
    totals = report["totals"]
    statuses = ", ".join(f"{k} {v}" for k, v in totals["verdicts"].items())
    return f"Packets: {totals['packets']} ({statuses}); dead letters: {totals['dead_letters']}"


def _spec(group: dict[str, Any]) -> str:
    return "; ".join(f"{ref['document']} \"{ref['section']}\"" if ref["section"] else ref["document"]
                     for ref in group["spec"])


def _title(group: dict[str, Any]) -> str:
    return f"{group['rule']} {group['field'] or '(packet)'}"


def render_text(report: dict[str, Any]) -> str:
    """The report as plain text: totals, the fixes in order, the warnings, the dead letters."""
    lines = ["OMEN producer conformance report", _totals_line(report), ""]
    lines.append("Fix first (ERRORs; would accept: the packets this fix alone turns ACCEPTED):"
                 if report["fixes"] else "No ERRORs.")
    for n, group in enumerate(report["fixes"], start=1):
        lines.append(f"{n:>3}. {_title(group)}: {group['packets']} packet(s), would accept {group['would_accept']}")
        lines += _group_lines(group)
    if report["warnings"]:
        lines += ["", "Warnings (they do not block acceptance):"]
    for group in report["warnings"]:
        lines.append(f"  - {_title(group)}: {group['packets']} packet(s)")
        lines += _group_lines(group)
    if report["dead_letters"]:
        lines += ["", "Dead letters (unattributable input: no verdict):"]
    for entry in report["dead_letters"]:
        lines.append(f"  - {entry['error_class']}: {entry['count']}")
        lines += [f"      at {e['at'] or '?'}: {e['reason']}" for e in entry["examples"]]
    return "\n".join(lines) + "\n"


def _group_lines(group: dict[str, Any]) -> list[str]:
    lines = [f"      fix: {fix}" for fix in group["fixes"]]
    lines.append(f"      spec: {_spec(group)}")
    lines += [f"      e.g. {e['packet_id']} at {e['at'] or '?'}: {e['message']}" for e in group["examples"]]
    return lines


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(report: dict[str, Any]) -> str:
    """The report as Markdown: totals, then one table each for fixes, warnings and dead letters."""
    totals = report["totals"]
    lines = ["# OMEN producer conformance report", "",
             f"**Packets:** {totals['packets']} · " + " · ".join(
                 f"**{status}:** {totals['verdicts'].get(status, 0)}" for status in STATUSES)
             + f" · **Dead letters:** {totals['dead_letters']}", ""]
    head = "| # | Rule | Field | Packets | Would accept | Fix | Spec | Examples |"
    lines += ["## Fix first", "", "*Would accept*: the REJECTED packets whose every ERROR is in this row, so that "
              "fixing this row alone turns them ACCEPTED.", ""]
    lines += [head, "|---|---|---|---:|---:|---|---|---|"] if report["fixes"] else ["No ERRORs."]
    for n, g in enumerate(report["fixes"], start=1):
        lines.append(f"| {n} | {g['rule']} | {_field(g)} | {g['packets']} | {g['would_accept']} | "
                     f"{_cell('; '.join(g['fixes']))} | {_cell(_spec(g))} | {_examples(g)} |")
    lines += ["", "## Warnings (do not block acceptance)", ""]
    lines += ["| Rule | Field | Packets | Fix | Spec | Examples |", "|---|---|---:|---|---|---|"] \
        if report["warnings"] else ["None."]
    for g in report["warnings"]:
        lines.append(f"| {g['rule']} | {_field(g)} | {g['packets']} | {_cell('; '.join(g['fixes']))} | "
                     f"{_cell(_spec(g))} | {_examples(g)} |")
    lines += ["", "## Dead letters (unattributable input)", ""]
    lines += ["| Error class | Count | Examples |", "|---|---:|---|"] if report["dead_letters"] else ["None."]
    for entry in report["dead_letters"]:
        shown = "<br>".join(f"`{_cell(e['at'] or '?')}`: {_cell(e['reason'])}" for e in entry["examples"])
        lines.append(f"| {entry['error_class']} | {entry['count']} | {shown} |")
    return "\n".join(lines) + "\n"


def _field(group: dict[str, Any]) -> str:
    return "(packet)" if group["field"] is None else f"`{_cell(group['field'])}`"


def _examples(group: dict[str, Any]) -> str:
    return "<br>".join(f"`{_cell(e['packet_id'])}` at `{_cell(e['at'] or '?')}`" for e in group["examples"])

