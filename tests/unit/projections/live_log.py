"""A small hand-built log for the live views (issue 25): two OMEN episodes and one OMEGA-57 session, with the
values each view must show worked out by hand in the tests that use it."""

from __future__ import annotations

from typing import Any

from omega.canonical import derived_id
from projections.memories.log_events import AGENT_MESSAGES, ALERTS, ESCALATIONS, TERMINATIONS, VERDICTS, LogEvent
from tests.unit.projections.factories import Log, alert, escalation, message, termination, verdict


def usage(tokens: int, token_budget: int | None, tool_calls: int = 0, tool_budget: int | None = None,
          seconds: float = 0.0, time_budget: int | None = None) -> dict[str, Any]:
    """An omega.events.BudgetUsage record."""
    return {"tokens_used": tokens, "token_budget": token_budget, "tool_calls_used": tool_calls,
            "tool_call_budget": tool_budget, "time_elapsed_seconds": seconds, "time_budget_seconds": time_budget,
            "risk_spent": 0.0, "max_loss": None}


def packet_verdict(episode: str, packet_id: str, status: str, *, at: float, before: str, after: str,
                   packet_type: str = "ObservationPacket", use: dict[str, Any] | None = None,
                   violations: tuple[tuple[str, str, str], ...] = ()) -> dict[str, Any]:
    """A PacketVerdict with its FSM move, packet type and usage."""
    return {**verdict(episode, packet_id, status, at=at, violations=violations), "packet_type": packet_type,
            "state_before": before, "state_after": after, "usage": use}


def timeout(episode: str, directive: str, *, at: float, deadline: str) -> dict[str, Any]:
    """The TASK_TIMEOUT alert omega.packets.validator raises for an unanswered directive."""
    return alert(episode, "TASK_TIMEOUT", "WARNING", f"INV-011: task of {directive} had no result",
                 source_event_id=directive, at=at,
                 details={"task_id": f"task-{directive}", "directive_packet_id": directive, "rule": "INV-011",
                          "deadline": deadline, "stakes_level": "MEDIUM"})


def live_log() -> Log:
    """ep-hot goes to safe mode over budget; ep-calm stays fine; s-57 runs two iterations and ends PARTIAL."""
    log = Log()
    log.extend([
        # ep-calm: one accepted observation, no alert (trouble 0), earlier than ep-hot
        (VERDICTS, packet_verdict("ep-calm", "c1", "ACCEPTED", at=5, before="S0_IDLE", after="S1_SENSE",
                                  use=usage(100, 1000))),
        # ep-hot: two directives, one result, a warning, then an over-budget rejection into safe mode
        (VERDICTS, packet_verdict("ep-hot", "h1", "ACCEPTED", at=10, before="S0_IDLE", after="S1_SENSE",
                                  use=usage(200, 1000, 0, 4))),
        (VERDICTS, packet_verdict("ep-hot", "h2", "ACCEPTED", at=20, before="S5_AUTHORIZE", after="S6_EXECUTE",
                                  packet_type="TaskDirectivePacket", use=usage(300, 1000, 1, 4))),
        (VERDICTS, packet_verdict("ep-hot", "h3", "ACCEPTED", at=21, before="S6_EXECUTE", after="S6_EXECUTE",
                                  packet_type="TaskDirectivePacket", use=usage(300, 1000, 2, 4))),
        (VERDICTS, packet_verdict("ep-hot", "h4", "ACCEPTED_WITH_WARNINGS", at=30, before="S6_EXECUTE",
                                  after="S6_EXECUTE", packet_type="TaskResultPacket", use=usage(850, 1000, 2, 4),
                                  violations=(("INV-004", "WARNING", "thin evidence"),))),
        (ALERTS, timeout("ep-hot", "h2", at=35, deadline="2026-01-26T09:00:35Z")),
        (VERDICTS, packet_verdict("ep-hot", "h5", "REJECTED", at=40, before="S6_EXECUTE", after="S9_SAFEMODE",
                                  use=usage(1200, 1000, 2, 4),
                                  violations=(("INV-004", "WARNING", "thin evidence"),
                                              ("INV-005", "ERROR", "tokens: 1200 > 1000")))),
        (ALERTS, alert("ep-hot", "BUDGET_OVERRUN", "CRITICAL", "budget overrun", source_event_id="h5", at=40)),
        (ESCALATIONS, escalation("ep-hot", "LAYER1", "budget overrun", source_event_id="h5", at=40)),
        # s-57: iteration 1 (0.6, 0.8), iteration 2 (0.9), a SERIOUS collapse in iteration 2, PARTIAL end
        (AGENT_MESSAGES, message("s-57", 1, 1, "[CLAIM] a", confidence=0.6, iteration=1, at=100)),
        (AGENT_MESSAGES, message("s-57", 2, 7, "[CLAIM] b", confidence=0.8, iteration=1, at=110)),
        (AGENT_MESSAGES, message("s-57", 3, 10, "[CLAIM] c", confidence=0.9, iteration=2, at=120)),
        (ALERTS, alert("s-57", "CONFIDENCE_COLLAPSE", "SERIOUS", "collapse", source_event_id="msg-s-57-00003",
                       at=120, details={"signature": "CONFIDENCE_COLLAPSE", "iteration": 2})),
        (TERMINATIONS, termination("s-57", "PARTIAL", at=130, degradation_level=2, confidence=0.55,
                                   partial_answer="half of it")),
    ])
    return log


def replayed(event: LogEvent, offset: int) -> LogEvent:
    """The same record again at a later offset (what the validator re-emits for a redelivered packet)."""
    return LogEvent(event.topic, event.partition, offset, event.key, event.record, event.source)


BUDGET_ALERT_ID = derived_id("alr_", "ep-hot", "h5", "BUDGET_OVERRUN")
