"""Writes the simulated OMEGA-57 sessions of this directory (deterministic: same files on every run).

Run from the repository root: `.venv/bin/python tests/data/omega57/generate.py`. Each session is one YAML
stream, one `---` document per §2.1 message (top-level `message:` key), agent names and tiers as in
Appendix A.1; what each session must trigger is stated in its header comment and checked by
tests/unit/omega/agents/test_sessions_files.py.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from omega.agents.roster import AGENTS  # noqa: E402 - the repository root is on the path only now

Ref = tuple[str, int, str]  # (type, source_agent, source_element)


class _Dumper(yaml.SafeDumper):
    """Block style, no anchors or aliases (the message reader refuses aliases)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _list(dumper: yaml.SafeDumper, data: list[Any]) -> yaml.Node:
    # Lists of agent ids read better on one line; lists of mappings stay in block style.
    flow = all(isinstance(x, int | float | str) for x in data) and len(str(data)) < 90
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_Dumper.add_representer(list, _list)


class Session:
    """A session being written: messages in order, event time advancing with each."""

    def __init__(self, name: str, start: str, description: str) -> None:
        self.name = name
        self.description = description
        self.time = datetime.fromisoformat(start).replace(tzinfo=UTC)
        self.docs: list[dict[str, Any]] = []
        self.last_verdict: dict[int, str] = {}

    def say(self, agent: int, iteration: int, tag: str, text: str, confidence: float, *, basis: str = "",
            content: dict[str, Any] | None = None, uses: tuple[tuple[int, str, str], ...] = (),
            refs: tuple[Ref, ...] = (), outputs_for: tuple[int, ...] = (57, 53), tokens: int = 2400,
            responding_to: int | str = "PHI_QUERY", step: int = 75, tier: int = 0, notes: str | None = None,
            contradiction_with: int | None = None, requires_resolution: bool = False, blocks_progress: bool = False,
            flag_extras: dict[str, Any] | None = None, broken: dict[str, Any] | None = None,
            batch: str | None = None) -> None:
        """One message of `agent`; `broken` patches blocks after building, to make an invalid message;
        `batch` states the §1.3.3 batch in the header (else the tier's batch applies)."""
        self.time += timedelta(seconds=step)
        row = AGENTS[agent]
        # The Tier 0 line names the weightiest flag only: it must fit in 100 characters (§2.1, §5.1).
        flag = next((n for n, on in (("blocks_progress", blocks_progress),
                                     ("requires_resolution", requires_resolution),
                                     ("contradiction", contradiction_with is not None),
                                     ("confidence_critical", confidence < 0.3)) if on), "none")
        verdict = f"[{tag}] {text} | CONF: {round(confidence * 100)}% | FLAGS: {flag}"
        assert len(verdict) <= 100, f"verdict longer than 100 chars: {verdict}"
        message: dict[str, Any] = {
            "header": {"agent_id": agent, "agent_name": row.name, "agent_tier": row.tier,
                       "timestamp": self.time.strftime("%Y-%m-%dT%H:%M:%SZ"), "iteration": iteration,
                       "responding_to": responding_to, **({"batch": batch} if batch is not None else {})},
            "summary": {"verdict": verdict, "confidence": confidence,
                        "confidence_basis": basis or f"{row.function.lower()} analysis of the current inputs"},
            "body": {"tier": tier, "content": content or {"finding": text}},
            "dependencies": {"inputs_used": [{"agent_id": a, "element": e, "how_used": h} for a, e, h in uses],
                             "outputs_for": list(outputs_for)},
            "flags": {"contradiction_detected": contradiction_with is not None,
                      "contradiction_with": contradiction_with, "requires_resolution": requires_resolution,
                      "blocks_progress": blocks_progress, "confidence_critical": confidence < 0.3,
                      **(flag_extras or {})},
            "meta": {"tokens_used": tokens, **({"processing_notes": notes} if notes else {})},
        }
        # A reference to a whole output quotes the source's latest verdict text, as agents do.
        refs = tuple((kind, source, element or self.last_verdict.get(source, "verdict"))
                     for kind, source, element in refs)
        self.last_verdict[agent] = text
        if refs:
            message["references"] = [
                {"type": kind, "source_agent": source, "source_element": element,
                 "relationship": f"{kind.lower()} agent {source}'s finding", "confidence_impact":
                     {"SUPPORTS": "raises", "CONTRADICTS": "lowers", "QUALIFIES": "narrows"}.get(kind, "none")}
                for kind, source, element in refs]
        for block, patch in (broken or {}).items():
            message[block] = {**message[block], **patch}
        self.docs.append({"message": message})

    def phi(self, iteration: int, tag: str, text: str, content: dict[str, Any], **kw: Any) -> None:
        """A PHI (57) message."""
        self.say(57, iteration, tag, text, kw.pop("confidence", 0.9), content=content,
                 outputs_for=kw.pop("outputs_for", (53,)), **kw)

    def memory(self, iteration: int, text: str, **kw: Any) -> None:
        """A Session Memory (53) record."""
        self.say(53, iteration, "RECORDED", text, 0.95, content={"recorded": text}, outputs_for=(57,),
                 tokens=kw.pop("tokens", 900), **kw)

    def text(self) -> str:
        """The YAML stream, with the description as a header comment."""
        header = "".join(f"# {line}".rstrip() + "\n" for line in self.description.strip().splitlines())
        return header + "".join("---\n" + yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                                                     width=110) for doc in self.docs)

    def write(self) -> Path:
        """Writes `<name>.yaml` beside this script."""
        path = HERE / f"{self.name}.yaml"
        path.write_text(self.text(), encoding="utf-8")
        return path


def initial(s: Session, statement: str, classification: str, stakes: str, deploy: list[int], *,
            tokens: int = 600_000, seconds: int = 14_400, uncertainty: str = "MEDIUM") -> None:
    """PHI's INITIAL message: the problem, the stakes, the budget and the first deployment."""
    s.phi(1, "QUERY", f"{classification}, {stakes} stakes; deploying {len(deploy)} agents", {
        "problem": {"statement": statement, "classification": classification, "stakes": stakes,
                    "uncertainty": uncertainty},
        "budget": {"tokens": tokens, "seconds": seconds}, "deploy": deploy}, responding_to="INITIAL", tier=1)


# ------------------------------------------------------------------------------------------- the sessions
def clean_success() -> Session:
    s = Session("clean_success", "2026-01-26T09:00:00", """
clean_success: a two-iteration session that converges and ships; it must raise no alert at all.
Expected: no alert, no escalation; termination SUCCESS at the end of iteration 2 (degradation level 0).
Iteration 1 explores, verifies and attacks in the §1.3.3 batch order; the Conflict Resolver settles the
sampling dispute within it, and the Quality Controller holds (no §1.3.4 trigger: nothing is left open).
Iteration 2 details the rollback path, re-samples, attacks again, confirms the hypotheses (a final
verification after the synthesis batch started), and ships. Every §1.3 deployment rule is kept.
""")
    h1, h2, h3 = ("Event sourcing suits the ledger", "A phased migration fits the quarter",
                  "Operational risk outweighs the benefits")
    initial(s, "Should the payments team move the ledger service to event sourcing this quarter?",
            "NORMATIVE/STRATEGIC", "MEDIUM", [1, 2, 3, 4, 8, 9, 14, 21, 24, 27, 31, 32, 36, 41, 44, 46, 48, 49, 50,
                                              51, 52, 53])
    s.memory(1, "session opened; problem, stakes and budget logged")
    s.say(1, 1, "PROPOSES", "Ledger is append-only by nature: event sourcing fits", 0.78,
          content={"hypothesis": h1, "axioms": ["balances derive from postings", "postings are immutable"]})
    s.say(2, 1, "SUPPORTS", "Audit queries are 40% of read load; replay would serve them", 0.72,
          refs=(("SUPPORTS", 1, h1),),
          content={"evidence": {"evidence": "audit queries are 40% of read load", "supports": [h1]}})
    s.say(3, 1, "CONSTRAINS", "Quarter deadline and PCI scope bound the migration", 0.8,
          content={"hypothesis": h2, "constraints": ["ship by end of quarter", "no PCI scope growth"]})
    s.say(4, 1, "DECOMPOSES", "Split into write path, projections and backfill", 0.76,
          content={"sub_problems": ["write path", "projections", "backfill"]})
    s.say(8, 1, "ANALOGY", "Core banking systems adopted the same pattern", 0.66, refs=(("EXTENDS", 1, h1),))
    s.say(9, 1, "CAUTION", "Team has no event-store operations experience", 0.6, content={"hypothesis": h3})
    s.say(14, 1, "INSIGHT", "Rebuilt projections can correct past reporting bugs", 0.7)
    s.say(21, 1, "FORMALIZES", "Ledger as a fold over postings; invariants stated", 0.74,
          refs=(("USES", 1, h1), ("USES", 3, h2)), uses=((1, h1, "premise"), (3, h2, "constraint")), tier=1)
    s.say(24, 1, "MODELS", "Backfill load peaks at 3x baseline, within capacity", 0.71, refs=(("USES", 4, ""),))
    s.say(27, 1, "SUPPORTS", "Fold formalization is sound", 0.82, refs=(("SUPPORTS", 21, ""), ("SUPPORTS", 1, h1)))
    s.say(32, 1, "SUPPORTS", "Load test confirms the audit query offload", 0.8, refs=(("SUPPORTS", 2, ""),))
    s.say(31, 1, "NO CRITICAL GAPS", "Backfill rollback path needs detail; not blocking", 0.7,
          content={"critical_gaps": [], "minor_gaps": ["backfill rollback path detail"]})
    s.say(44, 1, "QUALIFIES", "Strongest case against is ops risk; not decisive", 0.6,
          refs=(("QUALIFIES", 1, h1),), content={"defeated": False})
    s.say(41, 1, "EXPOSES", "Plan assumes the event schema stays stable", 0.65, refs=(("QUALIFIES", 21, ""),))
    s.say(36, 1, "CONTRADICTS", "Audit share was measured on one week only", 0.55,
          refs=(("CONTRADICTS", 2, "audit queries are 40% of read load"),), contradiction_with=2)
    s.say(46, 1, "SURVIVES", "Core survives: phased move with a rollback path", 0.7)
    s.say(50, 1, "RESOLVED", "Sampling dispute settled by the direct load test", 0.78, responding_to=36,
          content={"resolves": [[36, 2]], "resolution": "the load test (32) measured the audit offload directly"})
    s.say(49, 1, "CONSENSUS", "Broad agreement on a phased approach", 0.72)
    s.say(51, 1, "SYNTHESIS", "Phased migration, rollback plan first", 0.7,
          content={"answer": "Migrate in phases once a rollback path exists"})
    s.say(48, 1, "PROGRESSING", "Nine new claims; hypotheses still open", 0.8, content={"new_claims": 9})
    s.say(52, 1, "HOLD", "Hypotheses unconfirmed; rollback path needs detail", 0.82,
          content={"pending": ["hypothesis confirmation", "rollback path detail"]})
    s.memory(1, "iteration 1 state saved")
    s.phi(1, "END_ITERATION", "Detail the rollback path, then confirm the hypotheses", {
        "action": "END_ITERATION", "decision": {"decision": "Detail rollback and re-sample before shipping",
                                                "basis": "Quality Controller hold", "reversible": True}})
    # ---- iteration 2
    s.phi(2, "DEPLOY", "Rollback design, re-sampling, verification, attack", {
        "deploy": [2, 3, 4, 21, 27, 28, 31, 32, 36, 40, 44, 46, 48, 49, 51, 52, 53]})
    s.memory(2, "iteration 2 opened")
    s.say(3, 2, "CONSTRAINS", "Rollback via a two-week dual-write window", 0.8,
          content={"commitment": "keep dual writes for two weeks"})
    s.say(4, 2, "DECOMPOSES", "Backfill split per account shard, each reversible", 0.78)
    s.say(2, 2, "SUPPORTS", "Four-week sample puts audit share at 37-42%", 0.8,
          content={"evidence": {"evidence": "four-week sample puts audit share at 37-42%", "supports": [h1],
                                "strength": "STRONG"}})
    s.say(21, 2, "FORMALIZES", "Dual-write invariant: projections equal legacy reads", 0.8,
          refs=(("USES", 3, ""), ("USES", 4, "")), tier=1)
    s.say(32, 2, "SUPPORTS", "Shadow run matched legacy balances for 30 days", 0.85, refs=(("SUPPORTS", 1, h1),))
    s.say(27, 2, "SUPPORTS", "Rollback reasoning holds step by step", 0.84, refs=(("SUPPORTS", 21, ""),))
    s.say(31, 2, "NO CRITICAL GAPS", "Rollback path is now specified", 0.8, content={"critical_gaps": []})
    s.say(36, 2, "SUPPORTS", "Larger sample answers my sampling objection", 0.7, refs=(("SUPPORTS", 2, ""),))
    s.say(44, 2, "ATTACK FAILED", "Best case against does not defeat the phased plan", 0.72,
          refs=(("SUPPORTS", 1, h1),), content={"defeated": False})
    s.say(40, 2, "NO CRITICAL GAPS", "Completeness attack found only minor gaps", 0.74, content={"critical_gaps": []})
    s.say(46, 2, "SURVIVABLE CORE", "Phased move with dual writes survives all attacks", 0.78)
    s.say(49, 2, "CONSENSUS", "All tiers agree on the phased migration", 0.8)
    s.say(28, 2, "CONFIRMED", "Argument trees for the plan hold", 0.83, content={"hypothesis_resolved": [
        {"statement": h1, "resolution": "CONFIRMED", "basis": "shadow run and load test"},
        {"statement": h2, "resolution": "CONFIRMED", "basis": "per-shard backfill fits the quarter"},
        {"statement": h3, "resolution": "REJECTED", "basis": "dual-write window bounds the ops risk"}]})
    s.say(51, 2, "SYNTHESIS", "Migrate in three phases with two weeks of dual writes", 0.8, tier=2, content={
        "answer": "Move the ledger to event sourcing this quarter in three phases, keeping dual writes for two "
                  "weeks as the rollback path."})
    s.say(48, 2, "CONVERGED", "No new hypotheses; every open question closed", 0.85,
          content={"converged": True, "new_claims": 6})
    s.say(52, 2, "SHIP", "Verified, attacked, gaps closed", 0.86)
    s.memory(2, "iteration 2 state saved; answer recorded")
    s.phi(2, "END_ITERATION", "Success conditions met; closing iteration 2", {"action": "END_ITERATION"})
    return s


def stalled_partial() -> Session:
    s = Session("stalled_partial", "2026-02-03T13:00:00", """
stalled_partial: the agents keep restating the same conclusions (circular reasoning, §4.1.1).
Expected: AGENT_FAILURE MINOR (Random Explorer 16, confidence 22%, iteration 1);
CIRCULAR_REASONING SERIOUS at the end of iteration 3 (no new claims in iterations 2 and 3; recovery PIVOT);
CIRCULAR_REASONING SERIOUS again at the end of iteration 4 (the pivot's agents restate the same findings;
recovery ADMIT, escalation level 4); termination PARTIAL there: stuck after recovery, with a verified claim
and a partial answer.
§1.3: ITERATION_TRIGGER MINOR at the end of iteration 1 (the Quality Controller rejects).
""")
    h1, h2 = "The new mandatory address field adds checkout friction", "The drop is a seasonal dip"
    initial(s, "Why did checkout conversion drop 8% after the March release?", "EMPIRICAL/CAUSAL", "MEDIUM",
            [2, 9, 10, 11, 16, 24, 32, 33, 39, 48, 51, 52, 53])
    s.memory(1, "session opened")

    def rerun(iteration: int) -> None:
        # The same agents restate their iteration-1 conclusions word for word.
        s.say(2, iteration, "SUPPORTS", "Funnel shows the drop at the address step", 0.7, refs=(("SUPPORTS", 2, h1),))
        s.say(9, iteration, "CAUTION", "Feels seasonal: March dips every year", 0.55)
        s.say(10, iteration, "PATTERN", "Same dip pattern as the 2024 form change", 0.62)
        s.say(11, iteration, "SALIENT", "Mobile users account for most of the drop", 0.6)
        s.say(24, iteration, "MODELS", "Funnel model attributes 5 of 8 points to one step", 0.6,
              refs=(("USES", 2, ""),))
        s.say(33, iteration, "UNCERTAIN", "Causal link plausible; seasonality not excluded", 0.5,
              refs=(("QUALIFIES", 2, ""),))
        s.say(39, iteration, "QUALIFIES", "Seasonality confounds the before/after comparison", 0.6,
              refs=(("QUALIFIES", 2, ""),))

    s.say(2, 1, "SUPPORTS", "Funnel shows the drop at the address step", 0.7, content={"hypothesis": h1})
    s.say(9, 1, "CAUTION", "Feels seasonal: March dips every year", 0.55, content={"hypothesis": h2})
    s.say(10, 1, "PATTERN", "Same dip pattern as the 2024 form change", 0.62)
    s.say(11, 1, "SALIENT", "Mobile users account for most of the drop", 0.6)
    s.say(16, 1, "RANDOM", "Maybe the new button color matters", 0.22,
          basis="a random probe, no data behind it")
    s.say(24, 1, "MODELS", "Funnel model attributes 5 of 8 points to one step", 0.6, refs=(("USES", 2, ""),))
    s.say(32, 1, "SUPPORTS", "A/B holdout confirms the address step loses users", 0.78,
          refs=(("SUPPORTS", 2, ""),), content={"evidence": {"evidence": "holdout without the field converts 4% "
                                                                        "better", "supports": [h1]}})
    s.say(33, 1, "UNCERTAIN", "Causal link plausible; seasonality not excluded", 0.5, refs=(("QUALIFIES", 2, ""),))
    s.say(39, 1, "QUALIFIES", "Seasonality confounds the before/after comparison", 0.6,
          refs=(("QUALIFIES", 2, ""),))
    s.say(51, 1, "SYNTHESIS", "Likely the address field; seasonality unresolved", 0.6,
          content={"answer": "The new mandatory address field likely explains most of the drop; a seasonal "
                             "share is not excluded."})
    s.say(48, 1, "PROGRESSING", "Seven new claims this iteration", 0.8, content={"new_claims": 7})
    s.say(52, 1, "REJECT", "Cause not isolated from seasonality", 0.8)
    s.phi(1, "END_ITERATION", "Re-run the causal analysis", {"action": "END_ITERATION"})
    for iteration in (2, 3):
        s.phi(iteration, "DEPLOY", "Re-run causal analysis with the same team", {"deploy": [2, 9, 10, 11, 24, 33, 39]})
        s.memory(iteration, f"iteration {iteration} opened")
        rerun(iteration)
        s.say(48, iteration, "STALLED", "No new claims this iteration", 0.8, content={"new_claims": 0})
        s.say(52, iteration, "HOLD", "Nothing new to review", 0.75)
        s.phi(iteration, "END_ITERATION", f"Closing iteration {iteration}", {"action": "END_ITERATION"})
    # ---- iteration 4: the recommended PIVOT brings new agents, who restate the same findings.
    s.phi(4, "PIVOT", "Pivot to a fresh GENESIS selection", {
        "decision": {"decision": "Pivot: new GENESIS selection on the funnel question", "basis": "circular reasoning"},
        "deploy": [5, 6, 12, 13, 2, 24, 33, 39]})
    s.memory(4, "iteration 4 opened after the pivot")
    s.say(5, 4, "SUPPORTS", "Funnel shows the drop at the address step", 0.66)
    s.say(6, 4, "CAUTION", "Feels seasonal: March dips every year", 0.55)
    s.say(12, 4, "SALIENT", "Mobile users account for most of the drop", 0.6)
    s.say(13, 4, "PATTERN", "Same dip pattern as the 2024 form change", 0.58)
    s.say(24, 4, "MODELS", "Funnel model attributes 5 of 8 points to one step", 0.6, refs=(("USES", 2, ""),))
    s.say(33, 4, "UNCERTAIN", "Causal link plausible; seasonality not excluded", 0.5, refs=(("QUALIFIES", 2, ""),))
    s.say(39, 4, "QUALIFIES", "Seasonality confounds the before/after comparison", 0.6, refs=(("QUALIFIES", 2, ""),))
    s.say(48, 4, "STALLED", "The pivot produced no new claims", 0.8, content={"new_claims": 0})
    s.say(52, 4, "HOLD", "Nothing new to review", 0.75)
    s.phi(4, "END_ITERATION", "Closing iteration 4", {"action": "END_ITERATION"})
    return s


def contradiction_cascade_failure() -> Session:
    s = Session("contradiction_cascade_failure", "2026-02-10T08:30:00", """
contradiction_cascade_failure: adversaries open FATAL contradictions faster than the Conflict Resolver closes them.
Expected: CONTRADICTION_CASCADE SERIOUS in iteration 2 (4 unresolved > A.3 limit 3; DEPLOY_CONFLICT_RESOLVER);
CONTRADICTION_CASCADE CRITICAL in iteration 2 (4 FATAL unresolved; PHI_JUDGEMENT, level 4);
CONTRADICTION_CASCADE CRITICAL again in iteration 3 (still 4 FATAL; PRESENT_TO_USER, level 5) with an
Escalation L5; termination FAILURE IRRECOVERABLE when the Conflict Resolver declares the cascade
unresolvable (degradation level 4: the Clarity Optimizer clarified the problem). The messages after that are
recorded and raise nothing.
§1.3: DEPLOYMENT_RULE MINOR at the end of iterations 1 and 2 (batch order: the Clarity Optimizer before the
GENESIS batch; the Conflict Resolver amid the attacks, the Contradiction Embracer after them);
ITERATION_TRIGGER MINOR at the end of iterations 1 and 2 (new contradictions unresolved, QC rejects).
""")
    h1 = "The cache TTL causes the stale reads"
    initial(s, "Does the new caching layer cause the intermittent stale-read incidents?", "EMPIRICAL/CAUSAL",
            "HIGH", [1, 2, 10, 15, 17, 19, 21, 25, 30, 33, 39, 48, 52, 53], uncertainty="HIGH")
    s.memory(1, "session opened")
    s.say(47, 1, "CLARIFIES", "Stale read means a value older than the last commit", 0.8,
          content={"clarified_statement": "Do reads through the caching layer return values older than the last "
                                          "committed write, and does the cache cause the incidents?"})
    s.say(1, 1, "PROPOSES", "A cache serving past its TTL would explain every incident", 0.7,
          content={"hypothesis": h1})
    s.say(2, 1, "SUPPORTS", "Incidents cluster after cache deploys", 0.68, refs=(("SUPPORTS", 1, h1),))
    s.say(10, 1, "PATTERN", "Incident timing matches cache refresh cycles", 0.64)
    s.say(15, 1, "EMBRACES", "Both cache and replica lag may be true at once", 0.55)
    s.say(17, 1, "EXTREME", "At zero TTL the incidents should vanish", 0.6)
    s.say(19, 1, "BOUNDARY", "Only regions with replicas report incidents", 0.6)
    s.say(21, 1, "FORMALIZES", "Staleness bound = TTL + replica lag", 0.7, refs=(("USES", 1, h1), ("USES", 19, "")))
    s.say(25, 1, "EMERGENT", "Staleness emerges from cache and replica interplay", 0.62)
    s.say(33, 1, "SUPPORTS", "Causal path from TTL to stale read is sound", 0.72, refs=(("SUPPORTS", 1, h1),))
    s.say(30, 1, "CONTRADICTS", "Stale reads also occur on the uncached path", 0.7, contradiction_with=33,
          requires_resolution=True, refs=(("CONTRADICTS", 33, ""),))
    s.say(39, 1, "CONTRADICTS", "Replica lag alone explains the incident set", 0.66, contradiction_with=2,
          requires_resolution=True, refs=(("CONTRADICTS", 2, ""),))
    s.say(48, 1, "PROGRESSING", "Eight new claims; two disputes open", 0.8, content={"new_claims": 8})
    s.say(52, 1, "REJECT", "Causal claim disputed by two agents", 0.8)
    s.memory(1, "iteration 1 saved; two contradictions open")
    s.phi(1, "END_ITERATION", "Deploy adversaries and the Conflict Resolver", {"action": "END_ITERATION"})
    # ---- iteration 2: the battery of attacks opens FATAL contradictions
    s.phi(2, "DEPLOY", "Full ADVERSARY battery for high stakes", {"deploy": [2, 35, 37, 38, 41, 50, 48, 52, 53]})
    s.memory(2, "iteration 2 opened")
    s.say(2, 2, "SUPPORTS", "Stale read reproduced with the cache on", 0.7)
    s.say(37, 2, "CONTRADICTS", "Same incidents predate the cache by a year", 0.8, contradiction_with=2,
          blocks_progress=True)
    s.say(35, 2, "CONTRADICTS", "Single-root-cause premise is false", 0.78, contradiction_with=1,
          blocks_progress=True)
    s.say(50, 2, "RESOLVED", "Uncached stale reads come from a test harness", 0.75, responding_to=30,
          content={"resolves": [[30, 33]], "resolution": "the uncached reports came from a misconfigured harness"})
    s.say(38, 2, "CONTRADICTS", "Boundary data contradicts the region pattern", 0.76, contradiction_with=19,
          blocks_progress=True)
    s.say(41, 2, "CONTRADICTS", "The formal bound assumes synchronized clocks", 0.74, contradiction_with=21,
          blocks_progress=True)
    s.say(50, 2, "RESOLVED", "Replica-lag dispute folded into the TTL bound", 0.7, responding_to=39,
          content={"resolves": [[39, 2]], "resolution": "the staleness bound covers replica lag"})
    s.say(15, 2, "EMBRACES", "The fatal disputes may all be partly right", 0.5)
    s.say(49, 2, "DISSENSUS", "No consensus: four fatal disputes stand", 0.7)
    s.say(48, 2, "DIVERGING", "Disputes grow faster than they close", 0.8, content={"new_claims": 6})
    s.say(52, 2, "REJECT", "Four fatal contradictions unresolved", 0.85)
    s.memory(2, "iteration 2 saved; four fatal contradictions open")
    s.phi(2, "JUDGEMENT", "Cannot adjudicate without new data", {
        "action": "END_ITERATION", "decision": "Ask the Conflict Resolver for a final attempt"})
    # ---- iteration 3: the cascade persists; the Conflict Resolver gives up
    s.phi(3, "DEPLOY", "Final resolution attempt", {"deploy": [50, 33, 21, 48, 52, 53]})
    s.memory(3, "iteration 3 opened")
    s.say(33, 3, "UNCERTAIN", "Causal claims cannot be separated with current logs", 0.5)
    s.say(50, 3, "UNRESOLVABLE", "Four fatal contradictions share no common premise", 0.8,
          content={"unresolvable": True, "attempted": ["timeline alignment", "region split", "clock audit"]})
    s.say(21, 3, "FORMALIZES", "Bound restated without the clock assumption", 0.6)
    s.say(48, 3, "STALLED", "No path to convergence", 0.8, content={"new_claims": 1})
    s.say(52, 3, "REJECT", "Cannot ship a contested causal claim", 0.85)
    s.memory(3, "iteration 3 saved; session failed")
    s.phi(3, "TERMINATE", "Stopping: cascade unresolvable", {"action": "TERMINATE"})
    return s


def confidence_collapse_failure() -> Session:
    s = Session("confidence_collapse_failure", "2026-02-17T10:00:00", """
confidence_collapse_failure: every forecast is attacked harder each iteration until nothing stands (§2.3 rule 3).
Expected: CONFIDENCE_COLLAPSE SERIOUS at the end of iteration 2 (aggregate in [0.2, 0.3); REVERIFY, level 3);
CONFIDENCE_COLLAPSE CRITICAL at the end of iteration 3 (aggregate < 0.2; HALT, level 5) with an Escalation
L5; termination FAILURE IRRECOVERABLE at the end of iteration 3 (confidence collapse below 0.2).
§1.3: ITERATION_TRIGGER MINOR at the end of iteration 1 (QC rejects) and of iteration 2 (confidence below
50%, QC rejects); DEPLOYMENT_RULE MODERATE at the end of iteration 3 (no Progress Monitor or Quality
Controller in it), before the report; no trigger there (the session ends).
""")
    initial(s, "Will demand for the premium tier exceed 10k seats next year?", "EMPIRICAL/PREDICTIVE", "MEDIUM",
            [2, 9, 10, 17, 23, 34, 32, 36, 43, 42, 35, 51, 48, 52, 53])
    s.memory(1, "session opened")
    forecasters = ((2, "TREND", "Seat growth trend extrapolates to 11k"), (9, "HUNCH", "Sales pipeline feels strong"),
                   (10, "PATTERN", "Similar tiers doubled in their second year"),
                   (17, "EXTREME", "Even the low scenario reaches 9k seats"),
                   (23, "SIGNAL", "Trial-to-paid signal predicts 10.5k seats"))
    attackers = ((36, 2, "Trend fit on five data points"), (43, 9, "Pipeline value is mostly unqualified"),
                 (42, 10, "Doubling came from a one-off bundle"), (35, 17, "Low scenario assumes no churn"),
                 (36, 23, "Trial cohort is not representative"))
    confidences = {1: 0.7, 2: 0.42, 3: 0.34}
    attack = {1: (0.5, False), 2: (0.9, False), 3: (0.85, True)}
    for iteration in (1, 2, 3):
        if iteration > 1:
            s.phi(iteration, "DEPLOY", f"Re-forecast with tighter evidence (round {iteration})",
                  {"deploy": [2, 9, 10, 17, 23, 34, 36, 43, 42, 35, 51, 48, 52, 53]})
            s.memory(iteration, f"iteration {iteration} opened")
        for agent, tag, text in forecasters:
            s.say(agent, iteration, tag, text if iteration == 1 else f"{text} (revised, round {iteration})",
                  confidences[iteration])
        s.say(34, iteration, "QUALIFIES", f"Forecast interval spans 6k-14k seats (round {iteration})", 0.7,
              refs=(("QUALIFIES", 2, ""),))
        strength, decisive = attack[iteration]
        for attacker, target, text in attackers:
            s.say(attacker, iteration, "CONTRADICTS", f"{text} (round {iteration})", strength,
                  refs=(("CONTRADICTS", target, ""),), blocks_progress=decisive)
        if iteration < 3:
            s.say(48, iteration, "DECLINING", "Confidence falls as attacks land", 0.8,
                  content={"new_claims": 11 - iteration})
            s.say(52, iteration, "REJECT", "No forecast survives attack", 0.85)
            s.memory(iteration, f"iteration {iteration} saved")
        s.phi(iteration, "END_ITERATION", f"Closing iteration {iteration}", {"action": "END_ITERATION"})
    return s


BROKEN = {"summary": {"confidence": 1.7}}  # out of [0, 1]: the message reader rejects it (QUARANTINED)


def agent_failures_failure() -> Session:
    s = Session("agent_failures_failure", "2026-02-24T14:00:00", """
agent_failures_failure: agents produce garbage; in the end Session Memory (53), which no peer can replace, fails
three times running. Four messages are invalid (summary.confidence 1.7) and must be rejected by the reader.
Expected AGENT_FAILURE alerts, in order: MINOR agent-13 (iteration 1, confidence 25%, SKIP);
MODERATE agent-16 (iteration 1, quarantined, SKIP); SERIOUS agent-52 (iteration 1, quarantined key agent, RETRY);
MINOR agent-13 (iteration 2, second low-confidence output, level 2); SERIOUS agent-13 (iteration 2, third
failure running, SUBSTITUTE, level 4); SERIOUS agent-53 (iteration 2, quarantined, RETRY);
CRITICAL agent-53 (iteration 3, third failure running, HALT, level 5) with an Escalation L5;
termination FAILURE IRRECOVERABLE at once (critical agent failure with no substitute).
§1.3: ITERATION_TRIGGER MINOR at the end of iterations 1 and 2 (QC rejects); DEPLOYMENT_RULE MINOR at the
end of iteration 2 (batch order: First Principles ran after the Chain Verifier).
""")
    h1 = "Active-passive failover with DNS cutover is enough"
    initial(s, "Design a rollout plan for multi-region failover of the orders service.", "NORMATIVE/DESIGN",
            "MEDIUM", [1, 3, 4, 12, 13, 16, 24, 28, 38, 48, 51, 52, 53])
    s.memory(1, "session opened")
    s.say(1, 1, "PROPOSES", "Start from RPO and RTO targets, then pick topology", 0.76, content={"hypothesis": h1})
    s.say(3, 1, "CONSTRAINS", "RPO of 5 minutes rules out nightly snapshots", 0.8)
    s.say(4, 1, "DECOMPOSES", "Data replication, traffic cutover, runbooks", 0.75)
    s.say(12, 1, "SPATIAL", "Two regions 80 ms apart bound synchronous writes", 0.7)
    s.say(13, 1, "WANDERS", "Maybe run every region active and hope", 0.25, basis="unconstrained wandering")
    s.say(16, 1, "RANDOM", "Try a random region order", 0.5, broken=BROKEN)
    s.say(24, 1, "MODELS", "Queue backlog during cutover stays under 2 minutes", 0.7, refs=(("USES", 3, ""),))
    s.say(28, 1, "SUPPORTS", "Argument tree for RPO-first design holds", 0.8, refs=(("SUPPORTS", 1, ""),))
    s.say(38, 1, "QUALIFIES", "Split-brain at the boundary is not handled", 0.65, refs=(("QUALIFIES", 1, h1),))
    s.say(52, 1, "REJECT", "Runbooks missing", 0.8, broken=BROKEN)
    s.say(52, 1, "REJECT", "Runbooks and split-brain handling missing", 0.8)
    s.say(48, 1, "PROGRESSING", "Seven new claims", 0.8, content={"new_claims": 7})
    s.memory(1, "iteration 1 saved")
    s.phi(1, "END_ITERATION", "Retry failed agents; add split-brain work", {"action": "END_ITERATION"})
    # ---- iteration 2
    s.phi(2, "DEPLOY", "Split-brain and runbooks", {"deploy": [1, 3, 13, 21, 27, 38, 44, 46, 50, 51, 48, 52, 53]})
    s.memory(2, "iteration 2 opened")
    s.say(13, 2, "WANDERS", "Perhaps failover is unnecessary altogether", 0.2)
    s.say(3, 2, "CONSTRAINS", "Fencing tokens prevent split-brain writes", 0.8)
    s.say(13, 2, "WANDERS", "Perhaps a third region solves everything", 0.22)
    s.say(21, 2, "FORMALIZES", "Fencing invariant: one writer per epoch", 0.78, refs=(("USES", 3, ""),))
    s.say(27, 2, "SUPPORTS", "Fencing argument is valid", 0.82, refs=(("SUPPORTS", 21, ""),))
    s.memory(2, "iteration 2 progress", broken=BROKEN)
    s.say(1, 2, "REFINES", "Active-passive with fencing meets the targets", 0.78)
    s.say(38, 2, "SUPPORTS", "Boundary attack on fencing fails", 0.6, refs=(("SUPPORTS", 21, ""),))
    s.say(44, 2, "ATTACK FAILED", "Best counter-design is not better", 0.62, refs=(("SUPPORTS", 1, h1),))
    s.say(46, 2, "SURVIVABLE CORE", "Fenced active-passive survives", 0.72)
    s.memory(2, "iteration 2 saved", broken=BROKEN)
    s.say(51, 2, "SYNTHESIS", "Active-passive failover with fencing tokens", 0.75)
    s.say(48, 2, "PROGRESSING", "Five new claims", 0.8, content={"new_claims": 5})
    s.say(52, 2, "REJECT", "Runbooks still missing", 0.8)
    s.phi(2, "END_ITERATION", "Runbooks next", {"action": "END_ITERATION"})
    # ---- iteration 3: Session Memory fails a third time in a row
    s.phi(3, "DEPLOY", "Runbooks", {"deploy": [4, 32, 31, 51, 48, 52, 53]})
    s.memory(3, "iteration 3 opened", broken=BROKEN)
    s.say(4, 3, "DECOMPOSES", "Runbook per failure mode: region, zone, database", 0.8)
    s.say(32, 3, "SUPPORTS", "Game-day drill met a 4 minute RTO", 0.8, refs=(("SUPPORTS", 1, ""),))
    s.say(31, 3, "NO CRITICAL GAPS", "Runbooks cover the failure modes", 0.75, content={"critical_gaps": []})
    s.say(51, 3, "SYNTHESIS", "Fenced active-passive with drilled runbooks", 0.8)
    s.say(48, 3, "PROGRESSING", "Three new claims", 0.8, content={"new_claims": 3})
    s.phi(3, "END_ITERATION", "Closing iteration 3", {"action": "END_ITERATION"})
    return s


def diverging_resource_failure() -> Session:
    s = Session("diverging_resource_failure", "2026-03-02T09:00:00", """
diverging_resource_failure: each iteration adds explanations instead of removing any, on a small token budget.
Expected: CONVERGENCE_FAILURE SERIOUS at the end of iteration 4 (solution space grew in iterations 2, 3 and 4;
CONSTRAIN); RESOURCE_EXHAUSTION MODERATE in iteration 5 (over 80% of the 160k-token budget; CONSTRAIN);
RESOURCE_EXHAUSTION CRITICAL in iteration 5 (token budget used up; HALT, level 5) with an Escalation L5;
termination FAILURE RESOURCE at once (nothing was answered, confirmed or verified, so not PARTIAL).
§1.3: DEPLOYMENT_RULE MODERATE at the end of iterations 1 to 4 (no Quality Controller, no ADVERSARY agent,
Gut Intuition after the VERIFICATION batch; in iteration 1 also fewer than 3 GENESIS categories).
""")
    explanations = [
        (5, "Thermal bridging through the new facade"), (6, "Occupancy rhythm shifted to nights"),
        (8, "Chiller sequencing copied from building A"), (13, "A forgotten test rig runs all weekend"),
        (14, "Heat recovery wheel stopped turning"), (16, "Meter wiring swapped between floors"),
        (17, "Economizer stuck open at low temperatures"), (20, "Tenant crypto mining in the basement"),
        (12, "Server room airflow recirculates"), (7, "Load curve has a hidden weekly harmonic"),
    ]
    initial(s, "What explains the anomalous energy use in building C?", "SYNTHETIC/EXPLANATORY", "LOW",
            [5, 6, 22, 34, 48, 53], tokens=160_000, seconds=28_800, uncertainty="HIGH")
    for iteration in range(1, 6):
        # Iteration 5 is where the team finally writes long analyses, and the budget runs out.
        big = 14_000 if iteration == 5 else 2_800
        if iteration > 1:
            s.phi(iteration, "DEPLOY", f"Explore further (round {iteration})", {"deploy": [22, 34, 48, 53]},
                  tokens=2_800)
        s.memory(iteration, f"iteration {iteration} opened", tokens=1_200)
        for agent, text in explanations[2 * iteration - 2: 2 * iteration]:
            s.say(agent, iteration, "HYPOTHESIS", text, 0.55, content={"hypothesis": text}, tokens=2_900)
        s.say(22, iteration, "CONNECTS", f"The open explanations interact (round {iteration})", 0.5,
              refs=tuple(("USES", a, t) for a, t in explanations[2 * iteration - 2: 2 * iteration]), tokens=big,
              tier=2 if iteration == 5 else 0)
        s.say(34, iteration, "UNCERTAIN", f"No explanation separable yet (round {iteration})", 0.5,
              refs=(("QUALIFIES", explanations[2 * iteration - 2][0], ""),), tokens=big)
        s.say(9, iteration, "HUNCH", f"Something operational, not structural (round {iteration})", 0.5,
              tokens=big)
        s.say(48, iteration, "DIVERGING", f"{2 * iteration} explanations open, none closed", 0.8,
              content={"new_claims": 4}, tokens=big)
        if iteration < 5:
            s.say(49, iteration, "DISSENSUS", f"No two agents favour the same cause (round {iteration})", 0.6,
                  tokens=2_800)
            s.phi(iteration, "END_ITERATION", f"Closing iteration {iteration}", {"action": "END_ITERATION"},
                  tokens=1_500)
    return s


def quality_gate_partial() -> Session:
    s = Session("quality_gate_partial", "2026-03-09T11:00:00", """
quality_gate_partial: the Quality Controller rejects three iterations running while confidence slips.
Expected: QUALITY_GATE_FAILURE SERIOUS in iteration 3 (3 consecutive rejections; RERUN_AFFECTED_TIERS,
level 3); termination PARTIAL at the end of iteration 3 (confidence not improving after repeated quality gate
failures, with verified claims and a partial answer; HIGH stakes threshold 80% never met).
§1.3: DEPLOYMENT_RULE MINOR at the end of iterations 1 to 3 (GENESIS only from the formal category);
ITERATION_TRIGGER MINOR at the end of iterations 1 and 2 (critical gap reported, QC rejects).
""")
    h1 = "The SOC 2 report covers our data-residency controls"
    initial(s, "Is the vendor's SOC 2 Type II report sufficient for our compliance needs?", "ANALYTICAL/CONCEPTUAL",
            "HIGH", [1, 3, 7, 21, 23, 27, 29, 31, 41, 44, 40, 51, 48, 52, 53])
    confidence = {1: 0.74, 2: 0.72, 3: 0.7}
    missing = {1: "residency controls untested", 2: "subservice carve-outs unreviewed",
               3: "bridge letter period uncovered"}
    for iteration in (1, 2, 3):
        c = confidence[iteration]
        if iteration > 1:
            s.phi(iteration, "DEPLOY", f"Address the QC findings (round {iteration})",
                  {"deploy": [1, 3, 7, 21, 27, 29, 31, 41, 44, 51, 48, 52, 53]})
        s.memory(iteration, f"iteration {iteration} opened")
        s.say(1, iteration, "PROPOSES", f"Control mapping covers 41 of 44 requirements (round {iteration})", c,
              content={"hypothesis": h1} if iteration == 1 else {"mapping": "41/44"})
        s.say(3, iteration, "CONSTRAINS", f"Residency law requires in-region key custody (round {iteration})", c)
        s.say(7, iteration, "STRUCTURE", f"Requirements form a lattice; 3 uncovered leaves (round {iteration})", c)
        s.say(21, iteration, "FORMALIZES", f"Coverage as a set difference of controls (round {iteration})", c,
              refs=(("USES", 1, ""),))
        s.say(27, iteration, "SUPPORTS", f"Mapping chain is valid (round {iteration})", 0.8,
              refs=(("SUPPORTS", 1, ""),))
        s.say(29, iteration, "SUPPORTS", f"Coverage proof checks out (round {iteration})", 0.78,
              refs=(("SUPPORTS", 21, ""),))
        s.say(31, iteration, "GAPS FOUND", f"Gap: {missing[iteration]}", 0.75,
              content={"critical_gaps": [missing[iteration]]})
        s.say(41, iteration, "QUALIFIES", f"Assumes auditor scope matches ours (round {iteration})", 0.6,
              refs=(("QUALIFIES", 1, ""),))
        s.say(51, iteration, "SYNTHESIS", f"Sufficient except {missing[iteration]}", c,
              content={"answer": f"The report suffices for 41 of 44 requirements; open: {missing[iteration]}."})
        s.say(48, iteration, "PROGRESSING", f"Confidence flat at {round(c * 100)}% (round {iteration})", 0.8,
              content={"new_claims": 8})
        s.say(52, iteration, "REJECT", f"Critical gap: {missing[iteration]}", 0.85,
              content={"failures": [missing[iteration]]})
        s.memory(iteration, f"iteration {iteration} saved")
        s.phi(iteration, "END_ITERATION", f"Closing iteration {iteration}", {"action": "END_ITERATION"})
    return s


def untestable_failure() -> Session:
    s = Session("untestable_failure", "2026-03-16T15:00:00", """
untestable_failure: the central claim cannot be tested, and the Falsifier says it blocks progress (§6.2.3).
Expected: no alert; termination FAILURE INTRACTABLE at the end of iteration 2 (Falsifier [UNTESTABLE] with
blocks_progress: untestable AND critical).
""")
    h1 = "Remote work raised long-run innovation output"
    initial(s, "Did the shift to remote work raise our long-run innovation output?", "EMPIRICAL/CAUSAL", "MEDIUM",
            [1, 2, 9, 11, 14, 22, 25, 32, 33, 45, 44, 51, 48, 52, 53])
    for iteration in (1, 2):
        tail = "" if iteration == 1 else " (again)"
        if iteration > 1:
            s.phi(2, "DEPLOY", "Look for a testable proxy", {"deploy": [1, 2, 9, 11, 14, 22, 25, 32, 33, 45, 44,
                                                                        51, 48, 52, 53]})
        s.memory(iteration, f"iteration {iteration} opened")
        s.say(1, iteration, "PROPOSES", f"Innovation needs slack time; remote work adds it{tail}", 0.6,
              content={"hypothesis": h1} if iteration == 1 else {})
        s.say(2, iteration, "COUNTS", f"Patent filings rose 12% after the shift{tail}", 0.62)
        s.say(9, iteration, "HUNCH", f"Hallway serendipity loss may show up later{tail}", 0.5)
        s.say(11, iteration, "SALIENT", f"Two teams drove most of the new filings{tail}", 0.6)
        s.say(14, iteration, "INSIGHT", f"Filings lag ideas by two to three years{tail}", 0.58)
        s.say(22, iteration, "CONNECTS", f"Filing growth coincides with a hiring wave{tail}", 0.6,
              refs=(("USES", 2, ""),))
        s.say(25, iteration, "EMERGENT", f"Output depends on team mix, not location alone{tail}", 0.55)
        s.say(10, iteration, "PATTERN", f"Past remote shifts show no lasting filing change{tail}", 0.55)
        s.say(24, iteration, "MODELS", f"Filing model needs five more years of data{tail}", 0.55,
              refs=(("USES", 2, ""),))
        s.say(32, iteration, "UNCERTAIN", f"No counterfactual cohort exists{tail}", 0.55, refs=(("QUALIFIES", 2, ""),))
        s.say(33, iteration, "UNCERTAIN", f"Causal path unidentifiable without a control{tail}", 0.55)
        s.say(44, iteration, "QUALIFIES", f"Hiring wave is the stronger explanation{tail}", 0.6,
              refs=(("QUALIFIES", 1, h1),))
        if iteration == 1:
            s.say(45, 1, "UNCERTAIN", "Testability unclear until a proxy is named", 0.55)
        else:
            s.say(45, 2, "UNTESTABLE", "No observation could refute the long-run claim", 0.82, blocks_progress=True,
                  refs=(("QUALIFIES", 1, h1),))
        s.say(49, iteration, "CONSENSUS", f"Agents agree only that the evidence is weak{tail}", 0.6)
        s.say(51, iteration, "SYNTHESIS", f"Evidence is suggestive only{tail}", 0.5)
        s.say(48, iteration, "PROGRESSING", f"Claims added, none decisive{tail}", 0.8, content={"new_claims": 6})
        s.say(52, iteration, "HOLD", f"Nothing shippable yet{tail}", 0.8)
        s.memory(iteration, f"iteration {iteration} saved")
        s.phi(iteration, "END_ITERATION", f"Closing iteration {iteration}", {"action": "END_ITERATION"})
    return s


def deployment_rules_partial() -> Session:
    s = Session("deployment_rules_partial", "2026-03-23T10:00:00", """
deployment_rules_partial: PHI deploys wide for a highly uncertain problem and breaks the §1.3 rules.
Expected: DEPLOYMENT_RULE MODERATE in iteration 1 as soon as the 11th GENESIS agent speaks (batch 1 over
the A.3 limit of 10); DEPLOYMENT_RULE MODERATE at the end of iteration 1 (no Progress Monitor 48);
ITERATION_TRIGGER MINOR at the end of iteration 1 (confidence below 50%, a critical gap, the Alternative
Generator contradicting the leading hypothesis, the Quality Controller rejecting); DEPLOYMENT_RULE MINOR at
the end of iteration 2 (the Proof Checker ran after the ADVERSARY batch had started); no trigger there, as
PHI terminates: termination PARTIAL (a verified, modified hypothesis and a partial answer; HIGH stakes
threshold not met).
""")
    h1 = "Warm pools remove the cold-start penalty"
    h1b = "Warm pools remove most of the cold-start penalty at peak"
    initial(s, "Should the inference service move from VMs to serverless functions?", "SYNTHETIC/INTEGRATIVE",
            "HIGH", [1, 2, 3, 5, 7, 9, 10, 13, 15, 17, 18, 19, 21, 29, 31, 42, 44, 51, 52, 53], uncertainty="HIGH")
    s.memory(1, "session opened; wide GENESIS deployment for high uncertainty")
    genesis = ((1, "PROPOSES", "Pre-warmed instances would hide cold starts"),
               (2, "COUNTS", "Traffic has three daily peaks of 4x the baseline"),
               (3, "CONSTRAINS", "p99 latency must stay under 300 ms"), (5, "ANALOGY", "Like a boiler kept at idle"),
               (7, "STRUCTURE", "Cost is a step function of concurrency"),
               (9, "HUNCH", "The savings look smaller than promised"),
               (10, "PATTERN", "Peers moved back to VMs within a year"),
               (13, "WANDERS", "Maybe split models across both platforms"),
               (15, "EMBRACES", "Cheaper and slower may both be true"),
               (17, "EXTREME", "At 10x peak the function quota is hit"),
               (18, "DEGENERATE", "With one request a day serverless is free"),
               (19, "BOUNDARY", "GPU models cannot run as functions at all"))
    for agent, tag, text in genesis:
        s.say(agent, 1, tag, text, 0.45, content={"hypothesis": h1} if agent == 1 else {"finding": text})
    s.say(21, 1, "FORMALIZES", "Cost model: invocations x duration x memory", 0.45, refs=(("USES", 7, ""),))
    s.say(29, 1, "SUPPORTS", "Warm-pool latency proof holds for CPU models", 0.5, refs=(("SUPPORTS", 1, h1),))
    s.say(31, 1, "GAPS FOUND", "No cold-start data for the GPU models", 0.55,
          content={"critical_gaps": ["GPU cold-start latency"]})
    s.say(44, 1, "QUALIFIES", "Best case against: GPU models stay on VMs", 0.5, refs=(("QUALIFIES", 1, h1),),
          content={"defeated": False})
    s.say(42, 1, "CONTRADICTS", "Warm pools fail at the peaks they must cover", 0.5,
          refs=(("CONTRADICTS", 1, h1),))
    s.say(51, 1, "SYNTHESIS", "Move CPU models only, keep GPU models on VMs", 0.45,
          content={"answer": "Move the CPU models to functions with warm pools; keep GPU models on VMs."})
    s.say(52, 1, "REJECT", "GPU gap open and the warm-pool claim contested", 0.8)
    s.memory(1, "iteration 1 saved")
    s.phi(1, "END_ITERATION", "Split the batches; fill the GPU gap", {"action": "END_ITERATION"})
    # ---- iteration 2: batches split, the gap filled, but the Proof Checker runs after the attacks
    s.phi(2, "DEPLOY", "Targeted GENESIS on the gap; Progress Monitor added", {
        "decision": {"decision": "GENESIS in two batches of at most 10", "basis": "A.3 batch limit"},
        "deploy": [2, 12, 17, 7, 21, 32, 31, 44, 42, 29, 49, 51, 48, 52, 53]})
    s.memory(2, "iteration 2 opened")
    s.say(2, 2, "COUNTS", "GPU cold starts measured at 9 s on the staging account", 0.7,
          content={"evidence": {"evidence": "GPU cold starts take 9 s", "contradicts": [h1]}})
    s.say(12, 2, "SPATIAL", "Model weights must sit beside the function", 0.65)
    s.say(17, 2, "EXTREME", "At peak the warm pool covers 90% of CPU calls", 0.7)
    s.say(21, 2, "FORMALIZES", "Warm-pool coverage as a queueing bound", 0.7, refs=(("USES", 17, ""),))
    s.say(7, 2, "STRUCTURE", "Coverage bound is concave in pool size", 0.68, batch="2")
    s.say(32, 2, "SUPPORTS", "Load replay confirms 90% warm coverage at peak", 0.8, refs=(("SUPPORTS", 17, ""),))
    s.say(31, 2, "NO CRITICAL GAPS", "GPU cold starts now measured", 0.75, content={"critical_gaps": []})
    s.say(44, 2, "ATTACK FAILED", "Best case against does not defeat the CPU-only move", 0.65,
          refs=(("SUPPORTS", 1, h1),), content={"defeated": False})
    s.say(42, 2, "QUALIFIES", "Alternative holds only for the GPU models", 0.6, refs=(("QUALIFIES", 1, h1),))
    s.say(29, 2, "MODIFIED", "Warm-pool claim holds at 90%, not fully", 0.78, content={"hypothesis_resolved": {
        "statement": h1, "resolution": "MODIFIED", "basis": "load replay", "modified_to": h1b}})
    s.say(49, 2, "CONSENSUS", "Agreement on a CPU-only move", 0.7)
    s.say(51, 2, "SYNTHESIS", "Move CPU models with warm pools; GPU stays on VMs", 0.7, content={
        "answer": "Move the CPU models to functions with warm pools sized for 90% peak coverage; keep the GPU "
                  "models on VMs."})
    s.say(48, 2, "PROGRESSING", "Eight new claims; gap closed", 0.8, content={"new_claims": 8})
    s.say(52, 2, "SHIP WITH CAVEATS", "Ship the CPU move; GPU question deferred", 0.75,
          content={"caveats": ["GPU models not covered"]})
    s.memory(2, "iteration 2 saved")
    s.phi(2, "TERMINATE", "Stopping with a partial answer for the CPU models", {"action": "TERMINATE"})
    return s


ALL_SESSIONS = (clean_success, stalled_partial, contradiction_cascade_failure, confidence_collapse_failure,
                agent_failures_failure, diverging_resource_failure, quality_gate_partial, untestable_failure,
                deployment_rules_partial)



if __name__ == "__main__":
    for build in ALL_SESSIONS:
        session = build()
        print(f"{session.write().name}: {len(session.docs)} messages")
