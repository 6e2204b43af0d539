"""Packet authenticity: HMAC-SHA256 signatures and the AUTH rule (issue 9). Pure: no I/O, no clock.

Where the signature lives: a top-level `_auth` object, `{"alg": "HMAC-SHA256", "key_id": K, "sig": HEX}`.
The published header is closed (`additionalProperties: false`), but PacketBase admits `^_` metadata at the
top level, so a signed packet stays schema-valid and survives the Avro hop (top-level extras are kept).

Canonical signing form: the UTF-8 bytes of `canonical_json` (sorted keys, no spaces, UTF-8 kept) of the
whole packet with `_auth.sig` removed; `alg` and `key_id` stay in, so the key id is signed too. Any
other `_`-prefixed metadata is covered as well. `sig` is the lowercase hex HMAC-SHA256 digest.

Which packets claim Layer 1 or Integrity authority (OMEN.md §3.1, §8.3.6, §12; INV-005):
* any packet with `header.layer_source` 1 or "Integrity" (law, emergency and budget overrides);
* every IntegrityAlertPacket (it revokes tokens, enters and clears safe mode, approves budget overruns,
  whatever its `layer_source`): it claims "Integrity";
* every ToolAuthorizationToken (token issuance; "traceable to Layer 1 policy"): it claims its
  `payload.issuer_layer` (1, "Integrity", or the layer a policy delegates issuance to).

The rule, with a policy configured: an authority-claiming packet must carry `_auth`; any `_auth` present
must be well formed, name a known key and verify; and the key must be allowed for every authority the
packet claims. Otherwise the packet is REJECTED with rule `AUTH`. A packet claiming no authority needs no
signature, and a verifying one by any known key is accepted (it exercises no power a key could lack).
Without a policy nothing is checked (the secrets are unknown, so a signature cannot be verified and is
ignored).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from omega.canonical import canonical_json
from omega.violations import Severity, Violation

RULE = "AUTH"
AUTH_FIELD = "_auth"
ALGORITHM = "HMAC-SHA256"
INTEGRITY = "Integrity"
LAYERS = frozenset({"1", "2", "3", "4", "5", "6", INTEGRITY})
"""Every authority label a policy may grant: the six ACE layers and the Integrity overlay."""


@dataclass(frozen=True, slots=True)
class AuthKey:
    """One signing key: its secret and the layers (labels of `LAYERS`) it may speak for."""

    secret: bytes = field(repr=False)  # never printed in logs or reprs
    layers: frozenset[str]


@dataclass(frozen=True, slots=True)
class AuthPolicy:
    """Which keys may speak for which layers: key id -> AuthKey."""

    keys: Mapping[str, AuthKey]

    @classmethod
    def of(cls, keys: Mapping[str, AuthKey]) -> AuthPolicy:
        """A policy over a read-only copy of `keys`."""
        return cls(MappingProxyType(dict(keys)))


def layer_label(layer: object) -> str | None:
    """`1`..`6` (an int, never a bool) or "Integrity" as its label; anything else has none."""
    if isinstance(layer, int) and not isinstance(layer, bool) and 1 <= layer <= 6:
        return str(layer)
    return INTEGRITY if layer == INTEGRITY else None


def authority_claims(packet: Mapping[str, Any]) -> frozenset[str]:
    """The Layer 1 / Integrity (or delegated issuing) authority a packet exercises; empty if none."""
    header = _mapping(packet.get("header"))
    payload = _mapping(packet.get("payload"))
    claims: set[str] = set()
    source = layer_label(header.get("layer_source"))
    if source in {"1", INTEGRITY}:
        claims.add(source)
    packet_type = header.get("packet_type")
    if packet_type == "IntegrityAlertPacket":
        claims.add(INTEGRITY)
    elif packet_type == "ToolAuthorizationToken":
        # An issuer_layer with no label (schema-invalid) still claims issuance: "?" no key can hold.
        claims.add(layer_label(payload.get("issuer_layer")) or "?")
    return frozenset(claims)


def signing_bytes(packet: Mapping[str, Any], key_id: str) -> bytes:
    """The canonical signing form: canonical JSON of the packet whose `_auth` holds only alg and key_id."""
    unsigned = {k: v for k, v in packet.items() if k != AUTH_FIELD}
    unsigned[AUTH_FIELD] = {"alg": ALGORITHM, "key_id": key_id}
    return canonical_json(unsigned).encode("utf-8", "surrogatepass")


def signature(packet: Mapping[str, Any], key_id: str, secret: bytes) -> str:
    """Lowercase hex HMAC-SHA256 of the packet's signing form under `secret`."""
    return hmac.new(secret, signing_bytes(packet, key_id), hashlib.sha256).hexdigest()


def sign(packet: Mapping[str, Any], key_id: str, secret: bytes) -> dict[str, Any]:
    """A copy of `packet` signed by `key_id` (any earlier `_auth` replaced); the input is not changed."""
    if not key_id:
        raise ValueError("a key id must not be empty")
    signed = {k: v for k, v in packet.items() if k != AUTH_FIELD}
    signed[AUTH_FIELD] = {"alg": ALGORITHM, "key_id": key_id, "sig": signature(packet, key_id, secret)}
    return signed


def auth_001_authority_requires_signature(packet: Mapping[str, Any], policy: AuthPolicy | None) -> list[Violation]:
    """AUTH (ERROR): with a policy, authority needs a valid signature by an authorised key, and any
    signature present must verify; without a policy nothing is checked."""
    if policy is None:
        return []
    claims = authority_claims(packet)
    if AUTH_FIELD not in packet:
        if not claims:
            return []
        packet_type = _mapping(packet.get("header")).get("packet_type")
        return [_violation(f"{packet_type} claims {_show(claims)} authority but carries no {AUTH_FIELD} signature",
                           AUTH_FIELD)]
    auth = packet[AUTH_FIELD]
    malformed = _malformed(auth)
    if malformed:
        return [_violation(f"malformed {AUTH_FIELD}: {malformed}", AUTH_FIELD)]
    key_id, sig = auth["key_id"], auth["sig"]
    key = policy.keys.get(key_id)
    if key is None:
        return [_violation(f"unknown signing key id {key_id!r}", f"{AUTH_FIELD}.key_id")]
    try:
        expected = signature(packet, key_id, key.secret)
    except ValueError:  # NaN/Infinity (possible only off the strict-JSON path) have no canonical JSON form
        return [_violation("packet has no canonical JSON form (NaN or Infinity), so it cannot be verified",
                           f"{AUTH_FIELD}.sig")]
    # Constant time: a byte-by-byte early exit would leak how much of a forged signature is right.
    if not hmac.compare_digest(expected.encode("ascii"), sig.lower().encode("ascii")):
        return [_violation(f"signature by key {key_id!r} does not verify (packet altered or wrong secret)",
                           f"{AUTH_FIELD}.sig")]
    refused = claims - key.layers
    if refused:
        return [_violation(f"key {key_id!r} is not authorised for {_show(refused)} "
                           f"(allowed: {_show(key.layers) or 'none'})", f"{AUTH_FIELD}.key_id")]
    return []


def _malformed(auth: object) -> str | None:
    """Why `auth` is not a usable `_auth` object, or None."""
    if not isinstance(auth, Mapping):
        return f"expected an object, got {type(auth).__name__}"
    if auth.get("alg") != ALGORITHM:
        return f"alg must be {ALGORITHM!r}, got {auth.get('alg')!r}"
    key_id, sig = auth.get("key_id"), auth.get("sig")
    if not isinstance(key_id, str) or not key_id:
        return "key_id must be a non-empty string"
    if not isinstance(sig, str) or len(sig) != 64 or not all(c in "0123456789abcdefABCDEF" for c in sig):
        return "sig must be 64 hex digits (HMAC-SHA256)"
    extra = sorted(set(auth) - {"alg", "key_id", "sig"})
    return f"unexpected fields {extra}" if extra else None


def _violation(message: str, field_path: str) -> Violation:
    return Violation(RULE, Severity.ERROR, f"AUTH: {message}", field_path)


def _show(labels: frozenset[str]) -> str:
    """Labels in a stable order for messages: layers by number (`Layer 1`), then Integrity."""
    ordered = sorted(labels, key=lambda s: (not s.isdigit(), s))
    return ", ".join(f"Layer {s}" if s.isdigit() else s for s in ordered)


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
