"""A §2.1 message block to a validated `AgentMessage`, or every reason it is not one (§2.1, §2.2, §5.1).

Rules, each decided here:
- Required: header.{agent_id, agent_name, agent_tier, timestamp, iteration, responding_to},
  summary.{verdict, confidence, confidence_basis}, body.{tier, content} (content may be null, not absent).
  Optional: the dependencies, flags and meta blocks and every field in them; absent or null means nothing
  declared (no inputs, flags false, contradiction_with null, 0 tokens, no notes).
- Numbers and booleans are strict: no quoted numbers, no bools as ints, only true/false as booleans.
- agent_name and agent_tier must be the roster's for agent_id (case and surrounding whitespace ignored) and
  are stored in the roster's spelling; responding_to and reference types are likewise case-tolerant.
- timestamp: ISO 8601 extended date and time (`T` separator), offset optional (naive means UTC, as in
  `omega.eventtime`); kept as the producer wrote it, trimmed.
- iteration: an int >= 0; iterations count from `FIRST_ITERATION` = 0, so A.3's limit of 10 full cycles is
  iterations 0..9. The limit is the termination judge's to enforce, not a reason to refuse a message.
- summary.verdict: one line, at most 100 characters after trimming. At body.tier 0 it must also be the §5.1
  verdict line `[VERDICT] <conclusion> | CONF: <X>% | FLAGS: <none or flag names>`, and X must agree with
  summary.confidence within `CONF_TOLERANCE` (1 percentage point); the FLAGS list is not compared with flags.
- references (§2.2) are read from the message block and then from body, under `references` or `reference`
  (one mapping or a list of them); an entry `{reference: {...}}` is unwrapped.
- Unknown keys are kept: per block in `AgentMessage.extras`, unknown flags in `Flags.extras`. Unknown keys
  inside an inputs_used entry or a reference are dropped: the model has no place for them.
- message_id: the block's `message_id` (a non-empty string) if present, else the caller's derived id.
- Every problem of the message is reported, each as `path: problem`, not only the first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from omega.agents import roster
from omega.agents.model import REFERENCE_TYPES, TIERS, AgentMessage, Flags, InputUsed, Reference

FIRST_ITERATION = 0
MAX_VERDICT_CHARS = 100
CONF_TOLERANCE = 1.0
RESPONDING_TO_WORDS = ("PHI_QUERY", "INITIAL")
MAX_AVRO_INT = 2**31 - 1
MAX_AVRO_LONG = 2**63 - 1

VERDICT_LINE = re.compile(
    r"\[(?P<label>[A-Z][A-Z0-9_]*(?:[ -][A-Z0-9_]+)*)\]\s+(?P<conclusion>\S.*?)\s*\|\s*CONF:\s*"
    r"(?P<conf>\d+(?:\.\d+)?)\s*%\s*\|\s*FLAGS:\s*(?P<flags>\S.*?)\s*"
)
"""§5.1 Tier 0 format; whitespace around `|` and after `:` is free, the rest is literal."""
_FLAG_NAMES = re.compile(r"[a-z][a-z0-9_]*(?:\s*,\s*[a-z][a-z0-9_]*)*")
_ISO_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}")

MESSAGE_KEYS = frozenset({"message_id", "header", "summary", "body", "dependencies", "flags", "meta",
                           "references", "reference"})
HEADER_KEYS = frozenset({"agent_id", "agent_name", "agent_tier", "timestamp", "iteration", "responding_to"})
SUMMARY_KEYS = frozenset({"verdict", "confidence", "confidence_basis"})
BODY_KEYS = frozenset({"tier", "content", "references", "reference"})
DEPENDENCY_KEYS = frozenset({"inputs_used", "outputs_for"})
FLAG_KEYS = ("contradiction_detected", "contradiction_with", "requires_resolution", "blocks_progress",
              "confidence_critical")
META_KEYS = frozenset({"tokens_used", "processing_notes"})
REFERENCE_FIELDS = ("source_element", "relationship", "confidence_impact")


class _Check:
    """Reads the fields of one message, collecting every problem as a `path: problem` reason."""

    def __init__(self) -> None:
        self.reasons: list[str] = []

    def fail(self, path: str, problem: str) -> None:
        self.reasons.append(f"{path}: {problem}")

    def block(self, parent: Mapping[str, Any], name: str, *, required: bool) -> dict[str, Any] | None:
        value = parent.get(name)
        if value is None:
            if required:
                self.fail(name, "required block is missing")
            return None
        if not isinstance(value, dict):
            self.fail(name, f"must be a mapping, got {kind_of(value)}")
            return None
        return value

    def required(self, block: Mapping[str, Any] | None, path: str, key: str) -> Any:
        """The field's value, or None (with a reason) when it is absent or null."""
        if block is None:
            return None
        if block.get(key) is None:
            self.fail(f"{path}.{key}", "required field is " + ("null" if key in block else "missing"))
        return block.get(key)

    def check(self, path: str, problem: str | None) -> bool:
        """Record `problem` (a field's single-field problem, or None) and say whether there was none."""
        if problem is not None:
            self.fail(path, problem)
        return problem is None

    def text(self, path: str, value: Any, *, allow_empty: bool = False) -> str:
        if not isinstance(value, str):
            self.fail(path, f"must be a string, got {kind_of(value)}")
            return ""
        if not allow_empty and not value.strip():
            self.fail(path, "must not be empty")
        return value

    def flag(self, path: str, value: Any) -> bool:
        if value is None:
            return False
        if not isinstance(value, bool):
            self.fail(path, f"must be true or false, got {_show(value)}")
            return False
        return value


def validate_message(
    block: Mapping[str, Any], session_id: str, default_id: Callable[[], str]
) -> AgentMessage | list[str]:
    """The message of a §2.1 block, or every reason it is invalid; `default_id()` is its id when it has none."""
    c = _Check()
    header = c.block(block, "header", required=True)
    summary = c.block(block, "summary", required=True)
    body = c.block(block, "body", required=True)
    deps = c.block(block, "dependencies", required=False) or {}
    flag_block = c.block(block, "flags", required=False) or {}
    meta = c.block(block, "meta", required=False) or {}
    fields = {**_header(c, header), **_summary_and_body(c, summary, body), **_meta(c, meta)}
    inputs, outputs_for = _dependencies(c, deps)
    flags = _flags(c, flag_block)
    references = _references(c, block, "") + _references(c, body or {}, "body.")
    message_id = block.get("message_id")
    if message_id is not None:
        c.text("message_id", message_id)
    if c.reasons or header is None or summary is None or body is None:
        return c.reasons
    extras = {
        name: unknown for name, found, known in (
            ("message", block, MESSAGE_KEYS), ("header", header, HEADER_KEYS), ("summary", summary, SUMMARY_KEYS),
            ("body", body, BODY_KEYS), ("dependencies", deps, DEPENDENCY_KEYS), ("meta", meta, META_KEYS),
        ) if (unknown := {k: v for k, v in found.items() if k not in known})
    }
    return AgentMessage(
        session_id=session_id, message_id=message_id if message_id is not None else default_id(), **fields,
        content=body["content"], inputs_used=inputs, outputs_for=outputs_for, flags=flags, references=references,
        extras=extras,
    )


def _header(c: _Check, header: Mapping[str, Any] | None) -> dict[str, Any]:
    agent_id = c.required(header, "header", "agent_id")
    name = c.required(header, "header", "agent_name")
    agent_name, agent_tier = _identity(c, agent_id, name, c.required(header, "header", "agent_tier"))
    timestamp = c.required(header, "header", "timestamp")
    if timestamp is not None:
        c.check("header.timestamp", timestamp_problem(timestamp))
    iteration = c.required(header, "header", "iteration")
    if iteration is not None:
        c.check("header.iteration", iteration_problem(iteration))
    responding_to = _responding_to(c, c.required(header, "header", "responding_to"))
    return {"agent_id": agent_id, "agent_name": agent_name, "agent_tier": agent_tier,
            "timestamp": timestamp.strip() if isinstance(timestamp, str) else "", "iteration": iteration,
            "responding_to": responding_to}


def _summary_and_body(c: _Check, summary: Mapping[str, Any] | None, body: Mapping[str, Any] | None) -> dict[str, Any]:
    verdict = c.required(summary, "summary", "verdict")
    known = len(c.reasons)
    verdict = _verdict(c, verdict) if verdict is not None else ""
    verdict_ok = bool(verdict) and len(c.reasons) == known  # the §5.1 format is checked on a sound line only
    confidence = c.required(summary, "summary", "confidence")
    valid_confidence: float | None = None
    if confidence is not None and c.check("summary.confidence", _confidence_problem(confidence)):
        valid_confidence = float(confidence)
    basis = c.required(summary, "summary", "confidence_basis")
    if basis is not None:
        c.text("summary.confidence_basis", basis)
    tier = c.required(body, "body", "tier")
    if tier is not None and c.check("body.tier", _tier_problem(tier)) and tier == 0 and verdict_ok:
        _verdict_line(c, verdict, valid_confidence)
    if body is not None and "content" not in body:
        c.fail("body.content", "required field is missing")
    return {"verdict": verdict, "confidence": valid_confidence, "confidence_basis": basis, "tier": tier}


def _meta(c: _Check, meta: Mapping[str, Any]) -> dict[str, Any]:
    tokens = meta.get("tokens_used")
    if tokens is not None:
        c.check("meta.tokens_used", _count_problem(tokens, MAX_AVRO_LONG))
    notes = meta.get("processing_notes")
    if notes is not None:
        c.text("meta.processing_notes", notes, allow_empty=True)
    return {"tokens_used": tokens or 0, "processing_notes": notes}


def _identity(c: _Check, agent_id: Any, name: Any, tier_text: Any) -> tuple[str, str]:
    """Roster spelling of name and tier, checking both against the roster row of agent_id."""
    known_id = agent_id is not None and c.check("header.agent_id", agent_id_problem(agent_id))
    row = roster.AGENTS[agent_id] if known_id else None
    agent_name = agent_tier = ""
    if name is not None and c.text("header.agent_name", name).strip():
        if row is None:
            if roster.agent_by_name(name) is None:
                c.fail("header.agent_name", f"{_show(name)} is not the name of any agent of the roster")
        elif roster.name_matches(row.id, name):
            agent_name = row.name
        else:
            c.fail("header.agent_name", f"{_show(name)} is not the roster name {row.name!r} of agent {row.id}")
    if isinstance(tier_text, str):
        tier = roster.parse_tier(tier_text)
        if tier is None:
            c.fail("header.agent_tier", f"{_show(tier_text)} is not a tier ({'|'.join(TIERS)})")
        elif row is not None and tier != row.tier:
            c.fail("header.agent_tier", f"{tier} is not the roster tier {row.tier} of agent {row.id}")
        agent_tier = tier or ""
    elif tier_text is not None:
        c.fail("header.agent_tier", f"must be a string, got {kind_of(tier_text)}")
    return agent_name, agent_tier


def _responding_to(c: _Check, value: Any) -> int | str:
    if value is None:
        return ""
    if isinstance(value, str) and value.strip().upper() in RESPONDING_TO_WORDS:
        return value.strip().upper()
    if roster.is_agent_id(value):
        return int(value)
    c.fail("header.responding_to", f"must be an agent id 1..57, PHI_QUERY or INITIAL, got {_show(value)}")
    return ""


def _verdict(c: _Check, value: Any) -> str:
    if not isinstance(value, str):
        c.fail("summary.verdict", f"must be a string, got {kind_of(value)}")
        return ""
    verdict = value.strip()
    if not verdict:
        c.fail("summary.verdict", "must not be empty")
    elif "\n" in verdict or "\r" in verdict:
        c.fail("summary.verdict", "must be one line")
    if len(verdict) > MAX_VERDICT_CHARS:
        c.fail("summary.verdict", f"is {len(verdict)} characters, over the limit of {MAX_VERDICT_CHARS}")
    return verdict


def _verdict_line(c: _Check, verdict: str, confidence: float | None) -> None:
    """§5.1: at tier 0 the verdict is the verdict line, and its CONF agrees with summary.confidence."""
    line = VERDICT_LINE.fullmatch(verdict)
    if line is None:
        c.fail("summary.verdict", "at body.tier 0 must be `[VERDICT] <conclusion> | CONF: <X>% | FLAGS: <flags>`")
        return
    flags = line.group("flags")
    if flags.casefold() != "none" and not _FLAG_NAMES.fullmatch(flags):
        c.fail("summary.verdict", f"FLAGS must be `none` or comma-separated flag names, got {flags!r}")
    conf = float(line.group("conf"))
    if conf > 100:
        c.fail("summary.verdict", f"CONF {line.group('conf')}% is over 100%")
    elif confidence is not None and abs(conf - 100 * confidence) > CONF_TOLERANCE + 1e-9:
        c.fail("summary.verdict", f"CONF {line.group('conf')}% disagrees with summary.confidence {confidence}: "
                                  f"they must agree within {CONF_TOLERANCE:g} percentage point")


def _dependencies(c: _Check, deps: Mapping[str, Any]) -> tuple[tuple[InputUsed, ...], tuple[int, ...]]:
    inputs: list[InputUsed] = []
    for i, entry in enumerate(_entries(c, "dependencies.inputs_used", deps.get("inputs_used"))):
        path = f"dependencies.inputs_used[{i}]"
        if not isinstance(entry, dict):
            c.fail(path, f"must be a mapping, got {kind_of(entry)}")
            continue
        agent_id = c.required(entry, path, "agent_id")
        ok = agent_id is None or c.check(f"{path}.agent_id", agent_id_problem(agent_id))
        element = c.required(entry, path, "element")
        how_used = c.required(entry, path, "how_used")
        element = c.text(f"{path}.element", element) if element is not None else ""
        how_used = c.text(f"{path}.how_used", how_used) if how_used is not None else ""
        if ok and agent_id is not None:
            extras = {k: v for k, v in entry.items() if k not in ("agent_id", "element", "how_used")}
            inputs.append(InputUsed(agent_id, element, how_used, extras))
    outputs: list[int] = []
    for i, target in enumerate(_entries(c, "dependencies.outputs_for", deps.get("outputs_for"))):
        if c.check(f"dependencies.outputs_for[{i}]", agent_id_problem(target)):
            outputs.append(target)
    return tuple(inputs), tuple(outputs)


def _entries(c: _Check, path: str, value: Any) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        c.fail(path, f"must be a list, got {kind_of(value)}")
        return []
    return value


def _flags(c: _Check, block: Mapping[str, Any]) -> Flags:
    with_ = block.get("contradiction_with")
    if with_ is not None:
        c.check("flags.contradiction_with", agent_id_problem(with_))
    return Flags(
        contradiction_detected=c.flag("flags.contradiction_detected", block.get("contradiction_detected")),
        contradiction_with=with_,
        requires_resolution=c.flag("flags.requires_resolution", block.get("requires_resolution")),
        blocks_progress=c.flag("flags.blocks_progress", block.get("blocks_progress")),
        confidence_critical=c.flag("flags.confidence_critical", block.get("confidence_critical")),
        extras={k: v for k, v in block.items() if k not in FLAG_KEYS},
    )


def _references(c: _Check, block: Mapping[str, Any], prefix: str) -> tuple[Reference, ...]:
    found: list[Reference] = []
    for key in ("references", "reference"):
        value = block.get(key)
        single = isinstance(value, dict)
        entries = [value] if single else _entries(c, prefix + key, value)
        for i, entry in enumerate(entries):
            path = prefix + key if single else f"{prefix}{key}[{i}]"
            fields = entry
            if isinstance(entry, dict) and set(entry) == {"reference"} and isinstance(entry["reference"], dict):
                fields = entry["reference"]
            if not isinstance(fields, dict):
                c.fail(path, f"must be a mapping, got {kind_of(fields)}")
                continue
            ref = _reference(c, fields, path)
            if ref is not None:
                found.append(ref)
    return tuple(found)


def _reference(c: _Check, entry: Mapping[str, Any], path: str) -> Reference | None:
    before = len(c.reasons)
    kind = c.required(entry, path, "type")
    if kind is not None and (not isinstance(kind, str) or kind.strip().upper() not in REFERENCE_TYPES):
        c.fail(f"{path}.type", f"must be one of {'|'.join(REFERENCE_TYPES)}, got {_show(kind)}")
    source = c.required(entry, path, "source_agent")
    if source is not None:
        c.check(f"{path}.source_agent", agent_id_problem(source))
    texts = [c.required(entry, path, key) for key in REFERENCE_FIELDS]
    texts = [c.text(f"{path}.{key}", t) for key, t in zip(REFERENCE_FIELDS, texts, strict=True) if t is not None]
    if len(c.reasons) > before:
        return None
    extras = {k: v for k, v in entry.items() if k not in ("type", "source_agent", *REFERENCE_FIELDS)}
    element, relationship, impact = texts
    return Reference(kind.strip().upper(), source, element, relationship, impact, extras)


# ----------------------------------------------------------------------------- single-field problems
def agent_id_problem(value: Any) -> str | None:
    """Why `value` is not an agent id (an int 1..57), or None when it is one."""
    if not isinstance(value, int) or isinstance(value, bool):
        return f"must be an agent id (an integer 1..57), got {_show(value)}"
    return None if roster.is_agent_id(value) else f"{_show(value)} is outside the agent ids 1..57"


def timestamp_problem(value: Any) -> str | None:
    """Why `value` is not an ISO 8601 date-time string, or None when it is one."""
    if not isinstance(value, str):
        return f"must be an ISO 8601 date-time string, got {_show(value)}"
    text = value.strip()
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return f"{_show(value)} is not an ISO 8601 date-time"
    if not _ISO_DATE_TIME.match(text):
        return f"{_show(value)} is not an ISO 8601 date-time (expected e.g. 2025-01-26T09:00:00Z)"
    return None


def iteration_problem(value: Any) -> str | None:
    """Why `value` is not an iteration number (an int from 0 within Avro's int), or None."""
    problem = _count_problem(value, MAX_AVRO_INT)
    return None if problem is None else f"{problem} (iterations count from {FIRST_ITERATION})"


def _count_problem(value: Any, limit: int) -> str | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return f"must be a non-negative integer, got {_show(value)}"
    if value < 0:
        return f"{_show(value)} is negative"
    return None if value <= limit else f"{_show(value)} is over the limit of {limit}"


def _confidence_problem(value: Any) -> str | None:
    finite = isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
    if not finite or isinstance(value, bool):
        return f"must be a number in [0, 1], got {_show(value)}"
    if 0 <= value <= 1:
        return None
    # An int past float range cannot go through `:g`; 1e400 as a JSON int is still a number to report.
    shown = f"{value:g}" if isinstance(value, float) else _show(value)
    percent = 1 < value <= 100 and value == int(value)
    hint = f" (a percentage? write {value / 100:g} for {shown}%)" if percent else ""
    return f"{shown} is outside [0, 1]{hint}"


def _tier_problem(value: Any) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1, 2):
        return None
    return f"must be 0, 1 or 2 (§5 output tier), got {_show(value)}"


def kind_of(value: Any) -> str:
    """What a JSON value is, for reasons: "null", "a number", "a list", ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    names: dict[type, str] = {str: "a string", list: "a list", dict: "a mapping"}
    return names.get(type(value), type(value).__name__)


def _show(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."
