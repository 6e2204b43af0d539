"""`omega sign packets` and `--auth-policy` on `omega check packets` / `omega replay` (issue 9)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_OK, EXIT_REJECTED, EXIT_USAGE
from tests.factories import packet

SECRET = "governor-secret-0123456789"


def _invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), prog_name="omega", catch_exceptions=False, env=env)


def _episode() -> list[dict[str, Any]]:
    """Observation, belief update, then a Layer 1 decision: the last one claims authority."""
    observation, belief, decision = packet(0, 1), packet(1, 1, "BeliefUpdatePacket"), packet(2, 1, "DecisionPacket")
    decision["header"]["layer_source"] = 1
    return [observation, belief, decision]


def _files(tmp_path: Path) -> tuple[Path, Path]:
    packets = tmp_path / "episode.jsonl"
    packets.write_text("".join(json.dumps(p) + "\n" for p in _episode()), encoding="utf-8")
    policy = tmp_path / "policy.yaml"
    policy.write_text("keys:\n  - key_id: gov\n    secret_env: GOV_KEY\n    layers: [1, 5, 6]\n", encoding="utf-8")
    return packets, policy


def _statuses(result: Result) -> list[str]:
    return [line["status"] for line in map(json.loads, result.stdout.splitlines()) if line["kind"] == "verdict"]


def test_signed_packets_pass_check_packets_with_the_policy(tmp_path: Path) -> None:
    packets, policy = _files(tmp_path)
    signed = tmp_path / "signed.jsonl"
    result = _invoke("sign", "packets", str(packets), "--key-id", "gov", "--secret-env", "GOV_KEY",
                     "--out", str(signed), env={"GOV_KEY": SECRET})
    assert result.exit_code == EXIT_OK, result.output
    lines = [json.loads(line) for line in signed.read_text(encoding="utf-8").splitlines()]
    assert [line["_auth"]["key_id"] for line in lines] == ["gov"] * 3
    checked = _invoke("check", "packets", str(signed), "--auth-policy", str(policy), env={"GOV_KEY": SECRET})
    assert checked.exit_code == EXIT_OK, checked.output
    assert _statuses(checked) == ["ACCEPTED"] * 3


def test_unsigned_authority_is_rejected_with_the_policy_and_accepted_without(tmp_path: Path) -> None:
    packets, policy = _files(tmp_path)
    assert _invoke("check", "packets", str(packets)).exit_code == EXIT_OK
    checked = _invoke("check", "packets", str(packets), "--auth-policy", str(policy), env={"GOV_KEY": SECRET})
    assert checked.exit_code == EXIT_REJECTED
    assert _statuses(checked) == ["ACCEPTED", "ACCEPTED", "REJECTED"]
    lines = [json.loads(line) for line in checked.stdout.splitlines()]
    assert [v["rule"] for v in lines[2]["violations"]] == ["AUTH"]
    assert [line["alert_kind"] for line in lines if line["kind"] == "alert"] == ["AUTH_REJECTED"]


def test_a_secret_file_signs_and_the_env_var_configures_replay(tmp_path: Path) -> None:
    packets, policy = _files(tmp_path)
    key = tmp_path / "gov.key"
    key.write_text(SECRET + "\n", encoding="utf-8")
    signed = _invoke("sign", "packets", str(packets), "--key-id", "gov", "--secret-file", str(key))
    assert signed.exit_code == EXIT_OK, signed.output
    path = tmp_path / "signed.jsonl"
    path.write_text(signed.stdout, encoding="utf-8")
    env = {"GOV_KEY": SECRET, "OMEGA_PACKET_AUTH_POLICY": str(policy)}
    result = _invoke("replay", str(path), "--out", "-", "--no-summary", env=env)
    assert result.exit_code == EXIT_OK, result.output
    tampered = path.read_text(encoding="utf-8").replace("Verify before acting", "Act now")
    path.write_text(tampered, encoding="utf-8")
    assert _invoke("replay", str(path), "--no-summary", env=env).exit_code == EXIT_REJECTED


def test_replay_with_a_policy_is_byte_identical_twice(tmp_path: Path) -> None:
    packets, policy = _files(tmp_path)
    runs = [_invoke("replay", str(packets), "--out", "-", "--no-summary", "--auth-policy", str(policy),
                    env={"GOV_KEY": SECRET}).stdout for _ in range(2)]
    assert runs[0] == runs[1]
    assert '"AUTH"' in runs[0]


@pytest.mark.parametrize("command", [("check", "packets"), ("replay",)])
def test_a_bad_policy_file_exits_two_with_the_reason(tmp_path: Path, command: tuple[str, ...]) -> None:
    packets, policy = _files(tmp_path)
    result = _invoke(*command, str(packets), "--auth-policy", str(policy), env={"GOV_KEY": ""})
    assert result.exit_code == EXIT_USAGE
    assert "shorter than 16 bytes" in result.stderr


@pytest.mark.parametrize(("args", "env", "expected"), [
    (("--secret-env", "NOPE"), {}, "environment variable NOPE is not set"),
    ((), {}, "give exactly one of --secret-env or --secret-file"),
    (("--secret-env", "GOV_KEY", "--secret-file", "gov.key"), {"GOV_KEY": SECRET}, "give exactly one of"),
    (("--secret-env", "GOV_KEY"), {"GOV_KEY": SECRET}, "not JSON"),
])
def test_sign_packets_refuses_bad_input_with_exit_two(tmp_path: Path, args: tuple[str, ...], env: dict[str, str],
                                                      expected: str) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"header": {}}\nnot json\n', encoding="utf-8")
    result = _invoke("sign", "packets", str(source), "--key-id", "gov", *args, env=env)
    assert result.exit_code == EXIT_USAGE
    assert expected in result.stderr


def _signed_algs(result: Result) -> list[str]:
    return [json.loads(line)["_auth"]["alg"] for line in result.stdout.splitlines()]


def test_sign_packets_signs_with_the_jcs_alg_by_default_and_the_old_one_on_request(tmp_path: Path) -> None:
    packets, policy = _files(tmp_path)
    env = {"GOV_KEY": SECRET}
    default = _invoke("sign", "packets", str(packets), "--key-id", "gov", "--secret-env", "GOV_KEY", env=env)
    old = _invoke("sign", "packets", str(packets), "--key-id", "gov", "--secret-env", "GOV_KEY",
                  "--alg", "HMAC-SHA256", env=env)
    assert _signed_algs(default) == ["HMAC-SHA256-JCS"] * 3
    assert _signed_algs(old) == ["HMAC-SHA256"] * 3
    for result in (default, old):
        signed = tmp_path / "signed.jsonl"
        signed.write_text(result.stdout, encoding="utf-8")
        checked = _invoke("check", "packets", str(signed), "--auth-policy", str(policy), env=env)
        assert _statuses(checked) == ["ACCEPTED"] * 3


def test_sign_packets_reproduces_a_published_vector_signature(tmp_path: Path) -> None:
    vectors = json.loads((Path(__file__).resolve().parents[4] / "docs" / "signing-vectors.json").read_text("utf-8"))
    vector = vectors["vectors"][0]
    unsigned = {k: v for k, v in vector["packet"].items() if k != "_auth"}
    source, key = tmp_path / "in.jsonl", tmp_path / "key"
    source.write_text(json.dumps(unsigned) + "\n", encoding="utf-8")
    key.write_bytes(bytes.fromhex(vector["secret_hex"]))
    result = _invoke("sign", "packets", str(source), "--key-id", vector["key_id"], "--secret-file", str(key))
    assert result.exit_code == EXIT_OK, result.output
    assert json.loads(result.stdout)["_auth"] == {"alg": "HMAC-SHA256-JCS", "key_id": vector["key_id"],
                                                  "sig": vector["sig"]}


def test_a_packet_with_no_jcs_form_stops_signing_naming_its_line_and_the_old_alg_still_signs_it(
        tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text('{"header": {}}\n{"payload": {"volume": 9007199254740993}}\n', encoding="utf-8")
    args = ("sign", "packets", str(source), "--key-id", "gov", "--secret-env", "GOV_KEY")
    refused = _invoke(*args, env={"GOV_KEY": SECRET})
    assert refused.exit_code == EXIT_USAGE
    assert f"{source}:2: cannot sign with HMAC-SHA256-JCS: an integer beyond 2**53 - 1 in magnitude" in refused.stderr
    assert refused.stdout == ""
    assert _invoke(*args, "--alg", "HMAC-SHA256", env={"GOV_KEY": SECRET}).exit_code == EXIT_OK


@pytest.mark.parametrize(("args", "expected"), [
    (("--alg", "HMAC-MD5"), "Invalid value for '--alg'"),
    (("--key-id", ""), "--key-id must not be empty"),
])
def test_sign_packets_refuses_an_unknown_alg_or_an_empty_key_id(tmp_path: Path, args: tuple[str, ...],
                                                               expected: str) -> None:
    packets, _ = _files(tmp_path)
    result = _invoke("sign", "packets", str(packets), "--key-id", "gov", "--secret-env", "GOV_KEY", *args,
                     env={"GOV_KEY": SECRET})
    assert result.exit_code == EXIT_USAGE
    assert expected in result.stderr
