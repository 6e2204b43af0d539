"""`omega schemas register|export|check` through click's CliRunner against an in-memory registry in place of the
HTTP one (the real Apicurio is in tests/integration/test_schema_registry.py), and the local reading of a BACKWARD
refusal that `check` prints when the registry gives no reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner, Result
from confluent_kafka.schema_registry.error import SchemaRegistryError

from streams.cli import schemas as schemas_module
from streams.cli.main import main
from streams.cli.options import EXIT_OK, EXIT_REJECTED, EXIT_USAGE
from streams.cli.schemas import Latest, backward_problems
from streams.wire.codec import SchemaRegistry
from streams.wire.confluent import schema_json

URL = "http://registry.test/apis/ccompat/v7"
OUR_SUBJECTS = [
    "omen.packets-omega.omen.Packet", "omen.packets-omega.omen.PacketAsSent", "omen.packets-omega.events.WatermarkTick",
    "omen.verdicts-value",
    "omega.alerts-value", "omega.escalations-value", "omega.deadletters-value", "omega57.messages-value",
    "omega57.terminations-value", "phaseq.verdicts-value", "ds005.facts-value", "ds005.answers-value",
    "grounding.verdicts-value", "grounding.audit-value",
]


class FakeRegistry:
    """Subjects, versions and ids in memory; `refuse` and `reasons` script its compatibility answers."""

    def __init__(self) -> None:
        self.versions: dict[str, list[tuple[int, str]]] = {}
        self.levels: dict[str, str] = {}
        self.refuse: dict[str, str] = {}  # subject -> the 409 message on registration
        self.reasons: dict[str, list[str]] = {}  # subject -> the compatibility check's messages (incompatible)
        self.ids: dict[str, int] = {}
        self.closed = 0

    def set_compatibility(self, subject: str, level: str) -> None:
        self.levels[subject] = level

    def register(self, subject: str, schema_str: str) -> int:
        if subject in self.refuse:
            raise SchemaRegistryError(409, 409, self.refuse[subject])
        schema_id = self.ids.setdefault(schema_str, 100 + len(self.ids))
        history = self.versions.setdefault(subject, [])
        if not history or history[-1][1] != schema_str:
            history.append((schema_id, schema_str))
        return schema_id

    def subjects(self) -> list[str]:
        return list(self.versions)

    def latest(self, subject: str) -> Latest | None:
        history = self.versions.get(subject)
        return Latest(history[-1][0], len(history), history[-1][1]) if history else None

    def incompatibilities(self, subject: str, schema_str: str) -> list[str] | None:
        return self.reasons.get(subject)

    def close(self) -> None:
        self.closed += 1


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> FakeRegistry:
    fake = FakeRegistry()
    seen: list[dict[str, str]] = []

    def api(config: dict[str, str]) -> FakeRegistry:
        seen.append(config)
        return fake

    monkeypatch.setattr(schemas_module, "registry_api", api)
    monkeypatch.delenv("OMEGA_SCHEMA_REGISTRY_URL", raising=False)
    monkeypatch.delenv("OMEGA_TOPIC_PREFIX", raising=False)
    monkeypatch.delenv("OMEGA_AVRO_WIRE", raising=False)
    return fake


@pytest.fixture(scope="module")
def local() -> SchemaRegistry:
    return SchemaRegistry.from_directory()


def _invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, ["schemas", *args], prog_name="omega", env=env, catch_exceptions=False)


def _with_url(*args: str) -> Result:
    return _invoke(*args, "--url", URL)


# ------------------------------------------------------------------ register
def test_register_puts_each_record_type_of_each_topic_under_its_subject_with_backward(
        registry: FakeRegistry, local: SchemaRegistry) -> None:
    result = _with_url("register")
    assert result.exit_code == EXIT_OK, result.output
    lines = result.stdout.splitlines()
    assert [line.split(" -> ")[0] for line in lines] == OUR_SUBJECTS
    assert all(line.split(" -> ")[1].isdigit() for line in lines)
    assert registry.levels == dict.fromkeys(OUR_SUBJECTS, "BACKWARD")
    packet_schema = registry.versions["omen.packets-omega.omen.Packet"][0][1]
    assert packet_schema == schema_json(local.get("omega.omen.Packet").parsed)
    assert '"name":"omega.omen.PacketHeader"' in packet_schema  # the referenced types are inlined
    assert registry.closed == 1


def test_register_uses_the_topic_prefix_from_the_environment(registry: FakeRegistry) -> None:
    result = _invoke("register", env={"OMEGA_SCHEMA_REGISTRY_URL": URL, "OMEGA_TOPIC_PREFIX": "p."})
    assert result.exit_code == EXIT_OK, result.output
    assert sorted(registry.versions) == sorted(f"p.{s}" for s in OUR_SUBJECTS)


def test_a_version_the_registry_refuses_is_named_and_the_rest_still_registered(registry: FakeRegistry) -> None:
    registry.refuse["omega.alerts-value"] = "Incompatible artifact: omega.alerts-value [AVRO]"
    result = _with_url("register")
    assert result.exit_code == EXIT_REJECTED
    assert "omega.alerts-value: refused: Incompatible artifact: omega.alerts-value [AVRO]" in result.stderr
    assert "omega.alerts-value" not in registry.versions
    assert len(registry.versions) == len(OUR_SUBJECTS) - 1


def test_without_a_registry_url_the_command_is_a_usage_error(registry: FakeRegistry) -> None:
    result = _invoke("register")
    assert result.exit_code == EXIT_USAGE
    assert "OMEGA_SCHEMA_REGISTRY_URL" in result.stderr


def test_an_unreachable_registry_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch,
                                                        registry: FakeRegistry) -> None:
    def refused(*_args: Any) -> None:
        raise httpx.ConnectError("[Errno 111] Connection refused")

    monkeypatch.setattr(registry, "set_compatibility", refused)
    result = _with_url("register")
    assert result.exit_code == EXIT_USAGE
    assert result.stderr.startswith(f"omega: schema registry {URL} unreachable: ConnectError")


def test_a_schemas_dir_that_lacks_a_topics_record_type_is_a_usage_error(registry: FakeRegistry,
                                                                        tmp_path: Path) -> None:
    (tmp_path / "omega.events.WatermarkTick.avsc").write_text(json.dumps(
        {"type": "record", "name": "WatermarkTick", "namespace": "omega.events", "fields": []}), encoding="utf-8")
    result = _with_url("register", "--schemas-dir", str(tmp_path))
    assert result.exit_code == EXIT_USAGE
    assert "omega.omen.Packet" in result.stderr


# ------------------------------------------------------------------ export
def test_export_writes_the_latest_of_every_subject_as_a_file(registry: FakeRegistry, tmp_path: Path) -> None:
    registry.register("theirs-value", '{"type":"string"}')
    registry.register("x-value", '{"type":"record","name":"a.X","fields":[]}')
    registry.register("x-value", '{"type":"record","name":"a.X","fields":[{"name":"f","type":"int"}]}')
    result = _with_url("export", str(tmp_path / "out"))
    assert result.exit_code == EXIT_OK, result.output
    assert result.stdout.splitlines() == [
        f"theirs-value -> {tmp_path / 'out' / 'theirs-value.avsc'} (id 100, version 1)",
        f"x-value -> {tmp_path / 'out' / 'x-value.avsc'} (id 102, version 2)",
    ]
    written = json.loads((tmp_path / "out" / "x-value.avsc").read_text(encoding="utf-8"))
    assert written == {"type": "record", "name": "a.X", "fields": [{"name": "f", "type": "int"}]}


# ------------------------------------------------------------------ check
def test_check_passes_when_every_subject_is_compatible(registry: FakeRegistry) -> None:
    assert _with_url("register").exit_code == EXIT_OK
    result = _with_url("check")
    assert result.exit_code == EXIT_OK, result.output
    assert result.stdout.splitlines()[0] == "omen.packets-omega.omen.Packet: compatible with version 1"
    assert len(result.stdout.splitlines()) == len(OUR_SUBJECTS)


def test_a_subject_missing_on_the_registry_is_said_and_fails_only_when_strict(registry: FakeRegistry) -> None:
    result = _with_url("check")
    assert result.exit_code == EXIT_OK
    assert "omen.verdicts-value: not on the registry" in result.stdout.splitlines()
    strict = _with_url("check", "--strict")
    assert strict.exit_code == EXIT_REJECTED
    assert "omen.verdicts-value: not on the registry (--strict)" in strict.stdout.splitlines()


def test_an_incompatible_subject_is_named_with_the_registrys_reason(registry: FakeRegistry) -> None:
    _with_url("register")
    registry.reasons["omega.alerts-value"] = ["READER_FIELD_MISSING_DEFAULT_VALUE at /fields/9"]
    result = _with_url("check")
    assert result.exit_code == EXIT_REJECTED
    assert ("omega.alerts-value: INCOMPATIBLE with version 1: READER_FIELD_MISSING_DEFAULT_VALUE at /fields/9"
            in result.stdout.splitlines())


def test_without_a_reason_from_the_registry_check_prints_the_local_diff(registry: FakeRegistry,
                                                                        tmp_path: Path) -> None:
    old = {"type": "record", "name": "WatermarkTick", "namespace": "omega.events",
           "fields": [{"name": "partition", "type": "int"}, {"name": "watermark", "type": "string"}]}
    registry.register("omen.packets-omega.events.WatermarkTick", json.dumps(old))
    registry.reasons["omen.packets-omega.events.WatermarkTick"] = []  # Apicurio: is_compatible false, no messages
    result = _with_url("check")
    assert result.exit_code == EXIT_REJECTED
    assert ("omen.packets-omega.events.WatermarkTick: INCOMPATIBLE with version 1: no reason given"
            in result.stdout.splitlines())  # our tick is the same schema: nothing to explain locally
    registry.register("omen.verdicts-value", json.dumps({
        "type": "record", "name": "PacketVerdict", "namespace": "omega.events", "fields": []}))
    registry.reasons["omen.verdicts-value"] = []
    line = next(li for li in _with_url("check").stdout.splitlines() if li.startswith("omen.verdicts-value"))
    assert "verdict_id: added without a default (local diff; the registry gave no reason)" in line


# ------------------------------------------------------------------ the local BACKWARD reading
def _record(*fields: dict[str, Any], name: str = "a.R") -> dict[str, Any]:
    return {"type": "record", "name": name, "fields": list(fields)}


@pytest.mark.parametrize(("reader", "writer", "expected"), [
    (_record({"name": "x", "type": "int"}), _record({"name": "x", "type": "int"}), []),
    (_record({"name": "x", "type": "int"}, {"name": "y", "type": "string"}), _record({"name": "x", "type": "int"}),
     ["y: added without a default"]),
    (_record({"name": "x", "type": "int"}, {"name": "y", "type": "string", "default": ""}),
     _record({"name": "x", "type": "int"}), []),
    (_record({"name": "x", "type": "int"}), _record({"name": "x", "type": "int"}, {"name": "y", "type": "int"}), []),
    (_record({"name": "x", "type": "string"}), _record({"name": "x", "type": "int"}),
     ["x: type changed from int to string"]),
    (_record({"name": "x", "type": "long"}), _record({"name": "x", "type": "int"}), []),
    (_record({"name": "x", "type": "string"}), _record({"name": "x", "type": ["null", "string"]}),
     ["x: type changed from null to string"]),  # the old union's null branch has nowhere to go
    (_record({"name": "x", "type": ["null", "string"]}), _record({"name": "x", "type": "string"}), []),
    (_record({"name": "x", "type": ["null", "int"]}), _record({"name": "x", "type": "string"}),
     ["x: string is in no branch of the new union"]),
    (_record({"name": "e", "type": {"type": "enum", "name": "a.E", "symbols": ["A"]}}),
     _record({"name": "e", "type": {"type": "enum", "name": "a.E", "symbols": ["A", "B"]}}),
     ["e: enum symbols removed: B"]),
    (_record({"name": "n", "type": _record({"name": "z", "type": "int"}, name="a.N")}),
     _record({"name": "n", "type": _record(name="a.N")}), ["n.z: added without a default"]),
    (_record({"name": "xs", "type": {"type": "array", "items": "string"}}),
     _record({"name": "xs", "type": {"type": "array", "items": "int"}}), ["xs[]: type changed from int to string"]),
    (_record({"name": "renamed", "aliases": ["x"], "type": "int"}), _record({"name": "x", "type": "int"}), []),
])
def test_the_local_reading_names_each_backward_problem(reader: Any, writer: Any, expected: list[str]) -> None:
    assert backward_problems(reader, writer) == expected


def test_a_recursive_type_is_read_without_looping() -> None:
    node = _record({"name": "next", "type": ["null", "a.R"]}, {"name": "v", "type": "int"})
    grown = _record({"name": "next", "type": ["null", "a.R"]}, {"name": "v", "type": "int"},
                    {"name": "w", "type": "int"})
    assert backward_problems(node, node) == []
    assert backward_problems(grown, node) == ["w: added without a default"]


def test_the_schemas_group_is_on_the_omega_command() -> None:
    result = CliRunner().invoke(main, ["schemas", "--help"], prog_name="omega")
    assert result.exit_code == EXIT_OK
    assert all(command in result.stdout for command in ("register", "export", "check"))
