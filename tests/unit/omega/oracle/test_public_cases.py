"""Agreement with `expected.verdict` on every public Phase Q case (`../shared/data/phase-q-dev.ndjson`, external data:
`tests.external_data`).

No case id or text appears in the code: the rules are general, the expectation is only compared here."""

from __future__ import annotations

from typing import Any

import pytest

from omega.oracle.case import parse_case
from omega.oracle.report import judge_case
from tests.external_data import PHASE_Q_DEV, needs
from tests.unit.omega.oracle.support import CONFIG, dev_lines

LINES = dev_lines()
pytestmark = needs(PHASE_Q_DEV)


def test_there_are_34_public_cases() -> None:
    assert len(LINES) == 34


@pytest.mark.parametrize("line", LINES, ids=[line["id"] for line in LINES])
def test_public_case_verdict_agrees_with_expected(line: dict[str, Any]) -> None:
    judged = judge_case(parse_case(line), CONFIG)
    assert judged.verdict == line["expected"]["verdict"], judged.to_line()
