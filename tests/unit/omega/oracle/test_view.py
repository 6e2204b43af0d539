"""What every oracle reads about one case: the normalised output and the case's resolved threshold."""

from __future__ import annotations

import pytest

from omega.oracle.case import CaseError
from tests.unit.omega.oracle.support import view


def test_the_view_holds_the_normalised_output_and_its_match_key() -> None:
    v = view("Fact ONE.\r\n   Fact two.  ", ["Fact one."])
    assert (v.normalised, v.output_key) == ("Fact ONE. Fact two.", "fact one. fact two")
    assert [(s.index, s.text, s.key) for s in v.segments] == [
        (0, "Fact ONE.", "fact one"), (1, "Fact two.", "fact two")]


@pytest.mark.parametrize(("limit", "shown"), [
    (-1, "-1"), ("CONFIG:NECESSITY_MIN_RATIO", "0.85"), ("CONFIG:ABLATION_STRATEGY", "'single-segment'"),
])
def test_a_case_threshold_that_is_not_a_count_is_refused_with_its_value(limit: object, shown: str) -> None:
    with pytest.raises(CaseError) as refused:
        view("x.", ["x."], max_unsupported_claims=limit)
    assert str(refused.value) == f"expected.max_unsupported_claims must resolve to a count >= 0, got {shown}"
