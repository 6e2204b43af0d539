"""What every oracle reads about one case, computed once: normalised output, segments, facts, sourcing,
thresholds.

`max_unsupported_claims` of a case: absent means UNSUPPORTED_MAX; `"CONFIG:NAME"` is looked up; a literal
count may only tighten UNSUPPORTED_MAX (loosening it needs the config's human-signed waiver, so the
smaller of the two is used).
"""

from __future__ import annotations

from dataclasses import dataclass

from omega.oracle.case import CaseError, OracleCase
from omega.oracle.config import ConfigError, OracleConfig
from omega.oracle.normalise import Segment, match_key, normalise, segments
from omega.oracle.sourcing import FactSet, Sourcing, fact_set, source_all


@dataclass(frozen=True)
class CaseView:
    """One case as the oracles see it."""

    case: OracleCase
    config: OracleConfig
    timestamp: str
    normalised: str
    output_key: str
    segments: tuple[Segment, ...]
    fact_set: FactSet  # the facts' texts, match keys and canonical forms: what sourcing reads
    sourcing: tuple[Sourcing, ...]
    unsupported_max: int

    @property
    def facts(self) -> tuple[str, ...]:
        """The facts' match keys."""
        return self.fact_set.keys

    @property
    def must_find(self) -> tuple[str, ...]:
        """RULE-PREC-002 patterns."""
        return self.case.expected.must_find if self.case.expected else ()

    @property
    def must_not_find(self) -> tuple[str, ...]:
        """RULE-PREC-003 patterns."""
        return self.case.expected.must_not_find if self.case.expected else ()

    @property
    def contradiction_ids(self) -> tuple[str, ...]:
        """RULE-CONT-* pair ids."""
        return self.case.expected.contradiction_ids if self.case.expected else ()

    @property
    def expected_props(self) -> tuple[str, ...]:
        """Q-INV-02 properties (empty: the facts the output uses stand in)."""
        return self.case.expected.expected_props if self.case.expected else ()


def _threshold(case: OracleCase, config: OracleConfig) -> int:
    raw = case.expected.max_unsupported_claims if case.expected else None
    if raw is None:
        return config.unsupported_max
    try:
        value = config.resolve(raw)
    except ConfigError as exc:
        raise CaseError(f"expected.max_unsupported_claims: {exc}") from exc
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise CaseError(f"expected.max_unsupported_claims must resolve to a count >= 0, got {value!r}")
    return min(value, config.unsupported_max)


def view_of(case: OracleCase, config: OracleConfig, timestamp: str) -> CaseView:
    """Build the view; raises CaseError when the case's threshold cannot be resolved."""
    segs = tuple(segments(case.candidate_output))
    facts = fact_set(case.facts)
    return CaseView(case, config, timestamp, normalise(case.candidate_output), match_key(case.candidate_output),
                    segs, facts, tuple(source_all(segs, facts)), _threshold(case, config))
