"""Deterministic OMEGA-57 messages for the session judge's tests: ids and event times grow with each message."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from omega.agents.model import AgentMessage, Flags, MessageRejected, Reference, SessionEvent
from omega.agents.roster import AGENTS

T0 = datetime(2026, 1, 26, 9, 0, tzinfo=UTC)


def ref(kind: str, source_agent: int, element: str = "") -> Reference:
    """A §2.2 reference."""
    return Reference(kind, source_agent, element, "test", "test")


class Builder:
    """Builds a session's events in order; `events` holds everything built so far."""

    def __init__(self, session_id: str = "sess-test", step_seconds: int = 30) -> None:
        self.session_id = session_id
        self.step = step_seconds
        self.n = 0
        self.events: list[SessionEvent] = []

    def _next(self, advance: int | None) -> tuple[str, str]:
        self.n += 1
        when = T0 + timedelta(seconds=(advance if advance is not None else self.step) * self.n)
        return f"{self.session_id}-m{self.n:04d}", when.isoformat()

    def msg(self, agent_id: int, iteration: int, confidence: float = 0.8, verdict: str | None = None, *,
            content: Any = None, refs: Sequence[Reference] = (), tokens: int = 1000, advance: int | None = None,
            responding_to: int | str = "PHI_QUERY", flag_extras: Mapping[str, Any] | None = None,
            header_extras: Mapping[str, Any] | None = None, **flags: Any) -> AgentMessage:
        """An accepted message of `agent_id` (name and tier from the roster)."""
        mid, when = self._next(advance)
        row = AGENTS[agent_id]
        message = AgentMessage(
            session_id=self.session_id, message_id=mid, agent_id=agent_id, agent_name=row.name,
            agent_tier=row.tier, timestamp=when, iteration=iteration, responding_to=responding_to,
            verdict=verdict if verdict is not None else f"[FINDING] {row.name} finding {self.n}",
            confidence=confidence, confidence_basis="test", tier=0, content=content if content is not None else {},
            flags=Flags(**flags, extras=dict(flag_extras or {})), tokens_used=tokens, references=tuple(refs),
            extras={"header": dict(header_extras)} if header_extras else {},
        )
        self.events.append(message)
        return message

    def rejected(self, agent_id: int | None, iteration: int | None,
                 reasons: tuple[str, ...] = ("summary.confidence: 1.7 is not in [0, 1]",)) -> MessageRejected:
        """A quarantined message."""
        mid, when = self._next(None)
        event = MessageRejected(self.session_id, mid, reasons, agent_id, iteration, when)
        self.events.append(event)
        return event

    def start(self, stakes: str = "MEDIUM", tokens: int = 1_000_000, seconds: int = 36_000,
              **problem: Any) -> AgentMessage:
        """PHI's INITIAL message of iteration 1 with the problem and the budget."""
        return self.msg(57, 1, 0.9, "[QUERY] Should we migrate the billing service?", responding_to="INITIAL",
                        content={"problem": {"statement": "Should we migrate the billing service?",
                                             "classification": "NORMATIVE/STRATEGIC", "stakes": stakes, **problem},
                                 "budget": {"tokens": tokens, "seconds": seconds}})

    def phi(self, iteration: int, action: str, **content: Any) -> AgentMessage:
        """A PHI control message (END_ITERATION, TERMINATE, USER_ABORT)."""
        return self.msg(57, iteration, 0.9, f"[{action}] iteration {iteration}", content={"action": action, **content})

    def iteration(self, iteration: int, *, genesis: Sequence[int] = (1, 8, 9), confidence: float = 0.8,
                  novel: bool = True) -> list[AgentMessage]:
        """A plain exploratory batch: GENESIS findings (new per iteration unless `novel` is False)."""
        out = []
        for agent in genesis:
            verdict = f"[FINDING] agent {agent} finding" + (f" in iteration {iteration}" if novel else "")
            out.append(self.msg(agent, iteration, confidence, verdict))
        return out
