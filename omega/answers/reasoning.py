"""§6.1 backward chaining: direct fact support first, then the rule library, bounded by a depth.

Choice: rule bodies use affirmed facts only (a negated fact never proves a positive step); a goal yields
every solution in a deterministic order (facts by source order, rules by library order), capped per goal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from omega.answers.model import Fact
from omega.answers.rules import RULES, Pattern, Rule
from omega.answers.store import Bindings, FactStore, is_variable
from omega.canonical import canonical_json, derived_id

DEFAULT_DEPTH = 4
MAX_SOLUTIONS = 16


@dataclass(frozen=True)
class Step:
    """One factChain entry: id, role (premise|derived|conclusion), the fact object, its support score."""

    fact_id: str
    role: str
    fact: Mapping[str, Any]
    score: float


@dataclass(frozen=True)
class Solution:
    """A proof of a goal: the bindings, the steps in proof order, and the store facts it rests on."""

    bindings: Bindings
    steps: tuple[Step, ...]
    premises: tuple[Fact, ...]


@dataclass
class Context:
    """What derivation reads: the store, the version filter, the plan's params; `missing` collects the
    parameters a rule needed but the plan lacked (so the answer can say why it is unsupported)."""

    store: FactStore
    version: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    rules: tuple[Rule, ...] = RULES
    missing: set[str] = field(default_factory=set)


def substitute(pattern: Pattern, bindings: Bindings) -> Pattern:
    """The pattern with bound variables replaced by their values."""
    return {k: bindings.get(v, v) if is_variable(v) else v for k, v in pattern.items()}


def premise_step(fact: Fact) -> Step:
    """A store fact as a premise; its score is its confidence (1.0 when none is stated)."""
    return Step(fact.fact_id, "premise", fact.to_dict(), 1.0 if fact.confidence is None else fact.confidence)


def derive(goal: Pattern, ctx: Context, depth: int = DEFAULT_DEPTH) -> list[Solution]:
    """Solutions of `goal`: direct affirmed facts if any, else rule expansions with depth - 1 sub-goals."""
    if depth <= 0:
        return []
    direct = [Solution(b, (premise_step(f),), (f,)) for f, b in ctx.store.match(goal, ctx.version)
              if f.polarity == "affirm"]
    if direct:
        return direct[:MAX_SOLUTIONS]
    out: list[Solution] = []
    for rule in ctx.rules:
        if rule.head != goal.get("predicate"):
            continue
        for body in rule.body(goal, depth):
            for bindings, steps, premises in _solve(body, {}, ctx, depth - 1):
                concluded = rule.conclude(goal, bindings, ctx.params)
                if concluded is None:
                    ctx.missing.update(p for p in rule.params if p not in ctx.params)
                    continue
                derived, head_object = concluded
                score = min((s.score for s in steps), default=1.0)
                made = [Step(derived_id("derived_", canonical_json(d), *(p.fact_id for p in premises)), "derived",
                             d, score) for d in derived]
                head = dict(bindings)
                if is_variable(goal.get("object")):
                    head[str(goal["object"])] = head_object
                out.append(Solution(head, (*steps, *made), premises))
                if len(out) >= MAX_SOLUTIONS:
                    return out
    return out


def _solve(body: list[Pattern], bindings: Bindings, ctx: Context,
           depth: int) -> list[tuple[Bindings, tuple[Step, ...], tuple[Fact, ...]]]:
    """Conjunctive sub-goals left to right, each solution's bindings feeding the next sub-goal."""
    if not body:
        return [(bindings, (), ())]
    out: list[tuple[Bindings, tuple[Step, ...], tuple[Fact, ...]]] = []
    first = substitute(body[0], bindings)
    for solution in derive(first, ctx, depth):
        merged = {**bindings, **solution.bindings}
        for sub in first.items():
            # a sub-goal variable bound by the proof (in its own naming) is carried to the next sub-goals
            if is_variable(sub[1]) and sub[1] not in merged:
                merged[sub[1]] = _bound(sub[0], solution)
        for rest_bindings, steps, premises in _solve(body[1:], merged, ctx, depth):
            out.append((rest_bindings, (*solution.steps, *steps), (*solution.premises, *premises)))
            if len(out) >= MAX_SOLUTIONS:
                return out
    return out


def _bound(role: str, solution: Solution) -> Any:
    """The value a role took in a solution's last step (the fact that proved the sub-goal)."""
    return solution.steps[-1].fact.get(role)
