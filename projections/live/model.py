"""The live read models (issue 25): OMEN episodes, OMEGA-57 session status and the alert feed, reduced from
the output topics. Pure: no store, clock or I/O; the projector applies them in the same batch (and the same
transaction) as the memories.

Episode document (one per correlation_id, from verdicts and the alerts/escalations about it):
    episode_id, fsm_state (the last verdict's state_after; UNKNOWN before any verdict), safe_mode (S9_SAFEMODE),
    packets {accepted, warnings, rejected} (exclusive: ACCEPTED, ACCEPTED_WITH_WARNINGS, REJECTED),
    budgets {tokens, tool_calls, time_seconds, risk: {used, limit, burn}} from the last verdict's BudgetUsage
    (burn = used / limit, null without a positive limit), max_burn, open_directives [{directive_id, deadline}],
    last_rejection {packet_id, rule, reason, event_time} (the first ERROR violation), alerts, top_severity,
    trouble (see `trouble`), last_event_time, timeline [{event_time, packet_id, status, fsm_from, fsm_to, usage}].
Open directives are an approximation: a PacketVerdict carries neither the task_id nor the deadline. An accepted
TaskDirectivePacket opens a directive (id = its packet_id); its deadline is known only once its TASK_TIMEOUT
alert has fired (which also proves it unanswered by then); each accepted TaskResultPacket closes one directive:
the oldest without a timeout, else the oldest timed out (see `open_directives`).

Session document (one per OMEGA-57 session, from agent messages, alerts, escalations and terminations):
    session_id, iteration (highest seen), messages, confidence_trend [{iteration, messages, confidence}] (the mean
    reported confidence of the iteration's messages), failure_signatures [{signature, severity, spec_severity,
    count, iterations, last_event_time}], termination {report_id, status, event_time, degradation_level,
    confidence} | null, session_status (RUNNING until terminated, then the report's status), alerts,
    top_severity, last_event_time.

Keys starting with "_" are bookkeeping (ids already applied, running sums): stored, never served. Every document
is independent of how the topics interleave (counts, maxima and sets only across topics), so a Kafka projection
and a file rebuild agree; within a topic partition the order is the log's.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from omega.agents import failures, rules
from omega.events import SEVERITY_SCALE, SPEC_SEVERITY
from omega.packets import fsm_table
from projections.memories.documents import JSONObject
from projections.memories.log_events import (
    AGENT_MESSAGES,
    ALERTS,
    ESCALATIONS,
    TERMINATIONS,
    VERDICTS,
    LogEvent,
    normalise_time,
    number,
    read_json,
    text_of,
)

OMEN_ALERT_KINDS = ("TASK_TIMEOUT", "SAFE_MODE_ENTERED", "BUDGET_OVERRUN", "TOKEN_MISUSE", "ESCALATION_REQUIRED",
                    "AUTH_REJECTED", "SAFE_MODE_VIOLATION")
"""The kinds omega.packets.validator raises (literals there; a test pins this list against its source)."""
SESSION_ALERT_KINDS = (*failures.SIGNATURES, *rules.KINDS)
"""The OMEGA-57 kinds: the failure signatures and the deployment-rule / iteration-trigger alerts."""
ESCALATION = "ESCALATION"
TERMINATION = "TERMINATION"
ALERT_KINDS = (*OMEN_ALERT_KINDS, *SESSION_ALERT_KINDS, ESCALATION, TERMINATION)
"""Every `kind` of the alert feed: escalations and terminations appear with their own kind (and `source`)."""
SEVERITIES = SEVERITY_SCALE
RANK = {s: i for i, s in enumerate(SEVERITY_SCALE)}
NO_SEVERITY = len(SEVERITY_SCALE)
"""The rank of "no alert" (after INFO), what an episode without alerts stores for the severity filter."""

SAFE_MODE = fsm_table.S9
UNKNOWN_STATE = "UNKNOWN"
STATES = (*fsm_table.STATES, UNKNOWN_STATE)
"""Every `fsm_state` an episode can show."""
DIRECTIVE, RESULT = "TaskDirectivePacket", "TaskResultPacket"
STATUS_COUNTER = {"ACCEPTED": "accepted", "ACCEPTED_WITH_WARNINGS": "warnings", "REJECTED": "rejected"}
BUDGETS = (("tokens", "tokens_used", "token_budget"), ("tool_calls", "tool_calls_used", "tool_call_budget"),
           ("time_seconds", "time_elapsed_seconds", "time_budget_seconds"), ("risk", "risk_spent", "max_loss"))
"""Budget name -> (used, limit) fields of omega.events.BudgetUsage."""
ESCALATION_SEVERITY = {"L5": "CRITICAL"}  # §4.4 level 5 (user escalation) is the top; OMEN LAYER1 is HIGH
TERMINATION_SEVERITY = {"FAILURE": "HIGH", "PARTIAL": "MEDIUM", "SUCCESS": "INFO"}
SEVERITY_POINTS = {"CRITICAL": 8, "HIGH": 4, "MEDIUM": 2, "LOW": 1, "INFO": 0}


# ------------------------------------------------------------------------------------------- helpers
def _has(ids: list[str], item: str) -> bool:
    i = bisect.bisect_left(ids, item)
    return i < len(ids) and ids[i] == item


def _with(ids: list[str], item: str) -> list[str]:
    out = list(ids)
    bisect.insort(out, item)
    return out


def _worse(a: str | None, b: str | None) -> str | None:
    """The more severe of two normalised severities (None = none)."""
    if a is None:
        return b
    if b is None:
        return a
    return a if RANK.get(a, NO_SEVERITY) <= RANK.get(b, NO_SEVERITY) else b


def _later(a: str, b: str | None) -> str:
    return a if b is None or a >= b else b


def public(doc: Mapping[str, Any]) -> JSONObject:
    """The document without its bookkeeping keys (those starting with "_"), nested objects included."""
    return {k: _public(v) for k, v in doc.items() if not k.startswith("_")}


def _public(value: Any) -> Any:
    if isinstance(value, dict):
        return public(value)
    if isinstance(value, list):
        return [_public(v) for v in value]
    return value


def trouble(doc: Mapping[str, Any]) -> int:
    """How much trouble an episode or session is in (0 = fine): safe mode 8; the top alert severity CRITICAL 8,
    HIGH 4, MEDIUM 2, LOW 1; the worst budget burn >= 1.0 adds 4, >= 0.8 adds 2; any rejected packet 2."""
    score = 8 if doc.get("safe_mode") else 0
    score += SEVERITY_POINTS.get(doc.get("top_severity") or "INFO", 0)
    burn = doc.get("max_burn")
    if isinstance(burn, int | float):
        score += 4 if burn >= 1.0 else 2 if burn >= 0.8 else 0
    if (doc.get("packets") or {}).get("rejected"):
        score += 2
    return score


# ------------------------------------------------------------------------------------------- alert feed rows
def alert_row(event: LogEvent, has_episode: Callable[[str], bool]) -> JSONObject | None:
    """The feed row (without its `seq`) of an alert, escalation or termination; None for other topics.
    `has_episode` decides only for a kind no code here knows: its subject is an episode when one exists."""
    rec = event.record
    subject = event.session_id
    time = event.timestamp or ""
    if event.topic == ALERTS:
        kind = str(rec.get("kind") or "")
        label = str(rec.get("severity") or "")
        severity = label if label in RANK else SPEC_SEVERITY.get(label, "MEDIUM")  # a record from before issue 23
        spec = rec.get("spec_severity")
        row = _row(event.natural_id, "alert", kind, severity, spec if isinstance(spec, str) else label,
                   subject, time, text_of(rec.get("message")), read_json(rec.get("details")))
        on_episode = kind in OMEN_ALERT_KINDS or (kind not in SESSION_ALERT_KINDS and has_episode(subject))
    elif event.topic == ESCALATIONS:
        level = str(rec.get("level") or "")
        row = _row(event.natural_id, "escalation", ESCALATION, ESCALATION_SEVERITY.get(level, "HIGH"), None,
                   subject, time, f"{level}: {text_of(rec.get('reason'))}", read_json(rec.get("details")))
        on_episode = level == "LAYER1" or (level != "L5" and has_episode(subject))
    elif event.topic == TERMINATIONS:
        status = str(rec.get("status") or "")
        why = rec.get("why_failed") or rec.get("why_stopped") or rec.get("answer") or rec.get("partial_answer")
        details = {"status": status, "degradation_level": rec.get("degradation_level"),
                   "confidence": number(rec.get("confidence")), "failure_type": rec.get("failure_type")}
        row = _row(event.natural_id, "termination", TERMINATION, TERMINATION_SEVERITY.get(status, "MEDIUM"), None,
                   subject, time, f"{status}: {text_of(why)}" if why else status, details)
        on_episode = False
    else:
        return None
    row["episode_id" if on_episode else "session_id"] = subject
    return row


def _row(alert_id: str, source: str, kind: str, severity: str, spec: str | None, subject: str, time: str,
         summary: str, details: Any) -> JSONObject:
    return {"alert_id": alert_id, "source": source, "kind": kind, "severity": severity, "spec_severity": spec,
            "subject_id": subject, "episode_id": None, "session_id": None, "event_time": time,
            "summary": summary, "details": details}


# ------------------------------------------------------------------------------------------- episodes
def empty_episode(episode_id: str) -> JSONObject:
    """An episode nothing is known about yet."""
    return {"episode_id": episode_id, "fsm_state": UNKNOWN_STATE, "safe_mode": False,
            "packets": {"accepted": 0, "warnings": 0, "rejected": 0}, "budgets": {}, "max_burn": None,
            "open_directives": [], "last_rejection": None, "alerts": 0, "top_severity": None, "trouble": 0,
            "last_event_time": "", "timeline": [], "_verdicts": [], "_alerts": [], "_deadlines": {}, "_directives": [],
            "_results": 0}


def open_directives(issued: list[str], results: int, deadlines: Mapping[str, str | None]) -> list[JSONObject]:
    """The directives still open, in issue order: `results` answers close the oldest directives that did not
    time out first (a timeout proves no answer came by the deadline), then the oldest timed-out ones. A function
    of the sets only, so it does not depend on how the verdicts and the alerts interleave."""
    order = [d for d in issued if d not in deadlines] + [d for d in issued if d in deadlines]
    closed = set(order[:results])
    return [{"directive_id": d, "deadline": deadlines.get(d)} for d in issued if d not in closed]


def budgets_of(usage: Mapping[str, Any]) -> dict[str, JSONObject]:
    """Budget name -> {used, limit, burn} of a BudgetUsage record."""
    out: dict[str, JSONObject] = {}
    for name, used_field, limit_field in BUDGETS:
        used, limit = number(usage.get(used_field)), number(usage.get(limit_field))
        burn = round(used / limit, 6) if used is not None and limit is not None and limit > 0 else None
        out[name] = {"used": used if used is not None else 0.0, "limit": limit, "burn": burn}
    return out


def _rejection(rec: Mapping[str, Any], time: str) -> JSONObject:
    violations = [v for v in rec.get("violations") or () if isinstance(v, dict)]
    first = next((v for v in violations if v.get("severity") == "ERROR"), violations[0] if violations else None)
    return {"packet_id": str(rec.get("packet_id") or ""), "rule": None if first is None else first.get("rule"),
            "reason": None if first is None else first.get("message"), "event_time": time}


def apply_verdict(doc: JSONObject, event: LogEvent) -> JSONObject:
    """The episode after one PacketVerdict (the same document when the verdict was already applied)."""
    if _has(doc["_verdicts"], event.natural_id):
        return doc
    rec = event.record
    new = dict(doc)
    new["_verdicts"] = _with(doc["_verdicts"], event.natural_id)
    status, time = str(rec.get("status") or ""), event.timestamp or ""
    before, after = rec.get("state_before"), rec.get("state_after")
    fsm_from = before if isinstance(before, str) else ""
    fsm_to = after if isinstance(after, str) else fsm_from
    if fsm_to:
        new["fsm_state"] = fsm_to
        new["safe_mode"] = fsm_to == SAFE_MODE
    if status in STATUS_COUNTER:
        new["packets"] = {**doc["packets"], STATUS_COUNTER[status]: doc["packets"][STATUS_COUNTER[status]] + 1}
    usage = rec.get("usage")
    if isinstance(usage, dict):
        new["budgets"] = budgets_of(usage)
        burns = [b["burn"] for b in new["budgets"].values() if b["burn"] is not None]
        new["max_burn"] = max(burns) if burns else None
    new["timeline"] = [*doc["timeline"], {
        "event_time": time, "packet_id": str(rec.get("packet_id") or ""), "status": status, "fsm_from": fsm_from,
        "fsm_to": fsm_to, "usage": {name: b["used"] for name, b in budgets_of(usage).items()}
        if isinstance(usage, dict) else {}}]
    if status == "REJECTED":
        new["last_rejection"] = _rejection(rec, time)
    else:
        packet_type, packet_id = rec.get("packet_type"), str(rec.get("packet_id") or "")
        if packet_type == DIRECTIVE and packet_id not in doc["_directives"]:
            new["_directives"] = [*doc["_directives"], packet_id]
        elif packet_type == RESULT:
            new["_results"] = doc["_results"] + 1  # which task it answers is not on the verdict
        new["open_directives"] = open_directives(new["_directives"], new["_results"], doc["_deadlines"])
    new["last_event_time"] = _later(doc["last_event_time"], time)
    new["trouble"] = trouble(new)
    return new


def apply_episode_alert(doc: JSONObject, row: Mapping[str, Any]) -> JSONObject:
    """The episode after one alert or escalation about it (unchanged when already applied)."""
    new = _alert_counted(doc, row)
    if new is None:
        return doc
    details = row.get("details")
    if row["kind"] == "TASK_TIMEOUT" and isinstance(details, dict) and isinstance(details.get("directive_packet_id"),
                                                                                 str):
        directive, deadline = details["directive_packet_id"], normalise_time(details.get("deadline"))
        new["_deadlines"] = {**doc["_deadlines"], directive: deadline}
        new["open_directives"] = open_directives(doc["_directives"], doc["_results"], new["_deadlines"])
    new["last_event_time"] = _later(doc["last_event_time"], row["event_time"] or None)
    new["trouble"] = trouble(new)
    return new


# ------------------------------------------------------------------------------------------- sessions
def empty_session(session_id: str) -> JSONObject:
    """A session nothing is known about yet."""
    return {"session_id": session_id, "iteration": 0, "messages": 0, "confidence_trend": [],
            "failure_signatures": [], "termination": None, "session_status": "RUNNING", "alerts": 0,
            "top_severity": None, "trouble": 0, "last_event_time": "", "_messages": [], "_alerts": []}


def apply_message(doc: JSONObject, event: LogEvent) -> JSONObject:
    """The session after one accepted agent message (unchanged when already applied)."""
    message = event.message
    if message is None or _has(doc["_messages"], event.natural_id):
        return doc
    new = dict(doc)
    new["_messages"] = _with(doc["_messages"], event.natural_id)
    new["messages"] = doc["messages"] + 1
    new["iteration"] = max(doc["iteration"], message.iteration)
    trend = list(doc["confidence_trend"])
    at = bisect.bisect_left([t["iteration"] for t in trend], message.iteration)
    if at == len(trend) or trend[at]["iteration"] != message.iteration:
        trend.insert(at, {"iteration": message.iteration, "messages": 0, "confidence": None, "_rated": 0,
                          "_sum": 0.0})
    entry = dict(trend[at])
    entry["messages"] += 1
    if message.confidence is not None:
        entry["_rated"] += 1
        entry["_sum"] += message.confidence
        entry["confidence"] = round(entry["_sum"] / entry["_rated"], 4)
    trend[at] = entry
    new["confidence_trend"] = trend
    new["last_event_time"] = _later(doc["last_event_time"], message.timestamp)
    return new


def apply_session_alert(doc: JSONObject, row: Mapping[str, Any]) -> JSONObject:
    """The session after one alert, escalation or termination about it (unchanged when already applied)."""
    new = _alert_counted(doc, row)
    if new is None:
        return doc
    raw = row.get("details")
    details: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
    if row["kind"] == TERMINATION:
        new["termination"] = {"report_id": row["alert_id"], "status": details.get("status"),
                              "event_time": row["event_time"], "degradation_level": details.get("degradation_level"),
                              "confidence": details.get("confidence")}
        new["session_status"] = details.get("status") or "TERMINATED"
    if row["kind"] in failures.SIGNATURES:
        new["failure_signatures"] = _signature_fired(doc["failure_signatures"], row, details)
    new["last_event_time"] = _later(doc["last_event_time"], row["event_time"] or None)
    new["trouble"] = trouble(new)
    return new


def _alert_counted(doc: JSONObject, row: Mapping[str, Any]) -> JSONObject | None:
    """A copy of the episode or session `doc` with the alert `row` counted (its id kept, the worse severity), or
    None when it already was."""
    if _has(doc["_alerts"], row["alert_id"]):
        return None
    new = dict(doc)
    new["_alerts"] = _with(doc["_alerts"], row["alert_id"])
    new["alerts"] = doc["alerts"] + 1
    new["top_severity"] = _worse(doc["top_severity"], row["severity"])
    return new


def _signature_fired(fired: list[JSONObject], row: Mapping[str, Any], details: Mapping[str, Any]) -> list[JSONObject]:
    iteration = details.get("iteration")
    old = next((f for f in fired if f["signature"] == row["kind"]), None)
    iterations = set(old["iterations"] if old else ())
    if isinstance(iteration, int) and not isinstance(iteration, bool):
        iterations.add(iteration)
    worse = old is None or RANK[row["severity"]] < RANK[old["severity"]]
    entry = {"signature": row["kind"], "severity": row["severity"] if worse else old["severity"],  # type: ignore[index]
             "spec_severity": row["spec_severity"] if worse else old["spec_severity"],  # type: ignore[index]
             "count": (old["count"] if old else 0) + 1, "iterations": sorted(iterations),
             "last_event_time": _later(old["last_event_time"] if old else "", row["event_time"] or None)}
    return sorted([*(f for f in fired if f is not old), entry], key=lambda f: str(f["signature"]))


# ------------------------------------------------------------------------------------------- one event
@dataclass
class LiveDelta:
    """What events did to the live read models: documents rewritten by id, and new feed rows in arrival order."""

    episodes: dict[str, JSONObject] = field(default_factory=dict)
    sessions: dict[str, JSONObject] = field(default_factory=dict)
    alerts: list[JSONObject] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.episodes or self.sessions or self.alerts)

    def update(self, other: LiveDelta) -> None:
        """Fold a later delta into this one (the later document of an id wins; rows append)."""
        self.episodes.update(other.episodes)
        self.sessions.update(other.sessions)
        self.alerts += other.alerts


Lookup = Callable[[str], JSONObject | None]


def reduce_live(event: LogEvent, episode: Lookup, session: Lookup) -> LiveDelta:
    """What `event` changes, given the current documents (`episode`/`session` return None when there is none)."""
    delta = LiveDelta()
    if event.topic == VERDICTS:
        old = episode(event.session_id) or empty_episode(event.session_id)
        new = apply_verdict(old, event)
        if new is not old:
            delta.episodes[event.session_id] = new
    elif event.topic == AGENT_MESSAGES:
        old = session(event.session_id) or empty_session(event.session_id)
        new = apply_message(old, event)
        if new is not old:
            delta.sessions[event.session_id] = new
    elif (row := alert_row(event, lambda s: episode(s) is not None)) is not None:
        subject = row["subject_id"]
        if row["episode_id"] is not None:
            old = episode(subject) or empty_episode(subject)
            new = apply_episode_alert(old, row)
            target = delta.episodes
        else:
            old = session(subject) or empty_session(subject)
            new = apply_session_alert(old, row)
            target = delta.sessions
        if new is not old:  # a repeated alert id changes nothing and adds no row
            target[subject] = new
            delta.alerts.append(row)
    return delta
