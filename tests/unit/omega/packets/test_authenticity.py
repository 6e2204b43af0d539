"""Packet authenticity (issues 9, 22): signing forms (HMAC-SHA256-JCS, HMAC-SHA256), the published vectors,
the AUTH rule, and its place in the validator's evolve."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from omega.events import Alert
from omega.packets.authenticity import (
    AUTH_FIELD,
    HMAC_SHA256,
    HMAC_SHA256_JCS,
    AuthKey,
    AuthPolicy,
    auth_001_authority_requires_signature,
    authority_claims,
    layer_label,
    sign,
    signing_bytes,
)
from omega.packets.ledger import EpisodeLedger
from omega.packets.schema import check_schema
from omega.packets.validator import evolve, evolve_single
from omega.packets.verdict import PacketVerdict, VerdictStatus
from omega.strictjson import loads
from omega.violations import Severity, Violation
from tests.factories import episode_packets, packet

SECRET = b"layer-one-secret-0123456789"
OTHER_SECRET = b"integrity-secret-9876543210"
POLICY = AuthPolicy.of({
    "gov": AuthKey(SECRET, frozenset({"1"})),
    "integrity": AuthKey(OTHER_SECRET, frozenset({"Integrity"})),
    "exec": AuthKey(b"layer-five-secret-000000000", frozenset({"5", "6"})),
})
ROOT = Path(__file__).resolve().parents[4]
EXAMPLES = ROOT / "examples" / "omen"
VECTORS = ROOT / "docs" / "signing-vectors.json"
NODE_SIGNER = ROOT / "tests" / "fixtures" / "jcs_sign.js"


def _example(name: str, packet_type: str) -> dict[str, Any]:
    lines = (EXAMPLES / name).read_text(encoding="utf-8").splitlines()
    return next(p for p in map(json.loads, lines) if p["header"]["packet_type"] == packet_type)


def _layer_one() -> dict[str, Any]:
    authority = packet(0, 1, "DecisionPacket")
    authority["header"]["layer_source"] = 1
    return authority


def _verdict(outputs: list[Any]) -> PacketVerdict:
    verdict = outputs[0]
    assert isinstance(verdict, PacketVerdict)
    return verdict


def _messages(p: dict[str, Any], policy: AuthPolicy | None = POLICY) -> list[str]:
    violations = auth_001_authority_requires_signature(p, policy)
    assert all(v.rule == "AUTH" and v.severity is Severity.ERROR for v in violations)
    return [v.message for v in violations]


def test_a_signed_packet_verifies_and_stays_schema_valid_and_new_signatures_are_jcs() -> None:
    signed = sign(_layer_one(), "gov", SECRET)
    assert set(signed[AUTH_FIELD]) == {"alg", "key_id", "sig"}
    assert signed[AUTH_FIELD]["alg"] == "HMAC-SHA256-JCS"
    assert list(check_schema(signed)) == []
    assert _messages(signed) == []


def test_sign_does_not_change_its_input_and_re_signing_replaces_the_signature() -> None:
    original = _layer_one()
    before = copy.deepcopy(original)
    once = sign(original, "integrity", OTHER_SECRET)
    assert original == before
    again = sign(once, "gov", SECRET)
    assert again == sign(original, "gov", SECRET)


def test_signing_is_deterministic_and_independent_of_key_order() -> None:
    p = _layer_one()
    reordered = {k: p[k] for k in reversed(list(p))}
    reordered["header"] = {k: p["header"][k] for k in reversed(list(p["header"]))}
    assert sign(p, "gov", SECRET) == sign(reordered, "gov", SECRET)
    assert signing_bytes(p, "gov") == signing_bytes(sign(p, "gov", SECRET), "gov")


def test_the_old_alg_signing_form_is_python_canonical_json_without_the_sig() -> None:
    p = {"header": {"b": 1, "a": "é"}, "payload": {}}
    assert signing_bytes(p, "gov", alg=HMAC_SHA256) == (
        '{"_auth":{"alg":"HMAC-SHA256","key_id":"gov"},"header":{"a":"é","b":1},"payload":{}}'.encode())


@pytest.mark.parametrize("alg", [HMAC_SHA256_JCS, HMAC_SHA256])
@pytest.mark.parametrize("path", [("payload", "decision_summary"), ("header", "created_at"), ("mcp", "intent")])
def test_a_tampered_field_breaks_the_signature_under_either_alg(path: tuple[str, str], alg: str) -> None:
    signed = sign(_layer_one(), "gov", SECRET, alg=alg)
    signed[path[0]][path[1]] = "tampered"
    assert _messages(signed) == ["AUTH: signature by key 'gov' does not verify (packet altered or wrong secret)"]


def test_swapping_the_key_id_breaks_the_signature() -> None:
    signed = sign(_layer_one(), "gov", SECRET)
    signed[AUTH_FIELD]["key_id"] = "integrity"
    assert _messages(signed) == [
        "AUTH: signature by key 'integrity' does not verify (packet altered or wrong secret)"]


def test_a_signature_made_with_the_wrong_secret_is_rejected() -> None:
    forged = sign(_layer_one(), "gov", b"not-the-governor-secret-000")
    assert _messages(forged) == ["AUTH: signature by key 'gov' does not verify (packet altered or wrong secret)"]


def test_an_unknown_key_id_is_rejected() -> None:
    signed = sign(_layer_one(), "stranger", SECRET)
    assert _messages(signed) == ["AUTH: unknown signing key id 'stranger'"]


def test_a_valid_signature_by_a_key_not_authorised_for_the_layer_is_rejected() -> None:
    signed = sign(_layer_one(), "integrity", OTHER_SECRET)
    assert _messages(signed) == ["AUTH: key 'integrity' is not authorised for Layer 1 (allowed: Integrity)"]


def test_an_unsigned_authority_packet_is_rejected_under_a_policy() -> None:
    assert _messages(_layer_one()) == ["AUTH: DecisionPacket claims Layer 1 authority but carries no _auth signature"]


@pytest.mark.parametrize("auth", ["sig", {"alg": "HMAC-MD5", "key_id": "gov", "sig": "0" * 64},
                                  {"alg": "HMAC-SHA256", "key_id": "", "sig": "0" * 64},
                                  {"alg": "HMAC-SHA256", "key_id": "gov", "sig": "zz"},
                                  {"alg": "HMAC-SHA256", "key_id": "gov", "sig": "0" * 64, "note": "x"}])
def test_a_malformed_auth_object_is_rejected(auth: object) -> None:
    p = _layer_one()
    p[AUTH_FIELD] = auth
    [message] = _messages(p)
    assert message.startswith("AUTH: malformed _auth: ")


def test_an_old_alg_signed_packet_holding_nan_is_rejected_not_crashed() -> None:
    signed = sign(_layer_one(), "gov", SECRET, alg=HMAC_SHA256)
    signed["payload"]["decision_summary"] = float("nan")
    assert _messages(signed) == ["AUTH: packet has no canonical JSON form (NaN or Infinity), so it cannot be verified"]


def test_without_a_policy_nothing_is_checked() -> None:
    forged = sign(_layer_one(), "stranger", b"whatever-secret-0000000000")
    assert _messages(_layer_one(), None) == []
    assert _messages(forged, None) == []


def test_an_unsigned_packet_claiming_no_authority_is_accepted_under_a_policy() -> None:
    assert authority_claims(packet(0, 1)) == frozenset()
    assert _messages(packet(0, 1)) == []


def test_a_bad_signature_on_a_packet_claiming_no_authority_is_still_rejected() -> None:
    signed = sign(packet(0, 1), "exec", b"wrong-secret-for-exec-00000")
    assert _messages(signed) == ["AUTH: signature by key 'exec' does not verify (packet altered or wrong secret)"]


def test_a_verifying_signature_on_a_packet_claiming_no_authority_is_accepted_from_any_known_key() -> None:
    layer_six = packet(0, 1)  # ObservationPacket from Layer 6: no authority for a key to lack
    assert _messages(sign(layer_six, "exec", b"layer-five-secret-000000000")) == []
    assert _messages(sign(layer_six, "gov", SECRET)) == []


def test_token_issuance_and_integrity_alerts_claim_authority_whatever_their_layer_source() -> None:
    token = _example("write_act.jsonl", "ToolAuthorizationToken")
    alert = _example("safe_mode.jsonl", "IntegrityAlertPacket")
    assert token["header"]["layer_source"] == 5
    assert authority_claims(token) == frozenset({"1"})  # its payload.issuer_layer
    assert authority_claims(alert) == frozenset({"Integrity"})
    alert["header"]["layer_source"] = 3
    assert authority_claims(alert) == frozenset({"Integrity"})
    assert _messages(sign(token, "gov", SECRET)) == []
    assert _messages(sign(alert, "integrity", OTHER_SECRET)) == []
    assert _messages(sign(token, "exec", b"layer-five-secret-000000000")) == [
        "AUTH: key 'exec' is not authorised for Layer 1 (allowed: Layer 5, Layer 6)"]


def test_evolve_rejects_an_unsigned_authority_packet_before_the_fsm_and_alerts() -> None:
    ledger, outputs = evolve(None, _layer_one(), POLICY)
    verdict = _verdict(outputs)
    assert verdict.status is VerdictStatus.REJECTED
    assert [v.rule for v in verdict.violations] == ["AUTH"]  # the FSM never saw it
    assert verdict.state_after == "S0_IDLE"
    assert ledger.rejected == 1
    assert ledger.state == "S0_IDLE"
    assert [(o.kind, o.severity) for o in outputs[1:] if isinstance(o, Alert)] == [("AUTH_REJECTED", "HIGH")]


def test_evolve_without_a_policy_judges_exactly_as_before() -> None:
    forged = sign(_layer_one(), "stranger", b"whatever-secret-0000000000")
    for p in (_layer_one(), forged):
        with_default, without = evolve(None, p), evolve(None, p, None)
        assert with_default == without
        assert "AUTH" not in {v.rule for v in _verdict(with_default[1]).violations}


def test_evolve_accepts_a_validly_signed_authority_packet_into_the_episode() -> None:
    ledger = None
    for p in episode_packets(1, 2):
        ledger, _ = evolve(ledger, p, POLICY)
    decision = _layer_one()
    decision["header"]["packet_id"] = "pkt_00001_000002"
    _, outputs = evolve(ledger, sign(decision, "gov", SECRET), POLICY)
    verdict = _verdict(outputs)
    assert verdict.status is not VerdictStatus.REJECTED
    assert "AUTH" not in {v.rule for v in verdict.violations}


def test_evolve_single_applies_the_policy_too() -> None:
    assert [v.rule for v in evolve_single(_layer_one(), POLICY).violations] == ["AUTH"]
    assert "AUTH" not in {v.rule for v in evolve_single(_layer_one()).violations}


def test_the_same_signed_episode_judged_twice_gives_identical_outputs() -> None:
    governed, forged = _layer_one(), _layer_one()
    governed["header"]["packet_id"], forged["header"]["packet_id"] = "pkt_00001_000002", "pkt_00001_000003"
    log = [*episode_packets(1, 2), sign(governed, "gov", SECRET), sign(forged, "integrity", OTHER_SECRET)]

    def run() -> list[Any]:
        ledger: EpisodeLedger | None = None
        outs: list[Any] = []
        for p in copy.deepcopy(log):
            ledger, step = evolve(ledger, p, POLICY)
            outs.extend(o.to_dict() for o in step)
        return outs

    first = run()
    assert first == run()
    statuses = [o["status"] for o in first if "status" in o]
    assert statuses[2:] == ["ACCEPTED", "REJECTED"]  # the Integrity key may not speak for Layer 1


def test_the_policy_secret_is_not_shown_in_reprs() -> None:
    assert "layer-one-secret" not in repr(POLICY)


@pytest.mark.parametrize(("layer", "label"), [(1, "1"), (6, "6"), (0, None), (7, None), (True, None), ("1", None),
                                              ("Integrity", "Integrity")])
def test_only_the_six_layers_and_integrity_have_labels(layer: object, label: str | None) -> None:
    assert layer_label(layer) == label


def test_a_token_whose_issuer_layer_is_no_layer_claims_an_authority_no_key_holds() -> None:
    token = _example("write_act.jsonl", "ToolAuthorizationToken")
    token["payload"]["issuer_layer"] = 7
    assert authority_claims(token) == frozenset({"?"})
    assert auth_001_authority_requires_signature(token, POLICY) == [Violation(
        "AUTH", Severity.ERROR, "AUTH: ToolAuthorizationToken claims ? authority but carries no _auth signature",
        "_auth")]


def test_the_old_alg_signature_is_the_hmac_sha256_of_its_canonical_form_under_the_key_s_secret() -> None:
    p = {"header": {"b": 1, "a": "é"}, "payload": {}}
    form = '{"_auth":{"alg":"HMAC-SHA256","key_id":"gov"},"header":{"a":"é","b":1},"payload":{}}'.encode()
    assert sign(p, "gov", SECRET, alg=HMAC_SHA256)[AUTH_FIELD] == {
        "alg": "HMAC-SHA256", "key_id": "gov", "sig": hmac.new(SECRET, form, hashlib.sha256).hexdigest()}


def test_the_key_id_is_signed_so_a_key_sharing_the_secret_cannot_take_over_a_signature() -> None:
    policy = AuthPolicy.of({"gov": AuthKey(SECRET, frozenset({"1"})), "twin": AuthKey(SECRET, frozenset({"1"}))})
    signed = sign(_layer_one(), "gov", SECRET)
    signed[AUTH_FIELD]["key_id"] = "twin"
    assert _messages(signed, policy) == [
        "AUTH: signature by key 'twin' does not verify (packet altered or wrong secret)"]


def test_under_the_old_alg_a_lone_surrogate_from_a_json_escape_is_signed_as_its_raw_utf_8_bytes() -> None:
    p = json.loads('{"header": {"note": "\\ud800"}}')  # strict JSON admits an unpaired surrogate escape
    assert signing_bytes(p, "gov", alg=HMAC_SHA256) == (
        b'{"_auth":{"alg":"HMAC-SHA256","key_id":"gov"},"header":{"note":"\xed\xa0\x80"}}')
    assert _messages(sign(p, "gov", SECRET, alg=HMAC_SHA256)) == []


def test_signing_with_an_empty_key_id_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^a key id must not be empty$"):
        sign(_layer_one(), "", SECRET)


def _malformed(auth: object) -> list[Violation]:
    p = _layer_one()
    p[AUTH_FIELD] = auth
    return auth_001_authority_requires_signature(p, POLICY)


@pytest.mark.parametrize(("auth", "reason"), [
    ("sig", "expected an object, got str"),
    ([], "expected an object, got list"),
    ({"alg": "HMAC-MD5", "key_id": "gov", "sig": "0" * 64},
     "alg must be one of 'HMAC-SHA256-JCS', 'HMAC-SHA256', got 'HMAC-MD5'"),
    ({"key_id": "gov", "sig": "0" * 64}, "alg must be one of 'HMAC-SHA256-JCS', 'HMAC-SHA256', got None"),
    ({"alg": ["HMAC-SHA256"], "key_id": "gov", "sig": "0" * 64},
     "alg must be one of 'HMAC-SHA256-JCS', 'HMAC-SHA256', got ['HMAC-SHA256']"),
    ({"alg": "hmac-sha256-jcs", "key_id": "gov", "sig": "0" * 64},
     "alg must be one of 'HMAC-SHA256-JCS', 'HMAC-SHA256', got 'hmac-sha256-jcs'"),
    ({"alg": "HMAC-SHA256", "key_id": "", "sig": "0" * 64}, "key_id must be a non-empty string"),
    ({"alg": "HMAC-SHA256", "key_id": 7, "sig": "0" * 64}, "key_id must be a non-empty string"),
    ({"alg": "HMAC-SHA256", "key_id": "gov", "sig": "zz"}, "sig must be 64 hex digits (HMAC-SHA256)"),
    ({"alg": "HMAC-SHA256", "key_id": "gov", "sig": "0" * 63}, "sig must be 64 hex digits (HMAC-SHA256)"),
    ({"alg": "HMAC-SHA256", "key_id": "gov", "sig": "0" * 65}, "sig must be 64 hex digits (HMAC-SHA256)"),
    ({"alg": "HMAC-SHA256", "key_id": "gov", "sig": "X" * 64}, "sig must be 64 hex digits (HMAC-SHA256)"),
    ({"alg": "HMAC-SHA256", "key_id": "gov", "sig": "g" * 64}, "sig must be 64 hex digits (HMAC-SHA256)"),
    ({"alg": "HMAC-SHA256", "key_id": "gov", "sig": None}, "sig must be 64 hex digits (HMAC-SHA256)"),
    ({"alg": "HMAC-SHA256", "key_id": "gov", "sig": "0" * 64, "note": "x"}, "unexpected fields ['note']"),
])
def test_a_malformed_auth_object_is_rejected_saying_what_is_wrong(auth: object, reason: str) -> None:
    assert _malformed(auth) == [Violation("AUTH", Severity.ERROR, f"AUTH: malformed _auth: {reason}", "_auth")]


def test_a_signature_in_uppercase_hex_verifies_like_its_lowercase_form() -> None:
    signed = sign(_layer_one(), "gov", SECRET)
    signed[AUTH_FIELD]["sig"] = signed[AUTH_FIELD]["sig"].upper()
    assert _messages(signed) == []


def test_each_auth_violation_points_at_the_field_at_fault() -> None:
    unknown = sign(_layer_one(), "stranger", SECRET)
    forged = sign(_layer_one(), "gov", b"not-the-governor-secret-000")
    refused = sign(_layer_one(), "integrity", OTHER_SECRET)
    assert [auth_001_authority_requires_signature(p, POLICY) for p in (_layer_one(), unknown, forged, refused)] == [
        [Violation("AUTH", Severity.ERROR,
                   "AUTH: DecisionPacket claims Layer 1 authority but carries no _auth signature", "_auth")],
        [Violation("AUTH", Severity.ERROR, "AUTH: unknown signing key id 'stranger'", "_auth.key_id")],
        [Violation("AUTH", Severity.ERROR,
                   "AUTH: signature by key 'gov' does not verify (packet altered or wrong secret)", "_auth.sig")],
        [Violation("AUTH", Severity.ERROR,
                   "AUTH: key 'integrity' is not authorised for Layer 1 (allowed: Integrity)", "_auth.key_id")],
    ]


def test_authority_labels_are_shown_layers_first_by_number_then_integrity() -> None:
    token = _example("write_act.jsonl", "ToolAuthorizationToken")
    token["header"]["layer_source"] = 1
    token["payload"]["issuer_layer"] = "Integrity"
    policy = AuthPolicy.of({"both": AuthKey(SECRET, frozenset({"Integrity", "3"}))})
    assert _messages(sign(token, "exec", b"layer-five-secret-000000000")) == [
        "AUTH: key 'exec' is not authorised for Layer 1, Integrity (allowed: Layer 5, Layer 6)"]
    assert _messages(sign(token, "both", SECRET), policy) == [
        "AUTH: key 'both' is not authorised for Layer 1 (allowed: Layer 3, Integrity)"]


def test_an_old_alg_signed_packet_holding_nan_points_at_the_signature_it_cannot_verify() -> None:
    signed = sign(_layer_one(), "gov", SECRET, alg=HMAC_SHA256)
    signed["payload"]["decision_summary"] = float("nan")
    assert auth_001_authority_requires_signature(signed, POLICY) == [Violation(
        "AUTH", Severity.ERROR, "AUTH: packet has no canonical JSON form (NaN or Infinity), so it cannot be verified",
        "_auth.sig")]


def test_a_key_allowed_no_layer_at_all_is_refused_saying_none_is_allowed() -> None:
    policy = AuthPolicy.of({"mute": AuthKey(SECRET, frozenset())})
    assert _messages(sign(_layer_one(), "mute", SECRET), policy) == [
        "AUTH: key 'mute' is not authorised for Layer 1 (allowed: none)"]


def test_the_auth_rejected_alert_carries_the_auth_violation_message() -> None:
    _, outputs = evolve(None, sign(_layer_one(), "integrity", OTHER_SECRET), POLICY)
    assert [(o.kind, o.severity, o.message) for o in outputs[1:] if isinstance(o, Alert)] == [
        ("AUTH_REJECTED", "HIGH", "AUTH: key 'integrity' is not authorised for Layer 1 (allowed: Integrity)")]


# ------------------------------------------------------------------ HMAC-SHA256-JCS (issue 22)
def test_the_jcs_signing_form_is_rfc_8785_utf_16_key_order_and_ecmascript_numbers() -> None:
    # By hand from RFC 8785: "\U0001F600" is D83D DE00 in UTF-16, so it sorts before "\uFB00" (code point order
    # puts it after); 1.0 is written 1 and 1e21 as 1e+21; non-ASCII stays UTF-8.
    p = {"header": {"b": 1.0, "a": "é", "\uFB00": 1e21, "\U0001F600": 0.1}, "payload": {}}
    assert signing_bytes(p, "gov") == signing_bytes(p, "gov", alg=HMAC_SHA256_JCS) == (
        '{"_auth":{"alg":"HMAC-SHA256-JCS","key_id":"gov"},'
        '"header":{"a":"é","b":1,"\U0001F600":0.1,"\uFB00":1e+21},"payload":{}}'.encode())


def test_the_jcs_signature_is_the_hmac_sha256_of_the_rfc_8785_form() -> None:
    p = {"header": {"b": 1.0, "a": "é"}, "payload": {}}
    form = '{"_auth":{"alg":"HMAC-SHA256-JCS","key_id":"gov"},"header":{"a":"é","b":1},"payload":{}}'.encode()
    assert sign(p, "gov", SECRET)[AUTH_FIELD] == {
        "alg": "HMAC-SHA256-JCS", "key_id": "gov", "sig": hmac.new(SECRET, form, hashlib.sha256).hexdigest()}


def test_a_packet_signed_with_the_old_alg_still_verifies() -> None:
    signed = sign(_layer_one(), "gov", SECRET, alg=HMAC_SHA256)
    assert signed[AUTH_FIELD]["alg"] == "HMAC-SHA256"
    assert _messages(signed) == []


@pytest.mark.parametrize(("signed_with", "relabelled"),
                         [(HMAC_SHA256_JCS, HMAC_SHA256), (HMAC_SHA256, HMAC_SHA256_JCS)])
def test_relabelling_a_signature_s_alg_breaks_it_because_the_alg_is_signed(signed_with: str, relabelled: str) -> None:
    signed = sign(_layer_one(), "gov", SECRET, alg=signed_with)
    signed[AUTH_FIELD]["alg"] = relabelled
    assert _messages(signed) == ["AUTH: signature by key 'gov' does not verify (packet altered or wrong secret)"]


def test_a_tampered_number_breaks_a_jcs_signature_even_where_its_text_would_not_change_much() -> None:
    signed = sign(_layer_one(), "gov", SECRET)
    signed["mcp"]["epistemics"]["confidence"] = 0.81  # signed as 0.8
    assert _messages(signed) == ["AUTH: signature by key 'gov' does not verify (packet altered or wrong secret)"]


def test_one_and_one_point_zero_are_the_same_number_to_a_jcs_signature() -> None:
    # A JS or Go producer cannot tell 1 from 1.0 once parsed; JCS writes both as 1, so the signature survives.
    signed = sign(_layer_one(), "gov", SECRET)
    signed["mcp"]["budgets"]["token_budget"] = 900.0
    assert _messages(signed) == []
    assert _messages(sign(_layer_one(), "gov", SECRET, alg=HMAC_SHA256) | {"mcp": signed["mcp"]}) == [
        "AUTH: signature by key 'gov' does not verify (packet altered or wrong secret)"]


def test_an_unknown_alg_is_an_auth_violation_naming_the_accepted_algs() -> None:
    signed = sign(_layer_one(), "gov", SECRET)
    signed[AUTH_FIELD]["alg"] = "HMAC-SHA512-JCS"
    assert auth_001_authority_requires_signature(signed, POLICY) == [Violation(
        "AUTH", Severity.ERROR,
        "AUTH: malformed _auth: alg must be one of 'HMAC-SHA256-JCS', 'HMAC-SHA256', got 'HMAC-SHA512-JCS'", "_auth")]


def test_signing_under_an_unknown_alg_is_refused_naming_the_accepted_algs() -> None:
    accepted = r"\(accepted: 'HMAC-SHA256-JCS', 'HMAC-SHA256'\)"
    with pytest.raises(ValueError, match=rf"^unknown signing alg 'HMAC-MD5' {accepted}$"):
        sign(_layer_one(), "gov", SECRET, alg="HMAC-MD5")


@pytest.mark.parametrize(("value", "reason"), [
    (float("nan"), "NaN or Infinity"),
    (float("-inf"), "NaN or Infinity"),
    (2**53, "an integer beyond 2**53 - 1 in magnitude"),
    (-(2**53), "an integer beyond 2**53 - 1 in magnitude"),
    ("\ud800", "a lone surrogate"),
])
def test_a_value_with_no_rfc_8785_form_cannot_be_signed_or_verified_under_jcs(value: object, reason: str) -> None:
    signed = sign(_layer_one(), "gov", SECRET)
    signed["payload"]["decision_summary"] = value
    assert auth_001_authority_requires_signature(signed, POLICY) == [Violation(
        "AUTH", Severity.ERROR, f"AUTH: packet has no RFC 8785 canonical form ({reason}), so it cannot be verified",
        "_auth.sig")]
    with pytest.raises(ValueError, match=rf"^{reason.replace('*', '[*]')}$"):
        sign(signed, "gov", SECRET)


def test_the_largest_safe_integers_sign_and_verify_under_jcs() -> None:
    p = _layer_one()
    p["payload"]["decision_summary"] = [2**53 - 1, -(2**53 - 1)]
    assert _messages(sign(p, "gov", SECRET)) == []


# ------------------------------------------------------------------ the published vectors (docs/signing-vectors.json)
def _vectors() -> list[dict[str, Any]]:
    document = loads(VECTORS.read_text(encoding="utf-8"))
    assert document["alg"] == "HMAC-SHA256-JCS"
    vectors: list[dict[str, Any]] = document["vectors"]
    return vectors


VECTOR_NAMES = [v["name"] for v in _vectors()]


def _vector(name: str) -> dict[str, Any]:
    return next(v for v in _vectors() if v["name"] == name)


def test_the_published_vectors_are_reproduced_by_an_independent_node_signer() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the independent JCS signer tests/fixtures/jcs_sign.js cannot run")
    vectors = _vectors()
    stdin = json.dumps([{k: v[k] for k in ("key_id", "secret_hex", "packet")} for v in vectors])
    run = subprocess.run([node, str(NODE_SIGNER)], input=stdin, capture_output=True, text=True, encoding="utf-8",
                         timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [{"canonical": v["canonical"], "sig": v["sig"]} for v in vectors]


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_our_jcs_signing_bytes_equal_each_published_canonical_string(name: str) -> None:
    vector = _vector(name)
    assert signing_bytes(vector["packet"], vector["key_id"]) == vector["canonical"].encode("utf-8")


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_each_published_vector_is_accepted_under_a_policy_holding_its_key(name: str) -> None:
    vector = _vector(name)
    secret = bytes.fromhex(vector["secret_hex"])
    packet_ = vector["packet"]
    assert packet_[AUTH_FIELD] == {"alg": "HMAC-SHA256-JCS", "key_id": vector["key_id"], "sig": vector["sig"]}
    policy = AuthPolicy.of({vector["key_id"]: AuthKey(secret, frozenset(vector["layers"]))})
    assert auth_001_authority_requires_signature(packet_, policy) == []
    assert sign(packet_, vector["key_id"], secret) == packet_
    assert list(check_schema(packet_)) == []


def test_the_vectors_cover_the_cases_they_promise() -> None:
    canonical = {v["name"]: v["canonical"] for v in _vectors()}
    assert 4 <= len(canonical) <= 6
    numbers = canonical["integrity-alert-numbers"]
    for text in ('"one":1,', '"huge":1e+21,', '"tenth":0.1,', '"tiny":1e-7,', '"micro":0.000001,',
                 '"negative_zero":0,'):
        assert text in numbers
    assert "注文を更新 · 🛰" in canonical["token-non-ascii"]
    assert '"\U0001F600":"grinning face","\uFB00":"ligature ff"' in canonical["observation-key-order"]
    assert {frozenset(authority_claims(v["packet"])) for v in _vectors()} == {
        frozenset({"1"}), frozenset({"Integrity"}), frozenset()}
