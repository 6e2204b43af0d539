"""Oracle-B, ablation and adversarial variants (Q-INV-02 necessity, Q-INV-04 local stability): one function
per check id, each `(view) -> RuleOutcome`.

* ORB-ABL-001 (Q-INV-02), ABLATION_STRATEGY single-segment: drop each segment in turn and recompute the
  properties; a segment is necessary when its removal loses one. Properties: `expected.expected_props`
  held by the whole output (whole-word match); when none is given or none holds, the input facts the
  output is sourced by (a segment is necessary when it is the only one sourced by some fact).
  FAIL when necessary/segments < NECESSITY_MIN_RATIO; an empty output has ratio 0.
* Variants are metamorphic relations on the sourcing judgement; a broken relation is a Q-INV-04 violation:
  ORB-NEG-001 a sourced claim negated must no longer be sourced (else its support does not pin it down);
  ORB-SUB-001 the same with every numeric value changed; ORB-PERM-001 reversing the segments changes no
  segment's judgement and no property; ORB-INJ-001 an appended unsupported claim adds exactly one
  unsupported, unnecessary segment; ORB-TRUNC-001 dropping the last segment changes no other segment.
* ORB-STAB-001 (Q-INV-04): change one input field (a fact's values, or its polarity when it has none); the
  segments whose judgement changes must be <= STABILITY_FACTOR x 1 changed field.

Variants are built from the segments' texts and the facts' texts, case kept, and judged by the same
sourcing as the output (match keys, then DERIV-CANON-001 canonical forms, which read case), so a variant is
judged exactly as the output would be; the properties (`expected_props`) are still matched on match keys.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from omega.oracle.model import OracleResult, RuleOutcome, Violation, combine, outcome
from omega.oracle.normalise import Segment, has_term, match_key
from omega.oracle.sourcing import FactSet, Sourcing, fact_set, source_all, source_segment
from omega.oracle.variants import inject, negate, permute, substitute, truncate
from omega.oracle.view import CaseView

ORACLE = "oracle_b"
RATIO_DIGITS = 6


def _segment(text: str, index: int = 0) -> Segment:
    return Segment(index, text, match_key(text))


def _judge(texts: Sequence[str], facts: FactSet) -> list[Sourcing]:
    return source_all([_segment(t, i) for i, t in enumerate(texts)], facts)


def necessary_segments(keys: Sequence[str], props: Sequence[str], sourcing: Sequence[Sourcing]) -> list[bool]:
    """Single-segment ablation: whether removing each segment loses a property (or a used fact)."""
    held = [p for p in props if has_term(p, " ".join(keys))]
    if held:
        return [any(not has_term(p, " ".join([*keys[:k], *keys[k + 1:]])) for p in held) for k in range(len(keys))]
    used = [set(s.facts) for s in sourcing]
    return [bool(used[k] - set().union(*(used[:k] + used[k + 1:]))) for k in range(len(keys))]


def orb_abl_001(view: CaseView) -> RuleOutcome:
    """Necessity by single-segment ablation: the ratio of necessary segments >= NECESSITY_MIN_RATIO."""
    keys = [s.key for s in view.segments]
    necessary = necessary_segments(keys, view.expected_props, view.sourcing)
    ratio = round(sum(necessary) / len(keys), RATIO_DIGITS) if keys else 0.0
    violations = []
    if ratio < view.config.necessity_min_ratio:
        unnecessary = [view.segments[k].text for k, n in enumerate(necessary) if not n]
        violations.append(Violation("Q-INV-02", "ORB-ABL-001", f"necessity ratio {ratio} < NECESSITY_MIN_RATIO="
                                    f"{view.config.necessity_min_ratio}", " | ".join(unnecessary) or "empty output"))
    held = sum(has_term(p, view.output_key) for p in view.expected_props)
    return outcome(ORACLE, "ORB-ABL-001", {"segments": keys, "props": view.expected_props,
                                           "strategy": view.config.ablation_strategy}, violations, view.timestamp,
                   decided=necessary,
                   metrics={"necessity_ratio": ratio, "necessary_segments": sum(necessary), "segments": len(keys),
                            "ablation_strategy": view.config.ablation_strategy,
                            "props_mode": "expected_props" if held else "facts",
                            "props_absent": len(view.expected_props) - held})


def _sensitivity(view: CaseView, rule_id: str, mutate: Callable[[str], str | None], what: str) -> RuleOutcome:
    """A falsified sourced claim must stop being sourced."""
    exposed, checked = [], 0
    for s in view.sourcing:
        variant = mutate(s.segment.text) if s.sourced else None
        if variant is None or variant == s.segment.text:
            continue
        checked += 1
        if source_segment(_segment(variant), view.fact_set).sourced:
            exposed.append(Violation("Q-INV-04", rule_id, f"{what} of a sourced claim is still sourced", variant))
    return outcome(ORACLE, rule_id, {"claims": [s.segment.text for s in view.sourcing],
                                     "facts": list(view.fact_set.texts)},
                   exposed, view.timestamp, decided=checked)


def orb_neg_001(view: CaseView) -> RuleOutcome:
    """Negation variant: each sourced claim, negated, must no longer be sourced."""
    return _sensitivity(view, "ORB-NEG-001", negate, "the negation")


def orb_sub_001(view: CaseView) -> RuleOutcome:
    """Substitution variant: each sourced claim with its values changed must no longer be sourced."""
    return _sensitivity(view, "ORB-SUB-001", substitute, "a value substitution")


def _signature(texts: Sequence[str], sourcing: Sequence[Sourcing]) -> Counter[tuple[str, bool]]:
    return Counter((t, s.sourced) for t, s in zip(texts, sourcing, strict=True))


def orb_perm_001(view: CaseView) -> RuleOutcome:
    """Permutation variant: reversed segments keep every segment's judgement and the properties."""
    texts = [s.text for s in view.segments]
    reordered = permute(texts)
    judged = _judge(reordered, view.fact_set)
    violations = []
    if _signature(reordered, judged) != _signature(texts, view.sourcing):
        violations.append(Violation("Q-INV-04", "ORB-PERM-001", "reordering changed a segment's judgement"))
    keys = [s.key for s in view.segments]
    before = [has_term(p, " ".join(keys)) for p in view.expected_props]
    if [has_term(p, " ".join(permute(keys))) for p in view.expected_props] != before:
        violations.append(Violation("Q-INV-04", "ORB-PERM-001", "reordering changed the properties"))
    return outcome(ORACLE, "ORB-PERM-001", {"segments": reordered}, violations, view.timestamp)


def orb_inj_001(view: CaseView) -> RuleOutcome:
    """Injection variant: an appended unsupported claim is one more unsupported, unnecessary segment."""
    variant = inject([s.text for s in view.segments], view.case.case_hash)
    judged = _judge(variant, view.fact_set)
    before = sum(not s.sourced for s in view.sourcing)
    after = sum(not s.sourced for s in judged)
    violations = []
    if after != before + 1:
        violations.append(Violation("Q-INV-04", "ORB-INJ-001", f"injected claim not isolated: unsupported "
                                    f"{before} -> {after}", variant[-1]))
    keys = inject([s.key for s in view.segments], view.case.case_hash)
    if necessary_segments(keys, view.expected_props, judged)[-1]:
        violations.append(Violation("Q-INV-04", "ORB-INJ-001", "injected claim counted as necessary", variant[-1]))
    return outcome(ORACLE, "ORB-INJ-001", {"segments": variant}, violations, view.timestamp,
                   decided=[before, after])


def orb_trunc_001(view: CaseView) -> RuleOutcome:
    """Truncation variant: dropping the last segment changes no other segment's judgement."""
    texts = [s.text for s in view.segments]
    variant = truncate(texts)
    violations = []
    if len(texts) > 1:
        judged = _judge(variant, view.fact_set)
        changed = sum(a.sourced != b.sourced for a, b in zip(view.sourcing, judged, strict=False))
        if changed:
            violations.append(Violation("Q-INV-04", "ORB-TRUNC-001",
                                        f"dropping the last segment changed {changed} other segment(s)"))
    return outcome(ORACLE, "ORB-TRUNC-001", {"segments": variant}, violations, view.timestamp)


def perturb_fact(fact: str) -> str:
    """A one-field input change: the fact's values changed, or its polarity when it has no value."""
    return substitute(fact) or negate(fact)


def orb_stab_001(view: CaseView) -> RuleOutcome:
    """Local stability: changing one input fact changes <= STABILITY_FACTOR x 1 segments' judgements."""
    texts = [s.text for s in view.segments]
    given = view.fact_set.texts
    worst, violations = 0, []
    for index, fact in enumerate(given):
        if not fact:
            continue
        facts = fact_set([*given[:index], perturb_fact(fact), *given[index + 1:]])
        changed = sum(a.sourced != b.sourced for a, b in zip(view.sourcing, _judge(texts, facts), strict=True))
        worst = max(worst, changed)
        if changed > view.config.stability_factor * 1:
            violations.append(Violation("Q-INV-04", "ORB-STAB-001", f"changing input fact {index + 1} changed "
                                        f"{changed} segments > STABILITY_FACTOR={view.config.stability_factor} x 1",
                                        view.case.facts[index]))
    return outcome(ORACLE, "ORB-STAB-001", {"segments": texts, "facts": list(given)}, violations, view.timestamp,
                   decided=worst, metrics={"max_changed_segments_per_field": worst})


RULES: tuple[Callable[[CaseView], RuleOutcome], ...] = (
    orb_abl_001, orb_neg_001, orb_perm_001, orb_inj_001, orb_trunc_001, orb_sub_001, orb_stab_001,
)


def judge_b(view: CaseView) -> OracleResult:
    """Oracle-B: ablation, then each variant; FAIL if any exposes a broken invariant."""
    outcomes = [rule(view) for rule in RULES]
    variants = outcomes[1:6]
    return combine("ORACLE-B", outcomes, {"variants_checked": len(variants),
                                          "variants_exposing": sum(o.verdict == "FAIL" for o in variants)})
