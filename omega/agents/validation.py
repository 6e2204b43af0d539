"""A §2.1 message block to a validated `AgentMessage`, or every reason it is not one (§2.1, §2.2, §5.1).

The rule: strict on what the spec makes normative (lengths, ranges, tiers, the formats it defines), tolerant
and normalising on cross-references and surface wording, and never silent (what was normalised keeps its raw
value in the block's extras and gets a line in `AgentMessage.notes`). Every reason a message is refused names a
field of `omega.agents.message_fields.NORMATIVE`, which cites the spec line the refusal rests on; nothing else
refuses a message.

Rules, each decided here:
- Required: header.{agent_id, agent_name, agent_tier, timestamp, iteration, responding_to},
  summary.{verdict, confidence, confidence_basis}, body.{tier, content} (content may be null, not absent).
  Optional: the dependencies, flags and meta blocks and every field in them; absent or null means nothing
  declared (no inputs, flags false, contradiction_with null, 0 tokens, no notes).
- Numbers and booleans are strict: no quoted numbers, no bools as ints, only true/false as booleans.
- agent_id: an int 1..57 (strict: it is who spoke). agent_tier: a §2.1 tier (case and surrounding
  whitespace ignored) and the roster's tier of agent_id (A.1). agent_name: §2.1 `<string>`; the roster name
  of agent_id under `omega.agents.roster`'s matching (case, separators), or a name that names no agent at
  all (kept: agent_id says who spoke), is stored in the roster's spelling; a name naming another agent is
  refused (A.1 binds one name to one id: who spoke would be ambiguous). Name and tier as written, when they
  differ from the roster's spelling, are kept in the header extras (`agent_name_raw`, `agent_tier_raw`).
- Cross-references (header.responding_to, dependencies, flags.contradiction_with) are read by
  `omega.agents.crossrefs` (rules there): normalised, never refused, except a responding_to of the wrong
  JSON type, empty, or an int outside 1..57. A dependencies value that is not a mapping is kept in the
  message extras (`dependencies_raw`).
- timestamp and iteration: as `omega.agents.field_problems` reads them; a timestamp is kept as the producer
  wrote it, trimmed.
- summary.verdict: one line, at most 100 characters after trimming. At body.tier 0 it must also be the §5.1
  verdict line `[VERDICT] <conclusion> | CONF: <X>% | FLAGS: <flags>`, and X must agree with
  summary.confidence within `CONF_TOLERANCE` (1 percentage point). `<flags>` is a placeholder (§5.1 shows
  `none`, `blocks_progress`, `needs_input`): any non-empty text; it is not compared with the flags block.
- references (§2.2) are read from the message block and then from body, under `references` or `reference`
  (one mapping or a list of them); an entry `{reference: {...}}` is unwrapped. Their type is §2.2's closed
  list (case ignored; the raw spelling kept as `type_raw` when it differs) and source_agent an int 1..57.
- Unknown keys are kept: per block in `AgentMessage.extras`, unknown flags in `Flags.extras`, and inside an
  inputs_used entry or a reference in its own `extras`.
- message_id: the block's `message_id` when it is a non-empty string, else the caller's derived id; the spec
  has no message_id, so another value is no reason to refuse: it is kept in the message extras
  (`message_id_raw`) with a note.
- Every problem of the message is reported, each as `path: problem`, not only the first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from omega.agents import crossrefs, roster
from omega.agents.crossrefs import key_free
from omega.agents.crossrefs import show as _show
from omega.agents.field_problems import (
    MAX_AVRO_LONG,
    agent_id_problem,
    confidence_problem,
    count_problem,
    iteration_problem,
    kind_of,
    tier_problem,
    timestamp_problem,
)
from omega.agents.message_fields import (
    BODY_KEYS,
    DEPENDENCY_KEYS,
    FLAG_KEYS,
    HEADER_KEYS,
    MESSAGE_KEYS,
    META_KEYS,
    REFERENCE_FIELDS,
    SUMMARY_KEYS,
)
from omega.agents.model import REFERENCE_TYPES, TIERS, AgentMessage, Flags, Reference

MAX_VERDICT_CHARS = 100
CONF_TOLERANCE = 1.0

VERDICT_LINE = re.compile(
    r"\[(?P<label>[A-Z][A-Z0-9_]*(?:[ -][A-Z0-9_]+)*)\]\s+(?P<conclusion>\S.*?)\s*\|\s*CONF:\s*"
    r"(?P<conf>\d+(?:\.\d+)?)\s*%\s*\|\s*FLAGS:\s*(?P<flags>\S.*?)\s*"
)
"""§5.1 Tier 0 format; whitespace around `|` and after `:` is free, the rest is literal."""


class _Check:
    """Reads the fields of one message, collecting every problem as a `path: problem` reason."""

    def __init__(self) -> None:
        self.reasons: list[str] = []
        self.notes: list[str] = []
        self.raw: dict[str, dict[str, Any]] = {}

    def fail(self, path: str, problem: str) -> None:
        self.reasons.append(f"{path}: {problem}")

    def keep(self, block: str, taken: Mapping[str, Any], key: str, value: Any, note: str) -> None:
        """Keep a raw value in `block`'s extras under `key` (or the first free variant of it), with its note."""
        kept = self.raw.setdefault(block, {})
        kept[key_free({**taken, **kept}, key)] = value
        self.notes.append(note)

    def read(self, block: str, reading: crossrefs.Reading) -> Any:
        """Take a cross-reference reading's raw values and notes; return its value (the caller owns refusals)."""
        self.raw.setdefault(block, {}).update(reading.extras)
        self.notes += reading.notes
        return reading.value

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
    deps = _dependencies_block(c, block)
    flag_block = c.block(block, "flags", required=False) or {}
    meta = c.block(block, "meta", required=False) or {}
    fields = {**_header(c, header), **_summary_and_body(c, summary, body), **_meta(c, meta)}
    inputs, outputs_for = c.read("dependencies", crossrefs.read_dependencies(deps))
    flags_fields = _flags(c, flag_block)
    references = _references(c, block, "") + _references(c, body or {}, "body.")
    message_id = _message_id(c, block)
    if c.reasons or header is None or summary is None or body is None:
        return c.reasons
    extras = {
        name: unknown for name, found, known in (
            ("message", block, MESSAGE_KEYS), ("header", header, HEADER_KEYS), ("summary", summary, SUMMARY_KEYS),
            ("body", body, BODY_KEYS), ("dependencies", deps, DEPENDENCY_KEYS), ("meta", meta, META_KEYS),
        ) if (unknown := {**{k: v for k, v in found.items() if k not in known}, **c.raw.get(name, {})})
    }
    flag_extras = {**{k: v for k, v in flag_block.items() if k not in FLAG_KEYS}, **c.raw.get("flags", {})}
    return AgentMessage(
        session_id=session_id, message_id=message_id if message_id is not None else default_id(), **fields,
        content=body["content"], inputs_used=inputs, outputs_for=outputs_for,
        flags=Flags(**flags_fields, extras=flag_extras), references=references, extras=extras,
        notes=tuple(c.notes),
    )


def _dependencies_block(c: _Check, block: Mapping[str, Any]) -> Mapping[str, Any]:
    """The dependencies mapping; any other value is advisory text, kept in the message extras."""
    deps = block.get("dependencies")
    if deps is None or isinstance(deps, dict):
        return deps or {}
    c.keep("message", block, "dependencies_raw", deps,
           f"dependencies: {kind_of(deps)}, not a mapping: no inputs or outputs read; kept in the message extras")
    return {}


def _message_id(c: _Check, block: Mapping[str, Any]) -> str | None:
    """The producer's id when it is a non-empty string; the spec defines no message_id, so nothing else refuses."""
    message_id = block.get("message_id")
    if message_id is None or (isinstance(message_id, str) and message_id.strip()):
        return message_id
    c.keep("message", block, "message_id_raw", message_id,
           f"message_id: {_show(message_id)} is not a non-empty string: a derived id is used")
    return None


def _header(c: _Check, header: Mapping[str, Any] | None) -> dict[str, Any]:
    agent_id = c.required(header, "header", "agent_id")
    name = c.required(header, "header", "agent_name")
    agent_name, agent_tier = _identity(c, header or {}, agent_id, name, c.required(header, "header", "agent_tier"))
    timestamp = c.required(header, "header", "timestamp")
    if timestamp is not None:
        c.check("header.timestamp", timestamp_problem(timestamp))
    iteration = c.required(header, "header", "iteration")
    if iteration is not None:
        c.check("header.iteration", iteration_problem(iteration))
    responding_to = _responding_to(c, header or {}, c.required(header, "header", "responding_to"))
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
    if confidence is not None and c.check("summary.confidence", confidence_problem(confidence)):
        valid_confidence = float(confidence)
    basis = c.required(summary, "summary", "confidence_basis")
    if basis is not None:
        c.text("summary.confidence_basis", basis)
    tier = c.required(body, "body", "tier")
    if tier is not None and c.check("body.tier", tier_problem(tier)) and tier == 0 and verdict_ok:
        _verdict_line(c, verdict, valid_confidence)
    if body is not None and "content" not in body:
        c.fail("body.content", "required field is missing")
    return {"verdict": verdict, "confidence": valid_confidence, "confidence_basis": basis, "tier": tier}


def _meta(c: _Check, meta: Mapping[str, Any]) -> dict[str, Any]:
    tokens = meta.get("tokens_used")
    if tokens is not None:
        c.check("meta.tokens_used", count_problem(tokens, MAX_AVRO_LONG))
    notes = meta.get("processing_notes")
    if notes is not None:
        c.text("meta.processing_notes", notes, allow_empty=True)
    return {"tokens_used": tokens or 0, "processing_notes": notes}


def _identity(c: _Check, header: Mapping[str, Any], agent_id: Any, name: Any, tier_text: Any) -> tuple[str, str]:
    """Roster spelling of name and tier, checking both against the roster row of agent_id (module docstring)."""
    known_id = agent_id is not None and c.check("header.agent_id", agent_id_problem(agent_id))
    row = roster.AGENTS[agent_id] if known_id else None
    agent_name = agent_tier = ""
    if name is not None and c.text("header.agent_name", name).strip() and row is not None:
        others = sorted(crossrefs.agents_named(name) - {row.id})
        if roster.name_matches(row.id, name):
            agent_name = row.name
            if name != row.name:
                c.keep("header", header, "agent_name_raw", name,
                       f"header.agent_name: {_show(name)} read as the roster name {row.name!r}")
        elif others:
            named = ", ".join(f"{a} ({roster.AGENTS[a].name})" for a in others)
            c.fail("header.agent_name", f"{_show(name)} names agent {named}, not agent {row.id} ({row.name}): "
                                        "A.1 gives each agent one name")
        else:
            agent_name = row.name
            c.keep("header", header, "agent_name_raw", name,
                   f"header.agent_name: {_show(name)} is not the roster name of agent {row.id}: "
                   f"stored as {row.name!r}")
    if isinstance(tier_text, str):
        tier = roster.parse_tier(tier_text)
        if tier is None:
            c.fail("header.agent_tier", f"{_show(tier_text)} is not a tier ({'|'.join(TIERS)})")
        elif row is not None and tier != row.tier:
            c.fail("header.agent_tier", f"{tier} is not the roster tier {row.tier} of agent {row.id}")
        elif tier != tier_text:
            c.keep("header", header, "agent_tier_raw", tier_text,
                   f"header.agent_tier: {_show(tier_text)} read as {tier}")
        agent_tier = tier or ""
    elif tier_text is not None:
        c.fail("header.agent_tier", f"must be a string, got {kind_of(tier_text)}")
    return agent_name, agent_tier


def _responding_to(c: _Check, header: Mapping[str, Any], value: Any) -> int | str:
    if value is None:
        return ""
    unknown = {k: v for k, v in header.items() if k not in HEADER_KEYS}
    reading = crossrefs.read_responding_to(value, {**unknown, **c.raw.get("header", {})})
    if reading.problem is not None:
        c.fail("header.responding_to", reading.problem)
    result: int | str = c.read("header", reading)
    return result


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
    conf = float(line.group("conf"))
    if conf > 100:
        c.fail("summary.verdict", f"CONF {line.group('conf')}% is over 100%")
    elif confidence is not None and abs(conf - 100 * confidence) > CONF_TOLERANCE + 1e-9:
        c.fail("summary.verdict", f"CONF {line.group('conf')}% disagrees with summary.confidence {confidence}: "
                                  f"they must agree within {CONF_TOLERANCE:g} percentage point")


def _entries(c: _Check, path: str, value: Any) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        c.fail(path, f"must be a list, got {kind_of(value)}")
        return []
    return value


def _flags(c: _Check, block: Mapping[str, Any]) -> dict[str, Any]:
    unknown = {k: v for k, v in block.items() if k not in FLAG_KEYS}
    return {
        "contradiction_detected": c.flag("flags.contradiction_detected", block.get("contradiction_detected")),
        "contradiction_with": c.read("flags", crossrefs.read_contradiction_with(block.get("contradiction_with"),
                                                                                 unknown)),
        "requires_resolution": c.flag("flags.requires_resolution", block.get("requires_resolution")),
        "blocks_progress": c.flag("flags.blocks_progress", block.get("blocks_progress")),
        "confidence_critical": c.flag("flags.confidence_critical", block.get("confidence_critical")),
    }


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
    canonical = kind.strip().upper()
    if canonical != kind:
        extras[key_free(extras, "type_raw")] = kind
        c.notes.append(f"{path}.type: {_show(kind)} read as {canonical}")
    element, relationship, impact = texts
    return Reference(canonical, source, element, relationship, impact, extras)
