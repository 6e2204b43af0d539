"""The §7 answer contract: plan -> goal -> backward chaining -> §4.4/§6.4 conflict check -> verdict with an
auditable chain. Anything that cannot be backed by facts is `unsupported`, with the reason kept beside.

Choices: a goal with a `?variable` object is a lookup (text lists the bound values); a constant object is a
yes/no question (Yes when proved, No when only a negated fact matches); conflicts are checked over every
store fact sharing a conflict key with the chain's premises, so a version disagreement is caught even when
both versions would give the same yes/no; `text` is null for conflicting answers (§4.4). The plan's version
may be spelled any way (`v2.0`, `version 2.0`, `2.0`): the store, the derivation and the conflict check all
compare its canonical form (`omega.answers.versions`), and a refusal names the version asked, canonical and as
written, so "no fact in version 2" is not mistaken for "no fact at all".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from omega.answers.conflicts import conflict_key, detect_conflicts
from omega.answers.model import Fact, QueryPlan
from omega.answers.reasoning import DEFAULT_DEPTH, Context, Solution, Step, derive, premise_step
from omega.answers.retrieval import DEFAULT_LIMIT_CHUNKS, DEFAULT_LIMIT_FACTS, rank_key, retrieve, unique_chunks
from omega.answers.rules import DERIVED_PREDICATES, RULES
from omega.answers.store import FactStore, is_variable
from omega.answers.versions import shown_version
from omega.answers.vocabulary import Vocabulary
from omega.canonical import canonical_json, derived_id

VERDICTS = ("supported", "conflicting", "unsupported")
# which derived predicate a parameter asks for, when the plan has no explicit goal
PARAM_GOALS = {"inactivityMinutes": "valid_after_inactivity", "before": "created_before",
               "after": "created_after", "thanMinutes": "longer_than"}


@dataclass(frozen=True)
class AnswerContract:
    """§7: text, verdict, chunksUsed, factChain, supportScores, conflicts (+ why, for unsupported)."""

    verdict: str
    text: str | None = None
    chunks_used: tuple[str, ...] = ()
    fact_chain: tuple[Step, ...] = ()
    conflicts: tuple[tuple[Fact, Fact, str], ...] = ()
    reason: str | None = None
    goal: Mapping[str, Any] | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The camelCase contract of §7 (plus `reason`)."""
        return {
            "text": self.text,
            "verdict": self.verdict,
            "chunksUsed": list(self.chunks_used),
            "factChain": [{"factId": s.fact_id, "role": s.role, "fact": dict(s.fact)} for s in self.fact_chain],
            "supportScores": {s.fact_id: s.score for s in self.fact_chain},
            "conflicts": [{"fact1": a.to_dict(), "fact2": b.to_dict(), "reason": r} for a, b, r in self.conflicts],
            "reason": self.reason,
        }


def unsupported(reason: str) -> AnswerContract:
    """A refusal (§7): no text, no chain, the reason kept."""
    return AnswerContract("unsupported", reason=reason)


def goal_of(plan: QueryPlan) -> dict[str, Any] | None:
    """The plan's goal, else one inferred: a parameter's derived predicate, else the first subject and
    predicate with a `?value` object; None when the plan names no predicate."""
    if plan.goal is not None:
        return dict(plan.goal)
    subject = plan.subjects[0] if plan.subjects else "?subject"
    for param, predicate in PARAM_GOALS.items():
        if param in plan.params:
            return {"subject": subject, "predicate": predicate, "object": "?answer"}
    if plan.predicates:
        return {"subject": subject, "predicate": plan.predicates[0], "object": "?value"}
    return None


def _check_plan(plan: QueryPlan, goal: Mapping[str, Any] | None, vocabulary: Vocabulary) -> str | None:
    known = set(vocabulary) | DERIVED_PREDICATES
    outside = [p for p in plan.predicates if p not in known]
    if outside:
        return f"predicate(s) outside the vocabulary: {', '.join(outside)}"
    if goal is None:
        return "the plan names no goal or predicate"
    predicate = goal.get("predicate")
    if not isinstance(predicate, str) or is_variable(predicate) or predicate not in known:
        return f"goal predicate {predicate!r} is outside the vocabulary and has no rule"
    return None


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _conclusion(goal: Mapping[str, Any], text: str, steps: list[Step]) -> Step:
    obj = text if is_variable(goal.get("object")) else goal.get("object")
    fact = {"subject": goal.get("subject"), "predicate": goal.get("predicate"), "object": obj,
            "answer": text}
    score = min((s.score for s in steps), default=1.0)
    return Step(derived_id("conclusion_", canonical_json(fact), *(s.fact_id for s in steps)), "conclusion", fact,
                score)


def _unique(steps: list[Step]) -> list[Step]:
    return list({s.fact_id: s for s in steps}.values())


def _conflict_pool(facts: list[Fact], store: FactStore, vocabulary: Vocabulary, version: str | None) -> list[Fact]:
    """Every store fact sharing a conflict key with `facts` (the candidate set the chain needs, §6.4)."""
    keys = {conflict_key(f, vocabulary) for f in facts}
    pool: dict[str, Fact] = {}
    for fact in facts:
        for other in store.query(fact.subject, fact.predicate, version):
            if conflict_key(other, vocabulary) in keys:
                pool.setdefault(other.fact_id, other)
    return list(pool.values())


def answer(plan: QueryPlan, store: FactStore, vocabulary: Vocabulary, depth: int = DEFAULT_DEPTH,
           limit_facts: int = DEFAULT_LIMIT_FACTS, limit_chunks: int = DEFAULT_LIMIT_CHUNKS) -> AnswerContract:
    """Answer a plan over a store: supported with a chain, conflicting with pairs, or unsupported."""
    goal = goal_of(plan)
    problem = _check_plan(plan, goal, vocabulary)
    if problem is not None or goal is None:
        return unsupported(problem or "no goal")
    ctx = Context(store, plan.version, plan.params, RULES)
    solutions = sorted(derive(goal, ctx, depth), key=lambda s: rank_key(s.premises[0], plan) if s.premises else ())
    solutions = solutions[:limit_facts]
    lookup = is_variable(goal.get("object"))
    # a negated fact answers a yes/no question ("No"), never a lookup ("what does X require?")
    negated = [] if lookup else [f for f, _ in store.match(goal, plan.version) if f.polarity == "negate"]
    if not solutions and not negated:
        if ctx.missing:
            return unsupported(f"missing parameter(s): {', '.join(sorted(ctx.missing))}")
        hits = retrieve(plan, store, limit_facts, limit_chunks)
        asked = "" if plan.version is None else f" in version {shown_version(plan.version)}"
        return unsupported(f"no fact supports the goal {canonical_json(goal)}{asked} (candidates retrieved: "
                           f"{len(hits.facts)})")
    used: list[Solution] = solutions if lookup else solutions[:1]
    premises = [f for s in used for f in s.premises] + negated
    conflicts = detect_conflicts(_conflict_pool(premises, store, vocabulary, plan.version), vocabulary, plan.version)
    if conflicts:
        involved = list({f.fact_id: f for a, b, _ in conflicts for f in (a, b)}.values())
        steps = [premise_step(f) for f in involved]
        return AnswerContract("conflicting", None, unique_chunks(involved, limit_chunks), tuple(steps),
                              tuple(conflicts), goal=goal)
    if used:
        var = str(goal.get("object"))
        values = list(dict.fromkeys(_text(s.bindings.get(var)) for s in used)) if lookup else ["Yes"]
        text = ", ".join(values)
        steps = _unique([st for s in used for st in s.steps])
    else:
        text, steps = "No", [premise_step(f) for f in negated]
    chain = (*steps, _conclusion(goal, text, steps))
    facts = [f for s in used for f in s.premises] or negated
    return AnswerContract("supported", text, unique_chunks(facts, limit_chunks), chain, goal=goal)
