"""One severity scale on every alert (omega/events.py, issue 23): each spec's labels land on CRITICAL > HIGH >
MEDIUM > LOW > INFO as docs/concepts.md's table says, the record keeps the spec's own label beside it, and a label no
spec uses is refused."""

from __future__ import annotations

import pytest

from omega.events import SEVERITY_SCALE, Alert, normalised_severity


@pytest.mark.parametrize(("label", "scale"), [
    ("CRITICAL", "CRITICAL"), ("HIGH", "HIGH"), ("WARNING", "MEDIUM"),  # OMEN
    ("SERIOUS", "HIGH"), ("MODERATE", "MEDIUM"), ("MINOR", "LOW"),  # OMEGA-57 §4.1.2
    ("INFO", "INFO"),
])
def test_each_spec_label_has_its_place_on_the_one_scale(label: str, scale: str) -> None:
    assert normalised_severity(label) == scale


def test_the_scale_runs_from_most_to_least_severe() -> None:
    assert SEVERITY_SCALE == ("CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO")


def test_the_record_carries_the_scale_and_the_spec_label() -> None:
    record = Alert("TASK_TIMEOUT", "WARNING", "corr_1", "no result by the deadline", "pkt_1").to_dict()
    assert (record["severity"], record["spec_severity"]) == ("MEDIUM", "WARNING")


def test_a_label_on_no_known_scale_is_refused() -> None:
    with pytest.raises(ValueError, match="'URGENT' is on no known scale"):
        normalised_severity("URGENT")
