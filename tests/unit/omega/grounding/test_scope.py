"""§6.1 scope and strength fidelity: no causation from correlation, dropped hedge, intensifier, universal,
generic population or generalised sample."""

from __future__ import annotations

from omega.grounding.model import CLAIM_STRENGTHENED, SCOPE_EXPANSION
from omega.grounding.scope import scope_and_strength_fidelity
from omega.grounding.tokens import analyse
from tests.unit.omega.grounding.support import DIZZY, HEDGED, TRIAL, fact

COHORT = fact("C", "In a prospective cohort of 25,310 women, coffee intake was associated with lower diabetes risk.")


def _codes(sentence: str, *facts: object) -> list[str]:
    return [f.code for f in scope_and_strength_fidelity(analyse(sentence), facts)]  # type: ignore[arg-type]


def test_a_faithful_hedged_correlational_sentence_passes() -> None:
    assert _codes("Greater reductions in blood pressure may be associated with higher adherence to drug A.",
                  HEDGED) == []


def test_adding_a_hedge_only_weakens_and_passes() -> None:
    assert _codes("Drug A may have lowered systolic blood pressure.", TRIAL) == []


def test_the_sample_is_kept_by_naming_it_or_stating_its_size() -> None:
    assert _codes("Among 25,310 women, coffee intake was associated with lower diabetes risk.", COHORT) == []
    assert _codes("In the cohort, coffee intake was associated with lower diabetes risk.", COHORT) == []


def test_correlation_stated_as_causation_is_strengthened() -> None:
    failures = scope_and_strength_fidelity(analyse("Higher adherence to drug A may cause greater reductions."),
                                           [HEDGED])
    assert [f.code for f in failures] == [CLAIM_STRENGTHENED]
    assert failures[0].reason.startswith("correlation stated as causation")


def test_a_causal_phrase_is_a_causal_cue() -> None:
    assert _codes("Higher adherence to drug A may lead to greater reductions.", HEDGED) == [CLAIM_STRENGTHENED]


def test_a_dropped_hedge_is_strengthened() -> None:
    assert _codes("Higher adherence to drug A is associated with greater reductions.", HEDGED) == [CLAIM_STRENGTHENED]


def test_an_intensifier_is_strengthened() -> None:
    assert _codes("Drug A dramatically lowered systolic blood pressure.", TRIAL) == [CLAIM_STRENGTHENED]


def test_a_universal_quantifier_is_scope_expansion() -> None:
    assert _codes("Drug A lowered systolic blood pressure in all adults.", TRIAL) == [SCOPE_EXPANSION]


def test_a_generic_population_is_scope_expansion() -> None:
    assert SCOPE_EXPANSION in _codes("Dizziness was reported by 8.4% of people receiving drug A.", DIZZY)


def test_a_sample_generalised_to_a_population_is_scope_expansion() -> None:
    assert _codes("In women, coffee intake was associated with lower diabetes risk.", COHORT) == [SCOPE_EXPANSION]
