"""`omega sign packets`: sign a JSONL of OMEN packets with HMAC-SHA256 (issue 9), and the policy option
that `omega replay` and `omega check packets` share."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from omega.canonical import canonical_json
from omega.packets.authenticity import AuthPolicy, sign
from streams.auth_policy import PolicyError, load_secret, policy_for

EXIT_OK, EXIT_USAGE = 0, 2

auth_policy_option = click.option(
    "--auth-policy", "auth_policy", envvar="OMEGA_PACKET_AUTH_POLICY", default=None,
    type=click.Path(path_type=Path),
    help="Packet signing policy (YAML/JSON): packets claiming Layer 1 or Integrity authority must be signed by an "
         "authorised key [env OMEGA_PACKET_AUTH_POLICY].",
)


def policy_or_exit(path: Path | None) -> AuthPolicy | None:
    """The policy at `path` (None without one); a bad policy file ends the command with exit 2."""
    try:
        return policy_for(path)
    except PolicyError as exc:
        click.echo(f"omega: {exc}", err=True)
        sys.exit(EXIT_USAGE)


@click.group("sign")
def sign_group() -> None:
    """Sign protocol records for authenticity checks."""


@sign_group.command("packets")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--key-id", required=True, help="Key id written into each packet's _auth (as named in the policy).")
@click.option("--secret-env", default=None, help="Environment variable holding the HMAC secret.")
@click.option("--secret-file", default=None, type=click.Path(path_type=Path), help="File holding the HMAC secret.")
@click.option("--out", "out_path", default="-", show_default=True, help="Write the signed JSONL here ('-': stdout).")
def sign_packets(file: Path, key_id: str, secret_env: str | None, secret_file: Path | None, out_path: str) -> None:
    """Sign every packet of a JSONL file (HMAC-SHA256 over its canonical JSON; see README "Packet authenticity").

    Each output line is the packet with a top-level `_auth` {alg, key_id, sig}, in canonical JSON."""
    if (secret_env is None) == (secret_file is None):
        _fail("give exactly one of --secret-env or --secret-file")
    try:
        secret = load_secret("omega sign packets", secret_env=secret_env, secret_file=secret_file)
        lines = file.read_text(encoding="utf-8").splitlines()
    except PolicyError as exc:
        _fail(str(exc))
    except (OSError, UnicodeDecodeError) as exc:
        _fail(f"cannot read {file}: {exc}")
    signed = [canonical_json(sign(_packet(line, file, n), key_id, secret))
              for n, line in enumerate(lines, start=1) if line.strip()]
    text = "".join(line + "\n" for line in signed)
    if out_path == "-":
        click.echo(text, nl=False)
    else:
        try:
            Path(out_path).write_text(text, encoding="utf-8")
        except OSError as exc:
            _fail(f"cannot write {out_path}: {exc}")
        click.echo(f"signed {len(signed)} packet(s) with key {key_id} into {out_path}", err=True)
    sys.exit(EXIT_OK)


def _packet(line: str, file: Path, number: int) -> dict[str, Any]:
    """One JSONL line as a packet object; anything else stops the command (a partial signing is no use)."""
    try:
        value = json.loads(line, parse_constant=_not_json)
    except ValueError as exc:
        _fail(f"{file}:{number}: not JSON: {exc}")
    if not isinstance(value, dict):
        _fail(f"{file}:{number}: expected a JSON object, got {type(value).__name__}")
    return value


def _not_json(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _fail(message: str) -> NoReturn:
    click.echo(f"omega: {message}", err=True)
    sys.exit(EXIT_USAGE)
