"""Loading the packet authenticity policy (YAML or JSON, secrets from env vars or files, clear errors) and the
worker judging with it."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from omega.packets.authenticity import AuthKey
from streams.auth_policy import PolicyError, load_policy, policy_for
from streams.kafka.partitioning import partition_of
from streams.settings import Settings
from streams.stages.base import Source
from streams.stages.episodes import EpisodeSteps
from streams.wire.codec import SchemaRegistry
from streams.worker.app import create_app
from tests.factories import packet

PARTITION_OF_4 = functools.partial(partition_of, partitions=4)  # the packets topic's 4 partitions

SECRET = "governor-secret-0123456789"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_yaml_policy_reads_secrets_from_env_and_from_files_relative_to_it(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "integrity.key").write_bytes(b"integrity-secret-0123456789\n")
    policy = load_policy(_write(tmp_path / "policy.yaml", """
keys:
  - key_id: gov
    secret_env: GOV_KEY
    layers: [1]
  - key_id: integrity
    secret_file: secrets/integrity.key
    layers: [Integrity, 5]
"""), env={"GOV_KEY": SECRET})
    assert dict(policy.keys) == {
        "gov": AuthKey(SECRET.encode(), frozenset({"1"})),
        "integrity": AuthKey(b"integrity-secret-0123456789", frozenset({"Integrity", "5"})),
    }


def test_a_json_policy_is_read_too(tmp_path: Path) -> None:
    document = {"keys": [{"key_id": "gov", "secret_env": "GOV_KEY", "layers": [1]}]}
    policy = load_policy(_write(tmp_path / "policy.json", json.dumps(document)), env={"GOV_KEY": SECRET})
    assert set(policy.keys) == {"gov"}


def test_no_configured_path_means_no_policy() -> None:
    assert policy_for(None) is None


@pytest.mark.parametrize(("text", "env", "expected"), [
    ("keys: [", {}, "is not valid YAML/JSON"),
    ("- 1", {}, "must be an object with exactly one field, `keys`"),
    ("keys: []", {}, "`keys` must be a non-empty list"),
    ("keys: [{key_id: gov, secret: abc, layers: [1]}]", {}, "secrets are never inline"),
    ("keys: [{key_id: gov, secret_env: GOV_KEY, layers: [7]}]", {"GOV_KEY": SECRET}, "7 is not a layer"),
    ("keys: [{key_id: gov, secret_env: GOV_KEY, layers: []}]", {"GOV_KEY": SECRET}, "layers must be a non-empty"),
    ("keys: [{key_id: gov, secret_env: GOV_KEY, layers: [1]}]", {}, "environment variable GOV_KEY is not set"),
    ("keys: [{key_id: gov, secret_env: GOV_KEY, layers: [1]}]", {"GOV_KEY": "short"}, "shorter than 16 bytes"),
    ("keys: [{key_id: gov, secret_file: missing.key, layers: [1]}]", {}, "cannot read secret file"),
    ("keys: [{key_id: gov, layers: [1]}]", {}, "exactly one of secret_env or secret_file"),
    ("keys: [{key_id: gov, secret_env: A, layers: [1]}, {key_id: gov, secret_env: A, layers: [1]}]",
     {"A": SECRET}, "duplicate key_id 'gov'"),
])
def test_a_bad_policy_file_is_a_policy_error_naming_the_problem(tmp_path: Path, text: str, env: dict[str, str],
                                                               expected: str) -> None:
    path = _write(tmp_path / "policy.yaml", text)
    with pytest.raises(PolicyError, match=expected) as caught:
        load_policy(path, env=env)
    assert str(path) in str(caught.value)


def test_a_missing_policy_file_is_a_policy_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="cannot read auth policy"):
        load_policy(tmp_path / "absent.yaml", env={})


def test_the_setting_comes_from_omega_packet_auth_policy() -> None:
    assert Settings.from_env({}).packet_auth_policy is None
    assert Settings.from_env({"OMEGA_PACKET_AUTH_POLICY": "/etc/omega/auth.yaml"}).packet_auth_policy == Path(
        "/etc/omega/auth.yaml")


def test_the_worker_validator_judges_with_the_configured_policy(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOV_KEY", SECRET)
    policy = _write(tmp_path / "policy.yaml", "keys: [{key_id: gov, secret_env: GOV_KEY, layers: [1]}]")
    omega = create_app(Settings(app_id="omega-auth-test", packet_auth_policy=policy), SchemaRegistry.from_directory())
    assert omega.packet_stage.auth_policy is not None
    assert set(omega.packet_stage.auth_policy.keys) == {"gov"}
    authority = packet(0, 1)
    authority["header"]["layer_source"] = 1
    [ingressed] = omega.packet_stage.ingress(json.dumps(authority).encode(), Source("packets_json", 0, 0))
    steps = EpisodeSteps(omega.packet_stage, {}, PARTITION_OF_4)
    emits = steps.packet(Source("packets", 0, 0), ingressed.value, "corr_ep00001",
                         omega.packet_stage.read_packet(ingressed.value))
    assert emits[0].record["status"] == "REJECTED"
    assert [v["rule"] for v in emits[0].record["violations"]] == ["AUTH"]


def test_the_worker_refuses_to_start_with_a_bad_policy(tmp_path: Path) -> None:
    bad = _write(tmp_path / "policy.yaml", "keys: []")
    with pytest.raises(PolicyError, match="`keys` must be a non-empty list"):
        create_app(Settings(app_id="omega-auth-test", packet_auth_policy=bad))
