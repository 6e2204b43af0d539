"""The simulated sessions of tests/data/omega57: each file is read with the real message reader
(`omega.agents.messages.parse_messages`), folded through `evolve`, and must raise exactly the alerts,
escalations and termination declared for it below (and in the file's header comment)."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from omega.agents.failures import SEVERITIES, SIGNATURES
from omega.agents.messages import parse_messages
from omega.agents.model import MessageRejected, SessionEvent
from omega.agents.rules import KINDS
from omega.agents.session import SessionState, evolve, replay
from omega.agents.termination import TerminationReport
from omega.events import Alert, Escalation

DATA = Path(__file__).resolve().parents[4] / "tests" / "data" / "omega57"


@dataclass(frozen=True)
class Expected:
    """What one session file must produce."""

    alerts: tuple[tuple[str, str, int, int], ...]  # (kind, severity, iteration, escalation level), in order
    escalations: int  # level-5 escalations
    status: str
    failure_type: str | None
    degradation: int
    rejected: int = 0  # messages the reader must reject (QUARANTINED)


EXPECTED: dict[str, Expected] = {
    "clean_success": Expected((), 0, "SUCCESS", None, 0),
    "stalled_partial": Expected((
        ("AGENT_FAILURE", "MINOR", 1, 1),
        ("ITERATION_TRIGGER", "MINOR", 1, 1),
        ("CIRCULAR_REASONING", "SERIOUS", 3, 3),
        ("CIRCULAR_REASONING", "SERIOUS", 4, 4),
    ), 0, "PARTIAL", None, 2),
    "contradiction_cascade_failure": Expected((
        ("DEPLOYMENT_RULE", "MINOR", 1, 1),
        ("ITERATION_TRIGGER", "MINOR", 1, 1),
        ("CONTRADICTION_CASCADE", "SERIOUS", 2, 3),
        ("CONTRADICTION_CASCADE", "CRITICAL", 2, 4),
        ("DEPLOYMENT_RULE", "MINOR", 2, 1),
        ("ITERATION_TRIGGER", "MINOR", 2, 1),
        ("CONTRADICTION_CASCADE", "CRITICAL", 3, 5),
    ), 1, "FAILURE", "IRRECOVERABLE", 4),
    "confidence_collapse_failure": Expected((
        ("ITERATION_TRIGGER", "MINOR", 1, 1),
        ("CONFIDENCE_COLLAPSE", "SERIOUS", 2, 3),
        ("ITERATION_TRIGGER", "MINOR", 2, 1),
        ("CONFIDENCE_COLLAPSE", "CRITICAL", 3, 5),
        ("DEPLOYMENT_RULE", "MODERATE", 3, 2),
    ), 1, "FAILURE", "IRRECOVERABLE", 5),
    "agent_failures_failure": Expected((
        ("AGENT_FAILURE", "MINOR", 1, 1),
        ("AGENT_FAILURE", "MODERATE", 1, 2),
        ("AGENT_FAILURE", "SERIOUS", 1, 3),
        ("ITERATION_TRIGGER", "MINOR", 1, 1),
        ("AGENT_FAILURE", "MINOR", 2, 2),
        ("AGENT_FAILURE", "SERIOUS", 2, 4),
        ("AGENT_FAILURE", "SERIOUS", 2, 3),
        ("DEPLOYMENT_RULE", "MINOR", 2, 1),
        ("ITERATION_TRIGGER", "MINOR", 2, 1),
        ("AGENT_FAILURE", "CRITICAL", 3, 5),
    ), 1, "FAILURE", "IRRECOVERABLE", 5, rejected=5),
    "diverging_resource_failure": Expected((
        ("DEPLOYMENT_RULE", "MODERATE", 1, 2),
        ("DEPLOYMENT_RULE", "MODERATE", 2, 2),
        ("DEPLOYMENT_RULE", "MODERATE", 3, 2),
        ("CONVERGENCE_FAILURE", "SERIOUS", 4, 3),
        ("DEPLOYMENT_RULE", "MODERATE", 4, 2),
        ("RESOURCE_EXHAUSTION", "MODERATE", 5, 2),
        ("RESOURCE_EXHAUSTION", "CRITICAL", 5, 5),
    ), 1, "FAILURE", "RESOURCE", 5),
    "quality_gate_partial": Expected((
        ("DEPLOYMENT_RULE", "MINOR", 1, 1),
        ("ITERATION_TRIGGER", "MINOR", 1, 1),
        ("DEPLOYMENT_RULE", "MINOR", 2, 1),
        ("ITERATION_TRIGGER", "MINOR", 2, 1),
        ("QUALITY_GATE_FAILURE", "SERIOUS", 3, 3),
        ("DEPLOYMENT_RULE", "MINOR", 3, 1),
    ), 0, "PARTIAL", None, 2),
    "untestable_failure": Expected((), 0, "FAILURE", "INTRACTABLE", 5),
    "deployment_rules_partial": Expected((
        ("DEPLOYMENT_RULE", "MODERATE", 1, 2),
        ("DEPLOYMENT_RULE", "MODERATE", 1, 2),
        ("ITERATION_TRIGGER", "MINOR", 1, 1),
        ("DEPLOYMENT_RULE", "MINOR", 2, 1),
    ), 0, "PARTIAL", None, 2),
}


def events_of(name: str) -> list[SessionEvent]:
    path = DATA / f"{name}.yaml"
    return list(parse_messages(path.read_text(encoding="utf-8"), name, source=path.name))


def judged(name: str) -> tuple[SessionState, list[Any]]:
    state, outputs = replay(events_of(name))
    assert state is not None
    return state, outputs


def summary(outputs: list[Any]) -> tuple[tuple[str, str, int, int], ...]:
    return tuple((a.kind, a.severity, a.details["iteration"], a.details["escalation"]["level"])
                 for a in outputs if isinstance(a, Alert))


# ------------------------------------------------------------------------------------------- per file
def test_every_session_file_has_an_expectation() -> None:
    assert sorted(p.stem for p in DATA.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_session_file_is_realistic_and_long_enough(name: str) -> None:
    events = events_of(name)
    assert len(events) >= 40
    assert sum(isinstance(e, MessageRejected) for e in events) == EXPECTED[name].rejected
    assert len({e.message_id for e in events}) == len(events)
    header = (DATA / f"{name}.yaml").read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith(f"# {name}:")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_session_file_raises_exactly_its_expected_outputs(name: str) -> None:
    expected = EXPECTED[name]
    _, outputs = judged(name)
    assert summary(outputs) == expected.alerts
    escalations = [o for o in outputs if isinstance(o, Escalation)]
    assert len(escalations) == expected.escalations
    assert all(e.level == "L5" for e in escalations)
    reports = [o for o in outputs if isinstance(o, TerminationReport)]
    assert len(reports) == 1
    report = reports[0]
    assert (report.status, report.failure_type, report.degradation_level) == \
        (expected.status, expected.failure_type, expected.degradation)
    assert outputs[-1] is report  # after the report, messages are recorded but raise nothing
    ids = [o.alert_id for o in outputs if isinstance(o, Alert)] + \
        [o.escalation_id for o in outputs if isinstance(o, Escalation)]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_session_file_replays_identically_and_survives_redelivery(name: str) -> None:
    events = events_of(name)
    state1, outputs1 = replay(events)
    state2, outputs2 = replay(events)
    assert outputs1 == outputs2
    assert state1 is not None
    assert state2 is not None
    assert state1.to_dict() == state2.to_dict()
    state: SessionState | None = None
    redelivered: list[Any] = []
    for event in events:  # every message delivered twice, the state persisted through JSON in between
        state, out = evolve(state, event)
        state = SessionState.from_dict(json.loads(json.dumps(state.to_dict())))
        again_state, again = evolve(state, event)
        assert again == out
        assert again_state is state
        redelivered += out
    assert redelivered == outputs1


def test_the_clean_session_ships_its_answer() -> None:
    state, outputs = judged("clean_success")
    (report,) = outputs
    assert isinstance(report, TerminationReport)
    assert report.answer is not None
    assert report.answer.startswith("Move the ledger to event sourcing")
    assert report.verified_by == (27, 32)
    assert 44 in (report.survived_attacks_from or ())
    assert state.hypotheses_active == ()
    assert state.contradictions_unresolved == ()
    assert state.problem.stakes == "MEDIUM"


def test_the_deployment_rules_session_names_its_rules_triggers_and_sources() -> None:
    _, outputs = judged("deployment_rules_partial")
    events = events_of("deployment_rules_partial")
    rules = [o for o in outputs if isinstance(o, Alert) and o.kind in KINDS]
    listed = [[x["check"] for x in a.details["rules" if a.kind == "DEPLOYMENT_RULE" else "triggers"]] for a in rules]
    assert listed == [["r_1_3_3_parallel_limit"], ["r_1_3_2_mandatory_agents"],
                      ["t_1_3_4_low_confidence", "t_1_3_4_gap_identified", "t_1_3_4_outputs_conflict",
                       "t_1_3_4_qc_rejects"], ["r_1_3_3_batch_order"]]
    eleventh = [e for e in events if getattr(e, "agent_tier", None) == "GENESIS"][10]
    assert rules[0].source_event_id == eleventh.message_id  # as soon as the batch holds 11 agents
    closing = [e.message_id for e in events if getattr(e, "agent_id", None) == 57 and e.iteration == 1][-1]
    assert {a.source_event_id for a in rules[1:3]} == {closing}
    assert rules[1].details["rules"][0]["missing"] == [48]


# ------------------------------------------------------------------------------------------- coverage
def test_the_files_together_cover_every_signature_severity_and_outcome() -> None:
    alerts = {a for e in EXPECTED.values() for a in e.alerts}
    assert {kind for kind, _, _, _ in alerts} == {*SIGNATURES, *KINDS}
    assert {severity for _, severity, _, _ in alerts} == set(SEVERITIES)
    assert {level for _, _, _, level in alerts} == {1, 2, 3, 4, 5}
    assert {e.status for e in EXPECTED.values()} == {"SUCCESS", "PARTIAL", "FAILURE"}
    assert any(e.status == "SUCCESS" and not e.alerts for e in EXPECTED.values())


# ------------------------------------------------------------------------------------------- generator
def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("omega57_generate", DATA / "generate.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_files_are_what_the_generator_writes() -> None:
    generator = _generator()
    for build in generator.ALL_SESSIONS:
        session = build()
        assert (DATA / f"{session.name}.yaml").read_text(encoding="utf-8") == session.text(), session.name
