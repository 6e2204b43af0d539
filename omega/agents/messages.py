"""Agent output text to validated OMEGA-57 messages, and the Avro record shape of a message.

Reading the text (YAML 1.2 core / JSON, `---` documents, refusals) is `omega.agents.documents`; checking one
message is `omega.agents.validation`. Decided here:
- Each non-empty document is one message; empty documents are skipped, and a text with none is one rejection.
  A document that is a non-empty list of mappings (agents emitting JSON print several messages as an array) is
  one message per item, labelled `item <n>`; that is how the messages are packed, not what they say.
- Shape: `{message: {...}}`, whose sibling keys are read as if inside it (a key in both places is refused),
  or flat: a mapping with `header`, `summary` or `body` at top level is itself the message.
- message_id: the producer's `message_id` if present, else derived from the session id and the canonical
  JSON of the document (of the item, for a list); a rejection's id derives from the session id and the
  document's raw text (and the item number). `source` only labels reasons (never ids), so a redelivery read
  from elsewhere keeps its id.
- references are written back at message level, where the Avro record keeps them.
- notes travel in the record's `notes`; reading a record back keeps them (its values are already normalised,
  so validating it again would lose what the first read noted). `render_message` writes the normalised
  values and raw extras, not the notes: a rendered message reads back to the same values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from omega.agents import roster
from omega.agents.documents import Document, read_documents
from omega.agents.field_problems import iteration_problem, kind_of, timestamp_problem
from omega.agents.message_fields import FLAG_KEYS, HEADER_KEYS, META_KEYS, REFERENCE_FIELDS, SUMMARY_KEYS
from omega.agents.model import AgentMessage, Flags, MessageRejected, Reference
from omega.agents.validation import validate_message
from omega.canonical import canonical_json, derived_id


def parse_messages(text: str, session_id: str, *, source: str = "") -> list[AgentMessage | MessageRejected]:
    """Every message of an agent's output text, accepted or rejected with all its reasons; never raises."""
    try:
        documents = read_documents(text)
        present = [d for d in documents if d.errors or d.value is not None]
        if not present:
            return [MessageRejected(session_id, derived_id("rej_", session_id, text),
                                    (_label(source, None, "no message: the input holds no document"),))]
        several = len(documents) > 1
        results: list[AgentMessage | MessageRejected] = []
        for doc in present:
            index = doc.index if several else None
            items = _items(doc.value) if not doc.errors else None
            if items is None:
                results.append(_one(doc, doc.value, session_id, source, index, None))
            else:
                results += [_one(doc, item, session_id, source, index, n) for n, item in enumerate(items, 1)]
        return results
    except Exception as exc:  # noqa: BLE001 - the contract is "never raise": a bug must not stop the stream
        return [MessageRejected(session_id, derived_id("rej_", session_id, text),
                                (_label(source, None, f"internal error reading the message: {exc!r}"),))]


def _items(value: Any) -> list[dict[str, Any]] | None:
    """The messages of a document that is a non-empty list of mappings, else None (the document is one)."""
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        return value
    return None


def _label(source: str, index: int | None, reason: str, item: int | None = None) -> str:
    parts = (source, f"document {index}" if index else "", f"item {item}" if item else "")
    where = " ".join(part for part in parts if part)
    return f"{where}: {reason}" if where else reason


def _one(doc: Document, value: Any, session_id: str, source: str, index: int | None,
         item: int | None) -> AgentMessage | MessageRejected:
    reasons = list(doc.errors)
    block: dict[str, Any] | None = None
    if not reasons:
        block, reasons = _message_block(value)
    result: AgentMessage | list[str] = reasons
    if block is not None and not reasons:
        result = validate_message(block, session_id, lambda: derived_id("msg_", session_id, canonical_json(value)))
    if isinstance(result, AgentMessage):
        return result
    header = block.get("header") if block is not None else None
    header = header if isinstance(header, dict) else {}
    raw = (doc.raw,) if item is None else (doc.raw, str(item))
    return MessageRejected(
        session_id=session_id,
        message_id=derived_id("rej_", session_id, *raw),
        reasons=tuple(_label(source, index, r, item) for r in result),
        agent_id=header.get("agent_id") if roster.is_agent_id(header.get("agent_id")) else None,
        iteration=header.get("iteration") if iteration_problem(header.get("iteration")) is None else None,
        timestamp=header["timestamp"].strip() if timestamp_problem(header.get("timestamp")) is None else None,
    )


def _message_block(value: Any) -> tuple[dict[str, Any] | None, list[str]]:
    """The §2.1 message mapping of a document, in the wrapped or the flat shape."""
    if not isinstance(value, dict):
        return None, [f"the document is {kind_of(value)}, not a mapping: expected a §2.1 message"]
    inner = value.get("message")
    if isinstance(inner, dict):
        siblings = {k: v for k, v in value.items() if k != "message"}
        clashes = [f"{key}: given both inside `message:` and beside it" for key in sorted(set(siblings) & set(inner))]
        return {**inner, **siblings}, clashes
    if any(key in value for key in ("header", "summary", "body")):
        return value, []
    return None, ["no message: expected a top-level `message:` mapping, or header/summary/body at top level"]


# ------------------------------------------------------------------------------ rendering and records
def render_message(msg: AgentMessage) -> dict[str, Any]:
    """The §2.1 document of a message (wrapped in `message:`, with its id); `parse_messages` reads it back to
    the same values (its notes are not written: module docstring)."""
    extras = msg.extras
    block: dict[str, Any] = {
        "message_id": msg.message_id,
        "header": {
            "agent_id": msg.agent_id, "agent_name": msg.agent_name, "agent_tier": msg.agent_tier,
            "timestamp": msg.timestamp, "iteration": msg.iteration, "responding_to": msg.responding_to,
            **extras.get("header", {}),
        },
        "summary": {"verdict": msg.verdict, "confidence": msg.confidence,
                    "confidence_basis": msg.confidence_basis, **extras.get("summary", {})},
        "body": {"tier": msg.tier, "content": msg.content, **extras.get("body", {})},
        "dependencies": {
            "inputs_used": [{**i.extras, "agent_id": i.agent_id, "element": i.element, "how_used": i.how_used}
                            for i in msg.inputs_used],
            "outputs_for": list(msg.outputs_for),
            **extras.get("dependencies", {}),
        },
        "flags": {**_flag_fields(msg.flags), **msg.flags.extras},
        "meta": {"tokens_used": msg.tokens_used, **extras.get("meta", {})},
        **extras.get("message", {}),
    }
    if msg.processing_notes is not None:
        block["meta"]["processing_notes"] = msg.processing_notes
    if msg.references:
        block["references"] = [{**r.extras, **_reference_fields(r)} for r in msg.references]
    return {"message": block}


def message_record(msg: AgentMessage) -> dict[str, Any]:
    """The `omega.agents.AgentMessage` Avro record of a message (omega.json fields as canonical JSON text)."""
    extras = msg.extras
    return {
        "session_id": msg.session_id,
        "message_id": msg.message_id,
        "header": {
            "agent_id": msg.agent_id, "agent_name": msg.agent_name, "agent_tier": msg.agent_tier,
            "timestamp": msg.timestamp, "iteration": msg.iteration, "responding_to": msg.responding_to,
            "extras": _json_map(extras.get("header")),
        },
        "summary": {"verdict": msg.verdict, "confidence": msg.confidence, "confidence_basis": msg.confidence_basis,
                    "extras": _json_map(extras.get("summary"))},
        "body": {"tier": msg.tier, "content": canonical_json(msg.content), "extras": _json_map(extras.get("body"))},
        "dependencies": {
            "inputs_used": [{"agent_id": i.agent_id, "element": i.element, "how_used": i.how_used,
                             "extras": _json_map(i.extras)}
                            for i in msg.inputs_used],
            "outputs_for": list(msg.outputs_for),
            "extras": _json_map(extras.get("dependencies")),
        },
        "flags": {**_flag_fields(msg.flags), "extras": _json_map(msg.flags.extras)},
        "meta": {"tokens_used": msg.tokens_used, "processing_notes": msg.processing_notes,
                 "extras": _json_map(extras.get("meta"))},
        "references": [{**_reference_fields(r), "extras": _json_map(r.extras)} for r in msg.references] or None,
        "extras": _json_map(extras.get("message")),
        "notes": list(msg.notes) or None,
    }


def message_from_record(record: Mapping[str, Any]) -> AgentMessage:
    """The message of an `omega.agents.AgentMessage` record, validated again; ValueError with the reasons."""
    try:
        block = _block_of_record(record)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise ValueError(f"malformed AgentMessage record: {exc!r}") from exc
    session_id = record["session_id"]
    result = validate_message(block, session_id, lambda: derived_id("msg_", session_id, canonical_json(block)))
    if isinstance(result, list):
        raise ValueError("invalid AgentMessage record: " + "; ".join(result))
    notes = record.get("notes")
    return replace(result, notes=tuple(notes)) if notes else result


def _block_of_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """The §2.1 message block a record carries, extras merged back into their blocks."""
    def read(part: Mapping[str, Any], known: tuple[str, ...]) -> dict[str, Any]:
        extras = {k: json.loads(v) for k, v in (part.get("extras") or {}).items()}
        return {**extras, **{k: part[k] for k in known if k in part}}

    body = read(record["body"], ("tier",))
    body["content"] = json.loads(record["body"]["content"])
    deps = read(record["dependencies"], ("outputs_for",))
    deps["inputs_used"] = [read(i, ("agent_id", "element", "how_used")) for i in record["dependencies"]["inputs_used"]]
    block = {
        **read(record, ()),
        "header": read(record["header"], tuple(sorted(HEADER_KEYS))),
        "summary": read(record["summary"], tuple(sorted(SUMMARY_KEYS))),
        "body": body,
        "dependencies": deps,
        "flags": read(record["flags"], FLAG_KEYS),
        "meta": read(record["meta"], tuple(sorted(META_KEYS))),
    }
    if record.get("references"):
        block["references"] = [read(r, ("type", "source_agent", *REFERENCE_FIELDS)) for r in record["references"]]
    if record.get("message_id") is not None:
        block["message_id"] = record["message_id"]
    if not isinstance(record["session_id"], str):
        raise TypeError(f"session_id must be a string, got {record['session_id']!r}")
    return block


def _flag_fields(flags: Flags) -> dict[str, Any]:
    return {"contradiction_detected": flags.contradiction_detected, "contradiction_with": flags.contradiction_with,
            "requires_resolution": flags.requires_resolution, "blocks_progress": flags.blocks_progress,
            "confidence_critical": flags.confidence_critical}


def _reference_fields(ref: Reference) -> dict[str, Any]:
    return {"type": ref.type, "source_agent": ref.source_agent, "source_element": ref.source_element,
            "relationship": ref.relationship, "confidence_impact": ref.confidence_impact}


def _json_map(values: Mapping[str, Any] | None) -> dict[str, str] | None:
    """Extras as {key: canonical JSON text}, or None when there are none (the Avro `extras` convention)."""
    return {k: canonical_json(v) for k, v in values.items()} if values else None
