"""§5.2 strengthening by agency (issue 42): a change given an agent the cited facts only place in sequence."""

from __future__ import annotations

from omega.grounding.model import CLAIM_STRENGTHENED
from tests.unit.omega.grounding.support import codes, fact, judge

GUARDS = fact("G1", "After predator guards were fitted to the nest boxes, the nest predation rate fell from 23% in "
                    "2021 to 9% in 2022.")


def test_a_change_given_an_agent_the_facts_only_place_in_sequence_is_strengthening() -> None:
    verdict = judge("Fitting predator guards to the nest boxes reduced the nest predation rate from 23% in 2021 to "
                    "9% in 2022. [G1]", GUARDS)
    assert codes(verdict) == {CLAIM_STRENGTHENED}
    assert judge("After predator guards were fitted to the nest boxes, the nest predation rate decreased from 23% "
                 "in 2021 to 9% in 2022. [G1]", GUARDS).passed
