"""Roles and comparisons bound (issue 42, item 1): the same words on the other side are another claim."""

from __future__ import annotations

from omega.grounding.frames import frames
from omega.grounding.model import CLAIM_STRENGTHENED, NOT_ENTAILED
from tests.unit.omega.grounding.support import codes, fact, judge

LATENCY = fact("C1", "Median latency was lower in version 2.4 than in version 2.3.")
NITRATE = fact("C2", "Nitrate concentrations were higher in the northern plots than in the southern plots.")
TUTOR = fact("R1", "Dr Alvarez tutored Dr Chen during the first year of the programme.")
RELEASE = fact("R2", "Release 5 replaced release 4 in the production clusters in March 2024.")


def test_a_comparison_restated_with_its_sides_passes() -> None:
    assert judge("Median latency was lower in version 2.4 than in version 2.3. [C1]", LATENCY).passed


def test_a_comparison_with_its_sides_reversed_is_refused_naming_the_moved_words() -> None:
    verdict = judge("Median latency was lower in version 2.3 than in version 2.4. [C1]", LATENCY)
    assert codes(verdict) == {NOT_ENTAILED}
    [failure] = verdict.failures
    assert failure.reason.startswith("comparison reversed")
    assert "'2.3', '2.4'" in failure.reason


def test_the_antonym_with_the_sides_swapped_is_the_same_comparison() -> None:
    assert judge("Median latency was higher in version 2.3 than in version 2.4. [C1]", LATENCY).passed
    assert judge("Nitrate concentrations were lower in the southern plots than in the northern plots. [C2]",
                 NITRATE).passed


def test_the_antonym_with_the_sides_kept_is_refused() -> None:
    assert not judge("Median latency was higher in version 2.4 than in version 2.3. [C1]", LATENCY).passed
    assert not judge("Nitrate concentrations were lower in the northern plots than in the southern plots. [C2]",
                     NITRATE).passed


def test_swapped_roles_are_refused_and_the_passive_keeps_them() -> None:
    assert judge("Dr Chen was tutored by Dr Alvarez during the first year of the programme. [R1]", TUTOR).passed
    swapped = judge("Dr Chen tutored Dr Alvarez during the first year of the programme. [R1]", TUTOR)
    assert [f.reason.split(":")[0] for f in swapped.failures] == ["roles swapped"]
    assert not judge("Dr Alvarez was tutored by Dr Chen during the first year of the programme. [R1]", TUTOR).passed


def test_which_version_replaced_which_is_bound_by_its_numbers() -> None:
    assert judge("Release 4 was replaced by release 5 in the production clusters in March 2024. [R2]", RELEASE).passed
    assert not judge("Release 4 replaced release 5 in the production clusters in March 2024. [R2]", RELEASE).passed


def test_frames_read_the_sides_of_than_and_the_agent_after_by() -> None:
    [comparison] = frames("Yield was higher in plot A than in plot B.")
    assert (comparison.kind, comparison.predicate) == ("comparison", "higher")
    assert "entitya" in comparison.first
    assert "entityb" in comparison.second
    [role] = frames("Plot B was grazed by sheep.")
    assert (role.kind, role.first, role.second) == ("role", frozenset({"sheep"}), frozenset({"plot", "entityb"}))


def test_a_negated_comparative_reads_as_its_antonym() -> None:
    [frame] = frames("Latency in version 2.3 did not exceed that in version 2.4.")
    assert frame.predicate == "not exceed"


def test_did_not_exceed_is_entailed_by_lower_with_the_same_sides_and_refused_reversed() -> None:
    assert judge("Median latency in version 2.4 did not exceed that in version 2.3. [C1]", LATENCY).passed
    assert not judge("Median latency in version 2.3 did not exceed that in version 2.4. [C1]", LATENCY).passed


GUARDS = fact("G1", "After predator guards were fitted to the nest boxes, the nest predation rate fell from 23% in "
                    "2021 to 9% in 2022.")


def test_a_change_given_an_agent_the_facts_only_place_in_sequence_is_strengthening() -> None:
    verdict = judge("Fitting predator guards to the nest boxes reduced the nest predation rate from 23% in 2021 to "
                    "9% in 2022. [G1]", GUARDS)
    assert codes(verdict) == {CLAIM_STRENGTHENED}
    assert judge("After predator guards were fitted to the nest boxes, the nest predation rate decreased from 23% "
                 "in 2021 to 9% in 2022. [G1]", GUARDS).passed


LATENCY_VALUES = fact("L1", "Median latency was 5.1 ms with Orrery 5.0 and 7.2 ms with Orrery 4.8.", {"units": "ms"})


def test_a_comparison_the_facts_numbers_decide_passes_and_the_reverse_is_refused() -> None:
    assert judge("Median latency was lower with Orrery 5.0 than with Orrery 4.8. [L1]", LATENCY_VALUES).passed
    assert judge("Median latency was higher with Orrery 4.8 than with Orrery 5.0. [L1]", LATENCY_VALUES).passed
    reversed_ = judge("Median latency was higher with Orrery 5.0 than with Orrery 4.8. [L1]", LATENCY_VALUES)
    assert reversed_.failures[0].reason.startswith("comparison reversed")
    assert "5.1 and 7.2" in reversed_.failures[0].reason
