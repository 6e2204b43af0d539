"""Oracle-B: single-segment ablation (Q-INV-02) and each adversarial strategy (Q-INV-04)."""

from __future__ import annotations

import copy
from dataclasses import replace

from omega.oracle.config import load_config
from omega.oracle.model import RuleOutcome
from omega.oracle.oracle_b import (
    RULES,
    judge_b,
    necessary_segments,
    orb_abl_001,
    orb_inj_001,
    orb_neg_001,
    orb_perm_001,
    orb_stab_001,
    orb_sub_001,
    orb_trunc_001,
    perturb_fact,
)
from omega.oracle.sourcing import Sourcing, fact_set
from omega.oracle.variants import inject, injected_sentence, negate, permute, substitute, truncate
from tests.unit.omega.oracle.support import CONFIG_RAW, expected_step, view, violation

FACTS = ["The fuel pressure is 3.2 MPa.", "The oxidizer flow rate is 840 kg/s."]
GOOD = "The fuel pressure is 3.2 MPa.\n\nThe oxidizer flow rate is 840 kg/s."
PROPS = ["fuel pressure", "oxidizer flow"]


def test_oracle_b_runs_ablation_then_the_five_variants_then_input_stability() -> None:
    result = judge_b(view(GOOD, FACTS, expected_props=PROPS))
    assert [s.rule_applied for s in result.evidence] == [
        "ORB-ABL-001", "ORB-NEG-001", "ORB-PERM-001", "ORB-INJ-001", "ORB-TRUNC-001", "ORB-SUB-001", "ORB-STAB-001"]
    assert len(RULES) == 7
    assert (result.verdict, result.metrics["variants_exposing"]) == ("PASS", 0)


def test_ablation_keeps_segments_whose_removal_loses_a_property() -> None:
    ok = orb_abl_001(view(GOOD, FACTS, expected_props=PROPS))
    assert (ok.verdict, ok.metrics["necessity_ratio"], ok.metrics["props_mode"]) == ("PASS", 1.0, "expected_props")
    padded = "The fuel pressure is 3.2 MPa.\n\nPropulsion is fascinating.\n\nThe oxidizer flow rate is 840 kg/s."
    bad = orb_abl_001(view(padded, FACTS, expected_props=PROPS))
    assert (bad.verdict, bad.metrics["necessity_ratio"]) == ("FAIL", 0.666667)
    assert bad.violations[0].invariant_id == "Q-INV-02"
    assert bad.violations[0].details == "Propulsion is fascinating."


def test_ablation_threshold_comes_from_the_config() -> None:
    padded = "The fuel pressure is 3.2 MPa.\n\nPropulsion is fascinating.\n\nThe oxidizer flow rate is 840 kg/s."
    raw = copy.deepcopy(CONFIG_RAW)
    raw["NECESSITY_MIN_RATIO"]["value"] = 0.5
    assert orb_abl_001(view(padded, FACTS, config=load_config(raw), expected_props=PROPS)).verdict == "PASS"


def test_ablation_without_props_uses_the_facts_each_segment_is_the_only_source_of() -> None:
    assert orb_abl_001(view(GOOD, FACTS)).metrics["props_mode"] == "facts"
    assert orb_abl_001(view(GOOD, FACTS)).verdict == "PASS"
    repeated = orb_abl_001(view("The fuel pressure is 3.2 MPa. The fuel pressure is 3.2 MPa.", FACTS))
    assert (repeated.verdict, repeated.metrics["necessary_segments"]) == ("FAIL", 0)
    assert orb_abl_001(view("", FACTS)).verdict == "FAIL"  # nothing delivered


def test_necessary_segments_recompute_properties_on_the_ablated_text() -> None:
    none: list[Sourcing] = []
    assert necessary_segments(["a x", "b", "a"], ["a", "b"], none) == [False, True, False]


def test_negation_strategy_flips_polarity_deterministically() -> None:
    assert negate("the valve is open") == "the valve is not open"
    assert negate("the valve is not open") == "the valve is open"
    assert negate("it isn't open") == "it open"
    assert negate("cpu utilization at 78%") == "not cpu utilization at 78%"
    assert orb_neg_001(view(GOOD, FACTS)).verdict == "PASS"


def test_negation_strategy_exposes_a_claim_its_facts_do_not_pin_down() -> None:
    # The only fact states both polarities, so the negated claim is still "sourced".
    facts = ["The valve is open or the valve is not open."]
    bad = orb_neg_001(view("The valve is open.", facts))
    assert bad.verdict == "FAIL"
    assert bad.violations[0].invariant_id == "Q-INV-04"


def test_permutation_strategy_reverses_segments_and_keeps_judgements() -> None:
    assert permute(["a", "b", "c"]) == ["c", "b", "a"]
    assert orb_perm_001(view(GOOD + "\nMade up claim.", FACTS, expected_props=PROPS)).verdict == "PASS"


def test_injection_strategy_appends_one_isolated_unsupported_claim() -> None:
    sentence = injected_sentence("0123456789abcdef")
    assert sentence == "unverified record abcdefghijkl confirms an unlisted value"
    assert inject(["a"], "00") [-1] == injected_sentence("00")
    v = view(GOOD, FACTS, expected_props=PROPS)
    result = orb_inj_001(v)
    assert result.verdict == "PASS"
    # a fact that happens to hold the injected claim breaks the relation
    bad = orb_inj_001(replace(v, fact_set=fact_set([*v.case.facts, injected_sentence(v.case.case_hash)])))
    assert bad.verdict == "FAIL"


def test_truncation_strategy_drops_the_last_segment_or_halves_a_single_one() -> None:
    assert truncate(["a", "b"]) == ["a"]
    assert truncate(["one two three four"]) == ["one two"]
    assert truncate([]) == []
    assert orb_trunc_001(view(GOOD, FACTS)).verdict == "PASS"


def test_substitution_strategy_changes_every_value_and_must_unsource_the_claim() -> None:
    assert substitute("memory at 4.2 gb of 8 gb, 19 items") == "memory at 4.3 gb of 9 gb, 10 items"
    assert substitute("no numbers here") is None
    assert orb_sub_001(view(GOOD, FACTS)).verdict == "PASS"
    # the value sits in an addition the fact does not cover: changing it goes unnoticed
    bad = orb_sub_001(view("Cooling is nominal at 0800", ["cooling is nominal"]))
    assert bad.verdict == "FAIL"


def test_input_stability_bounds_changed_segments_per_changed_field() -> None:
    assert perturb_fact("pressure is 3.2 mpa") == "pressure is 3.3 mpa"
    assert perturb_fact("valve is open") == "valve is not open"
    ok = orb_stab_001(view(GOOD, FACTS))
    assert (ok.verdict, ok.metrics["max_changed_segments_per_field"]) == ("PASS", 1)
    four = " ".join(["The fuel pressure is 3.2 MPa."] * 4)
    bad = orb_stab_001(view(four, FACTS))
    assert bad.verdict == "FAIL"
    assert "STABILITY_FACTOR=3.0" in bad.violations[0].message


def test_variants_keep_the_case_of_the_text_and_match_words_case_insensitively() -> None:
    assert negate("The valve IS open.") == "The valve IS not open."
    assert negate("No valve is open.") == "valve is open."
    assert negate("It isn\u2019t open") == "It open"
    assert perturb_fact("Pressure in tank A is 3.2 MPa.") == "Pressure in tank A is 3.3 MPa."
    assert truncate(["Tank A is full now"]) == ["Tank A"]


REWORDED = "Fuel pressure 3.2 MPa.\n\nOxidizer flow rate 840 kg/s."  # sourced only on the canonical forms


def test_variants_of_claims_sourced_on_the_canonical_form_are_still_exposed_when_they_should_be() -> None:
    v = view(REWORDED, FACTS, expected_props=PROPS)
    assert all(s.canonical for s in v.sourcing)
    result = judge_b(v)
    assert (result.verdict, result.metrics["variants_exposing"]) == ("PASS", 0)
    # The fact states both polarities: the negated claim is still sourced on the canonical forms.
    loose = view("The valve is open.", ["Valve open or valve is not open."])
    assert loose.sourcing[0].canonical
    assert orb_neg_001(loose).verdict == "FAIL"
    # The value sits in an addition the fact does not cover, on the canonical forms too.
    added = view("The cooling is nominal at 0800.", ["Cooling nominal."])
    assert added.sourcing[0].canonical
    assert orb_sub_001(added).verdict == "FAIL"


def test_input_stability_perturbs_the_facts_texts_and_judges_on_the_canonical_forms() -> None:
    ok = orb_stab_001(view(REWORDED, FACTS))
    assert (ok.verdict, ok.metrics["max_changed_segments_per_field"]) == ("PASS", 1)
    bad = orb_stab_001(view(" ".join(["Fuel pressure 3.2 MPa."] * 4), FACTS))
    assert bad.verdict == "FAIL"


PADDED = "The fuel pressure is 3.2 MPa.\n\nPropulsion is fascinating.\n\nThe oxidizer flow rate is 840 kg/s."


def _whole(result: RuleOutcome) -> tuple[object, ...]:
    return (result.rule_id, result.verdict, [v.to_dict() for v in result.violations], result.step,
            dict(result.metrics))


def test_ablation_whole_outcome_names_the_unnecessary_segments_and_the_props_not_held() -> None:
    props = [*PROPS, "thrust"]
    found = [violation("Q-INV-02", "ORB-ABL-001", "necessity ratio 0.666667 < NECESSITY_MIN_RATIO=0.85",
                       "Propulsion is fascinating.")]
    keys = ["the fuel pressure is 3.2 mpa", "propulsion is fascinating", "the oxidizer flow rate is 840 kg/s"]
    assert _whole(orb_abl_001(view(PADDED, FACTS, expected_props=props))) == (
        "ORB-ABL-001", "FAIL", found,
        expected_step("oracle_b", "ORB-ABL-001", {"segments": keys, "props": props, "strategy": "single-segment"},
                      [True, False, True], found),
        {"necessity_ratio": 0.666667, "necessary_segments": 2, "segments": 3, "ablation_strategy": "single-segment",
         "props_mode": "expected_props", "props_absent": 1})


def test_ablation_of_an_empty_output_fails_with_ratio_zero_and_says_the_output_is_empty() -> None:
    found = [violation("Q-INV-02", "ORB-ABL-001", "necessity ratio 0.0 < NECESSITY_MIN_RATIO=0.85", "empty output")]
    assert _whole(orb_abl_001(view(" \n ", FACTS))) == (
        "ORB-ABL-001", "FAIL", found,
        expected_step("oracle_b", "ORB-ABL-001", {"segments": [], "props": [], "strategy": "single-segment"}, [],
                      found),
        {"necessity_ratio": 0.0, "necessary_segments": 0, "segments": 0, "ablation_strategy": "single-segment",
         "props_mode": "facts", "props_absent": 0})


def test_negation_and_substitution_whole_outcomes_count_the_claims_checked_and_name_the_exposing_variant() -> None:
    read = {"claims": ["The fuel pressure is 3.2 MPa.", "The oxidizer flow rate is 840 kg/s."], "facts": FACTS}
    assert _whole(orb_neg_001(view(GOOD, FACTS))) == (
        "ORB-NEG-001", "PASS", [], expected_step("oracle_b", "ORB-NEG-001", read, 2, []), {})
    assert _whole(orb_sub_001(view(GOOD, FACTS))) == (
        "ORB-SUB-001", "PASS", [], expected_step("oracle_b", "ORB-SUB-001", read, 2, []), {})
    both = ["The valve is open or the valve is not open."]
    neg = [violation("Q-INV-04", "ORB-NEG-001", "the negation of a sourced claim is still sourced",
                     "The valve is not open.")]
    assert _whole(orb_neg_001(view("The valve is open. Made up.", both))) == (
        "ORB-NEG-001", "FAIL", neg,
        expected_step("oracle_b", "ORB-NEG-001", {"claims": ["The valve is open.", "Made up."], "facts": both}, 1,
                      neg), {})
    sub = [violation("Q-INV-04", "ORB-SUB-001", "a value substitution of a sourced claim is still sourced",
                     "Cooling is nominal at 0801")]
    assert _whole(orb_sub_001(view("Cooling is nominal at 0800", ["cooling is nominal"]))) == (
        "ORB-SUB-001", "FAIL", sub,
        expected_step("oracle_b", "ORB-SUB-001", {"claims": ["Cooling is nominal at 0800"],
                                                  "facts": ["cooling is nominal"]}, 1, sub), {})


def test_permutation_whole_outcome_names_a_changed_judgement_and_changed_properties() -> None:
    across = orb_perm_001(view("Valve open.\nPump on.", [], expected_props=["open pump"]))
    changed = [violation("Q-INV-04", "ORB-PERM-001", "reordering changed the properties")]
    assert _whole(across) == ("ORB-PERM-001", "FAIL", changed, expected_step(
        "oracle_b", "ORB-PERM-001", {"segments": ["Pump on.", "Valve open."]}, None, changed), {})
    v = view(GOOD, FACTS)
    judged = orb_perm_001(replace(v, fact_set=fact_set([])))  # the judgement of the reordered text differs
    assert [x.to_dict() for x in judged.violations] == [
        violation("Q-INV-04", "ORB-PERM-001", "reordering changed a segment's judgement")]


def test_injection_whole_outcome_flags_an_injected_claim_that_holds_a_property() -> None:
    v = view(FACTS[0], FACTS, expected_props=["unlisted value"])
    injected = injected_sentence(v.case.case_hash)
    assert "unlisted value" in injected
    found = [violation("Q-INV-04", "ORB-INJ-001", "injected claim counted as necessary", injected)]
    assert _whole(orb_inj_001(v)) == ("ORB-INJ-001", "FAIL", found, expected_step(
        "oracle_b", "ORB-INJ-001", {"segments": [FACTS[0], injected]}, [0, 1], found), {})
    held = orb_inj_001(replace(v, fact_set=fact_set([*FACTS, injected])))
    assert [x.to_dict() for x in held.violations] == [
        violation("Q-INV-04", "ORB-INJ-001", "injected claim not isolated: unsupported 0 -> 0", injected),
        violation("Q-INV-04", "ORB-INJ-001", "injected claim counted as necessary", injected)]


def test_truncation_whole_outcome_hashes_the_truncated_text_and_counts_changed_segments() -> None:
    v = view(GOOD, FACTS)
    assert _whole(orb_trunc_001(v)) == ("ORB-TRUNC-001", "PASS", [], expected_step(
        "oracle_b", "ORB-TRUNC-001", {"segments": [FACTS[0]]}, None, []), {})
    found = [violation("Q-INV-04", "ORB-TRUNC-001", "dropping the last segment changed 1 other segment(s)")]
    assert _whole(orb_trunc_001(replace(v, fact_set=fact_set([])))) == ("ORB-TRUNC-001", "FAIL", found,
                                                                        expected_step(
        "oracle_b", "ORB-TRUNC-001", {"segments": [FACTS[0]]}, None, found), {})
    assert truncate(["Valve open"]) == ["Valve"]  # a single segment keeps its first half, at least one word
    assert truncate(["Valve is open"]) == ["Valve"]


def test_oracle_b_metrics_count_the_five_variants_and_those_exposing_a_broken_relation() -> None:
    ok = judge_b(view(GOOD, FACTS, expected_props=PROPS))
    assert dict(ok.metrics) == {"variants_checked": 5, "variants_exposing": 0, "necessity_ratio": 1.0,
                                "necessary_segments": 2, "segments": 2, "ablation_strategy": "single-segment",
                                "props_mode": "expected_props", "props_absent": 0,
                                "max_changed_segments_per_field": 1}
    loose = judge_b(view("The valve is open.", ["The valve is open or the valve is not open."]))
    assert (loose.verdict, loose.metrics["variants_checked"], loose.metrics["variants_exposing"]) == ("FAIL", 5, 1)
    assert [v.rule_id for v in loose.violations] == ["ORB-NEG-001"]
