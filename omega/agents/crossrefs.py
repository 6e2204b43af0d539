"""Cross-references of a §2.1 message, read tolerantly: `header.responding_to`, `dependencies.inputs_used` and
`outputs_for`, `flags.contradiction_with`, and the agents a piece of text names.

Why tolerant. §2.1 gives these fields as placeholders, not closed lists: `responding_to: <agent_id or
"PHI_QUERY" or "INITIAL">`, `inputs_used: - agent_id: <int> ...`, `outputs_for: - <list of agent_ids ...>`,
`contradiction_with: <agent_id or null>`. They say where an output belongs and who should read it; no length,
range or safety rule of the spec hangs on their spelling. Real agents answer a §1.3.3 batch ("BATCH_3") or a
§2.1 tier, list their inputs as bare ids or `agent_17_limit_explorer`, and name whom they contradict in words.
Refusing such a message quarantines (§4.2.1) sound work and counts a failure against its agent (A.3), for a
reason the spec does not give. So: normalise, keep the raw value, say so in a note, and refuse only what cannot
be a reference at all (`responding_to` of the wrong JSON type, empty, or an int outside 1..57).

Rules (each note is `path: what was done`, in `AgentMessage.notes`):
- An agent reference (`agent_of`) is an int 1..57, or a string naming exactly one agent (`agents_named`).
- `agents_named(text)`: the whole text as a number (`44`, `#44`) or a roster name (Appendix A.1; case,
  spaces, `_` and `-` free); inside text: `agent 44` / `agent_44_...` / `Agent-44`, `agents 33 and 39`
  (a list after the plural), `#44`, `(44)`, and roster names. Multi-word names match in any case with spaces,
  `_` or `-` between words; one-word names (Skeptic, Historian, Confounder, Deflator, ...) only as spelled in
  A.1 or in capitals, because in lower case they are common nouns ("a confounder the trial ignored").
  Numbers outside 1..57 name no agent; bare numbers in prose ("2 confounders") name none.
- `responding_to` (`read_responding_to`): an int 1..57; else a string, matched case-insensitively with
  spaces and hyphens as `_`: PHI_QUERY, INITIAL, a §1.3.3 batch `BATCH_<n>` / `BATCH_<n>_<m>` (n 1..5, the
  five batches; m >= 1, a part of a batch split by the 10-agent limit, "may need 2 batches"), a tier
  `<TIER>_TIER` or a bare §2.1 tier name (-> `<TIER>_TIER`; a bare `PHI` is the PHI tier), or an agent
  reference (-> its id). Any other non-empty string is kept as written, an unresolved reference, with a note.
  When the stored value differs from what was written, the raw value is kept in the header's extras under
  `responding_to_raw`.
- `inputs_used` (`read_inputs_used`): a mapping entry keeps element / how_used; a bare agent id or an agent
  string becomes an entry with element and how_used unstated (""). A string agent_id is resolved, its raw kept
  in the entry's extras (`agent_id_raw`); an element / how_used that is not a string is unstated, its raw kept
  (`element_raw`, `how_used_raw`). Entries naming no single agent 1..57 move, as written, to the dependencies
  extras `inputs_used_unresolved`.
- `outputs_for` (`read_outputs_for`): agent references become ids (the note keeps the raw spelling: a list of
  ints has no extras of its own); ids outside 1..57 and other entries move to `outputs_for_unresolved`.
- A value where a list is due (`outputs_for: 57`, `inputs_used: agent_17`) is read as a list of one entry
  (noted), then resolved or moved like any entry.
- `contradiction_with` (`read_contradiction_with`): an int 1..57 stays; anything else becomes the agent it
  names when it names exactly one, else null, and the raw value is kept in the flags' extras under
  `contradiction_with_raw`. The contradiction is recorded either way (`contradiction_detected` decides).
- A raw key the producer already used is not overwritten: ours takes the first free `<key>_2`, `<key>_3`, ...
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from omega.agents import roster
from omega.agents.model import TIERS, InputUsed

PHI_QUERY = "PHI_QUERY"
INITIAL = "INITIAL"
FIRST_BATCH, LAST_BATCH = 1, 5
"""§1.3.3 names five batches: Exploration, Formalization, Verification, Attack, Synthesis."""

RESPONDING_TO_RAW = "responding_to_raw"
CONTRADICTION_WITH_RAW = "contradiction_with_raw"
AGENT_ID_RAW = "agent_id_raw"
INPUTS_UNRESOLVED = "inputs_used_unresolved"
OUTPUTS_UNRESOLVED = "outputs_for_unresolved"

_SEPARATORS = re.compile(r"[\s_-]+")
_BATCH = re.compile(r"BATCH_?(\d+)(?:_(\d+))?")
_WHOLE_NUMBER = re.compile(r"#?\s*(\d+)")
_LIST_TAIL = r"(?:\s*(?:,|&|/|\band\b|\bor\b)\s*#?\d+)*"
_AGENT_NUMBERS = re.compile(r"(?<![A-Za-z0-9])agent[\s_#:-]*(\d+)(?![0-9])", re.IGNORECASE)
_AGENTS_NUMBERS = re.compile(rf"(?<![A-Za-z0-9])agents[\s_#:-]*(\d+{_LIST_TAIL})(?![0-9])", re.IGNORECASE)
_HASH_NUMBER = re.compile(r"(?<![A-Za-z0-9&])#(\d+)(?![0-9])")
_PAREN_NUMBER = re.compile(r"\(\s*(\d+)\s*\)")
_DIGITS = re.compile(r"\d+")


def _name_pattern(name: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in re.split(r"[\s-]+", name)]
    bounded = r"(?<![A-Za-z0-9])(?:{})(?![A-Za-z0-9])"
    if len(words) > 1:
        return re.compile(bounded.format(r"[\s_-]+".join(words)), re.IGNORECASE)
    return re.compile(bounded.format("|".join(dict.fromkeys((words[0], words[0].upper())))))


_NAME_PATTERNS = tuple((a.id, _name_pattern(a.name)) for a in roster.AGENTS.values())


@dataclass(frozen=True, slots=True)
class Reading:
    """What reading one cross-reference field gave: the value to store, raw values to keep in the extras of
    its block, the notes, and the refusal (only `responding_to` can refuse)."""

    value: Any
    extras: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    problem: str | None = None


# ------------------------------------------------------------------------------------------- agents
def agents_named(text: str) -> frozenset[int]:
    """The agents 1..57 a text names (module docstring); empty when it names none."""
    whole = text.strip()
    number = _WHOLE_NUMBER.fullmatch(whole)
    if number is not None:
        return _valid([int(number.group(1))])
    exact = roster.agent_by_name(whole)
    if exact is not None:
        return frozenset({exact.id})
    found: list[int] = []
    for pattern in (_AGENT_NUMBERS, _AGENTS_NUMBERS, _HASH_NUMBER, _PAREN_NUMBER):
        for match in pattern.finditer(text):
            found += [int(n) for n in _DIGITS.findall(match.group(1))]
    found += [agent_id for agent_id, pattern in _NAME_PATTERNS if pattern.search(text)]
    return _valid(found)


def _valid(ids: list[int]) -> frozenset[int]:
    return frozenset(i for i in ids if roster.is_agent_id(i))


def agent_of(value: Any) -> int | None:
    """The agent a reference value names: an int 1..57, or a string naming exactly one agent; else None."""
    if roster.is_agent_id(value):
        return int(value)
    if isinstance(value, str):
        named = agents_named(value)
        return next(iter(named)) if len(named) == 1 else None
    return None


def key_free(taken: Mapping[str, Any], key: str) -> str:
    """`key`, or the first of `key_2`, `key_3`, ... not in `taken` (a producer's own key is never overwritten)."""
    n, free = 1, key
    while free in taken:
        n += 1
        free = f"{key}_{n}"
    return free


def show(value: Any) -> str:
    """A value as a note or reason shows it (repr, cut to 60 characters)."""
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


# ------------------------------------------------------------------------------------- responding_to
def reference_key(text: str) -> str:
    """The matching key of a reference string: trimmed, upper case, runs of spaces, `_` and `-` as one `_`."""
    return _SEPARATORS.sub("_", text.strip()).strip("_").upper()


def batch_reference(key: str) -> str | None:
    """`BATCH_<n>` or `BATCH_<n>_<m>` for a §1.3.3 batch (n 1..5, m >= 1), from a `reference_key`; else None."""
    match = _BATCH.fullmatch(key)
    if match is None:
        return None
    batch, part = int(match.group(1)), match.group(2)
    if not FIRST_BATCH <= batch <= LAST_BATCH or (part is not None and int(part) < 1):
        return None
    return f"BATCH_{batch}" if part is None else f"BATCH_{batch}_{int(part)}"


def tier_reference(key: str) -> str | None:
    """`<TIER>_TIER` for `<TIER>_TIER` or a bare §2.1 tier name, from a `reference_key`; else None."""
    tier = key.removesuffix("_TIER")
    return f"{tier}_TIER" if tier in TIERS else None


def read_responding_to(value: Any, taken: Mapping[str, Any]) -> Reading:
    """`header.responding_to` (module docstring); `taken` holds the header's unknown keys."""
    path = "header.responding_to"
    if roster.is_agent_id(value):
        return Reading(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return Reading("", problem=f"{show(value)} is outside the agent ids 1..57")
    if not isinstance(value, str):
        return Reading("", problem="must be an agent id 1..57 or a reference string (PHI_QUERY, INITIAL, a "
                                   f"§1.3.3 batch, a §2.1 tier), got {show(value)}")
    key = reference_key(value)
    if not key:
        return Reading("", problem="must not be empty")
    resolved, what = _resolve_reference(key, value)
    if resolved is None:
        return Reading(value, notes=(f"{path}: {show(value)} is not an agent id, PHI_QUERY, INITIAL, a §1.3.3 "
                                     "batch or a §2.1 tier: kept as an unresolved reference",))
    if resolved == value:
        return Reading(value)
    note = f"{path}: {show(value)} read as {resolved!r} ({what})"
    return Reading(resolved, {key_free(taken, RESPONDING_TO_RAW): value}, (note,))


def _resolve_reference(key: str, text: str) -> tuple[int | str | None, str]:
    """The canonical reference of a responding_to string and what kind it is, or (None, "")."""
    if key in (PHI_QUERY, INITIAL):
        return key, "a §2.1 word"
    batch = batch_reference(key)
    if batch is not None:
        return batch, "a §1.3.3 batch"
    tier = tier_reference(key)
    if tier is not None:
        return tier, "a §2.1 tier"
    agent_id = agent_of(text)
    return (agent_id, "an agent reference") if agent_id is not None else (None, "")


# -------------------------------------------------------------------------------------- dependencies
def _as_list(path: str, value: Any) -> tuple[list[Any], list[str]]:
    if isinstance(value, list):
        return value, []
    return [value], [f"{path}: {show(value)} is not a list: read as a list of one entry"]


def read_inputs_used(value: Any) -> Reading:
    """`dependencies.inputs_used` -> Reading(tuple of InputUsed, dependency extras, notes)."""
    path = "dependencies.inputs_used"
    if value is None:
        return Reading(())
    entries, notes = _as_list(path, value)
    found: list[InputUsed] = []
    unresolved: list[Any] = []
    for i, entry in enumerate(entries):
        where = f"{path}[{i}]"
        raw_id = entry.get("agent_id") if isinstance(entry, dict) else entry
        agent_id = agent_of(raw_id)
        if agent_id is None:
            unresolved.append(entry)
            notes.append(f"{where}: {show(raw_id)} names no single agent 1..57: the entry is kept in the "
                         f"dependencies extras under {INPUTS_UNRESOLVED}")
            continue
        extras = {k: v for k, v in entry.items() if k not in ("agent_id", "element", "how_used")} \
            if isinstance(entry, dict) else {}
        if raw_id != agent_id:
            extras[key_free(extras, AGENT_ID_RAW)] = raw_id
            notes.append(f"{where}: {show(raw_id)} read as agent {agent_id}")
        texts: list[str] = []
        for name in ("element", "how_used"):
            given = entry.get(name) if isinstance(entry, dict) else None
            if isinstance(given, str):
                texts.append(given)
                continue
            texts.append("")
            if given is not None:
                extras[key_free(extras, f"{name}_raw")] = given
        unstated = [name for name, text in zip(("element", "how_used"), texts, strict=True) if not text.strip()]
        if unstated:
            notes.append(f"{where}: {' and '.join(unstated)} unstated")
        found.append(InputUsed(agent_id, texts[0], texts[1], extras))
    return Reading(tuple(found), {INPUTS_UNRESOLVED: unresolved} if unresolved else {}, tuple(notes))


def read_outputs_for(value: Any) -> Reading:
    """`dependencies.outputs_for` -> Reading(tuple of agent ids, dependency extras, notes)."""
    path = "dependencies.outputs_for"
    if value is None:
        return Reading(())
    entries, notes = _as_list(path, value)
    found: list[int] = []
    unresolved: list[Any] = []
    for i, entry in enumerate(entries):
        agent_id = agent_of(entry)
        if agent_id is None:
            unresolved.append(entry)
            notes.append(f"{path}[{i}]: {show(entry)} names no single agent 1..57: kept in the dependencies "
                         f"extras under {OUTPUTS_UNRESOLVED}")
            continue
        if entry != agent_id:
            notes.append(f"{path}[{i}]: {show(entry)} read as agent {agent_id}")
        found.append(agent_id)
    return Reading(tuple(found), {OUTPUTS_UNRESOLVED: unresolved} if unresolved else {}, tuple(notes))


def read_dependencies(block: Mapping[str, Any]) -> Reading:
    """Both lists of a dependencies block -> Reading((inputs, outputs), dependency extras, notes); the raw keys
    avoid the producer's own keys in `block`."""
    inputs, outputs = read_inputs_used(block.get("inputs_used")), read_outputs_for(block.get("outputs_for"))
    extras: dict[str, Any] = {}
    for key, kept in (*inputs.extras.items(), *outputs.extras.items()):
        extras[key_free({**block, **extras}, key)] = kept
    return Reading((inputs.value, outputs.value), extras, inputs.notes + outputs.notes)


# --------------------------------------------------------------------------------- contradiction_with
def _named_in(value: Any) -> frozenset[int]:
    if roster.is_agent_id(value):
        return frozenset({value})
    if isinstance(value, str):
        return agents_named(value)
    if isinstance(value, list):
        return frozenset[int]().union(*(_named_in(v) for v in value))
    return frozenset()


def read_contradiction_with(value: Any, taken: Mapping[str, Any]) -> Reading:
    """`flags.contradiction_with` (module docstring); `taken` holds the flags' unknown keys."""
    path = "flags.contradiction_with"
    if value is None or roster.is_agent_id(value):
        return Reading(value)
    named = sorted(_named_in(value))
    resolved = named[0] if len(named) == 1 else None
    kept = {key_free(taken, CONTRADICTION_WITH_RAW): value}
    if resolved is not None:
        return Reading(resolved, kept, (f"{path}: {show(value)} read as agent {resolved}",))
    which = f"names agents {', '.join(map(str, named))}" if named else "names no agent 1..57"
    return Reading(None, kept, (f"{path}: {show(value)} {which}: read as null (the contradiction is still "
                                "recorded)",))
