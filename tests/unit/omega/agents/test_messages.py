"""Agent output text to validated messages: the messy inputs real LLM agents emit, one case per refusal, ids,
the Avro record shape (validated with fastavro here, never in `omega`), and never raising on any text."""

from __future__ import annotations

import copy
import io
import json
import re
from pathlib import Path
from typing import Any

import fastavro
import pytest
import yaml
from fastavro.schema import load_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omega.agents import roster
from omega.agents.message_fields import FLAG_KEYS, MESSAGE_KEYS, NORMATIVE
from omega.agents.messages import message_from_record, message_record, parse_messages, render_message
from omega.agents.model import AgentMessage, Flags, InputUsed, MessageRejected, Reference
from omega.canonical import canonical_json, derived_id

SCHEMA_DIR = Path(__file__).resolve().parents[4] / "schemas_avro"
SESSION = "sess-1"
T0 = "2026-01-26T09:00:00Z"


class _Delete:
    """The field is removed (a stable repr, so the test ids are the same in every run)."""

    def __repr__(self) -> str:
        return "DELETE"


DELETE = _Delete()

SPEC_YAML = """\
message:
  header:
    agent_id: 44
    agent_name: Steelman Attacker
    agent_tier: ADVERSARY
    timestamp: 2026-01-26T09:00:00Z
    iteration: 1
    responding_to: PHI_QUERY

  summary:
    verdict: "[SUPPORTS] Causal link confirmed with 2 confounders | CONF: 73% | FLAGS: none"
    confidence: 0.73
    confidence_basis: two independent trials agree

  body:
    tier: 0
    content:
      claim: X causes Y
      replicated: no
      confounders: [age, income]

  dependencies:
    inputs_used:
      - agent_id: 32
        element: trial data
        how_used: baseline effect size
    outputs_for:
      - 57
      - 46

  flags:
    contradiction_detected: false
    contradiction_with: null
    requires_resolution: false
    blocks_progress: false
    confidence_critical: false

  meta:
    tokens_used: 1834
"""


def valid_block() -> dict[str, Any]:
    """A valid §2.1 message block (not wrapped)."""
    return {
        "header": {"agent_id": 44, "agent_name": "Steelman Attacker", "agent_tier": "ADVERSARY", "timestamp": T0,
                   "iteration": 1, "responding_to": "PHI_QUERY"},
        "summary": {"verdict": "[SUPPORTS] Causal link confirmed with 2 confounders | CONF: 73% | FLAGS: none",
                    "confidence": 0.73, "confidence_basis": "two independent trials agree"},
        "body": {"tier": 0, "content": {"claim": "X causes Y", "confounders": ["age", "income"]}},
        "dependencies": {"inputs_used": [{"agent_id": 32, "element": "trial data", "how_used": "baseline"}],
                         "outputs_for": [57, 46]},
        "flags": {"contradiction_detected": False, "contradiction_with": None, "requires_resolution": False,
                  "blocks_progress": False, "confidence_critical": False},
        "meta": {"tokens_used": 1834, "processing_notes": "one pass"},
    }


def changed(path: str, value: Any, block: dict[str, Any] | None = None) -> dict[str, Any]:
    """A copy of the block with the dotted `path` set to `value` (or removed with DELETE)."""
    out = copy.deepcopy(block if block is not None else valid_block())
    *parents, last = path.split(".")
    node = out
    for part in parents:
        node = node.setdefault(part, {})
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    return out


def as_yaml(doc: Any) -> str:
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


def wrapped(block: dict[str, Any]) -> dict[str, Any]:
    return {"message": block}


def parse_one(text: str, source: str = "") -> AgentMessage | MessageRejected:
    results = parse_messages(text, SESSION, source=source)
    assert len(results) == 1, results
    return results[0]


def accepted(text: str) -> AgentMessage:
    result = parse_one(text)
    assert isinstance(result, AgentMessage), result
    return result


def rejected(text: str, source: str = "") -> MessageRejected:
    result = parse_one(text, source)
    assert isinstance(result, MessageRejected), result
    return result


# ------------------------------------------------------------------------------------------ accepted
def test_a_spec_shaped_yaml_message_is_accepted_with_every_field() -> None:
    msg = accepted(SPEC_YAML)
    assert (msg.agent_id, msg.agent_name, msg.agent_tier) == (44, "Steelman Attacker", "ADVERSARY")
    assert (msg.timestamp, msg.iteration, msg.responding_to) == (T0, 1, "PHI_QUERY")
    assert msg.verdict.startswith("[SUPPORTS]")
    assert (msg.confidence, msg.tier) == (0.73, 0)
    assert msg.inputs_used == (InputUsed(32, "trial data", "baseline effect size"),)
    assert msg.outputs_for == (57, 46)
    assert msg.flags == Flags()
    assert (msg.tokens_used, msg.processing_notes, msg.references, msg.extras) == (1834, None, (), {})


def test_yaml_traps_stay_text_an_unquoted_timestamp_and_no_are_strings() -> None:
    msg = accepted(SPEC_YAML)
    assert msg.timestamp == "2026-01-26T09:00:00Z"  # not a datetime, not re-rendered
    assert msg.content["replicated"] == "no"  # YAML 1.1 would have made it False


def test_json_input_is_accepted_with_exact_integers() -> None:
    block = changed("meta.tokens_used", 2**62 + 1)
    msg = accepted(json.dumps(wrapped(block)))
    assert msg.tokens_used == 2**62 + 1
    assert msg.content == block["body"]["content"]


def test_json_and_yaml_of_the_same_document_give_the_same_message_and_id() -> None:
    doc = wrapped(valid_block())
    assert accepted(json.dumps(doc)) == accepted(as_yaml(doc))


def test_a_flat_message_without_the_message_key_is_the_message() -> None:
    flat = accepted(as_yaml(valid_block()))
    wrapped_msg = accepted(as_yaml(wrapped(valid_block())))
    assert flat.agent_id == 44
    assert {**_fields(flat), "message_id": None} == {**_fields(wrapped_msg), "message_id": None}


def _fields(msg: AgentMessage) -> dict[str, Any]:
    return {name: getattr(msg, name) for name in AgentMessage.__dataclass_fields__}


def test_multi_document_yaml_gives_one_message_per_document_and_skips_empty_ones() -> None:
    second = changed("header.agent_id", 36, changed("header.agent_name", "Statistician"))
    text = "---\n" + as_yaml(wrapped(valid_block())) + "---\n" + as_yaml(second) + "---\n"
    results = parse_messages(text, SESSION)
    assert [type(r) for r in results] == [AgentMessage, AgentMessage]
    assert [r.agent_id for r in results] == [44, 36]


def test_a_bad_document_among_good_ones_is_rejected_alone_and_labelled_with_its_number() -> None:
    bad = changed("summary.confidence", 7.5)
    text = as_yaml(valid_block()) + "---\n" + as_yaml(bad) + "---\n" + as_yaml(valid_block())
    results = parse_messages(text, SESSION, source="agent-44.yaml")
    assert [type(r) for r in results] == [AgentMessage, MessageRejected, AgentMessage]
    reasons = results[1].reasons  # type: ignore[union-attr]
    assert reasons == ("agent-44.yaml document 2: summary.confidence: 7.5 is outside [0, 1]",)


def test_a_json_array_of_messages_gives_one_message_per_item_labelled_with_its_number() -> None:
    text = json.dumps([valid_block(), changed("summary.confidence", 7.5)])
    results = parse_messages(text, SESSION, source="out.json")
    assert [type(r) for r in results] == [AgentMessage, MessageRejected]
    assert results[0].message_id == derived_id("msg_", SESSION, canonical_json(valid_block()))
    assert results[1].reasons == ("out.json item 2: summary.confidence: 7.5 is outside [0, 1]",)  # type: ignore[union-attr]
    assert results[1].message_id == derived_id("rej_", SESSION, text, "2")


def test_a_yaml_syntax_error_is_one_rejection_naming_line_and_column() -> None:
    text = "message:\n  header:\n    agent_id: [44\n  summary: {}\n"
    result = rejected(text)
    assert len(result.reasons) == 1
    assert result.reasons[0].startswith("YAML syntax error at line 4, column 10: did not find expected ',' or ']'")


def test_a_syntax_error_in_a_later_document_keeps_the_documents_before_it() -> None:
    text = as_yaml(valid_block()) + "---\nheader: {agent_id: 44\n"
    results = parse_messages(text, SESSION)
    assert [type(r) for r in results] == [AgentMessage, MessageRejected]
    assert "YAML syntax error at line" in results[1].reasons[0]  # type: ignore[union-attr]


def test_extra_flags_and_keys_are_kept_per_block() -> None:
    block = changed("flags.needs_input", True)
    block["header"]["model"] = "gpt-x"
    block["summary"]["caveats"] = ["small n"]
    block["body"]["format"] = "json"
    block["dependencies"]["optional"] = [33]
    block["meta"]["latency_ms"] = 812
    block["mood"] = {"level": 3}
    msg = accepted(as_yaml(wrapped(block)))
    assert msg.flags.extras == {"needs_input": True}
    assert msg.extras == {
        "header": {"model": "gpt-x"}, "summary": {"caveats": ["small n"]}, "body": {"format": "json"},
        "dependencies": {"optional": [33]}, "meta": {"latency_ms": 812}, "message": {"mood": {"level": 3}},
    }


def test_optional_blocks_may_be_absent() -> None:
    block = valid_block()
    for name in ("dependencies", "flags", "meta"):
        del block[name]
    msg = accepted(as_yaml(block))
    assert (msg.inputs_used, msg.outputs_for, msg.flags, msg.tokens_used, msg.processing_notes) == (
        (), (), Flags(), 0, None)


def test_names_tiers_and_words_are_case_tolerant_stored_in_roster_spelling_and_the_raw_kept() -> None:
    block = changed("header.agent_name", "  steelman ATTACKER ", changed("header.agent_tier", "adversary"))
    block = changed("header.responding_to", "initial", block)
    msg = accepted(as_yaml(block))
    assert (msg.agent_name, msg.agent_tier, msg.responding_to) == ("Steelman Attacker", "ADVERSARY", "INITIAL")
    assert msg.extras == {"header": {"agent_name_raw": "  steelman ATTACKER ", "agent_tier_raw": "adversary",
                                     "responding_to_raw": "initial"}}
    assert [n.split(":")[0] for n in msg.notes] == ["header.agent_name", "header.agent_tier", "header.responding_to"]


def test_a_message_taken_as_written_has_no_notes_and_no_raw_extras() -> None:
    msg = accepted(SPEC_YAML)
    assert (msg.notes, msg.extras) == ((), {})


@pytest.mark.parametrize(
    ("responding_to", "stored"),
    [(48, 48), ("PHI_QUERY", "PHI_QUERY"), ("INITIAL", "INITIAL"), ("BATCH_3", "BATCH_3"), ("BATCH_4_2", "BATCH_4_2"),
     ("ADVERSARY_TIER", "ADVERSARY_TIER"), ("phi query", "PHI_QUERY"), ("Batch 4-2", "BATCH_4_2"),
     ("batch1", "BATCH_1"), ("verification", "VERIFICATION_TIER"), ("PHI", "PHI_TIER"), ("Meta tier", "META_TIER"),
     ("agent_32_empirical_tester", 32), ("44", 44), ("Steelman Attacker", 44)],
)
def test_responding_to_is_a_reference_read_case_and_separator_tolerant(responding_to: Any, stored: Any) -> None:
    msg = accepted(as_yaml(changed("header.responding_to", responding_to)))
    assert msg.responding_to == stored
    kept = {} if stored == responding_to else {"header": {"responding_to_raw": responding_to}}
    assert msg.extras == kept
    assert len(msg.notes) == (0 if stored == responding_to else 1)


@pytest.mark.parametrize("responding_to", ["BATCH_6", "BATCH_0", "BATCH_2_0", "the Steelman's second objection",
                                           "user follow-up"])
def test_any_other_responding_to_string_is_kept_as_an_unresolved_reference_with_a_note(responding_to: str) -> None:
    msg = accepted(as_yaml(changed("header.responding_to", responding_to)))
    assert msg.responding_to == responding_to
    assert msg.extras == {}
    assert msg.notes == (f"header.responding_to: {responding_to!r} is not an agent id, PHI_QUERY, INITIAL, a §1.3.3 "
                         "batch or a §2.1 tier: kept as an unresolved reference",)


def test_an_agent_name_naming_no_agent_is_kept_raw_and_the_roster_name_stored() -> None:
    msg = accepted(as_yaml(changed("header.agent_name", "Steelman")))
    assert (msg.agent_id, msg.agent_name) == (44, "Steelman Attacker")
    assert msg.extras == {"header": {"agent_name_raw": "Steelman"}}
    assert msg.notes == ("header.agent_name: 'Steelman' is not the roster name of agent 44: stored as "
                         "'Steelman Attacker'",)


def test_dependencies_are_advisory_bare_ids_and_agent_strings_become_entries_and_the_rest_moves_to_extras() -> None:
    block = changed("dependencies", {
        "inputs_used": [17, "agent_19_boundary_mapper", {"agent_id": "agent_32", "element": "trial data"},
                        {"agent_id": 99, "element": "e", "how_used": "h"}, "prior literature"],
        "outputs_for": [57, "PHI", 0, "all ADVERSARY agents", "agent_46_survivor_synthesizer"],
    })
    msg = accepted(as_yaml(block))
    assert msg.inputs_used == (
        InputUsed(17, "", ""),
        InputUsed(19, "", "", {"agent_id_raw": "agent_19_boundary_mapper"}),
        InputUsed(32, "trial data", "", {"agent_id_raw": "agent_32"}),
    )
    assert msg.outputs_for == (57, 57, 46)
    assert msg.extras == {"dependencies": {
        "inputs_used_unresolved": [{"agent_id": 99, "element": "e", "how_used": "h"}, "prior literature"],
        "outputs_for_unresolved": [0, "all ADVERSARY agents"],
    }}
    assert [n.split(":")[0] for n in msg.notes] == [
        "dependencies.inputs_used[0]", "dependencies.inputs_used[1]", "dependencies.inputs_used[1]",
        "dependencies.inputs_used[2]", "dependencies.inputs_used[2]", "dependencies.inputs_used[3]",
        "dependencies.inputs_used[4]", "dependencies.outputs_for[1]", "dependencies.outputs_for[2]",
        "dependencies.outputs_for[3]", "dependencies.outputs_for[4]",
    ]


@pytest.mark.parametrize(
    ("value", "outputs", "extras", "notes"),
    [(57, (57,), {}, 1), ("PHI", (57,), {}, 2),
     ("everyone", (), {"dependencies": {"outputs_for_unresolved": ["everyone"]}}, 2)],
)
def test_a_single_outputs_for_entry_is_read_as_a_list_of_one(
    value: Any, outputs: tuple[int, ...], extras: dict[str, Any], notes: int,
) -> None:
    msg = accepted(as_yaml(changed("dependencies.outputs_for", value)))
    assert (msg.outputs_for, msg.extras, len(msg.notes)) == (outputs, extras, notes)
    assert msg.notes[0] == f"dependencies.outputs_for: {value!r} is not a list: read as a list of one entry"


def test_a_dependencies_value_that_is_not_a_mapping_is_kept_in_the_message_extras() -> None:
    msg = accepted(as_yaml(changed("dependencies", [17, 32])))
    assert (msg.inputs_used, msg.outputs_for) == ((), ())
    assert msg.extras == {"message": {"dependencies_raw": [17, 32]}}


@pytest.mark.parametrize(
    ("value", "stored"),
    [("Skeptic", 35), ("Agent 37 (Historian): base rates contradict", 37), ("37", 37), ([37], 37),
     ("agents 33 and 39 disagree on the confounders", None), (0, None), (58, None),
     ("a confounder the trial ignored", None), ("Causal Verifier (33)", 33)],
)
def test_contradiction_with_names_one_agent_or_is_null_and_the_raw_is_kept_in_flag_extras(
    value: Any, stored: int | None,
) -> None:
    block = changed("flags.contradiction_detected", True, changed("flags.contradiction_with", value))
    msg = accepted(as_yaml(block))
    assert msg.flags.contradiction_with == stored
    assert msg.flags.contradiction_detected is True
    assert msg.flags.extras == {"contradiction_with_raw": value}
    assert [n.split(":")[0] for n in msg.notes] == ["flags.contradiction_with"]


def test_a_raw_key_the_producer_already_used_is_not_overwritten() -> None:
    block = changed("header.responding_to", "batch 3", changed("header.responding_to_raw", "mine"))
    msg = accepted(as_yaml(block))
    assert msg.extras == {"header": {"responding_to_raw": "mine", "responding_to_raw_2": "batch 3"}}


def test_a_message_id_that_is_not_a_non_empty_string_is_kept_raw_and_a_derived_id_used() -> None:
    doc = changed("message_id", 17)
    msg = accepted(as_yaml(doc))
    assert msg.message_id == derived_id("msg_", SESSION, canonical_json(doc))
    assert msg.extras == {"message": {"message_id_raw": 17}}


def test_verdict_line_flags_are_a_placeholder_any_text_is_accepted() -> None:
    verdict = "[SUPPORTS] Causal link confirmed | CONF: 73% | FLAGS: Blocks Progress!"
    assert accepted(as_yaml(changed("summary.verdict", verdict))).verdict == verdict


def test_iterations_count_from_zero() -> None:
    assert accepted(as_yaml(changed("header.iteration", 0))).iteration == 0


@pytest.mark.parametrize("confidence", [0.725, 0.735, 0.72, 0.74])
def test_tier0_conf_may_differ_from_summary_confidence_by_one_point(confidence: float) -> None:
    assert accepted(as_yaml(changed("summary.confidence", confidence))).confidence == confidence


def test_at_tier1_the_verdict_is_a_free_line() -> None:
    block = changed("body.tier", 1, changed("summary.verdict", "Causal link holds, two confounders remain"))
    assert accepted(as_yaml(block)).verdict == "Causal link holds, two confounders remain"


def test_verdict_line_flags_may_list_flag_names() -> None:
    verdict = "[CONTRADICTS] Historical precedent shows 80% failure rate | CONF: 73% | FLAGS: blocks_progress, x"
    assert accepted(as_yaml(changed("summary.verdict", verdict))).verdict == verdict


def test_references_are_read_from_the_message_and_from_body_in_that_order() -> None:
    ref = {"type": "supports", "source_agent": 32, "source_element": "effect size", "relationship": "agrees",
           "confidence_impact": "+0.1"}
    block = valid_block()
    block["references"] = [ref]
    block["body"]["reference"] = {**ref, "type": "QUALIFIES", "source_agent": 33}
    block["body"]["references"] = [{"reference": {**ref, "type": "USES", "source_agent": 21}}]
    msg = accepted(as_yaml(wrapped(block)))
    assert [(r.type, r.source_agent) for r in msg.references] == [("SUPPORTS", 32), ("USES", 21), ("QUALIFIES", 33)]
    assert msg.references[0] == Reference("SUPPORTS", 32, "effect size", "agrees", "+0.1", {"type_raw": "supports"})
    assert "body" not in msg.extras
    assert msg.notes == ("references[0].type: 'supports' read as SUPPORTS",)


def test_keys_beside_message_are_read_as_inside_it() -> None:
    doc = {"message": valid_block(), "message_id": "m-77", "trace": "abc"}
    msg = accepted(as_yaml(doc))
    assert (msg.message_id, msg.extras) == ("m-77", {"message": {"trace": "abc"}})


def test_a_single_markdown_fence_around_the_message_is_unwrapped() -> None:
    assert accepted("```yaml\n" + SPEC_YAML + "```\n") == accepted(SPEC_YAML)


# ----------------------------------------------------------------------------------------------- ids
def test_the_producers_message_id_is_kept() -> None:
    assert accepted(as_yaml(changed("message_id", "agent44-0001"))).message_id == "agent44-0001"


def test_a_derived_id_depends_on_session_and_content_not_on_formatting() -> None:
    doc = wrapped(valid_block())
    msg = accepted(as_yaml(doc))
    assert msg.message_id == derived_id("msg_", SESSION, canonical_json(doc))
    assert accepted(json.dumps(doc, indent=4)).message_id == msg.message_id
    other = parse_messages(as_yaml(doc), "sess-2")[0]
    assert other.message_id != msg.message_id


def test_a_rejection_id_derives_from_session_and_raw_text() -> None:
    text = as_yaml(changed("summary.confidence", 2.0))
    first, again = rejected(text), rejected(text)
    assert first.message_id == again.message_id == derived_id("rej_", SESSION, text)
    assert rejected(text, source="elsewhere").message_id == first.message_id


# ---------------------------------------------------------------------------------- one case per refusal
OUT_OF_RANGE = [
    ("header.agent_id", 0, "header.agent_id: 0 is outside the agent ids 1..57"),
    ("header.agent_id", 58, "header.agent_id: 58 is outside the agent ids 1..57"),
    ("header.agent_id", "44", "header.agent_id: must be an agent id (an integer 1..57), got '44'"),
    ("header.agent_id", True, "header.agent_id: must be an agent id (an integer 1..57), got True"),
    ("header.agent_name", "Skeptic",
     "header.agent_name: 'Skeptic' names agent 35 (Skeptic), not agent 44 (Steelman Attacker): A.1 gives each agent "
     "one name"),
    ("header.agent_name", 44, "header.agent_name: must be a string, got a number"),
    ("header.agent_tier", "META", "header.agent_tier: META is not the roster tier ADVERSARY of agent 44"),
    ("header.agent_tier", "WIZARD", "header.agent_tier: 'WIZARD' is not a tier (GENESIS|BRIDGE|VERIFICATION|ADVERSARY|"
                                    "META|MEMORY|PHI)"),
    ("header.timestamp", "yesterday", "header.timestamp: 'yesterday' is not an ISO 8601 date-time"),
    ("header.timestamp", "2026-01-26", "header.timestamp: '2026-01-26' is not an ISO 8601 date-time (expected e.g."),
    ("header.timestamp", "2026-01-26 09:00:00", "header.timestamp: '2026-01-26 09:00:00' is not an ISO 8601 date-time"),
    ("header.timestamp", 1769418000, "header.timestamp: must be an ISO 8601 date-time string, got 1769418000"),
    ("header.iteration", -1, "header.iteration: -1 is negative (iterations count from 0)"),
    ("header.iteration", 1.5, "header.iteration: must be a non-negative integer, got 1.5 (iterations count from 0)"),
    ("header.iteration", "2", "header.iteration: must be a non-negative integer, got '2'"),
    ("header.iteration", 2**31, f"header.iteration: {2**31} is over the limit of {2**31 - 1}"),
    ("header.responding_to", 58, "header.responding_to: 58 is outside the agent ids 1..57"),
    ("header.responding_to", 0, "header.responding_to: 0 is outside the agent ids 1..57"),
    ("header.responding_to", " - ", "header.responding_to: must not be empty"),
    ("header.responding_to", [44, 46], "header.responding_to: must be an agent id 1..57 or a reference string "
                                       "(PHI_QUERY, INITIAL, a §1.3.3 batch, a §2.1 tier), got [44, 46]"),
    ("header.responding_to", 44.0, "header.responding_to: must be an agent id 1..57 or a reference string"),
    ("summary.confidence", 1.2, "summary.confidence: 1.2 is outside [0, 1]"),
    ("summary.confidence", -0.1, "summary.confidence: -0.1 is outside [0, 1]"),
    ("summary.confidence", 73, "summary.confidence: 73 is outside [0, 1] (a percentage? write 0.73 for 73%)"),
    ("summary.confidence", "0.73", "summary.confidence: must be a number in [0, 1], got '0.73'"),
    ("summary.confidence", 10**400, "summary.confidence: 10000000000"),
    ("summary.confidence", False, "summary.confidence: must be a number in [0, 1], got False"),
    ("summary.verdict", 42, "summary.verdict: must be a string, got a number"),
    ("summary.verdict", ["a"], "summary.verdict: must be a string, got a list"),
    ("summary.verdict", "x" * 101, "summary.verdict: is 101 characters, over the limit of 100"),
    ("summary.verdict", "line one\nline two", "summary.verdict: must be one line"),
    ("summary.verdict", "Causal link confirmed", "summary.verdict: at body.tier 0 must be `[VERDICT] <conclusion> | "
                                                 "CONF: <X>% | FLAGS: <flags>`"),
    ("summary.verdict", "[SUPPORTS] Causal link | CONF: 50% | FLAGS: none",
     "summary.verdict: CONF 50% disagrees with summary.confidence 0.73: they must agree within 1 percentage point"),
    ("summary.verdict", "[SUPPORTS] Causal link | CONF: 173% | FLAGS: none", "summary.verdict: CONF 173% is over 100%"),
    ("summary.verdict", "[SUPPORTS] Causal link | CONF: 73% | FLAGS:",
     "summary.verdict: at body.tier 0 must be `[VERDICT] <conclusion> | CONF: <X>% | FLAGS: <flags>`"),
    ("summary.confidence_basis", " ", "summary.confidence_basis: must not be empty"),
    ("body.tier", 3, "body.tier: must be 0, 1 or 2 (§5 output tier), got 3"),
    ("body.tier", "0", "body.tier: must be 0, 1 or 2 (§5 output tier), got '0'"),
    ("body.tier", False, "body.tier: must be 0, 1 or 2 (§5 output tier), got False"),
    ("flags.blocks_progress", "yes", "flags.blocks_progress: must be true or false, got 'yes'"),
    ("meta.tokens_used", -5, "meta.tokens_used: -5 is negative"),
    ("meta.processing_notes", ["a"], "meta.processing_notes: must be a string, got a list"),
    ("references", [{"type": "AGREES", "source_agent": 32, "source_element": "s", "relationship": "r",
                     "confidence_impact": "c"}], "references[0].type: must be one of SUPPORTS|CONTRADICTS|EXTENDS|"
                                                 "QUALIFIES|USES, got 'AGREES'"),
    ("references", [{"type": "USES", "source_agent": 60, "source_element": "s", "relationship": "r",
                     "confidence_impact": "c"}], "references[0].source_agent: 60 is outside the agent ids 1..57"),
    ("header.agent_id", DELETE, "header.agent_id: required field is missing"),
    ("header.timestamp", None, "header.timestamp: required field is null"),
    ("summary.confidence", DELETE, "summary.confidence: required field is missing"),
    ("body.content", DELETE, "body.content: required field is missing"),
    ("summary", DELETE, "summary: required block is missing"),
    ("header", "agent 44", "header: must be a mapping, got a string"),
]


def _case_id(path: str, value: object) -> str:
    """A plain test id (mutmut hands ids back to pytest, which cannot select one holding brackets or quotes)."""
    return re.sub(r"[^\w.=+-]+", "_", f"{path}={value!r}")[:60]


@pytest.mark.parametrize(("path", "value", "reason"), OUT_OF_RANGE, ids=[_case_id(p, v) for p, v, _ in OUT_OF_RANGE])
def test_an_out_of_range_value_is_rejected_with_its_reason(path: str, value: Any, reason: str) -> None:
    result = rejected(as_yaml(wrapped(changed(path, value))))
    assert len(result.reasons) == 1, result.reasons
    assert result.reasons[0].startswith(reason)


def test_every_reason_of_a_message_is_reported_not_only_the_first() -> None:
    block = changed("header.agent_id", 0, changed("summary.confidence", 3.0, changed("body.tier", 7)))
    block = changed("header.iteration", -2, block)
    reasons = rejected(as_yaml(block)).reasons
    paths = [r.split(":")[0] for r in reasons]
    assert paths == ["header.agent_id", "header.iteration", "summary.confidence", "body.tier"]


def test_a_rejection_keeps_what_could_be_read_of_the_header() -> None:
    result = rejected(as_yaml(changed("summary.confidence", 9.0)))
    assert (result.agent_id, result.iteration, result.timestamp) == (44, 1, T0)
    unreadable = rejected(as_yaml(changed("header.agent_id", 99, changed("header.iteration", "one"))))
    assert (unreadable.agent_id, unreadable.iteration) == (None, None)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "no message: the input holds no document"),
        ("# only a comment\n", "no message: the input holds no document"),
        ("just some prose from the model", "the document is a string, not a mapping"),
        ("- a\n- b\n", "the document is a list, not a mapping"),
        ("thoughts: I think the claim holds\n", "no message: expected a top-level `message:` mapping"),
        ("message: {header: {}}\nheader: {agent_id: 1}\n", "header: given both inside `message:` and beside it"),
    ],
)
def test_text_without_a_message_is_rejected_with_a_reason(text: str, reason: str) -> None:
    assert rejected(text).reasons[0].startswith(reason)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("message: !!set {a, b}\n", "line 1: tag !!set is not supported (JSON values only)"),
        ("message: !!binary aGVsbG8=\n", "line 1: tag !!binary is not supported"),
        ("a: &x [1, 2]\nmessage: *x\n", "line 2: alias *x refused"),
        ("message: {header: {}, header: {}}\n", "line 1: duplicate key 'header'"),
        ("message: {x: .nan}\n", "line 1: .nan is not a JSON number"),
        ('{"message": {"x": NaN}}', "JSON: NaN is not a JSON number"),
        ('{"message": {}, "message": {}}', "JSON: duplicate key 'message'"),
        ("message: " + "[" * 100 + "]" * 100, "line 1: nesting deeper than 64 levels"),
        ("x" * 1_000_001, "input is 1000001 characters, over the limit of 1000000"),
    ],
)
def test_values_that_are_not_plain_json_or_too_big_are_rejected(text: str, reason: str) -> None:
    assert rejected(text).reasons[0].startswith(reason)


def test_an_alias_bomb_is_refused_without_expanding_it() -> None:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    result = rejected("\n".join(lines))
    assert result.reasons[0].startswith("line 2: alias *a0 refused")
    assert result.reasons[-1].startswith("... and ")


# ----------------------------------------------------------------------------------- records and round trips
@pytest.fixture(scope="module")
def agent_message_schema() -> Any:
    named: dict[str, Any] = {}
    schemas = {p.stem: load_schema(str(p), named_schemas=named) for p in sorted(SCHEMA_DIR.glob("*.avsc"))}
    return schemas["omega.agents.AgentMessage"]


def avro_round_trip(schema: Any, record: dict[str, Any]) -> dict[str, Any]:
    assert fastavro.validation.validate(record, schema, strict=True)
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, schema, record)
    buf.seek(0)
    out = fastavro.schemaless_reader(buf, schema, schema)
    assert isinstance(out, dict)
    return out


def rich_message() -> AgentMessage:
    block = changed("flags.needs_input", True, changed("header.model", "gpt-x"))
    block["references"] = [{"type": "EXTENDS", "source_agent": 21, "source_element": "formal model",
                            "relationship": "adds a case", "confidence_impact": "none"}]
    block["mood"] = "calm"
    return accepted(as_yaml(wrapped(block)))


def test_a_record_validates_against_the_avro_schema_and_round_trips_to_the_same_message(
    agent_message_schema: Any,
) -> None:
    msg = rich_message()
    record = message_record(msg)
    assert record["body"]["content"] == canonical_json(msg.content)
    assert record["flags"]["extras"] == {"needs_input": "true"}
    assert record["header"]["extras"] == {"model": '"gpt-x"'}
    assert record["extras"] == {"mood": '"calm"'}
    assert record["summary"]["extras"] is None
    assert message_from_record(avro_round_trip(agent_message_schema, record)) == msg


def test_a_message_without_references_or_extras_has_null_record_fields(agent_message_schema: Any) -> None:
    record = message_record(accepted(SPEC_YAML))
    assert (record["references"], record["extras"], record["flags"]["extras"], record["notes"]) == (
        None, None, None, None)
    assert avro_round_trip(agent_message_schema, record) == record


def test_notes_and_raw_values_travel_in_the_record_and_survive_reading_it_back(agent_message_schema: Any) -> None:
    block = changed("header.responding_to", "batch 3", changed("dependencies.inputs_used", [17, "nobody"]))
    msg = accepted(as_yaml(block))
    record = message_record(msg)
    assert record["notes"] == [
        "header.responding_to: 'batch 3' read as 'BATCH_3' (a §1.3.3 batch)",
        "dependencies.inputs_used[0]: element and how_used unstated",
        "dependencies.inputs_used[1]: 'nobody' names no single agent 1..57: the entry is kept in the dependencies "
        "extras under inputs_used_unresolved",
    ]
    assert record["header"]["extras"] == {"responding_to_raw": '"batch 3"'}
    assert record["dependencies"]["extras"] == {"inputs_used_unresolved": '["nobody"]'}
    assert message_from_record(avro_round_trip(agent_message_schema, record)) == msg


def test_a_record_without_notes_is_normalised_and_noted_afresh() -> None:
    record = message_record(accepted(SPEC_YAML))
    record["header"] = {**record["header"], "responding_to": "batch 3"}
    msg = message_from_record(record)
    assert msg.responding_to == "BATCH_3"
    assert msg.notes == ("header.responding_to: 'batch 3' read as 'BATCH_3' (a §1.3.3 batch)",)


def test_a_record_without_a_message_id_gets_a_derived_one() -> None:
    record = {**message_record(accepted(SPEC_YAML)), "message_id": None}
    assert message_from_record(record).message_id.startswith("msg_")
    assert message_from_record(record) == message_from_record(record)


def test_an_invalid_record_is_refused_with_the_reasons() -> None:
    record = message_record(accepted(SPEC_YAML))
    record["summary"] = {**record["summary"], "confidence": 4.0}
    with pytest.raises(ValueError, match=r"summary\.confidence: 4 is outside \[0, 1\]"):
        message_from_record(record)


@pytest.mark.parametrize("broken", ["header", "session_id", "body.content"])
def test_a_malformed_record_raises_value_error(broken: str) -> None:
    record = message_record(accepted(SPEC_YAML))
    if broken == "body.content":
        record["body"] = {**record["body"], "content": "{not json"}
    else:
        del record[broken]
    with pytest.raises(ValueError, match="malformed AgentMessage record"):
        message_from_record(record)


class _QuotingDumper(yaml.SafeDumper):
    """Quotes every string: PyYAML emits YAML 1.1, where e.g. `1e3` or `0o7` are plain strings (1.2: numbers)."""


_QuotingDumper.add_representer(str, lambda d, v: d.represent_scalar("tag:yaml.org,2002:str", v, style='"'))

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
_LINE = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=60).map(str.strip)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.floats(allow_nan=False, allow_infinity=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)
_EXTRA_KEY = st.from_regex(r"x_[a-z]{1,6}", fullmatch=True)


@st.composite
def messages(draw: st.DrawFn) -> AgentMessage:
    agent = roster.agent(draw(st.integers(1, 57)))
    tier = draw(st.sampled_from((0, 1, 2)))
    confidence = draw(st.floats(0, 1))
    if tier == 0:
        conclusion = draw(_LINE.filter(bool))[:40].strip() or "ok"
        verdict = f"[SUPPORTS] {conclusion} | CONF: {round(confidence * 100)}% | FLAGS: none"
    else:
        verdict = draw(_LINE.filter(lambda s: 0 < len(s) <= 100))
    extras = {name: draw(st.dictionaries(_EXTRA_KEY, _JSON, max_size=2)) for name in
              ("message", "header", "summary", "body", "dependencies", "meta")}
    return AgentMessage(
        session_id=SESSION,
        message_id=draw(st.from_regex(r"m-[0-9a-f]{8}", fullmatch=True)),
        agent_id=agent.id, agent_name=agent.name, agent_tier=agent.tier,
        timestamp=draw(st.datetimes()).isoformat(timespec="seconds") + "Z",
        iteration=draw(st.integers(0, 12)),
        responding_to=draw(st.integers(1, 57) | st.sampled_from(("PHI_QUERY", "INITIAL"))),
        verdict=verdict, confidence=confidence,
        confidence_basis=draw(_LINE.filter(bool)), tier=tier, content=draw(_JSON),
        inputs_used=tuple(InputUsed(a, e, h) for a, e, h in draw(st.lists(
            st.tuples(st.integers(1, 57), _LINE.filter(bool), _LINE.filter(bool)), max_size=3))),
        outputs_for=tuple(draw(st.lists(st.integers(1, 57), max_size=4))),
        flags=Flags(draw(st.booleans()), draw(st.none() | st.integers(1, 57)), draw(st.booleans()),
                    draw(st.booleans()), draw(st.booleans()),
                    draw(st.dictionaries(_EXTRA_KEY, _JSON, max_size=2))),
        tokens_used=draw(st.integers(0, 2**63 - 1)),
        processing_notes=draw(st.none() | _TEXT),
        references=tuple(Reference(*r) for r in draw(st.lists(st.tuples(
            st.sampled_from(("SUPPORTS", "CONTRADICTS", "EXTENDS", "QUALIFIES", "USES")), st.integers(1, 57),
            _LINE.filter(bool), _LINE.filter(bool), _LINE.filter(bool)), max_size=2))),
        extras={name: found for name, found in extras.items() if found},
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages(), st.sampled_from(("yaml", "json")))
def test_a_rendered_valid_message_parses_back_to_itself(msg: AgentMessage, form: str) -> None:
    doc = render_message(msg)
    text = json.dumps(doc) if form == "json" else yaml.dump(doc, Dumper=_QuotingDumper, allow_unicode=True)
    assert parse_messages(text, SESSION) == [msg]
    assert message_from_record(message_record(msg)) == msg


def test_the_generators_extra_keys_never_shadow_known_keys() -> None:
    assert not any(k.startswith("x_") for k in (*MESSAGE_KEYS, *FLAG_KEYS))


_YAMLISH = st.lists(
    st.sampled_from(["message:", "header:", "  agent_id: 44", "- ", "---", "...", "&a", "*a", "!!set", "[", "]",
                     "{", "}", ": ", "'", '"', "\t", "  ", "\n", "#", "|", ">", "%YAML 1.2", "? ", "null", "0x1F"])
    | st.text(max_size=8),
    max_size=30,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.text() | _YAMLISH)
def test_parse_messages_never_raises_and_returns_at_least_one_result(text: str) -> None:
    results = parse_messages(text, SESSION)
    assert results
    assert all(isinstance(r, AgentMessage | MessageRejected) for r in results)
    assert all(r.reasons for r in results if isinstance(r, MessageRejected))


FIELD_PATHS = [
    f"{block}.{key}" for block, keys in {
        "header": ("agent_id", "agent_name", "agent_tier", "timestamp", "iteration", "responding_to"),
        "summary": ("verdict", "confidence", "confidence_basis"),
        "body": ("tier", "content", "reference", "references"),
        "dependencies": ("inputs_used", "outputs_for"),
        "flags": FLAG_KEYS,
        "meta": ("tokens_used", "processing_notes"),
    }.items() for key in keys
] + ["header", "summary", "body", "dependencies", "flags", "meta", "references", "message_id"]
_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**400), 10**400) | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(FIELD_PATHS), _ANY_JSON)
def test_any_value_in_any_field_gives_a_message_or_readable_reasons(path: str, value: Any) -> None:
    results = parse_messages(json.dumps(changed(path, value)), SESSION)
    assert len(results) == 1
    if isinstance(results[0], MessageRejected):
        assert results[0].reasons
        assert not any("internal error" in r for r in results[0].reasons), results[0].reasons
        assert all(reason_field(r) in NORMATIVE for r in results[0].reasons), results[0].reasons
    elif path in _STORED and value is not None and _STORED[path](results[0]) != value:
        assert results[0].notes, (path, value)  # never silent: a value stored other than written is noted


_STORED: dict[str, Any] = {
    "header.responding_to": lambda m: m.responding_to,
    "flags.contradiction_with": lambda m: m.flags.contradiction_with,
    "dependencies.outputs_for": lambda m: list(m.outputs_for),
}


def reason_field(reason: str) -> str:
    """The field a reason is about: its path before ": ", list indices removed."""
    return re.sub(r"\[\d+\]", "", reason.split(": ", maxsplit=1)[0])


@pytest.mark.parametrize(("path", "value", "reason"), OUT_OF_RANGE, ids=[_case_id(p, v) for p, v, _ in OUT_OF_RANGE])
def test_every_refusal_rests_on_a_normative_field(path: str, value: Any, reason: str) -> None:
    assert reason_field(reason) in NORMATIVE
    assert not reason_field(reason).startswith(("dependencies", "flags.contradiction_with"))


def test_unknown_keys_inside_inputs_used_and_references_survive_the_avro_record() -> None:
    text = """
message:
  header: {agent_id: 27, agent_name: Chain Verifier, agent_tier: VERIFICATION, timestamp: '2026-01-01T10:00:00Z',
           iteration: 1, responding_to: 2}
  summary: {verdict: chain holds, confidence: 0.8, confidence_basis: checked each step}
  body: {tier: 1, content: {}}
  dependencies:
    inputs_used: [{agent_id: 2, element: data, how_used: premise, weight: 0.7}]
    outputs_for: [57]
  references:
    - {type: SUPPORTS, source_agent: 2, source_element: data, relationship: agrees, confidence_impact: up,
       cited_line: 12}
"""
    [message] = parse_messages(text, "sess-extras")
    assert isinstance(message, AgentMessage)
    assert message.inputs_used[0].extras == {"weight": 0.7}
    assert message.references[0].extras == {"cited_line": 12}
    assert message_from_record(message_record(message)) == message


def test_a_record_whose_session_id_is_not_a_string_is_refused_with_the_value_named() -> None:
    record = {**message_record(accepted(SPEC_YAML)), "session_id": 5}
    expected = "malformed AgentMessage record: TypeError('session_id must be a string, got 5')"
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        message_from_record(record)


def test_an_internal_error_while_reading_is_one_rejection_with_an_id_from_session_and_text(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The "never raises" contract: a bug below `parse_messages` becomes a rejection, not an exception."""
    def broken(text: str) -> list[Any]:
        raise RuntimeError("boom")

    monkeypatch.setattr("omega.agents.messages.read_documents", broken)
    assert parse_messages("anything", SESSION, source="agent-7.yaml") == [MessageRejected(
        SESSION, derived_id("rej_", SESSION, "anything"),
        ("agent-7.yaml: internal error reading the message: RuntimeError('boom')",))]
