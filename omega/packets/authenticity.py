"""Packet authenticity: HMAC-SHA256 signatures and the AUTH rule (issues 9, 22). Pure: no I/O, no clock.

Where the signature lives: a top-level `_auth` object, `{"alg": ALG, "key_id": K, "sig": HEX}`.
The published header is closed (`additionalProperties: false`), but PacketBase admits `^_` metadata at the
top level, so a signed packet stays schema-valid and survives the Avro hop (top-level extras are kept).

What is signed, whatever the alg: the whole packet with `_auth.sig` removed; `alg` and `key_id` stay in,
so the key id is signed too, and relabelling a signature's alg breaks it. Any other `_`-prefixed
metadata is covered as well. `sig` is the lowercase hex HMAC-SHA256 digest of the signing form's bytes.
The alg names how that form is written out:
* "HMAC-SHA256-JCS" (issue 22): the RFC 8785 (JSON Canonicalization Scheme) bytes: keys sorted by UTF-16
  code units, ECMAScript number text (1.0 -> "1", 1e21 -> "1e+21"), UTF-8. NaN, Infinity, integers
  beyond 2**53 - 1 in magnitude and lone surrogates have no JCS form and cannot be signed.
* "HMAC-SHA256" (issue 9): the UTF-8 bytes of `canonical_json` (Python's `json.dumps`: keys sorted by
  code point, Python float text such as "1.0" and "1e+16", UTF-8 kept, lone surrogates as raw bytes).

Both verify; new signatures use HMAC-SHA256-JCS by default, because its bytes are fixed by a published
standard that Go, JS or Java producers reproduce with a JCS library (or JSON.stringify and a key sort),
whereas the old form is whatever Python's encoder writes, which no other language's does byte for byte.
The old alg stays accepted so already-signed logs replay with the same verdicts, and stays available to
`sign` (`omega sign packets --alg HMAC-SHA256`) for verifiers that predate the JCS alg (they refuse
it as malformed). docs/signing-vectors.json holds test vectors computed by an independent implementation.

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import rfc8785

from omega.canonical import canonical_json
from omega.violations import Severity, Violation

RULE = "AUTH"
AUTH_FIELD = "_auth"
HMAC_SHA256_JCS = "HMAC-SHA256-JCS"
HMAC_SHA256 = "HMAC-SHA256"
DEFAULT_ALGORITHM = HMAC_SHA256_JCS
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


def _python_form(unsigned: dict[str, Any]) -> bytes:
    return canonical_json(unsigned).encode("utf-8", "surrogatepass")


def _jcs_form(unsigned: dict[str, Any]) -> bytes:
    """RFC 8785 bytes; ValueError naming what has no JCS form (the library's own words are not ours to pin)."""
    try:
        return rfc8785.dumps(unsigned)
    except rfc8785.FloatDomainError as exc:
        raise ValueError("NaN or Infinity") from exc
    except rfc8785.IntegerDomainError as exc:
        raise ValueError("an integer beyond 2**53 - 1 in magnitude") from exc
    except rfc8785.CanonicalizationError as exc:
        # From JSON text the only other refusal is an unpaired surrogate (RFC 8785 §3.2.2.2: no UTF-8 form).
        raise ValueError("a lone surrogate" if isinstance(exc.__cause__, UnicodeError) else str(exc)) from exc


_SIGNING_FORMS: Mapping[str, Callable[[dict[str, Any]], bytes]] = MappingProxyType({
    HMAC_SHA256_JCS: _jcs_form,
    HMAC_SHA256: _python_form,
})
ALGORITHMS = tuple(_SIGNING_FORMS)
"""Every `_auth.alg` accepted for verification, the default first."""


def signing_bytes(packet: Mapping[str, Any], key_id: str, *, alg: str = DEFAULT_ALGORITHM) -> bytes:
    """The signing form under `alg`: the packet whose `_auth` holds only alg and key_id, written out as
    `alg` says. ValueError if `alg` is unknown or the packet has no such form (NaN, ...)."""
    form = _SIGNING_FORMS.get(alg)
    if form is None:
        raise ValueError(f"unknown signing alg {alg!r} (accepted: {_accepted()})")
    unsigned = {k: v for k, v in packet.items() if k != AUTH_FIELD}
    unsigned[AUTH_FIELD] = {"alg": alg, "key_id": key_id}
    return form(unsigned)


def signature(packet: Mapping[str, Any], key_id: str, secret: bytes, *, alg: str = DEFAULT_ALGORITHM) -> str:
    """Lowercase hex HMAC-SHA256 of the packet's signing form under `alg` and `secret`."""
    return hmac.new(secret, signing_bytes(packet, key_id, alg=alg), hashlib.sha256).hexdigest()


def sign(packet: Mapping[str, Any], key_id: str, secret: bytes, *, alg: str = DEFAULT_ALGORITHM) -> dict[str, Any]:
    """A copy of `packet` signed by `key_id` under `alg` (any earlier `_auth` replaced); the input is not
    changed. ValueError for an empty key id, an unknown alg or a packet with no signing form under it."""
    if not key_id:
        raise ValueError("a key id must not be empty")
    sig = signature(packet, key_id, secret, alg=alg)
    signed = {k: v for k, v in packet.items() if k != AUTH_FIELD}
    signed[AUTH_FIELD] = {"alg": alg, "key_id": key_id, "sig": sig}
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
    alg, key_id, sig = auth["alg"], auth["key_id"], auth["sig"]
    key = policy.keys.get(key_id)
    if key is None:
        return [_violation(f"unknown signing key id {key_id!r}", f"{AUTH_FIELD}.key_id")]
    try:
        expected = signature(packet, key_id, key.secret, alg=alg)
    except ValueError as exc:  # NaN/Infinity only off the strict-JSON path; big ints, lone surrogates for JCS
        unverifiable = ("no canonical JSON form (NaN or Infinity)" if alg == HMAC_SHA256
                        else f"no RFC 8785 canonical form ({exc})")
        return [_violation(f"packet has {unverifiable}, so it cannot be verified", f"{AUTH_FIELD}.sig")]
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
    alg = auth.get("alg")
    if not isinstance(alg, str) or alg not in _SIGNING_FORMS:
        return f"alg must be one of {_accepted()}, got {alg!r}"
    key_id, sig = auth.get("key_id"), auth.get("sig")
    if not isinstance(key_id, str) or not key_id:
        return "key_id must be a non-empty string"
    if not isinstance(sig, str) or len(sig) != 64 or not all(c in "0123456789abcdefABCDEF" for c in sig):
        return "sig must be 64 hex digits (HMAC-SHA256)"
    extra = sorted(set(auth) - {"alg", "key_id", "sig"})
    return f"unexpected fields {extra}" if extra else None


def _accepted() -> str:
    return ", ".join(map(repr, ALGORITHMS))


def _violation(message: str, field_path: str) -> Violation:
    return Violation(RULE, Severity.ERROR, f"AUTH: {message}", field_path)


def _show(labels: frozenset[str]) -> str:
    """Labels in a stable order for messages: layers by number (`Layer 1`), then Integrity."""
    ordered = sorted(labels, key=lambda s: (not s.isdigit(), s))
    return ", ".join(f"Layer {s}" if s.isdigit() else s for s in ordered)


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
