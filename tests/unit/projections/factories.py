"""Realistic projection inputs: OMEGA-57 AgentMessage records shaped exactly as fastavro decodes them
(omega.json fields as canonical JSON text, extras maps of JSON text or None), alerts, terminations, OMEN
verdicts and escalations, and `Log`, which gives them log positions the way a runner would."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from omega.canonical import derived_id
from omega.events import SPEC_SEVERITY
from projections.memories.combined import EMPTY, Memories, apply_all
from projections.memories.log_events import AGENT_MESSAGES, ALERTS, ESCALATIONS, TERMINATIONS, VERDICTS, LogEvent

T0 = datetime(2026, 1, 26, 9, 0, tzinfo=UTC)
AGENTS = {
    1: ("First Principles", "GENESIS"), 7: ("Math Structure Hunter", "GENESIS"), 10: ("Pattern Recognizer", "GENESIS"),
    14: ("Insight Generator", "GENESIS"), 16: ("Random Explorer", "GENESIS"), 21: ("Formalizer", "BRIDGE"),
    27: ("Chain Verifier", "VERIFICATION"), 32: ("Empirical Tester", "VERIFICATION"), 35: ("Skeptic", "ADVERSARY"),
    40: ("Gap Hunter", "ADVERSARY"), 48: ("Progress Monitor", "META"), 50: ("Conflict Resolver", "META"),
    52: ("Quality Controller", "META"), 53: ("Session Memory", "MEMORY"), 54: ("Pattern Memory", "MEMORY"),
    57: ("PHI", "PHI"),
}


def js(value: Any) -> str:
    """Canonical JSON text: the encoding of the `omega.json` logical type."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def ts(seconds: float) -> str:
    """ISO-8601 event time `seconds` after T0."""
    return (T0 + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def _extras(values: Mapping[str, Any] | None) -> dict[str, str] | None:
    return {k: js(v) for k, v in values.items()} if values else None


def message(session_id: str, seq: int, agent_id: int, verdict: str, *, confidence: float = 0.7,
            content: Any = None, at: float | None = None, iteration: int = 1,
            responding_to: int | str = "INITIAL", contradiction_with: int | None = None,
            contradiction: bool | None = None, requires_resolution: bool = False, blocks_progress: bool = False,
            confidence_critical: bool = False,
            flag_extras: Mapping[str, Any] | None = None, extras: Mapping[str, Any] | None = None,
            inputs_used: Sequence[int] = (), outputs_for: Sequence[int] = (57,),
            references: Sequence[Mapping[str, Any]] | None = None, message_id: str | None = "auto",
            tokens: int = 640, tier: int = 1, basis: str = "two independent sources agree") -> dict[str, Any]:
    """One accepted AgentMessage record (every field present, as the reader returns it)."""
    name, agent_tier = AGENTS.get(agent_id, (f"Agent {agent_id}", "GENESIS"))
    body = content if content is not None else {"findings": [verdict]}
    return {
        "session_id": session_id,
        "message_id": f"msg-{session_id}-{seq:05d}" if message_id == "auto" else message_id,
        "header": {"agent_id": agent_id, "agent_name": name, "agent_tier": agent_tier,
                   "timestamp": ts(seq * 7 if at is None else at), "iteration": iteration,
                   "responding_to": responding_to, "extras": None},
        "summary": {"verdict": verdict, "confidence": confidence, "confidence_basis": basis, "extras": None},
        "body": {"tier": tier, "content": js(body), "extras": None},
        "dependencies": {
            "inputs_used": [{"agent_id": a, "element": f"output of agent {a}", "how_used": "premise",
                             "extras": None} for a in inputs_used],
            "outputs_for": list(outputs_for), "extras": None},
        "flags": {"contradiction_detected": contradiction_with is not None if contradiction is None else contradiction,
                  "contradiction_with": contradiction_with, "requires_resolution": requires_resolution,
                  "blocks_progress": blocks_progress, "confidence_critical": confidence_critical,
                  "extras": _extras(flag_extras)},
        "meta": {"tokens_used": tokens, "processing_notes": None, "extras": None},
        "references": None if references is None else [
            {"type": r["type"], "source_agent": r["source_agent"], "source_element": r.get("source_element", ""),
             "relationship": r.get("relationship", "builds on"), "confidence_impact": r.get("impact", "+0.05"),
             "extras": None} for r in references],
        "extras": _extras(extras),
        "notes": None,
    }


def alert(subject: str, kind: str, severity: str, text: str, *, source_event_id: str, at: float,
          details: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An omega.events.Alert record with `severity` the spec's label (also placed on the one scale, when it has a
    place there); its id derives as `omega.events.Alert.alert_id` does."""
    return {"alert_id": derived_id("alr_", subject, source_event_id, kind), "kind": kind,
            "severity": SPEC_SEVERITY.get(severity, severity), "spec_severity": severity, "subject_id": subject,
            "message": text, "event_time": ts(at), "source_event_id": source_event_id,
            "details": None if details is None else js(details)}


def termination(session_id: str, status: str, *, at: float, **fields: Any) -> dict[str, Any]:
    """An omega.agents.TerminationReport record with the branch of `status` filled from `fields`."""
    record: dict[str, Any] = {
        "report_id": derived_id("term_", session_id, status), "session_id": session_id, "event_time": ts(at),
        "status": status, "degradation_level": None, "answer": None, "confidence": None, "caveats": None,
        "supporting_evidence": None, "verified_by": None, "survived_attacks_from": None, "partial_answer": None,
        "answered": None, "unanswered": None, "why_stopped": None, "what_would_complete": None,
        "failure_type": None, "what_was_attempted": None, "why_failed": None, "what_was_learned": None,
        "recommendation": None,
        "metrics": {"iterations": 2, "agents_deployed": 12, "total_tokens": 48_000, "time_elapsed": "PT14M",
                    "extras": None},
        "audit_trail": [{"timestamp": ts(at), "event": f"terminated {status}", "extras": None}], "extras": None,
    }
    record.update(fields)
    return record


def verdict(episode: str, packet_id: str, status: str, *, at: float,
            violations: Sequence[tuple[str, str, str]] = ()) -> dict[str, Any]:
    """An omega.events.PacketVerdict record; violations as (rule, severity, message)."""
    return {"verdict_id": derived_id("vrd_", packet_id, "v0.7"), "packet_id": packet_id, "correlation_id": episode,
            "packet_type": "DecisionPacket", "status": status,
            "violations": [{"rule": r, "severity": s, "message": m, "field": None} for r, s, m in violations],
            "event_time": ts(at), "ruleset_version": "v0.7", "state_before": "MODEL", "state_after": "MODEL",
            "content_hash": "0" * 64, "usage": None, "context": "episode", "late": False}


def escalation(subject: str, level: str, reason: str, *, source_event_id: str, at: float) -> dict[str, Any]:
    """An omega.events.Escalation record."""
    return {"escalation_id": derived_id("esc_", subject, source_event_id, level, reason), "level": level,
            "subject_id": subject, "reason": reason, "event_time": ts(at), "source_event_id": source_event_id,
            "details": None}


@dataclass
class Log:
    """Gives records log positions as a runner would: offsets count per (topic, partition); the partition
    is the key's hash modulo `partitions`."""

    partitions: int = 4
    source_prefix: str = ""
    first_offset: int = 0
    events: list[LogEvent] = field(default_factory=list)
    _next: dict[tuple[str, int], int] = field(default_factory=dict)

    def add(self, topic: str, record: Mapping[str, Any], key: str | None = None) -> LogEvent:
        """Append one record; the key defaults to the record's session/subject/correlation id."""
        key = key or str(record.get("session_id") or record.get("subject_id") or record.get("correlation_id"))
        partition = zlib.crc32(key.encode()) % self.partitions
        offset = self._next.get((topic, partition), self.first_offset)
        self._next[(topic, partition)] = offset + 1
        event = LogEvent(topic, partition, offset, key, dict(record),
                         source=f"{self.source_prefix}{topic}" if self.source_prefix else None)
        self.events.append(event)
        return event

    def extend(self, items: Iterable[tuple[str, Mapping[str, Any]]]) -> list[LogEvent]:
        """Append (topic, record) pairs in order."""
        return [self.add(topic, record) for topic, record in items]


# ------------------------------------------------------------------------------------------- a whole session
def session_script(session_id: str, *, iteration: int = 1, start: float = 0.0,
                   outcome: str | None = "SUCCESS") -> list[tuple[str, dict[str, Any]]]:
    """One iteration of a realistic session touching every sync rule, then (optionally) its termination."""
    it = iteration
    h1, h2 = f"Rate limits cause the latency spikes (run {it})", f"GC pauses cause the latency spikes (run {it})"
    seq = (it - 1) * 100
    out: list[tuple[str, dict[str, Any]]] = []

    def say(agent: int, verdict_line: str, **kw: Any) -> str:
        nonlocal seq
        seq += 1
        record = message(session_id, seq, agent, verdict_line, at=start + seq * 7, iteration=it, **kw)
        out.append((AGENT_MESSAGES, record))
        return str(record["message_id"])

    say(57, "[DEPLOY] Classified as causal inference; deploying formal and verification agents",
        content={"problem": {"original_statement": "Why does p99 latency spike every hour?",
                             "classification": "CAUSAL_INFERENCE", "recommended_agents": [1, 7, 27, 35]},
                 "deployment": {"agents": [1, 7, 21, 27, 35, 48, 52, 53]}}, confidence=0.9, outputs_for=(1, 7, 21))
    say(1, "[HYPOTHESIS] Rate limits explain the hourly spikes | CONF: 60%", confidence=0.6,
        content={"hypothesis": {"id": f"H{it}a", "statement": h1, "confidence": 0.6},
                 "evidence": {"evidence": "Spikes align with quota resets", "supports": [f"H{it}a"]}})
    say(7, "[HYPOTHESIS] GC pauses could explain the spikes | CONF: 50%", confidence=0.5,
        content={"hypothesis": {"id": f"H{it}b", "statement": h2, "confidence": 0.5}})
    say(21, "[EXTENDS] Formal model of quota resets | CONF: 65%", confidence=0.65, inputs_used=(1,),
        references=[{"type": "SUPPORTS", "source_agent": 1, "source_element": h1}],
        content={"evidence": [{"evidence": "Queue model predicts hourly saturation", "supports": [h1],
                               "strength": "STRONG"}]})
    say(27, "[SUPPORTS] Causal chain from quota reset to spike holds | CONF: 86%", confidence=0.86,
        inputs_used=(1, 21), responding_to=57,
        content={"hypothesis": {"id": f"H{it}a", "statement": h1, "status": "CONFIRMED", "confidence": 0.86,
                                "basis": "chain verified step by step"}})
    skeptic = say(35, "[CONTRADICTS] Quota resets are staggered per tenant | CONF: 70%", confidence=0.7,
                  contradiction_with=27, requires_resolution=True,
                  content={"contradiction": {"claim_a": "Resets are staggered, not hourly",
                                             "claim_b": "Quota reset causes the spike"}})
    say(50, "[RESOLVED] Both hold: staggered resets still cluster at the hour | CONF: 75%", confidence=0.75,
        responding_to=35, inputs_used=(27, 35),
        content={"resolution": "Staggered resets still cluster within the hour boundary"})
    say(10, "[PATTERN] Matches resource-contention pattern | CONF: 80%", confidence=0.8,
        content={"pattern_match": {"pattern": "resource-contention", "strength": 0.82,
                                   "evidence": ["periodic saturation", "shared quota"],
                                   "implications": ["look for a shared limiter"]}})
    say(7, "[ABANDON] GC pauses ruled out by heap telemetry | CONF: 80%", confidence=0.8,
        content={"hypothesis": {"id": f"H{it}b", "statement": h2, "status": "ABANDONED",
                                "reason": "heap telemetry flat during spikes"}})
    say(16, "[FAILED] Random probing found no usable signal | CONF: 20%", confidence=0.2, confidence_critical=True,
        content={"failure": {"failure_type": "APPROACH", "description": "Random probing found no signal",
                             "root_cause": "search space too large for random probes",
                             "lessons": ["Probe at the hour boundary, not at random"],
                             "prevention": [{"condition": "periodic symptom", "action": "sample at the period"}]}})
    say(57, "[DECIDE] Focus on the quota limiter | CONF: 80%", confidence=0.8, responding_to=50,
        content={"decision": {"decision": f"Focus on the quota limiter (run {it})", "basis": "verified chain",
                              "reversible": True},
                 "commitment": f"Report the limiter settings to the user (run {it})"})
    qc_reject = say(52, "[REJECT] No load-test evidence for the fix | CONF: 70%", confidence=0.7,
                    content={"issues": ["no load test", "no rollback plan"]})
    say(32, "[SUPPORTS] Load test reproduces spikes at quota reset | CONF: 88%", confidence=0.88,
        flag_extras={"breakthrough": {"description": "Load test reproduces the spike on demand",
                                      "pattern": "reproduce-on-demand",
                                      "heuristic": "When a symptom is periodic, reproduce it at its period",
                                      "steps": ["find the period", "trigger at the period", "compare"]}})
    say(52, "[SHIP WITH CAVEATS] Fix verified under load; rollout per tenant | CONF: 82%", confidence=0.82,
        content={"caveats": ["tenant-specific quotas untested"]})
    say(57, "[BRILLIANT] Use the quota reset as a natural experiment | CONF: 85%", confidence=0.85,
        extras={"brilliant": {"idea": "Treat quota resets as a natural experiment",
                              "why_brilliant": "gives causal identification for free",
                              "filed_to": "ideas/natural-experiment.md"}},
        content={"pattern_query": "contention"})
    end = start + (seq + 1) * 7
    out.append((ALERTS, alert(session_id, "RESOURCE_EXHAUSTION", "MODERATE",
                              "RESOURCE_EXHAUSTION (MODERATE): 84% of the token budget used", at=end,
                              source_event_id=qc_reject,
                              details={"signature": "RESOURCE_EXHAUSTION", "severity": "MODERATE",
                                       "escalation": {"level": 2, "path": "PEER_RECOVERY"},
                                       "recovery": {"action": "DEGRADE", "procedure": "4.3"},
                                       "facts": {"tokens_used": 42_000, "token_budget": 50_000}})))
    out.append((ALERTS, alert(session_id, "LOW_CONFIDENCE_OUTPUT", "MINOR", "Random Explorer output at 20%",
                              at=end + 1, source_event_id=skeptic)))
    out.append((ESCALATIONS, escalation(session_id, "L3", "Contradiction needs tier recovery", at=end + 2,
                                        source_event_id=skeptic)))
    if outcome is not None:
        out.append((TERMINATIONS, termination(
            session_id, outcome, at=end + 3, answer="The hourly quota reset saturates the limiter",
            confidence=0.82, caveats=["tenant quotas untested"], verified_by=[27, 32], survived_attacks_from=[35])
            if outcome == "SUCCESS" else termination(
            session_id, outcome, at=end + 3, failure_type="IRRECOVERABLE", why_failed="contradictions unresolved",
            what_was_attempted=["quota model"], what_was_learned=["check quotas first"],
            recommendation="decompose per tenant")))
    return out


def episode_events(episode: str, *, at: float = 0.0) -> list[tuple[str, dict[str, Any]]]:
    """OMEN traffic of one episode: accepted verdicts (ignored), one REJECTED verdict, a CRITICAL alert."""
    return [
        (VERDICTS, verdict(episode, f"pkt-{episode}-1", "ACCEPTED", at=at)),
        (VERDICTS, verdict(episode, f"pkt-{episode}-2", "REJECTED", at=at + 1,
                           violations=[("INV-003", "ERROR", "WRITE without a valid token"),
                                       ("FSM", "WARNING", "early sense cycle")])),
        (ALERTS, alert(episode, "BUDGET_OVERRUN", "CRITICAL", "token budget exceeded without approval",
                       source_event_id=f"pkt-{episode}-3", at=at + 2, details={"state": "HALTED"})),
        (ALERTS, alert(episode, "TASK_TIMEOUT", "WARNING", "directive t-1 unanswered after 90 s",
                       source_event_id=f"pkt-{episode}-4", at=at + 3)),
    ]


def interleave(scripts: Sequence[Sequence[tuple[str, dict[str, Any]]]]) -> list[tuple[str, dict[str, Any]]]:
    """Round-robin across sessions, the way a shared log carries concurrent sessions."""
    out: list[tuple[str, dict[str, Any]]] = []
    longest = max((len(s) for s in scripts), default=0)
    for index in range(longest):
        out.extend(s[index] for s in scripts if index < len(s))
    return out


def workload(events: int, sessions: int, *, partitions: int = 4) -> list[LogEvent]:
    """About `events` events over `sessions` sessions, interleaved round-robin; each session runs iterations of
    `session_script` (new hypotheses each time) and terminates in its last one."""
    per_session = max(1, events // max(1, sessions))
    scripts: list[list[tuple[str, dict[str, Any]]]] = []
    one = len(session_script("x", outcome=None))
    for s in range(sessions):
        sid = f"sess-{s:05d}"
        script: list[tuple[str, dict[str, Any]]] = []
        iteration = 1
        while len(script) < per_session:
            last = len(script) + one >= per_session
            script += session_script(sid, iteration=iteration, start=s * 3.0,
                                     outcome=("SUCCESS" if s % 3 else "FAILURE") if last else None)
            iteration += 1
        scripts.append(script[:per_session])
    log = Log(partitions=partitions)
    log.extend(interleave(scripts))
    return log.events


# ------------------------------------------------------------------------------------------- replay helpers
def event(topic: str, record: Mapping[str, Any], offset: int = 0, partition: int = 0) -> LogEvent:
    """One event at a given position, keyed by its session."""
    key = str(record.get("session_id") or record.get("subject_id") or record.get("correlation_id"))
    return LogEvent(topic, partition, offset, key, dict(record))


def msg(session_id: str, seq: int, agent_id: int, verdict_line: str, **kw: Any) -> LogEvent:
    """An agent_messages event (see `message` for the keywords)."""
    return event(AGENT_MESSAGES, message(session_id, seq, agent_id, verdict_line, **kw), offset=seq)


def replay(events: Iterable[LogEvent]) -> dict[str, Memories]:
    """Every session's memories after `events`, through the pure reducers only (no store)."""
    out: dict[str, Memories] = {}
    for e in events:
        out[e.session_id] = apply_all(out.get(e.session_id, EMPTY), e)
    return out
