"""Packet authenticity (issue 9): signing form, the AUTH rule, and its place in the validator's evolve."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
from pathlib import Path
from typing import Any

import pytest

from omega.events import Alert
from omega.packets.authenticity import (
    AUTH_FIELD,
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
from omega.violations import Severity, Violation
from tests.factories import episode_packets, packet

SECRET = b"layer-one-secret-0123456789"
OTHER_SECRET = b"integrity-secret-9876543210"
POLICY = AuthPolicy.of({
    "gov": AuthKey(SECRET, frozenset({"1"})),
    "integrity": AuthKey(OTHER_SECRET, frozenset({"Integrity"})),
    "exec": AuthKey(b"layer-five-secret-000000000", frozenset({"5", "6"})),
})
EXAMPLES = Path(__file__).resolve().parents[4] / "examples" / "omen"


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


def test_a_signed_packet_verifies_and_stays_schema_valid() -> None:
    signed = sign(_layer_one(), "gov", SECRET)
    assert set(signed[AUTH_FIELD]) == {"alg", "key_id", "sig"}
    assert signed[AUTH_FIELD]["alg"] == "HMAC-SHA256"
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


def test_the_signing_form_is_canonical_json_without_the_sig() -> None:
    p = {"header": {"b": 1, "a": "é"}, "payload": {}}
    assert signing_bytes(p, "gov") == (
        '{"_auth":{"alg":"HMAC-SHA256","key_id":"gov"},"header":{"a":"é","b":1},"payload":{}}'.encode())


@pytest.mark.parametrize("path", [("payload", "decision_summary"), ("header", "created_at"), ("mcp", "intent")])
def test_a_tampered_field_breaks_the_signature(path: tuple[str, str]) -> None:
    signed = sign(_layer_one(), "gov", SECRET)
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


def test_a_signed_packet_holding_nan_is_rejected_not_crashed() -> None:
    signed = sign(_layer_one(), "gov", SECRET)
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


def test_the_signature_is_the_hmac_sha256_of_the_canonical_form_under_the_key_s_secret() -> None:
    p = {"header": {"b": 1, "a": "é"}, "payload": {}}
    form = '{"_auth":{"alg":"HMAC-SHA256","key_id":"gov"},"header":{"a":"é","b":1},"payload":{}}'.encode()
    assert sign(p, "gov", SECRET)[AUTH_FIELD] == {
        "alg": "HMAC-SHA256", "key_id": "gov", "sig": hmac.new(SECRET, form, hashlib.sha256).hexdigest()}


def test_the_key_id_is_signed_so_a_key_sharing_the_secret_cannot_take_over_a_signature() -> None:
    policy = AuthPolicy.of({"gov": AuthKey(SECRET, frozenset({"1"})), "twin": AuthKey(SECRET, frozenset({"1"}))})
    signed = sign(_layer_one(), "gov", SECRET)
    signed[AUTH_FIELD]["key_id"] = "twin"
    assert _messages(signed, policy) == [
        "AUTH: signature by key 'twin' does not verify (packet altered or wrong secret)"]


def test_a_lone_surrogate_from_a_json_escape_is_signed_as_its_raw_utf_8_bytes() -> None:
    p = json.loads('{"header": {"note": "\\ud800"}}')  # strict JSON admits an unpaired surrogate escape
    assert signing_bytes(p, "gov") == b'{"_auth":{"alg":"HMAC-SHA256","key_id":"gov"},"header":{"note":"\xed\xa0\x80"}}'
    assert _messages(sign(p, "gov", SECRET)) == []


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
    ({"alg": "HMAC-MD5", "key_id": "gov", "sig": "0" * 64}, "alg must be 'HMAC-SHA256', got 'HMAC-MD5'"),
    ({"key_id": "gov", "sig": "0" * 64}, "alg must be 'HMAC-SHA256', got None"),
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


def test_a_signed_packet_holding_nan_points_at_the_signature_it_cannot_verify() -> None:
    signed = sign(_layer_one(), "gov", SECRET)
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
