"""The traps the pipeline note lists in the seed's literal rules (`phase-q-pipeline.md`), one test each."""

from __future__ import annotations

from omega.oracle.oracle_a import judge_a, rule_cont_001, rule_cont_003, rule_prec_001
from omega.oracle.report import judge_case
from tests.unit.omega.oracle.support import CONFIG, case, view

HUMIDITY = ["Humidity is 63%.", "Dew point at 14C."]


def test_trap_merged_facts_are_sourced_by_conjunction() -> None:
    merged = view("Humidity is 63% with dew point at 14C.", HUMIDITY, expected_props=["humidity", "dew point"])
    assert rule_prec_001(merged).verdict == "PASS"
    assert merged.sourcing[0].by_conjunction
    assert merged.sourcing[0].facts == (0, 1)
    assert judge_case(merged.case, CONFIG).verdict == "PASS"


def test_trap_conjunction_adds_nothing_beyond_its_facts() -> None:
    for output in ("Humidity is 63% with dew point at 14C and rain is expected.",
                   "Humidity is 64% with dew point at 14C.",
                   "Humidity is 63% with dew point at 14C, which is dangerous."):
        assert rule_prec_001(view(output, HUMIDITY)).verdict == "FAIL", output


def test_trap_valid_is_not_found_inside_invalid() -> None:
    lone = view("The configuration is invalid for deployment.", [], contradiction_ids=["valid-invalid"])
    assert rule_cont_001(lone).verdict == "PASS"
    both = view("The configuration is valid. The configuration is invalid.", [],
                contradiction_ids=["valid-invalid"])
    assert rule_cont_001(both).verdict == "FAIL"


def test_trap_an_id_without_a_predefined_pair_is_handled_deterministically() -> None:
    text = "The component passed stress testing. The component failed stress testing."
    results = [judge_a(view(text, [], contradiction_ids=["pass-fail"])) for _ in range(2)]
    assert results[0] == results[1]
    assert rule_cont_001(view(text, [], contradiction_ids=["pass-fail"])).verdict == "FAIL"
    assert rule_cont_003(view(text, [], contradiction_ids=["pass-fail"])).verdict == "FAIL"
    assert rule_cont_001(view("The component passed.", [], contradiction_ids=["pass-fail"])).verdict == "PASS"
    assert rule_cont_001(view("The component passed.", [], contradiction_ids=["passfail"])).verdict == "FAIL"


def test_trap_crlf_fails_on_format_even_when_every_claim_is_sourced() -> None:
    facts = ["Checkpoint A reached at T+120s.", "Checkpoint B reached at T+240s."]
    judged = judge_case(case("\r\n".join(facts), facts, expected_props=["checkpoint a", "checkpoint b"]), CONFIG)
    assert (judged.a.verdict, judged.b.verdict, judged.c.verdict, judged.verdict) == ("PASS", "PASS", "FAIL", "FAIL")
    assert judged.c.violations[0].invariant_id == "Q-INV-05"
    lf = judge_case(case("\n".join(facts), facts, expected_props=["checkpoint a", "checkpoint b"]), CONFIG)
    assert lf.verdict == "PASS"
