"""Issue 26 against a real Schema Registry (Apicurio Registry 3.0.9, Confluent API at /apis/ccompat/v7): `omega
schemas register|export|check`, schema evolution through registry framing, the registry's BACKWARD refusals, and
deploy/registry/registry.sh. No Kafka. Each test works under subjects of its own (a topic prefix): the registry is
shared by the session and keeps what earlier tests registered; ids are never assumed. The `schema_registry_url`
fixture is tests/registry_server.py's, imported in tests/conftest.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient, topic_record_subject_name_strategy
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.serialization import MessageField, SerializationContext
from fastavro.schema import parse_schema, to_parsing_canonical_form

from streams.cli.main import main
from streams.cli.options import EXIT_OK, EXIT_REJECTED
from streams.topics import PACKETS
from streams.wire.codec import SchemaRegistry, crc64_avro_fingerprint, default_schemas_dir
from streams.wire.confluent import RegistryFraming, registry_client, schema_json, topic_subjects
from tests.registry_server import REGISTRY_SH, registry_problem

pytestmark = pytest.mark.integration

TICK = "omega.events.WatermarkTick"
TICK_FILE = f"{TICK}.avsc"
OLD_TICK = {"partition": 3, "watermark": "2025-01-01T00:00:00Z"}


@pytest.fixture
def prefix() -> str:
    return f"sr{uuid.uuid4().hex[:8]}."


@pytest.fixture
def client(schema_registry_url: str) -> Iterator[SchemaRegistryClient]:
    with registry_client({"url": schema_registry_url}) as opened:
        yield opened


def _schemas(*args: str, url: str, prefix: str) -> Result:
    env = {"OMEGA_SCHEMA_REGISTRY_URL": url, "OMEGA_TOPIC_PREFIX": prefix, "OMEGA_AVRO_WIRE": None}
    return CliRunner().invoke(main, ["schemas", *args], prog_name="omega", env=env, catch_exceptions=False)


def _changed_copy(tmp_path: Path, file_name: str, change: Any) -> Path:
    """A copy of schemas_avro/ with one schema file changed by `change(schema dict)`."""
    copy = tmp_path / "schemas"
    shutil.copytree(default_schemas_dir(), copy)
    schema = json.loads((copy / file_name).read_text(encoding="utf-8"))
    change(schema)
    (copy / file_name).write_text(json.dumps(schema), encoding="utf-8")
    return copy


def _tick_subject(prefix: str) -> str:
    return f"{prefix}{PACKETS.name}-{TICK}"


# ------------------------------------------------------------------ omega schemas
def test_register_prints_ids_export_round_trips_and_check_passes(schema_registry_url: str, prefix: str,
                                                                 client: SchemaRegistryClient, tmp_path: Path) -> None:
    registered = _schemas("register", url=schema_registry_url, prefix=prefix)
    assert registered.exit_code == EXIT_OK, registered.output
    ids = dict(line.split(" -> ") for line in registered.stdout.splitlines())
    ours = [subject for _, _, subject in topic_subjects(prefix)]
    assert sorted(ids) == sorted(ours)
    assert all(value.isdigit() for value in ids.values())
    assert {client.get_compatibility(subject) for subject in ours} == {"BACKWARD"}

    exported = _schemas("export", str(tmp_path / "export"), url=schema_registry_url, prefix=prefix)
    assert exported.exit_code == EXIT_OK, exported.output
    local = SchemaRegistry.from_directory()
    for _topic, record, subject in topic_subjects(prefix):
        held = parse_schema(json.loads((tmp_path / "export" / f"{subject}.avsc").read_text(encoding="utf-8")))
        assert crc64_avro_fingerprint(to_parsing_canonical_form(held)) == local.get(record).fingerprint, subject
        assert f"{subject} -> {tmp_path / 'export' / subject}.avsc (id {ids[subject]}, version 1)" in \
            exported.stdout.splitlines()

    checked = _schemas("check", "--strict", url=schema_registry_url, prefix=prefix)
    assert checked.exit_code == EXIT_OK, checked.output
    assert f"{_tick_subject(prefix)}: compatible with version 1" in checked.stdout.splitlines()
    again = _schemas("register", url=schema_registry_url, prefix=prefix)  # the same schemas: the same ids
    assert dict(line.split(" -> ") for line in again.stdout.splitlines()) == ids


@pytest.mark.parametrize(("change", "reason"), [
    (lambda s: s["fields"][0].update(type="string"), "partition: type changed from int to string"),
    (lambda s: s["fields"].append({"name": "source", "type": "string"}), "source: added without a default"),
])
def test_check_on_an_incompatible_change_names_the_subject_and_exits_1(schema_registry_url: str, prefix: str,
                                                                       tmp_path: Path, change: Any,
                                                                       reason: str) -> None:
    assert _schemas("register", url=schema_registry_url, prefix=prefix).exit_code == EXIT_OK
    changed = _changed_copy(tmp_path, TICK_FILE, change)
    checked = _schemas("check", "--schemas-dir", str(changed), url=schema_registry_url, prefix=prefix)
    assert checked.exit_code == EXIT_REJECTED, checked.output
    line = next(li for li in checked.stdout.splitlines() if li.startswith(_tick_subject(prefix)))
    # Apicurio 3.0.9 answers is_compatible false without messages: the reason is our local reading
    assert line == (f"{_tick_subject(prefix)}: INCOMPATIBLE with version 1: {reason} "
                    "(local diff; the registry gave no reason)")
    others = [li for li in checked.stdout.splitlines() if not li.startswith(_tick_subject(prefix))]
    assert all(": compatible with version 1" in li for li in others)


# ------------------------------------------------------------------ evolution under BACKWARD
def test_a_field_added_with_a_default_is_accepted_and_our_new_reader_reads_old_records(
        schema_registry_url: str, prefix: str, client: SchemaRegistryClient, tmp_path: Path) -> None:
    assert _schemas("register", url=schema_registry_url, prefix=prefix).exit_code == EXIT_OK
    old_local = SchemaRegistry.from_directory()
    serializer = AvroSerializer(client, schema_json(old_local.get(TICK).parsed),
                                conf={"subject.name.strategy": topic_record_subject_name_strategy})
    old_record = serializer(OLD_TICK, SerializationContext(f"{prefix}{PACKETS.name}", MessageField.VALUE))
    assert old_record is not None

    newer = _changed_copy(tmp_path, TICK_FILE,
                          lambda s: s["fields"].append({"name": "source", "type": "string", "default": "timer"}))
    registered = _schemas("register", "--schemas-dir", str(newer), url=schema_registry_url, prefix=prefix)
    assert registered.exit_code == EXIT_OK, registered.output
    assert client.get_latest_version(_tick_subject(prefix)).version == 2

    new_local = SchemaRegistry.from_directory(newer)
    with closing(RegistryFraming(new_local, registry_client({"url": schema_registry_url}), prefix)) as framing:
        single = framing.to_single_object(old_record)
    assert single[10:] == old_record[5:]
    assert new_local.decode(single) == (TICK, {**OLD_TICK, "source": "timer"})


def test_a_field_added_without_a_default_is_refused_by_the_registry(schema_registry_url: str, prefix: str,
                                                                    client: SchemaRegistryClient,
                                                                    tmp_path: Path) -> None:
    assert _schemas("register", url=schema_registry_url, prefix=prefix).exit_code == EXIT_OK
    newer = _changed_copy(tmp_path, TICK_FILE, lambda s: s["fields"].append({"name": "source", "type": "string"}))
    registered = _schemas("register", "--schemas-dir", str(newer), url=schema_registry_url, prefix=prefix)
    assert registered.exit_code == EXIT_REJECTED
    assert f"{_tick_subject(prefix)}: refused: " in registered.stderr
    assert "Incompatible" in registered.stderr
    assert client.get_latest_version(_tick_subject(prefix)).version == 1


def test_removing_a_field_without_a_default_passes_backward_and_is_refused_under_full(
        client: SchemaRegistryClient, prefix: str) -> None:
    # BACKWARD asks the new schema to read old records: a field it drops is skipped. FORWARD (and FULL) ask old
    # readers to read new records, which lack a field they have no default for: refused (HTTP 409).
    old = {"type": "record", "name": "acme.T", "fields": [{"name": "a", "type": "int"}, {"name": "b", "type": "int"}]}
    dropped = {"type": "record", "name": "acme.T", "fields": [{"name": "a", "type": "int"}]}
    for level, accepted in (("BACKWARD", True), ("FULL", False)):
        subject = f"{prefix}{level.lower()}-value"
        client.set_compatibility(subject, level)
        client.register_schema(subject, Schema(json.dumps(old), "AVRO"))
        if accepted:
            client.register_schema(subject, Schema(json.dumps(dropped), "AVRO"))
            assert client.get_latest_version(subject).version == 2
        else:
            with pytest.raises(SchemaRegistryError) as info:
                client.register_schema(subject, Schema(json.dumps(dropped), "AVRO"))
            assert info.value.http_status_code == 409


def test_our_frames_match_the_serializers_on_the_real_registry_and_convert_back(schema_registry_url: str,
                                                                                client: SchemaRegistryClient,
                                                                                prefix: str) -> None:
    local = SchemaRegistry.from_directory()
    topic = f"{prefix}{PACKETS.name}"
    with closing(RegistryFraming(local, registry_client({"url": schema_registry_url}), prefix)) as framing:
        ours = framing.to_confluent(local.encode(TICK, OLD_TICK), topic)
    serializer = AvroSerializer(client, schema_json(local.get(TICK).parsed),
                                conf={"subject.name.strategy": topic_record_subject_name_strategy})
    assert serializer(OLD_TICK, SerializationContext(topic, MessageField.VALUE)) == ours
    fresh = RegistryFraming(SchemaRegistry.from_directory(), registry_client({"url": schema_registry_url}), prefix)
    with closing(fresh):  # nothing cached: the id is looked up on the registry
        assert fresh.to_single_object(ours) == local.encode(TICK, OLD_TICK)


# ------------------------------------------------------------------ registry.sh
def _script(*args: str, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(REGISTRY_SH), *args], env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)


def _env(tmp_path: Path, port: int, **extra: str) -> dict[str, str]:
    return {**os.environ, "OMEGA_REGISTRY_PORT": str(port), "OMEGA_REGISTRY_DIR": str(tmp_path / "state"), **extra}


def test_registry_sh_status_up_down_and_their_exit_codes(tmp_path: Path) -> None:
    env = _env(tmp_path, 18087)
    url = "http://127.0.0.1:18087/apis/ccompat/v7"
    down = _script("status", env=env)
    assert (down.returncode, down.stdout.strip()) == (3, f"down url={url}")
    try:
        up = _script("up", env=env)
        assert up.returncode == 0, up.stderr
        assert up.stdout.splitlines()[-1] == f"url={url}"
        assert registry_problem(url) is None
        status = _script("status", env=env)
        assert status.returncode == 0
        assert status.stdout.startswith("up (pid ")
        assert status.stdout.strip().endswith(f"url={url}")
        again = _script("up", env=env)
        assert again.returncode == 0
        assert again.stdout.startswith("already up (pid ")
        taken = _script("up", env=_env(tmp_path / "other", 18087))
        assert taken.returncode == 1
        assert "already in use" in taken.stderr
    finally:
        stopped = _script("down", env=env)
    assert stopped.returncode == 0
    assert stopped.stdout.startswith("down (was pid ")
    assert _script("down", env=env).stdout.strip() == "already down"
    assert _script("status", env=env).returncode == 3
    assert _script("bogus", env=env).returncode == 2


def test_registry_sh_refuses_a_download_whose_sha256_is_not_the_pinned_one(tmp_path: Path) -> None:
    # a stand-in mvn that "downloads" other bytes: the script must stop before unpacking anything
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_mvn = bin_dir / "mvn"
    fake_mvn.write_text('#!/usr/bin/env bash\nfor a in "$@"; do case "$a" in -DoutputDirectory=*) '
                        'out="${a#*=}";; esac; done\n'
                        'echo tampered >"$out/apicurio-registry-app-3.0.9-all.tar.gz"\n', encoding="utf-8")
    fake_mvn.chmod(0o755)
    home = tmp_path / "cache" / "apicurio"
    env = _env(tmp_path, 18088, OMEGA_REGISTRY_HOME=str(home), PATH=f"{bin_dir}:{os.environ['PATH']}")
    result = _script("up", env=env, timeout=60)
    assert result.returncode == 1
    assert "sha256 mismatch" in result.stderr
    assert "2b28181501a20cbf6efcd77f9b7153908fc01f3d3a7c32024c0bd9e1b04c8a43" in result.stderr
    assert not home.exists()


def test_register_under_full_refuses_our_schema_dropping_a_field_without_a_default(schema_registry_url: str,
                                                                                   prefix: str,
                                                                                   client: SchemaRegistryClient,
                                                                                   tmp_path: Path) -> None:
    registered = _schemas("register", "--compatibility", "FULL", url=schema_registry_url, prefix=prefix)
    assert registered.exit_code == EXIT_OK, registered.output
    dropped = _changed_copy(tmp_path, TICK_FILE, lambda s: s["fields"].pop())  # `watermark`: no default
    again = _schemas("register", "--compatibility", "FULL", "--schemas-dir", str(dropped), url=schema_registry_url,
                     prefix=prefix)
    assert again.exit_code == EXIT_REJECTED, again.output
    assert f"{_tick_subject(prefix)}: refused: " in again.stderr
    assert client.get_latest_version(_tick_subject(prefix)).version == 1
