"""Readers of an agent message's content items, one vocabulary for every memory: texts, objects, hypothesis items
and their statuses, a failure's analysis, lessons and prevention, and a flagged contradiction's severity."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from omega.agents.model import AgentMessage, Flags
from omega.agents.session_mapping import contradiction_severity as core_contradiction_severity
from projections.memories.log_events import MessageView, text_of


def strings(value: Any) -> tuple[str, ...]:
    """A JSON value as a tuple of texts: a list's items, one text, or nothing."""
    if value is None:
        return ()
    if isinstance(value, list):
        return tuple(text_of(v) for v in value if v is not None)
    return (text_of(value),)


def object_of(value: Any) -> Mapping[str, Any]:
    """A JSON value that is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def lessons(value: Any, application: str = "") -> tuple[Mapping[str, str], ...]:
    """Content lessons ({lesson, application} objects or texts) as {lesson, application} pairs."""
    out: list[Mapping[str, str]] = []
    for item in value if isinstance(value, list) else ([] if value is None else [value]):
        if isinstance(item, dict):
            out.append({"lesson": text_of(item.get("lesson")), "application": text_of(item.get("application"))})
        else:
            out.append({"lesson": text_of(item), "application": application})
    return tuple(out)


def prevention(value: Any, condition: str) -> tuple[Mapping[str, str], ...]:
    """Content prevention ({condition, action} objects or action texts) as {condition, action} pairs."""
    out: list[Mapping[str, str]] = []
    for item in value if isinstance(value, list) else ([] if value is None else [value]):
        if isinstance(item, dict):
            out.append({"condition": text_of(item.get("condition"), condition), "action": text_of(item.get("action"))})
        else:
            out.append({"condition": condition, "action": text_of(item)})
    return tuple(out)


def analysis(obj: Mapping[str, Any], immediate: str, factors: tuple[str, ...] = (), root: str | None = None,
              predictable: bool | None = None) -> dict[str, Any]:
    """A failure's analysis: the content's own fields (at its top level or under `analysis`), else the defaults."""
    nested = object_of(obj.get("analysis"))

    def pick(name: str) -> Any:
        return obj.get(name, nested.get(name))

    return {
        "immediate_cause": text_of(pick("immediate_cause"), immediate),
        "contributing_factors": list(strings(pick("contributing_factors")) or factors),
        "root_cause": text_of(pick("root_cause")) if pick("root_cause") is not None else root,
        "predictable": pick("predictable") if isinstance(pick("predictable"), bool) else predictable,
        "warning_signs_missed": list(strings(pick("warning_signs_missed"))),
    }


RESOLUTIONS = ("CONFIRMED", "REJECTED", "MODIFIED")


def hypothesis_items(view: MessageView) -> list[Any]:
    """A message's hypothesis items in one vocabulary: content `hypothesis`/`hypotheses` (text or {id,
    statement, confidence, status, basis, reason, new_statement}), then the session judge's
    `hypothesis_resolved` {statement|id, resolution, basis, modified_to} (as status = resolution) and
    `hypothesis_abandoned` {statement|id, reason} (as status ABANDONED)."""
    items = view.items("hypothesis", "hypotheses")
    for item in view.items("hypothesis_resolved"):
        obj = item if isinstance(item, dict) else {"statement": item}
        resolution = text_of(obj.get("resolution")).strip().upper()
        if resolution in RESOLUTIONS:  # a resolution that names no outcome resolves nothing
            items.append({**obj, "status": resolution, "new_statement": obj.get("modified_to")})
    for item in view.items("hypothesis_abandoned"):
        obj = item if isinstance(item, dict) else {"statement": item}
        items.append({**obj, "status": "ABANDONED"})
    return items


def object_hypothesis_items(view: MessageView) -> list[Mapping[str, Any]]:
    """The hypothesis items that are objects."""
    return [h for h in hypothesis_items(view) if isinstance(h, dict)]


# The core's rule reads only a message's flags: every other field of the message it is handed is a placeholder.
_FLAGS_CARRIER = AgentMessage(session_id="", message_id="", agent_id=0, agent_name="", agent_tier="", timestamp="",
                              iteration=0, responding_to=0, verdict="", confidence=0.0, confidence_basis="", tier=0,
                              content=None)


def contradiction_severity(view: MessageView) -> str:
    """A flagged contradiction's severity, by the core's rule (`omega.agents.session_mapping`): the flag extra
    `contradiction_severity` when it is one of FATAL/SERIOUS/MINOR, else blocks_progress -> FATAL,
    requires_resolution -> SERIOUS, else MINOR."""
    flags = Flags(requires_resolution=view.requires_resolution, blocks_progress=view.blocks_progress,
                  extras={"contradiction_severity": text_of(view.signals.get("contradiction_severity"))})
    return core_contradiction_severity(replace(_FLAGS_CARRIER, flags=flags))


def status_of(item: Mapping[str, Any]) -> str:
    """A hypothesis item's status, upper-cased (ACTIVE when absent)."""
    return text_of(item.get("status"), "ACTIVE").strip().upper() or "ACTIVE"


def statement_of(item: Any, *names: str) -> str:
    """The statement of a content item: the text itself, or the first of `names` present in the object."""
    if isinstance(item, dict):
        for name in names:
            if item.get(name) is not None:
                return text_of(item[name])
        return ""
    return text_of(item)
