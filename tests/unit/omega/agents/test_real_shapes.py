"""Messages in the shapes real LLM agents write (tests/data/omega57/real_shapes), read by the real reader
(`omega.agents.messages.parse_messages`): each file must give exactly the outcome its entry in
expectations.yaml states. Tolerant shapes (batch and tier references, bare-id and string dependencies, free-text
contradiction_with, several messages per file, flat messages) are accepted with their normalised values, the raw
values kept and every normalisation noted; the strict cases are refused with exactly their normative reason."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import fastavro
import pytest
import yaml
from fastavro.schema import load_schema

from omega.agents.message_fields import NORMATIVE
from omega.agents.messages import message_from_record, message_record, parse_messages
from omega.agents.model import AgentMessage, InputUsed, MessageRejected
from omega.agents.session import evolve

ROOT = Path(__file__).resolve().parents[4]
DATA = ROOT / "tests" / "data" / "omega57" / "real_shapes"
EXPECTED: dict[str, Any] = yaml.safe_load((DATA / "expectations.yaml").read_text(encoding="utf-8"))
CASES = sorted(EXPECTED)

REQUIRED_SHAPES = {"batch_reference", "tier_reference", "bare_id_dependency", "string_dependency",
                   "free_text_contradiction", "several_documents", "flat_without_envelope", "strict"}
STRICT = {  # the refusals the spec makes normative, one file each: (file, field the only reason is about)
    "strict_verdict_too_long.yaml": "summary.verdict",
    "strict_body_tier_3.yaml": "body.tier",
    "strict_agent_id_0.yaml": "header.agent_id",
    "strict_agent_id_58.yaml": "header.agent_id",
    "strict_bad_yaml.yaml": "YAML syntax error at line 10, column 31",
}


def read(case: str) -> list[AgentMessage | MessageRejected]:
    return parse_messages((DATA / case).read_text(encoding="utf-8"), Path(case).stem)


def reason_field(reason: str) -> str:
    """The field a reason is about: its path before ": " (after any "document <n>" label), indices removed."""
    path = re.sub(r"^document \d+(?: item \d+)?: ", "", reason).split(": ", maxsplit=1)[0]
    return re.sub(r"\[\d+\]", "", path)


def accepted_cases() -> list[tuple[str, int]]:
    return [(case, i) for case in CASES for i, m in enumerate(EXPECTED[case]["messages"]) if "accepted" in m]


# ------------------------------------------------------------------------------------------- the suite
def test_every_file_has_expectations_and_the_suite_has_at_least_20_cases() -> None:
    files = sorted(p.name for p in DATA.iterdir() if p.name != "expectations.yaml")
    assert files == CASES
    assert len(CASES) >= 20


def test_the_suite_covers_every_shape_and_every_strict_case() -> None:
    shapes = {shape for case in CASES for shape in EXPECTED[case]["shapes"]}
    assert shapes >= REQUIRED_SHAPES
    assert set(STRICT) <= set(CASES)


# ------------------------------------------------------------------------------------------ per message
@pytest.mark.parametrize("case", CASES)
def test_a_real_shape_gives_exactly_its_expected_outcome(case: str) -> None:
    results = read(case)
    expected = EXPECTED[case]["messages"]
    assert len(results) == len(expected), results
    for result, want in zip(results, expected, strict=True):
        if "rejected" in want:
            assert isinstance(result, MessageRejected), result
            assert list(result.reasons) == want["rejected"]
        else:
            assert isinstance(result, AgentMessage), result
            check_accepted(result, want["accepted"])


def check_accepted(msg: AgentMessage, want: dict[str, Any]) -> None:
    for name in ("agent_id", "agent_name", "agent_tier", "responding_to"):
        if name in want:
            assert getattr(msg, name) == want[name], name
    if "inputs_used" in want:
        assert msg.inputs_used == tuple(InputUsed(i[0], i[1], i[2], i[3] if len(i) > 3 else {})
                                        for i in want["inputs_used"])
    if "outputs_for" in want:
        assert msg.outputs_for == tuple(want["outputs_for"])
    if "contradiction_with" in want:
        assert msg.flags.contradiction_with == want["contradiction_with"]
    if "extras" in want:
        assert msg.extras == want["extras"]
    if "flag_extras" in want:
        assert msg.flags.extras == want["flag_extras"]
    if "noted" in want:
        assert [n.split(": ", maxsplit=1)[0] for n in msg.notes] == want["noted"], msg.notes
    if want.get("message_id_derived"):
        assert msg.message_id.startswith("msg_")


@pytest.mark.parametrize("case", sorted(STRICT))
def test_a_strict_case_is_refused_with_exactly_its_one_normative_reason(case: str) -> None:
    [result] = read(case)
    assert isinstance(result, MessageRejected)
    assert len(result.reasons) == 1
    assert result.reasons[0].startswith(STRICT[case])


@pytest.mark.parametrize("case", CASES)
def test_every_refusal_names_a_field_the_spec_makes_normative(case: str) -> None:
    for result in read(case):
        if isinstance(result, MessageRejected):
            fields = [reason_field(r) for r in result.reasons if not r.startswith("YAML syntax error")]
            assert all(f in NORMATIVE for f in fields), fields
            assert not any(f.startswith(("dependencies", "flags.contradiction_with")) for f in fields)


@pytest.mark.parametrize(("case", "index"), [(c, i) for c, i in accepted_cases()
                                             if "contradiction" in EXPECTED[c]["messages"][i]["accepted"]])
def test_a_flagged_contradiction_is_recorded_whatever_contradiction_with_named(case: str, index: int) -> None:
    want = EXPECTED[case]["messages"][index]["accepted"]
    msg = read(case)[index]
    assert isinstance(msg, AgentMessage)
    state, _ = evolve(None, msg)
    [recorded] = state.contradictions_unresolved
    assert [recorded.claim_a.agent_id, recorded.claim_b.agent_id] == want["contradiction"]
    if "other_statement" in want:
        assert recorded.claim_a.statement == want["other_statement"]


@pytest.fixture(scope="module")
def agent_message_schema() -> Any:
    named: dict[str, Any] = {}
    schemas = {p.stem: load_schema(str(p), named_schemas=named) for p in sorted((ROOT / "schemas_avro").glob("*.avsc"))}
    return schemas["omega.agents.AgentMessage"]


@pytest.mark.parametrize(("case", "index"), accepted_cases())
def test_an_accepted_real_shape_keeps_its_values_raw_extras_and_notes_through_the_avro_record(
    case: str, index: int, agent_message_schema: Any,
) -> None:
    msg = read(case)[index]
    assert isinstance(msg, AgentMessage)
    record = message_record(msg)
    assert record["notes"] == (list(msg.notes) or None)
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, agent_message_schema, record)
    buf.seek(0)
    decoded = fastavro.schemaless_reader(buf, agent_message_schema, agent_message_schema)
    assert isinstance(decoded, dict)
    assert message_from_record(decoded) == msg
