"""Loading the packet authenticity policy (issue 9): a YAML or JSON file naming keys, never holding secrets.

```yaml
keys:
  - key_id: layer1-governor
    secret_env: OMEGA_KEY_LAYER1        # the secret is this variable's value (UTF-8)
    layers: [1]
  - key_id: integrity-overlay
    secret_file: secrets/integrity.key  # or this file's bytes, trailing newline stripped; relative paths
    layers: [Integrity]                 # are resolved against the policy file's directory
```
`layers` holds 1..6 and/or "Integrity". Secrets must be at least 16 bytes. Every problem is a PolicyError
whose message names the file and the entry.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from omega.packets.authenticity import LAYERS, AuthKey, AuthPolicy, layer_label

MIN_SECRET_BYTES = 16
_KEY_FIELDS = frozenset({"key_id", "secret_env", "secret_file", "layers"})


class PolicyError(ValueError):
    """The policy file (or a secret it names) is unusable; the message says why."""


def load_policy(path: Path, env: Mapping[str, str] | None = None) -> AuthPolicy:
    """Read the policy at `path`, resolving each key's secret from the environment or a file."""
    env = os.environ if env is None else env
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"cannot read auth policy {path}: {exc}") from exc
    try:
        document = yaml.safe_load(text)  # YAML 1.1 is a superset of JSON: one parser for both formats
    except yaml.YAMLError as exc:
        raise PolicyError(f"auth policy {path} is not valid YAML/JSON: {exc}") from exc
    if not isinstance(document, dict) or set(document) - {"keys"}:
        raise PolicyError(f"auth policy {path} must be an object with exactly one field, `keys`")
    entries = document.get("keys")
    if not isinstance(entries, list) or not entries:
        raise PolicyError(f"auth policy {path}: `keys` must be a non-empty list")
    keys: dict[str, AuthKey] = {}
    for number, entry in enumerate(entries, start=1):
        where = f"auth policy {path}, key #{number}"
        key_id, key = _key(entry, where, path.parent, env)
        if key_id in keys:
            raise PolicyError(f"{where}: duplicate key_id {key_id!r}")
        keys[key_id] = key
    return AuthPolicy.of(keys)


def load_secret(where: str, *, secret_env: str | None = None, secret_file: Path | None = None,
                env: Mapping[str, str] | None = None) -> bytes:
    """A secret from exactly one of an environment variable or a file; PolicyError if unusable."""
    env = os.environ if env is None else env
    if (secret_env is None) == (secret_file is None):
        raise PolicyError(f"{where}: give exactly one of secret_env or secret_file")
    if secret_env is not None:
        value = env.get(secret_env)
        if value is None:
            raise PolicyError(f"{where}: environment variable {secret_env} is not set")
        secret = value.encode("utf-8")
    else:
        assert secret_file is not None
        try:
            secret = secret_file.read_bytes().rstrip(b"\r\n")  # editors add a final newline; it is not key
        except OSError as exc:
            raise PolicyError(f"{where}: cannot read secret file {secret_file}: {exc.strerror}") from exc
    if len(secret) < MIN_SECRET_BYTES:
        raise PolicyError(f"{where}: the secret is shorter than {MIN_SECRET_BYTES} bytes")
    return secret


def _key(entry: object, where: str, base: Path, env: Mapping[str, str]) -> tuple[str, AuthKey]:
    if not isinstance(entry, dict):
        raise PolicyError(f"{where}: expected an object with key_id, layers and secret_env or secret_file")
    unknown = sorted(str(k) for k in set(entry) - _KEY_FIELDS)
    if unknown:
        hint = " (secrets are never inline: use secret_env or secret_file)" if "secret" in unknown else ""
        raise PolicyError(f"{where}: unknown field(s) {', '.join(unknown)}{hint}")
    key_id = entry.get("key_id")
    if not isinstance(key_id, str) or not key_id:
        raise PolicyError(f"{where}: key_id must be a non-empty string")
    where = f"{where} ({key_id})"
    layers = _layers(entry.get("layers"), where)
    secret_env, secret_file = entry.get("secret_env"), entry.get("secret_file")
    for name, value in (("secret_env", secret_env), ("secret_file", secret_file)):
        if value is not None and (not isinstance(value, str) or not value):
            raise PolicyError(f"{where}: {name} must be a non-empty string")
    file_path = None if secret_file is None else base / Path(str(secret_file)).expanduser()
    secret = load_secret(where, secret_env=secret_env, secret_file=file_path, env=env)
    return key_id, AuthKey(secret, layers)


def _layers(value: Any, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not value:
        raise PolicyError(f"{where}: layers must be a non-empty list of 1..6 and/or \"Integrity\"")
    labels = set()
    for item in value:
        label = layer_label(item)
        if label is None or label not in LAYERS:
            raise PolicyError(f"{where}: {item!r} is not a layer (1..6) or \"Integrity\"")
        labels.add(label)
    return frozenset(labels)


def policy_for(path: Path | None, env: Mapping[str, str] | None = None) -> AuthPolicy | None:
    """The policy at `path`, or None (no authenticity checks) when no path is configured."""
    return None if path is None else load_policy(path, env)
