"""The one shape every rule reports in: a named violation with a severity and the field it concerns."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    """ERROR rejects the event; WARNING is recorded on the verdict and the event is accepted."""

    ERROR = "ERROR"
    WARNING = "WARNING"


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: `rule` is the rule id (e.g. `SCHEMA`, `INV-007`), `field` a dotted path or None."""

    rule: str
    severity: Severity
    message: str
    field: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        """Plain-dict form used on the wire and in reports."""
        return {"rule": self.rule, "severity": self.severity.value, "message": self.message, "field": self.field}

