"""§5.3 baseline retrieval: a bounded candidate set from the plan's predicates and goal, filtered by
version, ranked deterministically, capped; `chunksUsed` is derived from the facts returned.

Ranking: exact predicate match, exact subject match, stated confidence (higher first; a stated confidence
outranks none), then source order (docId, chunkId, span start, fact id).
"""

from __future__ import annotations

from dataclasses import dataclass

from omega.answers.model import Fact, QueryPlan
from omega.answers.store import FactStore, is_variable, source_order

DEFAULT_LIMIT_FACTS = 20
DEFAULT_LIMIT_CHUNKS = 10


@dataclass(frozen=True)
class Retrieved:
    """The ranked, capped candidate facts and the unique chunk ids they come from."""

    facts: tuple[Fact, ...]
    chunks_used: tuple[str, ...]


def _wanted(plan: QueryPlan) -> tuple[set[str], set[str]]:
    predicates, subjects = set(plan.predicates), set(plan.subjects)
    if plan.goal is not None:
        for role, into in (("predicate", predicates), ("subject", subjects)):
            value = plan.goal.get(role)
            if isinstance(value, str) and not is_variable(value):
                into.add(value)
    return predicates, subjects


def rank_key(fact: Fact, plan: QueryPlan) -> tuple[int, int, float, tuple[str, str, int, str]]:
    """The sort key of a candidate: smaller ranks first."""
    predicates, subjects = _wanted(plan)
    confidence = -1.0 if fact.confidence is None else fact.confidence
    return (fact.predicate not in predicates, fact.subject not in subjects, -confidence, source_order(fact))


def unique_chunks(facts: list[Fact] | tuple[Fact, ...], limit: int = DEFAULT_LIMIT_CHUNKS) -> tuple[str, ...]:
    """Unique chunk ids of the facts, in order, capped at `limit`."""
    return tuple(dict.fromkeys(f.chunk_id for f in facts))[:limit]


def retrieve(plan: QueryPlan, store: FactStore, limit_facts: int = DEFAULT_LIMIT_FACTS,
             limit_chunks: int = DEFAULT_LIMIT_CHUNKS) -> Retrieved:
    """Candidates per predicate (and subject) of the plan and per goal pattern, version-filtered and ranked."""
    found: dict[str, Fact] = {}
    for predicate in plan.predicates:
        for subject in plan.subjects or (None,):
            for fact in store.query(subject, predicate, plan.version):
                found.setdefault(fact.fact_id, fact)
    if plan.goal is not None:
        for fact, _ in store.match(plan.goal, plan.version):
            found.setdefault(fact.fact_id, fact)
    facts = sorted(found.values(), key=lambda f: rank_key(f, plan))[:limit_facts]
    return Retrieved(tuple(facts), unique_chunks(facts, limit_chunks))
