"""An accepted message read tolerantly, as the session judge reads it: the agents it names by id, the §5.1 tag
of its verdict, its content items and texts, its §1.3.3 batch and PHI's control action.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from omega.agents.model import AgentMessage

PHI, CLARITY, PROGRESS, CONFLICT, SYNTHESIS, QC = 57, 47, 48, 50, 51, 52
GAP_AGENTS = (31, 40)
SURVIVOR, STEELMAN, FALSIFIER = 46, 44, 45
CONTROL_ACTIONS = ("END_ITERATION", "TERMINATE", "USER_ABORT")
_BATCH_OF_TIER = {"GENESIS": "1", "BRIDGE": "2", "VERIFICATION": "3", "ADVERSARY": "4", "META": "5"}
_TAG = re.compile(r"^\s*\[([^\]]{1,60})\]")
_SPACES = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Whitespace collapsed, case folded: the matching form of statements."""
    return _SPACES.sub(" ", text).strip().casefold()


def verdict_tag(verdict: str) -> str | None:
    """The §5.1 tag of a verdict line ("[SHIP_WITH caveats] ..." -> "SHIP WITH CAVEATS"), or None; the one
    reading shared by the monitor and the memory projections, so both see the same gates."""
    found = _TAG.match(verdict)
    if found is None:
        return None
    return " ".join(found.group(1).upper().replace("_", " ").split()) or None


def verdict_core(verdict: str) -> str:
    """The claim a verdict line makes: its tag and text before the first " | " (CONF and FLAGS dropped)."""
    return normalise(verdict.split("|", 1)[0])


def content_of(message: AgentMessage) -> Mapping[str, Any]:
    """body.content when it is a mapping, else empty."""
    return message.content if isinstance(message.content, Mapping) else {}


def items(value: Any) -> list[Any]:
    """A content value that may be one item or a list of them, as a list."""
    return list(value) if isinstance(value, list | tuple) else [] if value is None else [value]


def text_of(item: Any, key: str) -> str | None:
    """A string item, or the non-empty string under `key` of a mapping item."""
    value = item if isinstance(item, str) else item.get(key) if isinstance(item, Mapping) else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def batch_of(message: AgentMessage) -> str | None:
    """The §1.3.3 batch of a message: the header's `batch` extra, else its tier's batch (None: no batch)."""
    explicit = message.extras.get("header", {}).get("batch")
    if isinstance(explicit, int | str) and not isinstance(explicit, bool):
        return str(explicit)
    return _BATCH_OF_TIER.get(message.agent_tier)


def phi_action(message: AgentMessage) -> str | None:
    """PHI's control action: content.action, or the booleans user_abort / terminate / end_iteration."""
    if message.agent_id != PHI:
        return None
    content = content_of(message)
    action = content.get("action")
    if isinstance(action, str):
        name = action.strip().upper().replace("-", "_").replace(" ", "_")
        if name in CONTROL_ACTIONS:
            return name
    return next((name for name in ("USER_ABORT", "TERMINATE", "END_ITERATION") if content.get(name.lower()) is True),
                None)
