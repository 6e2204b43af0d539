"""DS005 thresholds and caps at their boundaries, and the §5.3 retrieval ranking order.

Values and inclusive sides, from `seeds/ds005-verifiable-answers.md` and the module docstrings:

* RELIABLE_AT 0.8, §8: "if `< 0.8`, treat extraction as unreliable" -- a mean Jaccard of exactly 0.8 is
  reliable.
* DEFAULT_DEPTH 4, §6.1 `derive`: "if (depth <= 0) return null", each rule step spends one: at depth 4 a
  fact three rule steps below the goal is found (4 levels), four steps below is not.
* MAX_SOLUTIONS 16: at most 16 solutions per goal.
* DEFAULT_LIMIT_FACTS 20 and DEFAULT_LIMIT_CHUNKS 10, §5.3 step 4: "Return at most `limitFacts` facts",
  `chunksUsed` "capped by `limitChunks`".
* §5.3 step 3 ranking: exact predicate match, exact subject match, higher confidence (a stated one before
  none), then source order (docId, chunkId, span start, fact id).

Every expected value is counted by hand from the facts written in the test.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from omega.answers.answer import answer
from omega.answers.consistency import Consistency, extraction_consistency, jaccard
from omega.answers.model import Chunk, Fact, QueryPlan, fact_from_dict
from omega.answers.reasoning import Context, derive
from omega.answers.retrieval import retrieve
from omega.answers.rules import Pattern, Rule
from omega.answers.store import FactStore
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB
from tests.unit.omega.answers.support import PARAGRAPH, first_facts


def fact(subject: str, predicate: str, obj: Any, doc: str = "d", chunk: str = "c0", start: int = 0,
         confidence: float | None = None, polarity: str = "affirm") -> Fact:
    value: dict[str, Any] = {"span": {"start": start, "end": start + 1}, "subject": subject, "predicate": predicate,
                             "object": obj, "source": {"docId": doc, "chunkId": chunk}, "polarity": polarity}
    if confidence is not None:
        value["confidence"] = confidence
    return fact_from_dict(value)


# ------------------------------------------------------------------------------------- RELIABLE_AT (§8)
@pytest.mark.parametrize(("mean", "reliable"), [
    (0.8, True),  # exactly at: only "< 0.8" is unreliable
    (0.8000001, True),  # just above
    (0.7999999, False),  # just below
    (0.75, False),
    (1.0, True),
])
def test_reliability_at_above_and_below_0_8(mean: float, reliable: bool) -> None:
    assert Consistency(runs=2, mean_jaccard=mean, fact_counts=(1, 1)).reliable is reliable


TEXT = PARAGRAPH
CHUNK = Chunk("doc/c0", "doc", None, 0, 0, TEXT)


def candidates(count: int) -> list[dict[str, Any]]:
    """The first `count` sentences' facts, as an extractor returns them (source filled in)."""
    return first_facts(count, {"docId": "doc", "chunkId": "doc/c0"})


def scripted(*counts: int) -> Any:
    """An extractor whose n-th run returns the first counts[n] facts (a noisy LLM, deterministically)."""
    runs = iter(counts)

    def extract(chunk: Chunk, vocabulary: Mapping[str, tuple[str, str]]) -> list[Any]:
        return candidates(next(runs))

    return extract


@pytest.mark.parametrize(("counts", "mean", "reliable"), [
    ((5, 4), 0.8, True),  # 4 shared / 5 in the union = 4/5, exactly at the threshold
    ((6, 5), 5 / 6, True),  # just above
    ((4, 3), 0.75, False),  # just below
    ((6, 6), 1.0, True),
])
def test_extraction_consistency_at_above_and_below_the_threshold(counts: tuple[int, int], mean: float,
                                                                 reliable: bool) -> None:
    result = extraction_consistency(CHUNK, scripted(*counts), VOCAB, runs=2)
    assert result.fact_counts == counts  # every scripted candidate is valid
    assert result.mean_jaccard == pytest.approx(mean)
    assert result.reliable is reliable


def test_jaccard_of_the_scripted_sets_by_hand() -> None:
    five, four = frozenset("abcde"), frozenset("abcd")
    assert jaccard(five, four) == 0.8
    assert jaccard(frozenset(), frozenset()) == 1.0


# ------------------------------------------------------------------------------------- §5.3 ranking
# Goal with variables everywhere: every store fact is a candidate; the plan says which predicates and
# subjects are exact matches. Source order (doc ids) runs against the rank, criterion by criterion.
RANKED = [
    fact("session_token", "expires_after", "15 minutes", doc="y", confidence=0.9),  # pred, subj, 0.9
    fact("session_token", "expires_after", "20 minutes", doc="x", confidence=0.5),  # pred, subj, 0.5
    fact("session_token", "expires_after", "25 minutes", doc="e1"),  # pred, subj, none, doc e1
    fact("session_token", "expires_after", "30 minutes", doc="e2"),  # pred, subj, none, doc e2
    fact("api_key", "expires_after", "30 days", doc="c", confidence=1.0),  # pred only
    fact("session_token", "valid_for", "1 hour", doc="b", confidence=1.0),  # subj only
    fact("report", "contains", "chart", doc="a", confidence=1.0),  # neither
]
PLAN = QueryPlan(subjects=("session_token",), predicates=("expires_after",),
                 goal={"subject": "?s", "predicate": "?p", "object": "?o"})


def test_retrieval_ranks_predicate_then_subject_then_confidence_then_source_order() -> None:
    store = FactStore(reversed(RANKED))
    assert [f.object for f in store] == ["chart", "1 hour", "30 days", "25 minutes", "30 minutes", "20 minutes",
                                         "15 minutes"]  # source order: the opposite of the rank
    got = retrieve(PLAN, store)
    assert [f.object for f in got.facts] == ["15 minutes", "20 minutes", "25 minutes", "30 minutes", "30 days",
                                             "1 hour", "chart"]
    assert got.chunks_used == ("c0",)


def test_retrieval_keeps_the_best_ranked_facts_when_it_caps() -> None:
    got = retrieve(PLAN, FactStore(RANKED), limit_facts=3)
    assert [f.object for f in got.facts] == ["15 minutes", "20 minutes", "25 minutes"]


def test_a_lookup_answer_lists_its_values_most_confident_first_and_chunks_in_that_order() -> None:
    store = FactStore([
        fact("admin_account", "requires", "mfa", doc="a", chunk="a/c0", confidence=0.6),
        fact("admin_account", "requires", "vpn", doc="b", chunk="b/c0", confidence=0.9),
        fact("admin_account", "requires", "badge", doc="c", chunk="c/c0"),
    ])
    plan = QueryPlan(subjects=("admin_account",), predicates=("requires",),
                     goal={"subject": "admin_account", "predicate": "requires", "object": "?x"})
    got = answer(plan, store, VOCAB)
    assert (got.verdict, got.text) == ("supported", "vpn, mfa, badge")
    assert got.chunks_used == ("b/c0", "a/c0", "c/c0")


# ------------------------------------------------------------------------------------- caps (§5.3 step 4)
def many(count: int, *, per_chunk: int = 1) -> FactStore:
    """`count` requires-facts of admin_account in source order, `per_chunk` of them per chunk."""
    return FactStore(fact("admin_account", "requires", f"factor_{i:02d}", doc="d", chunk=f"c{i // per_chunk:02d}",
                          start=i) for i in range(count))


LOOKUP = QueryPlan(subjects=("admin_account",), predicates=("requires",),
                   goal={"subject": "admin_account", "predicate": "requires", "object": "?x"})


@pytest.mark.parametrize(("count", "returned"), [(19, 19), (20, 20), (21, 20)])
def test_retrieval_returns_at_most_20_facts_by_default(count: int, returned: int) -> None:
    got = retrieve(LOOKUP, many(count, per_chunk=5))
    assert len(got.facts) == returned
    assert got.facts[-1].object == f"factor_{returned - 1:02d}"  # the cap drops the last ranked, not the first


@pytest.mark.parametrize(("chunks", "used"), [(9, 9), (10, 10), (11, 10)])
def test_chunks_used_are_capped_at_10_by_default(chunks: int, used: int) -> None:
    got = retrieve(LOOKUP, many(chunks))
    assert len(got.facts) == chunks
    assert got.chunks_used == tuple(f"c{i:02d}" for i in range(used))


# ------------------------------------------------------------------------------------- MAX_SOLUTIONS
@pytest.mark.parametrize(("count", "solutions"), [(15, 15), (16, 16), (17, 16)])
def test_a_goal_has_at_most_16_direct_solutions(count: int, solutions: int) -> None:
    goal = {"subject": "admin_account", "predicate": "requires", "object": "?x"}
    got = derive(goal, Context(many(count)))
    assert len(got) == solutions
    assert [s.bindings["?x"] for s in got] == [f"factor_{i:02d}" for i in range(solutions)]


def _alternatives(head: str, bodies: tuple[str, ...]) -> Rule:
    """`head(S, O)` if `b(S, O)` for any b in `bodies` (one body alternative each)."""
    def body(goal: Pattern, depth: int) -> list[list[Pattern]]:
        return [[{"subject": goal.get("subject"), "predicate": b, "object": goal.get("object")}] for b in bodies]

    def conclude(goal: Pattern, b: dict[str, Any], params: Mapping[str, Any]) -> tuple[list[dict[str, Any]], Any]:
        obj = b.get(str(goal.get("object")), goal.get("object"))
        return [{"subject": goal.get("subject"), "predicate": head, "object": obj}], obj

    return Rule(f"{head}_rule", head, body, conclude)


@pytest.mark.parametrize(("first", "second", "solutions"), [(8, 7, 15), (8, 8, 16), (8, 9, 16), (10, 10, 16)])
def test_rule_expansions_are_capped_at_16_solutions(first: int, second: int, solutions: int) -> None:
    store = FactStore([*(fact("s", "p1", f"a{i:02d}", start=i) for i in range(first)),
                       *(fact("s", "p2", f"b{i:02d}", start=i) for i in range(second))])
    ctx = Context(store, rules=(_alternatives("q", ("p1", "p2")),))
    assert len(derive({"subject": "s", "predicate": "q", "object": "?o"}, ctx)) == solutions


# ------------------------------------------------------------------------------------- DEFAULT_DEPTH
def chain_rules(length: int) -> tuple[Rule, ...]:
    """q1 :- q0, q2 :- q1, ..., q<length> :- q<length-1>."""
    return tuple(_alternatives(f"q{k}", (f"q{k - 1}",)) for k in range(1, length + 1))


@pytest.mark.parametrize(("steps", "found"), [
    (2, True),  # 3 levels
    (3, True),  # 4 levels: exactly the default depth
    (4, False),  # 5 levels: one past it
])
def test_the_default_depth_reaches_a_fact_three_rule_steps_below_the_goal(steps: int, found: bool) -> None:
    ctx = Context(FactStore([fact("s", "q0", "o")]), rules=chain_rules(5))
    got = derive({"subject": "s", "predicate": f"q{steps}", "object": "?o"}, ctx)
    assert bool(got) is found
    if found:
        [solution] = got
        assert solution.bindings["?o"] == "o"
        assert [s.role for s in solution.steps] == ["premise"] + ["derived"] * steps


def test_depth_zero_proves_nothing_and_depth_one_only_direct_facts() -> None:
    ctx = Context(FactStore([fact("s", "q0", "o")]), rules=chain_rules(1))
    assert derive({"subject": "s", "predicate": "q0", "object": "?o"}, ctx, depth=0) == []
    assert len(derive({"subject": "s", "predicate": "q0", "object": "?o"}, ctx, depth=1)) == 1
    assert derive({"subject": "s", "predicate": "q1", "object": "?o"}, ctx, depth=1) == []
