"""Random legal episodes built with the kit are ACCEPTED, every packet, with no warning.

The walk follows the transition table of fsm-transitions-v0.7.md: observations (S1) -> belief updates (S2) ->
a decision (S3), then by its outcome
* VERIFY_FIRST (S4): plan, READ directive, SUCCESS result, maybe an observation, a belief update citing the
  result (S2), and a new decision;
* ACT: READ directives and their results (S6), or a Layer 1 token (S5) and WRITE directives quoting it (S6),
  then a closing belief update (S7) and maybe doctrine updates (S7);
* ESCALATE (S8): one or two escalations, then the pilot's ACT decision (S3) and a READ act;
* DEFER / CANCEL (S7): a belief update;
and from S7 maybe a new sense cycle; INFO/WARNING Integrity alerts come out of band. Values are random within
what the invariants ask of a legal episode:
stakes levels justified by their axes, SUPERB tier at HIGH stakes, live evidence younger than
`stale_if_older_than_seconds`, budgets the results stay inside, tokens with room for every write, every
directive answered before its deadline. Sometimes the episode signs and is judged under the signing policy.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omega.packets.authenticity import AuthKey, AuthPolicy
from omega.packets.ledger import EpisodeLedger
from omega.packets.validator import evolve
from omega.packets.verdict import PacketVerdict, VerdictStatus
from omega.producer.mcp import Budgets, EvidenceRef, RiskBudget
from omega.producer.payloads import BeliefChange
from tests.unit.omega.producer.builders import CANONICAL_MEDIUM, HIGH, LOW, MEDIUM, OPTIONS, Steps, ref

POLICY = AuthPolicy.of({"governor": AuthKey(b"a-layer-one-secret", frozenset({"1"})),
                        "overlay": AuthKey(b"an-integrity-secret", frozenset({"Integrity"}))})
ROOMY = Budgets(token_budget=100_000, tool_call_budget=100, time_budget_seconds=600,
                risk_budget=RiskBudget(envelope="low", max_loss="small"))
OUTCOMES = ("VERIFY_FIRST", "ACT", "ESCALATE", "DEFER", "CANCEL")


class Walk:
    """One episode being written: its steps, the event time, the latest live evidence and what to cite."""

    def __init__(self, draw: st.DrawFn, steps: Steps) -> None:
        self.draw, self.s, self.t = draw, steps, 0.0
        self.live: EvidenceRef | None = None
        self.cites: list[str] = []
        self.tasks = 0

    def tick(self) -> float:
        self.t += self.draw(st.integers(1, 20))
        return self.t

    def sense(self) -> None:
        for _ in range(self.draw(st.integers(1, 3))):
            source = self.draw(st.sampled_from(("tool_output", "user_observation")))
            t = self.tick()
            obs = self.s.observation(t, source=source,
                                     data={"hostiles_in_local": self.draw(st.integers(0, 30))})
            self.live = ref(source, f"{'tool' if source == 'tool_output' else 'user'}://obs/{t}", t)
            self.cites = [obs.header.packet_id]
        if self.draw(st.booleans()):  # out of band in any state: an Integrity notice that is not CRITICAL
            self.s.alert(self.tick(), severity=self.draw(st.sampled_from(("INFO", "WARNING"))),
                         alert_type="drift_detected", action="none")

    def model(self, count: int | None = None) -> None:
        for _ in range(count or self.draw(st.integers(1, 2))):
            self.belief()

    def belief(self, update_type: str | None = None) -> None:
        assert self.live is not None
        new = self.draw(st.integers(0, 100) | st.text(max_size=6) | st.booleans())
        self.s.belief(self.tick(), refs=[self.live], cites=self.cites, update_type=update_type or self.draw(
            st.sampled_from(("new_belief", "revision", "confidence_adjustment", "staleness_refresh"))),
            change=BeliefChange(domain="threats", key=self.draw(st.sampled_from(("local", "gate"))),
                                new_value=new, prior_value="unknown"))

    def decide(self, outcome: str) -> str:
        assert self.live is not None
        extra: dict[str, Any] = {}
        if self.draw(st.booleans()):  # an arbitrated decision documents its Stage 3 (INV-006)
            extra = {"chosen_option": {"option_id": "opt_a", "expected_value": self.draw(st.floats(-10, 10))},
                     "rejected_alternatives": [{"option_id": "opt_b", "rejection_reason": "lower expected value"}]}
        return self.s.decision(self.tick(), outcome=outcome, refs=[self.live], extra=extra).header.packet_id

    def read(self, task_class: str = "LOOKUP") -> None:
        assert self.live is not None
        self.tasks += 1
        task = f"task_{self.tasks}"
        directive = self.s.directive(self.tick(), task_id=task, refs=[self.live], task_class=task_class)
        t = self.tick()
        result = self.s.result(t, task_id=task, directive_id=directive.header.packet_id,
                               tokens=self.draw(st.integers(0, 500)), calls=1, task_class=task_class)
        self.live, self.cites = ref("tool_output", f"tool://{task}", t), [result.header.packet_id]
        if self.draw(st.booleans()):
            self.sense_in_place()

    def sense_in_place(self) -> None:
        """An observation inside S4_VERIFY or S6_EXECUTE (evidence collected; the state stays)."""
        t = self.tick()
        self.s.observation(t)
        self.live = ref("tool_output", f"tool://obs/{t}", t)

    def write(self) -> None:
        assert self.live is not None
        writes = self.draw(st.integers(1, 3))
        token_id = f"token_w{self.tasks}"
        self.s.token(self.tick(), token_id=token_id, expiry_t=self.t + 600, refs=[self.live],
                     max_usage=writes + self.draw(st.integers(0, 2)))
        for _ in range(writes):
            self.tasks += 1
            task = f"task_{self.tasks}"
            directive = self.s.directive(self.tick(), task_id=task, refs=[self.live], tool="esi_market_order",
                                         safety="WRITE", token_id=token_id, params={"quantity": 5},
                                         task_class="CREATE")
            t = self.tick()
            result = self.s.result(t, task_id=task, directive_id=directive.header.packet_id, tokens=50,
                                   task_class="CREATE")
            self.live, self.cites = ref("tool_output", f"tool://{task}", t), [result.header.packet_id]

    def act(self) -> None:
        if self.draw(st.booleans()):
            self.write()
        else:
            for _ in range(self.draw(st.integers(1, 3))):
                self.read()
        self.belief()  # execution complete: S6 -> S7
        for _ in range(self.draw(st.integers(0, 2))):
            self.belief("staleness_refresh")  # doctrine updates: S7 -> S7

    def after(self, outcome: str, decision_id: str, high: bool) -> None:
        if outcome == "VERIFY_FIRST":
            assert self.live is not None
            self.s.plan(self.tick(), decision_id=decision_id, refs=[self.live])
            self.read("VERIFY")
            self.belief("confidence_adjustment")  # cites the result: closes the loop, S4 -> S2
            outcome = self.draw(st.sampled_from(("ACT", "ESCALATE", "DEFER", "CANCEL")))
            self.after(outcome, self.decide(outcome), high)
        elif outcome == "ACT":
            self.act()
        elif outcome == "ESCALATE":
            assert self.live is not None
            for _ in range(self.draw(st.integers(1, 2))):
                self.s.escalation(self.tick(), trigger=self.draw(st.sampled_from(
                    ("high_stakes_high_uncertainty", "user_override_required"))), refs=[self.live],
                    blocking=decision_id, options=OPTIONS[: self.draw(st.integers(2, 3))])
            self.decide("ACT")  # the pilot's answer: S8 -> S3
            self.act()
        else:  # DEFER / CANCEL: S3 -> S7
            self.belief()


@st.composite
def legal_episodes(draw: st.DrawFn) -> tuple[list[dict[str, Any]], AuthPolicy | None]:
    stakes = draw(st.sampled_from((LOW, MEDIUM, CANONICAL_MEDIUM, HIGH)))
    high = stakes is HIGH
    signing = draw(st.sampled_from((None, POLICY)))
    walk = Walk(draw, Steps(f"corr_{draw(st.integers(0, 10**6))}", stakes=stakes, tier="SUPERB" if high else "PAR",
                            budgets=ROOMY, signing=signing))
    for cycle in range(draw(st.integers(1, 2))):
        walk.sense()  # S0/S7 -> S1
        walk.model()
        # INV-003: at HIGH stakes, ACT needs every load-bearing assumption verified: verify first there
        outcome = "VERIFY_FIRST" if high and cycle == 0 else draw(st.sampled_from(OUTCOMES))
        walk.after(outcome, walk.decide(outcome), high)
    return walk.s.packets, signing


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(legal_episodes())
def test_every_packet_of_a_random_legal_episode_is_accepted(
        episode: tuple[list[dict[str, Any]], AuthPolicy | None]) -> None:
    packets, policy = episode
    ledger: EpisodeLedger | None = None
    for packet in packets:
        ledger, outputs = evolve(ledger, packet, policy)
        verdict = outputs[0]
        assert isinstance(verdict, PacketVerdict)
        assert (verdict.status, verdict.violations) == (VerdictStatus.ACCEPTED, ()), (
            verdict.packet_id, verdict.state_before, verdict.state_after)
        assert len(outputs) == 1  # no alert, no escalation
    assert ledger is not None
    assert ledger.state == "S7_REVIEW"  # every walk ends executed, deferred or cancelled, then reviewed
