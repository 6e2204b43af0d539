"""§2.3 confidence propagation: the five rules, their factors, and how references apply them."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omega.agents.confidence import (
    ConfidenceBook,
    agents_in_play,
    aggregate_confidence,
    and_rule,
    apply_message,
    attack_rule,
    claim_confidence,
    claim_key,
    consensus_rule,
    effective_confidence,
    independence_factor,
    or_rule,
    survival_factor,
    verification_factor,
    verification_rule,
    verifiers_and_attackers,
)
from omega.agents.limits import DEFAULTS
from tests.unit.omega.agents.factories import Builder, ref

unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


def book_of(*messages: object) -> ConfidenceBook:
    book = ConfidenceBook()
    for m in messages:
        book = apply_message(book, m)  # type: ignore[arg-type]
    return book


def conf(book: ConfidenceBook, agent: int, element: str = "") -> float:
    return claim_confidence(book.claims[claim_key(agent, element)])


# ------------------------------------------------------------------------------------------- rules 1-5
def test_and_rule_is_min_times_coherence() -> None:
    assert and_rule([0.9, 0.6, 0.8], 0.9) == pytest.approx(0.54)
    assert and_rule([0.5], 1.0) == 0.5


def test_or_rule_is_max() -> None:
    assert or_rule([0.2, 0.7, 0.4]) == 0.7


def test_attack_rule_multiplies_by_a_clamped_survival_factor() -> None:
    assert attack_rule(0.8, 0.5) == pytest.approx(0.4)
    assert attack_rule(0.8, 1.7) == 0.8
    assert attack_rule(0.8, -1.0) == 0.0


def test_verification_rule_caps_at_one_and_clamps_the_factor() -> None:
    assert verification_rule(0.8, 1.5) == 1.0
    assert verification_rule(0.5, 1.2) == pytest.approx(0.6)
    assert verification_rule(0.8, 0.1) == pytest.approx(0.4)  # factor clamped to 0.5
    assert verification_rule(0.5, 9.0) == pytest.approx(0.75)  # factor clamped to 1.5


def test_consensus_rule_is_a_weighted_mean_times_independence() -> None:
    assert consensus_rule([0.8, 0.6], 1.0) == pytest.approx(0.7)
    assert consensus_rule([0.8, 0.6], 0.9) == pytest.approx(0.63)
    assert consensus_rule([1.0, 0.0], 1.0, weights=[3.0, 1.0]) == pytest.approx(0.75)


# ------------------------------------------------------------------------------------------- factors
def test_survival_factor_of_a_failed_attack_is_one() -> None:
    assert survival_factor(0.9, "SUPPORTS", False) == 1.0


def test_survival_factor_of_an_attack_falls_with_the_attackers_confidence() -> None:
    assert survival_factor(0.8, "CONTRADICTS", False) == pytest.approx(0.6)
    assert survival_factor(0.8, "QUALIFIES", False) == pytest.approx(0.8)
    assert survival_factor(1.0, "CONTRADICTS", True) == 0.0  # a decisive attack reaches 0


def test_verification_factor_spans_its_range() -> None:
    assert verification_factor(1.0, "SUPPORTS") == 1.5
    assert verification_factor(1.0, "CONTRADICTS") == 0.5
    assert verification_factor(0.0, "SUPPORTS") == 1.0
    assert verification_factor(0.8, "QUALIFIES") == pytest.approx(0.8)


def test_independence_factor_rewards_distinct_tiers() -> None:
    assert independence_factor(["GENESIS"]) == 1.0
    assert independence_factor(["GENESIS", "GENESIS", "GENESIS"]) == DEFAULTS.independence_factor
    assert independence_factor(["GENESIS", "BRIDGE", "META"]) == 1.0


@given(unit, st.sampled_from(["SUPPORTS", "CONTRADICTS", "QUALIFIES"]), st.booleans())
def test_factors_stay_in_their_ranges(c: float, kind: str, decisive: bool) -> None:
    assert 0.0 <= survival_factor(c, kind, decisive) <= 1.0
    assert 0.5 <= verification_factor(c, kind) <= 1.5


# ------------------------------------------------------------------------------------------- references
def test_verification_support_raises_a_claim_and_caps_at_one() -> None:
    b = Builder()
    book = book_of(b.msg(1, 1, 0.6), b.msg(27, 1, 1.0, refs=[ref("SUPPORTS", 1)]))
    assert conf(book, 1) == pytest.approx(0.9)
    book = apply_message(book, b.msg(32, 1, 1.0, refs=[ref("SUPPORTS", 1)]))
    assert conf(book, 1) == 1.0


def test_verification_contradiction_lowers_a_claim() -> None:
    b = Builder()
    book = book_of(b.msg(1, 1, 0.8), b.msg(27, 1, 1.0, refs=[ref("CONTRADICTS", 1)]))
    assert conf(book, 1) == pytest.approx(0.4)


def test_adversary_contradiction_is_an_attack_on_the_named_element() -> None:
    b = Builder()
    book = book_of(b.msg(2, 1, 0.8), b.msg(36, 1, 0.8, refs=[ref("CONTRADICTS", 2, "Sample  Size")]))
    assert conf(book, 2, "sample size") == pytest.approx(0.8 * 0.6)
    assert conf(book, 2) == 0.8  # the verdict claim is untouched
    assert effective_confidence(book, 2, 1) == pytest.approx(0.48)  # the weakest part of the output


def test_adversary_support_is_a_failed_attack() -> None:
    b = Builder()
    book = book_of(b.msg(1, 1, 0.7), b.msg(44, 1, 0.9, refs=[ref("SUPPORTS", 1)]))
    assert conf(book, 1) == 0.7
    assert verifiers_and_attackers(book) == ((), (44,))


def test_decisive_attack_uses_the_decisive_weight() -> None:
    b = Builder()
    book = book_of(b.msg(1, 1, 0.8), b.msg(35, 1, 1.0, refs=[ref("CONTRADICTS", 1)], blocks_progress=True))
    assert conf(book, 1) == 0.0


def test_a_rerun_attack_replaces_the_earlier_one() -> None:
    b = Builder()
    book = book_of(b.msg(1, 1, 0.8), b.msg(35, 1, 0.8, refs=[ref("CONTRADICTS", 1)]),
                   b.msg(35, 1, 0.8, refs=[ref("CONTRADICTS", 1)]))
    assert conf(book, 1) == pytest.approx(0.48)


def test_peer_support_is_consensus() -> None:
    b = Builder()
    book = book_of(b.msg(1, 1, 0.9), b.msg(8, 1, 0.5, refs=[ref("SUPPORTS", 1)]))
    assert conf(book, 1) == pytest.approx(0.7 * DEFAULTS.independence_factor)
    book = apply_message(book, b.msg(21, 1, 0.7, refs=[ref("EXTENDS", 1)]))
    tiers = independence_factor(["GENESIS", "GENESIS", "BRIDGE"])
    assert conf(book, 1) == pytest.approx(0.7 * tiers)


def test_peer_contradiction_and_self_reference_change_no_confidence() -> None:
    b = Builder()
    book = book_of(b.msg(1, 1, 0.8), b.msg(8, 1, 0.9, refs=[ref("CONTRADICTS", 1)]),
                   b.msg(1, 1, 0.6, refs=[ref("SUPPORTS", 1)]))
    assert conf(book, 1) == 0.6


def test_a_new_message_replaces_the_verdict_claim() -> None:
    b = Builder()
    book = book_of(b.msg(1, 1, 0.8), b.msg(35, 1, 0.8, refs=[ref("CONTRADICTS", 1)]), b.msg(1, 2, 0.7))
    assert conf(book, 1) == 0.7


def test_premises_cap_the_conclusion_by_and_or_or() -> None:
    b = Builder()
    base = [b.msg(1, 1, 0.9), b.msg(8, 1, 0.5)]
    book = book_of(*base, b.msg(21, 1, 0.95, refs=[ref("USES", 1), ref("USES", 8)]))
    assert effective_confidence(book, 21, 1) == pytest.approx(0.45)
    book = apply_message(book, b.msg(21, 1, 0.95, content={"premise_rule": "OR"},
                                     refs=[ref("USES", 1), ref("USES", 8)]))
    assert effective_confidence(book, 21, 1) == pytest.approx(0.9)
    book = apply_message(book, b.msg(22, 1, 0.95, refs=[ref("USES", 8)]))
    assert effective_confidence(book, 22, 1) == pytest.approx(0.5)  # one premise: no coherence factor
    book = apply_message(book, b.msg(23, 1, 0.95, refs=[ref("EXTENDS", 8)]))
    # EXTENDS from a peer also agrees with the premise (rule 5), which lifts it before it caps the conclusion.
    assert effective_confidence(book, 23, 1) == pytest.approx((0.5 + 0.95) / 2 * independence_factor(
        ["GENESIS", "BRIDGE"]))


def test_an_unknown_author_starts_at_the_default() -> None:
    b = Builder()
    book = book_of(b.msg(27, 1, 0.0, refs=[ref("SUPPORTS", 3, "constraint")]))
    assert conf(book, 3, "constraint") == DEFAULTS.default_claim_confidence


def test_aggregate_is_the_mean_of_claim_bearing_agents_in_play() -> None:
    b = Builder()
    book = book_of(b.msg(1, 1, 0.8), b.msg(8, 1, 0.6), b.msg(27, 1, 0.1), b.msg(44, 1, 0.1), b.msg(52, 1, 0.1),
                   b.msg(53, 1, 0.1), b.msg(57, 1, 0.1), b.msg(51, 1, 0.7))
    assert agents_in_play(book, 1) == (1, 8, 51)
    assert aggregate_confidence(book, 1) == pytest.approx(0.7)
    assert aggregate_confidence(book, 2) is None


def test_an_attack_in_a_later_iteration_brings_its_target_into_play() -> None:
    b = Builder()
    book = book_of(b.msg(1, 1, 0.8), b.msg(8, 2, 0.8), b.msg(35, 2, 1.0, refs=[ref("CONTRADICTS", 1, "axiom")]))
    assert agents_in_play(book, 2) == (1, 8)
    assert aggregate_confidence(book, 2) == pytest.approx((0.4 + 0.8) / 2)


@given(st.lists(st.tuples(st.sampled_from([1, 8, 21, 27, 35, 44, 51]), unit,
                          st.sampled_from(["SUPPORTS", "CONTRADICTS", "QUALIFIES", "EXTENDS", "USES"]),
                          st.sampled_from([1, 8, 21]), st.booleans()), max_size=25))
def test_every_claim_and_the_aggregate_stay_in_unit_range(steps: list[tuple[int, float, str, int, bool]]) -> None:
    b = Builder()
    book = ConfidenceBook()
    for agent, c, kind, target, blocks in steps:
        book = apply_message(book, b.msg(agent, 1, c, refs=[ref(kind, target, "x" if blocks else "")],
                                         blocks_progress=blocks))
    assert all(0.0 <= claim_confidence(claim) <= 1.0 for claim in book.claims.values())
    aggregate = aggregate_confidence(book, 1)
    assert aggregate is None or 0.0 <= aggregate <= 1.0


def test_parameters_override_the_factors() -> None:
    params = dataclasses.replace(DEFAULTS, attack_weight=1.0)
    assert survival_factor(0.5, "CONTRADICTS", False, params) == 0.5


def test_effective_and_aggregate_confidence_apply_the_given_independence_factor() -> None:
    """Rule 5 on a GENESIS claim (0.8) backed by a GENESIS peer (0.6): the same tier, so the whole
    `independence_factor` applies: 0.7 * 0.85 = 0.595 by default, 0.7 * 0.5 = 0.35 with 0.5; the peer's own
    verdict stays 0.6, so the aggregate is their mean."""
    b = Builder("sess-rule5")
    book = book_of(b.msg(1, 1, 0.8), b.msg(8, 1, 0.6, refs=[ref("SUPPORTS", 1)]))
    loose = dataclasses.replace(DEFAULTS, independence_factor=0.5)
    assert effective_confidence(book, 1, 1) == pytest.approx(0.595)
    assert effective_confidence(book, 1, 1, loose) == pytest.approx(0.35)
    assert aggregate_confidence(book, 1) == pytest.approx((0.595 + 0.6) / 2)
    assert aggregate_confidence(book, 1, loose) == pytest.approx((0.35 + 0.6) / 2)
