"""The blocks and keys of a §2.1 message, and `NORMATIVE`: every field a message may be refused for, with the
spec line the refusal rests on (`omega.agents.validation` refuses for nothing else).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

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

NORMATIVE: Mapping[str, str] = MappingProxyType({
    "header": "§2.1: every agent output follows the schema; the header block is part of it",
    "summary": "§2.1: the summary block is part of every message",
    "body": "§2.1: the body block is part of every message",
    "header.agent_id": "§2.1 `agent_id: <int 1-57>`",
    "header.agent_name": "§2.1 `agent_name: <string>`; A.1 binds each name to one id",
    "header.agent_tier": "§2.1 `agent_tier: <GENESIS|BRIDGE|VERIFICATION|ADVERSARY|META|MEMORY|PHI>`; "
                         "A.1 tier of the id",
    "header.timestamp": "§2.1 `timestamp: <ISO 8601>`",
    "header.iteration": "§2.1 `iteration: <int>` (A.3 counts full cycles)",
    "header.responding_to": "§2.1 `responding_to: <agent_id or ...>`: only a value that cannot be a reference",
    "summary.verdict": "§2.1 `<one-line conclusion, max 100 chars>`; §5.1 Tier 0 format and length",
    "summary.confidence": "§2.1 `confidence: <float 0.0-1.0>`",
    "summary.confidence_basis": "§2.1 `confidence_basis: <string explaining confidence>`",
    "body.tier": "§2.1 `tier: <0|1|2>`, §5.1 tiers",
    "body.content": "§2.1 `content: <structured output per agent's format>`",
    "flags": "§2.1: the flags block holds the five flags",
    "flags.contradiction_detected": "§2.1 `contradiction_detected: <bool>`",
    "flags.requires_resolution": "§2.1 `requires_resolution: <bool>`",
    "flags.blocks_progress": "§2.1 `blocks_progress: <bool>`",
    "flags.confidence_critical": "§2.1 `confidence_critical: <bool>`",
    "meta": "§2.1: the meta block holds tokens_used and processing_notes",
    "meta.tokens_used": "§2.1 `tokens_used: <int>`",
    "meta.processing_notes": "§2.1 `processing_notes: <string, optional>`",
    **{f"{where}{key}{field}": "§2.2 `reference: {type: <SUPPORTS|CONTRADICTS|EXTENDS|QUALIFIES|USES>, "
       "source_agent: <int>, ...}`"
       for where in ("", "body.") for key in ("references", "reference")
       for field in ("", ".type", ".source_agent", *(f".{f}" for f in REFERENCE_FIELDS))},
})
"""Every field a message may be refused for, with the spec line the refusal rests on. A reason's path is its
text before the first `: `, list indices removed. Dependencies and flags.contradiction_with are absent on
purpose: they are advisory cross-references (`omega.agents.crossrefs`)."""
