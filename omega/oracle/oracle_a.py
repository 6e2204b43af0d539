"""Oracle-A, the symbolic rules of `seeds/phase-q-oracle-rules.md`: one function per rule id, each
`(view) -> RuleOutcome`. Rule ids are immutable; a changed rule gets a new id.

Decisions where the seed is incomplete:

* RULE-PREC-001/004 count a sentence as supported when it is sourced by RULE-PREC-004 or by the
  derivation rules DERIV-CONJ-001 and DERIV-CANON-001 (`sourcing`, `canonical_form`). Both fail when the
  unsupported count exceeds the case's threshold: RULE-PREC-001 with one violation carrying the count,
  RULE-PREC-004 with one per sentence. RULE-PREC-004's metrics say how much each derivation did
  (`sourced_by_conjunction`, `sourced_by_canonical_form`) and how many claims the seed's literal test
  alone leaves unsourced (`literal_unsourced`); its evidence traces each claim with its canonical form.
* Contradiction terms are matched as whole words ("valid" is not in "invalid"). A contradiction id of the
  table matches in either order (`never-always` too). An id outside the table names its own pair when it
  is two words joined by one hyphen (`pass-fail`); its terms then also match with a regular inflection
  (-s, -es, -ed, -d, -ing: "passed", "failed"), since such ids are written as stems. An id that names no
  pair cannot be checked and fails (fail-closed).
* RULE-CONT-002 uses the pair mechanism for the comparison operators: `X > Y` (or `>=`) and `Y > X` (or
  `X < Y`) in one output, at least one strict, is a contradiction; it runs on every output.
* RULE-CONT-003 flags, for a resolvable id, a later sentence that repeats an earlier one with the pair's
  other term ("X is true" ... "X is false"), and, on every output, a later sentence that repeats an
  earlier one with a negation word added or removed ("X is open" ... "X is not open").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from omega.oracle.canonical_form import CANONICAL_RULE
from omega.oracle.model import OracleResult, RuleOutcome, Violation, combine, outcome
from omega.oracle.normalise import has_term, is_negation, words
from omega.oracle.sourcing import DERIVATION_RULE, Sourcing
from omega.oracle.view import CaseView

ORACLE = "oracle_a"
PAIRS: tuple[tuple[str, str], ...] = (
    ("always", "never"), ("true", "false"), ("increase", "decrease"), ("positive", "negative"),
    ("valid", "invalid"), ("correct", "incorrect"), ("success", "failure"), ("above", "below"),
    ("present", "absent"), ("enabled", "disabled"),
)
_DERIVED_ID = re.compile(r"^([^\W\d_]+)-([^\W\d_]+)$")
_INFLECTION = "(?:s|es|ed|d|ing)?"
_COMPARISON = re.compile(r"([^\W_][\w.+/-]*?)\s*(>=|<=|>|<)\s*([^\W_][\w.+/-]*?)(?=[\s,;:!?)]|\.(?!\w)|$)")


class Pair:
    """A contradiction pair; a pair derived from an id outside the table accepts inflected terms."""

    def __init__(self, a: str, b: str, derived: bool) -> None:
        self.a, self.b, self.derived = a, b, derived
        suffix = _INFLECTION if derived else ""
        self._a = re.compile(re.escape(a) + suffix)
        self._b = re.compile(re.escape(b) + suffix)

    def side(self, word: str) -> str | None:
        """'a' or 'b' when the word is one of the pair's terms."""
        if self._a.fullmatch(word):
            return "a"
        if self._b.fullmatch(word):
            return "b"
        return None


def resolve_pair(contradiction_id: str) -> Pair | None:
    """The pair of an id: from the table (either order), else derived from `term-term`, else None."""
    key = contradiction_id.strip().lower()
    for a, b in PAIRS:
        if key in (f"{a}-{b}", f"{b}-{a}"):
            return Pair(a, b, derived=False)
    found = _DERIVED_ID.match(key)
    return Pair(found.group(1), found.group(2), derived=True) if found else None


def rule_prec_001(view: CaseView) -> RuleOutcome:
    """Zero unsupported claims: the unsupported sentence count must not exceed the threshold."""
    unsupported = [s.segment.text for s in view.sourcing if not s.sourced]
    violations = []
    if len(unsupported) > view.unsupported_max:
        violations.append(Violation("Q-INV-01", "RULE-PREC-001",
                                    f"{len(unsupported)} unsupported claim(s) > UNSUPPORTED_MAX={view.unsupported_max}",
                                    " | ".join(unsupported)))
    return outcome(ORACLE, "RULE-PREC-001", {"claims": [s.key for s in view.segments], "facts": view.facts,
                                             "max": view.unsupported_max}, violations, view.timestamp,
                   decided=unsupported,
                   metrics={"claims": len(view.segments), "unsupported_count": len(unsupported),
                            "unsupported_max": view.unsupported_max})


def rule_prec_002(view: CaseView) -> RuleOutcome:
    """Must-find: every `expected.must_find` pattern appears in the output."""
    missing = [p for p in view.must_find if not has_term(p, view.output_key)]
    violations = [Violation("Q-INV-01", "RULE-PREC-002", "required pattern missing", p) for p in missing]
    return outcome(ORACLE, "RULE-PREC-002", {"output": view.output_key, "must_find": view.must_find},
                   violations, view.timestamp, decided=missing, metrics={"must_find_missing": len(missing)})


def rule_prec_003(view: CaseView) -> RuleOutcome:
    """Must-not-find: no `expected.must_not_find` pattern appears in the output."""
    present = [p for p in view.must_not_find if has_term(p, view.output_key)]
    violations = [Violation("Q-INV-01", "RULE-PREC-003", "forbidden pattern present", p) for p in present]
    return outcome(ORACLE, "RULE-PREC-003", {"output": view.output_key, "must_not_find": view.must_not_find},
                   violations, view.timestamp, decided=present, metrics={"must_not_find_present": len(present)})


def _sourced_by(s: Sourcing) -> str | None:
    """How a claim is sourced: on its match key (RULE-PREC-004), on its canonical form, or not at all."""
    if not s.sourced:
        return None
    return CANONICAL_RULE if s.canonical else "RULE-PREC-004"


def rule_prec_004(view: CaseView) -> RuleOutcome:
    """Fact sourcing: each claim traces to input facts (two-way substring, DERIV-CONJ-001, DERIV-CANON-001)."""
    unsourced = [s for s in view.sourcing if not s.sourced]
    violations = []
    if len(unsourced) > view.unsupported_max:
        violations = [Violation("Q-INV-01", "RULE-PREC-004", "claim not traceable to any input fact (canonical "
                                f"form {s.form!r}, {CANONICAL_RULE})", s.segment.text) for s in unsourced]
    trace = [{"claim": s.segment.key, "form": s.form, "facts": list(s.facts), "runs": s.runs,
              "literal": s.literal, "by": _sourced_by(s)} for s in view.sourcing]
    return outcome(ORACLE, "RULE-PREC-004", {"claims": [s.text for s in view.segments],
                                             "facts": list(view.fact_set.texts)},
                   violations, view.timestamp, decided=trace,
                   metrics={"sourced_by_conjunction": sum(s.by_conjunction for s in view.sourcing),
                            "sourced_by_canonical_form": sum(s.canonical for s in view.sourcing),
                            "literal_unsourced": sum(not s.literal for s in view.sourcing),
                            "derivation_rule": DERIVATION_RULE, "canonical_form_rule": CANONICAL_RULE})


def _pairs(view: CaseView) -> tuple[list[tuple[str, Pair]], list[str]]:
    resolved, unknown = [], []
    for cid in view.contradiction_ids:
        pair = resolve_pair(cid)
        if pair is None:
            unknown.append(cid)
        else:
            resolved.append((cid, pair))
    return resolved, unknown


def rule_cont_001(view: CaseView) -> RuleOutcome:
    """Direct negation: both terms of a listed contradiction pair appear in the output."""
    resolved, unknown = _pairs(view)
    output_words = words(view.output_key)
    violations = [Violation("Q-INV-03", "RULE-CONT-001", f"contradiction id {cid!r} names no pair (TERM-TERM): "
                            "it cannot be checked", cid) for cid in unknown]
    for cid, pair in resolved:
        sides = {pair.side(w) for w in output_words}
        if {"a", "b"} <= sides:
            violations.append(Violation("Q-INV-03", "RULE-CONT-001",
                                        f"both terms of {cid!r} ({pair.a}/{pair.b}) appear", cid))
    return outcome(ORACLE, "RULE-CONT-001", {"output": view.output_key, "ids": view.contradiction_ids},
                   violations, view.timestamp,
                   metrics={"contradiction_ids": len(view.contradiction_ids),
                            "contradiction_ids_derived": sum(p.derived for _, p in resolved),
                            "contradiction_ids_unknown": len(unknown)})


def comparisons(key: str) -> set[tuple[str, str, bool]]:
    """Every `greater, lesser, strict` relation written with a comparison operator."""
    relations: set[tuple[str, str, bool]] = set()
    for x, op, y in _COMPARISON.findall(key):
        greater, lesser = (x, y) if op.startswith(">") else (y, x)
        relations.add((greater, lesser, "=" not in op))
    return relations


def rule_cont_002(view: CaseView) -> RuleOutcome:
    """Incompatible constraints: `X > Y` and `Y > X` (or `X < Y`) in the same output."""
    relations = comparisons(view.output_key)
    clashes = sorted({(g, s) for g, s, strict in relations
                      if any(g2 == s and s2 == g and (strict or strict2) for g2, s2, strict2 in relations)
                      and g < s})
    violations = [Violation("Q-INV-03", "RULE-CONT-002", "incompatible constraints", f"{g} > {s} and {s} > {g}")
                  for g, s in clashes]
    return outcome(ORACLE, "RULE-CONT-002", {"output": view.output_key}, violations, view.timestamp,
                   decided=[list(c) for c in clashes], metrics={"comparisons": len(relations)})


def _masked(sentence: list[str], pair: Pair) -> tuple[tuple[str, ...], set[str]]:
    sides = {side for w in sentence if (side := pair.side(w))}
    return tuple("\x00" if pair.side(w) else w for w in sentence), sides


def rule_cont_003(view: CaseView) -> RuleOutcome:
    """Assertion then infirmation: a later sentence denies an earlier one (pair term swapped, negation)."""
    resolved, _ = _pairs(view)
    sentences = [words(s.key) for s in view.segments]
    violations = []
    for j, later in enumerate(sentences):
        for i, earlier in enumerate(sentences[:j]):
            why = _denial(earlier, later, [p for _, p in resolved])
            if why:
                violations.append(Violation("Q-INV-03", "RULE-CONT-003", f"sentence {j + 1} denies sentence {i + 1}"
                                            f" ({why})", f"{view.segments[i].text} / {view.segments[j].text}"))
    return outcome(ORACLE, "RULE-CONT-003", {"claims": [s.key for s in view.segments],
                                             "ids": view.contradiction_ids}, violations, view.timestamp)


def _denial(earlier: list[str], later: list[str], pairs: Sequence[Pair]) -> str | None:
    for pair in pairs:
        masked_earlier, sides_earlier = _masked(earlier, pair)
        masked_later, sides_later = _masked(later, pair)
        if masked_earlier == masked_later and len(sides_earlier) == len(sides_later) == 1 \
                and sides_earlier != sides_later:
            return f"{pair.a}/{pair.b}"
    plain_earlier = [w for w in earlier if not is_negation(w)]
    plain_later = [w for w in later if not is_negation(w)]
    negations = (len(earlier) - len(plain_earlier), len(later) - len(plain_later))
    if plain_earlier and plain_earlier == plain_later and negations[0] != negations[1]:
        return "negation"
    return None


RULES: tuple[Callable[[CaseView], RuleOutcome], ...] = (
    rule_prec_001, rule_prec_002, rule_prec_003, rule_prec_004, rule_cont_001, rule_cont_002, rule_cont_003,
)


def judge_a(view: CaseView) -> OracleResult:
    """Oracle-A: every rule in order; FAIL if any rule fails."""
    return combine("ORACLE-A", [rule(view) for rule in RULES], {})
