"""`omega sign packets`: sign a JSONL of OMEN packets with HMAC-SHA256 (issues 9, 22)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from omega.canonical import canonical_json
from omega.packets.authenticity import ALGORITHMS, DEFAULT_ALGORITHM, sign
from omega.strictjson import loads
from streams.auth_policy import PolicyError, load_secret
from streams.cli.options import EXIT_OK, usage_error


@click.group("sign")
def sign_group() -> None:
    """Sign protocol records for authenticity checks."""


@sign_group.command("packets")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--key-id", required=True, help="Key id written into each packet's _auth (as named in the policy).")
@click.option("--secret-env", default=None, help="Environment variable holding the HMAC secret.")
@click.option("--secret-file", default=None, type=click.Path(path_type=Path), help="File holding the HMAC secret.")
@click.option("--out", "out_path", default="-", show_default=True, help="Write the signed JSONL here ('-': stdout).")
@click.option("--alg", type=click.Choice(ALGORITHMS), default=DEFAULT_ALGORITHM, show_default=True,
              help="Signing form: HMAC-SHA256-JCS (RFC 8785, any language can sign), or HMAC-SHA256 (the older "
                   "Python-JSON form) for verifiers that predate the JCS alg.")
def sign_packets(file: Path, key_id: str, secret_env: str | None, secret_file: Path | None, out_path: str,
                 alg: str) -> None:
    """Sign every packet of a JSONL file (HMAC-SHA256 over its canonical form; see docs/judges/omen.md).

    Each output line is the packet with a top-level `_auth` {alg, key_id, sig}, in canonical JSON."""
    if (secret_env is None) == (secret_file is None):
        usage_error("give exactly one of --secret-env or --secret-file")
    if not key_id:
        usage_error("--key-id must not be empty")
    try:
        secret = load_secret("omega sign packets", secret_env=secret_env, secret_file=secret_file)
        lines = file.read_text(encoding="utf-8").splitlines()
    except PolicyError as exc:
        usage_error(str(exc))
    except (OSError, UnicodeDecodeError) as exc:
        usage_error(f"cannot read {file}: {exc}")
    signed = [canonical_json(_signed(_packet(line, file, n), key_id, secret, alg, f"{file}:{n}"))
              for n, line in enumerate(lines, start=1) if line.strip()]
    text = "".join(line + "\n" for line in signed)
    if out_path == "-":
        click.echo(text, nl=False)
    else:
        try:
            Path(out_path).write_text(text, encoding="utf-8")
        except OSError as exc:
            usage_error(f"cannot write {out_path}: {exc}")
        click.echo(f"signed {len(signed)} packet(s) with key {key_id} ({alg}) into {out_path}", err=True)
    sys.exit(EXIT_OK)


def _packet(line: str, file: Path, number: int) -> dict[str, Any]:
    """One JSONL line as a packet object; anything else stops the command (a partial signing is no use)."""
    try:
        value = loads(line)
    except ValueError as exc:
        usage_error(f"{file}:{number}: not JSON: {exc}")
    if not isinstance(value, dict):
        usage_error(f"{file}:{number}: expected a JSON object, got {type(value).__name__}")
    return value



def _signed(packet: dict[str, Any], key_id: str, secret: bytes, alg: str, where: str) -> dict[str, Any]:
    """The packet signed, or the command stopped saying which line has no signing form under `alg`."""
    try:
        return sign(packet, key_id, secret, alg=alg)
    except ValueError as exc:
        usage_error(f"{where}: cannot sign with {alg}: {exc}")
