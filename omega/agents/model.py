"""The validated OMEGA-57 agent message (§2.1, references of §2.2): what every judge of a session reads.

Parsing and validation (`omega.agents.messages`) build it; nothing else does, so a value of this type is
always in range and consistent with the roster. Unknown keys the producer added are kept per block, and so
are the raw values of what the reader normalised (`omega.agents.crossrefs`), each with a note in `notes`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

TIERS = ("GENESIS", "BRIDGE", "VERIFICATION", "ADVERSARY", "META", "MEMORY", "PHI")
REFERENCE_TYPES = ("SUPPORTS", "CONTRADICTS", "EXTENDS", "QUALIFIES", "USES")


@dataclass(frozen=True, slots=True)
class InputUsed:
    """One `dependencies.inputs_used` entry; unknown keys the producer added stay in `extras`.

    `element` and `how_used` are "" when the producer did not state them (an entry given as a bare agent id
    or an agent string, or a mapping without them): dependencies are advisory (`omega.agents.crossrefs`).
    """

    agent_id: int
    element: str
    how_used: str
    extras: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Reference:
    """A §2.2 reference to another agent's output; unknown keys the producer added stay in `extras`."""

    type: str
    source_agent: int
    source_element: str
    relationship: str
    confidence_impact: str
    extras: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Flags:
    """The five §2.1 flags; flags the producer added beyond them stay in `extras` (JSON values)."""

    contradiction_detected: bool = False
    contradiction_with: int | None = None
    requires_resolution: bool = False
    blocks_progress: bool = False
    confidence_critical: bool = False
    extras: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AgentMessage:
    """One accepted agent output of a session, flattened from the §2.1 blocks.

    `message_id` is the producer's id when it gave one, else derived from the canonical message, so a
    redelivered message is recognised. `extras` maps a block name ("message", "header", "summary", "body",
    "dependencies", "meta") to the unknown keys found in that block, and to the raw values the reader
    normalised (e.g. `responding_to_raw`). `responding_to` is an agent id, PHI_QUERY, INITIAL, `BATCH_<n>`,
    `BATCH_<n>_<m>`, `<TIER>_TIER`, or, unresolved, the producer's string as written. `notes` says, one line
    each (`path: what was done`), what the reader normalised; empty when it took the message as written.
    """

    session_id: str
    message_id: str
    agent_id: int
    agent_name: str
    agent_tier: str
    timestamp: str
    iteration: int
    responding_to: int | str
    verdict: str
    confidence: float
    confidence_basis: str
    tier: int
    content: Any
    inputs_used: tuple[InputUsed, ...] = ()
    outputs_for: tuple[int, ...] = ()
    flags: Flags = field(default_factory=Flags)
    tokens_used: int = 0
    processing_notes: str | None = None
    references: tuple[Reference, ...] = ()
    extras: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MessageRejected:
    """A message that failed parsing or validation: its output is QUARANTINED (§4.2.1), never applied.

    `agent_id`, `iteration` and `timestamp` are what could be read from the broken message (None when
    unreadable); `message_id` derives from the raw text, so a redelivery is recognised. Every reason is one
    the spec makes normative (`omega.agents.message_fields.NORMATIVE`) or a document that cannot be read.
    """

    session_id: str
    message_id: str
    reasons: tuple[str, ...]
    agent_id: int | None = None
    iteration: int | None = None
    timestamp: str | None = None


SessionEvent = AgentMessage | MessageRejected
"""What the session judge consumes, in session order."""
