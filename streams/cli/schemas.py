"""`omega schemas register|export|check`: our Avro contract on a Confluent-compatible Schema Registry (issue 26).

Subjects follow streams/wire/confluent.py (`<topic>-value`, or `<topic>-<record>` on a topic carrying several record
types), topics under OMEGA_TOPIC_PREFIX. Each subject's schema is the fully expanded one (named types inlined), so
no schema references are needed. Exit codes: 0 ok, 1 a schema refused or incompatible (or, with `--strict`, missing
on the registry), 2 usage, unreadable schemas or an unreachable registry."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import click
from fastavro.schema import parse_schema

from streams.cli.options import EXIT_OK, EXIT_REJECTED, prefix_option, usage_error
from streams.settings import Settings, SettingsError
from streams.wire.codec import SchemaRegistry, default_schemas_dir
from streams.wire.confluent import registry_client, schema_json, topic_subjects

if TYPE_CHECKING:
    from confluent_kafka.schema_registry import SchemaRegistryClient

# BACKWARD (the default, as issue 26 asks): a new version reads every record written with the previous one, which
# is what the worker needs of producers' packets. It accepts dropping a field (a reader skips it); only FORWARD and
# FULL refuse dropping one without a default, which consumers still on the old schema need: `--compatibility FULL`.
COMPATIBILITY = "BACKWARD"
LEVELS = ("BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE", "NONE")


@dataclass(frozen=True)
class Latest:
    """The newest version of a subject on the registry."""

    schema_id: int
    version: int
    schema_str: str


class RegistryApi:
    """The few registry calls the commands make, over confluent-kafka's client (tests put a fake in its place)."""

    def __init__(self, client: SchemaRegistryClient) -> None:
        self._client = client

    def set_compatibility(self, subject: str, level: str) -> None:
        """Set the subject's compatibility level (allowed before its first version)."""
        self._client.set_compatibility(subject, level)

    def register(self, subject: str, schema_str: str) -> int:
        """Register an Avro schema under the subject; its id (the existing one when already registered)."""
        from confluent_kafka.schema_registry import Schema

        return int(self._client.register_schema(subject, Schema(schema_str, "AVRO")))

    def subjects(self) -> list[str]:
        """Every subject the registry holds."""
        return list(self._client.get_subjects())

    def latest(self, subject: str) -> Latest | None:
        """The subject's newest version; None when the registry has no such subject."""
        from confluent_kafka.schema_registry.error import SchemaRegistryError

        try:
            found = self._client.get_latest_version(subject)
        except SchemaRegistryError as exc:
            if exc.http_status_code == 404:
                return None
            raise
        return Latest(int(found.schema_id or 0), int(found.version or 0), found.schema.schema_str or "")

    def incompatibilities(self, subject: str, schema_str: str) -> list[str] | None:
        """None when the schema is compatible with the subject's latest version under its level; else the
        registry's reasons (Confluent gives them with `verbose`; Apicurio 3.0.9 gives none: an empty list)."""
        # the client's test_compatibility() returns only the boolean: its REST client gives the whole answer
        rest = self._client._rest_client  # noqa: SLF001 - the registry's reasons are in the response body only
        answer = rest.post(f"compatibility/subjects/{quote(subject, safe='')}/versions/latest?verbose=true",
                           body={"schema": schema_str, "schemaType": "AVRO"})
        if answer.get("is_compatible", False):
            return None
        return [str(m) for m in answer.get("messages") or []]

    def close(self) -> None:
        """Close the client's HTTP connections."""
        self._client.close()


def registry_api(config: dict[str, str]) -> RegistryApi:
    """The registry the commands talk to (a seam for tests)."""
    return RegistryApi(registry_client(config))


@contextmanager
def registry_errors(url: str) -> Iterator[None]:
    """An unreachable registry or an unexpected answer ends the command with one line and exit 2."""
    from confluent_kafka.schema_registry.error import SchemaRegistryError

    try:
        yield
    except SchemaRegistryError as exc:
        usage_error(f"schema registry {url}: {exc}")
    except _http_errors() as exc:  # refused, timed out, TLS, DNS
        usage_error(f"schema registry {url} unreachable: {exc!r}")


def _http_errors() -> tuple[type[Exception], ...]:
    """httpx's error base class, and httpx2's: recent confluent-kafka clients send through httpx2, a fork whose
    errors are not httpx's (an unreachable registry escaped as an unexpected ConnectError)."""
    import importlib

    found: list[type[Exception]] = []
    for name in ("httpx", "httpx2"):
        try:
            found.append(importlib.import_module(name).HTTPError)
        except ImportError:
            continue
    return tuple(found)


url_option = click.option("--url", envvar="OMEGA_SCHEMA_REGISTRY_URL", default=None,
                          help="Schema Registry URL (Confluent API) [env OMEGA_SCHEMA_REGISTRY_URL].")
schemas_dir_option = click.option("--schemas-dir", type=click.Path(path_type=Path), default=None,
                                  help="Directory of .avsc files [default: OMEGA_SCHEMAS_DIR or schemas_avro/].")


def _api(url: str | None) -> tuple[str, RegistryApi]:
    try:
        settings = Settings.from_env(None, schema_registry_url=url or None)
    except SettingsError as exc:
        usage_error(str(exc))
    config = settings.schema_registry_config()
    if config is None:
        usage_error("no Schema Registry: give --url or set OMEGA_SCHEMA_REGISTRY_URL")
    try:
        return config["url"], registry_api(config)
    except ValueError as exc:  # a malformed URL or TLS option, named by the client
        usage_error(f"schema registry: {exc}")


def our_subjects(schemas_dir: Path | None, prefix: str) -> list[tuple[str, str, str]]:
    """`(subject, record full name, expanded schema JSON)` of every Avro record type on every topic."""
    try:
        local = SchemaRegistry.from_directory(schemas_dir or default_schemas_dir())
    except (OSError, ValueError) as exc:
        usage_error(f"schemas: {exc}")
    found = []
    for _topic, record, subject in topic_subjects(prefix):
        try:
            found.append((subject, record, schema_json(local.get(record).parsed)))
        except KeyError as exc:
            usage_error(f"schemas: {exc.args[0]} (carried on a topic)")
    return found


@click.group("schemas")
def schemas() -> None:
    """Our Avro schemas on a Schema Registry: register them, export what it holds, check a change before deploy."""


@schemas.command("register")
@url_option
@prefix_option
@schemas_dir_option
@click.option("--compatibility", type=click.Choice(LEVELS, case_sensitive=False), default=COMPATIBILITY,
              show_default=True, help="The level set on every subject first (FULL also refuses dropping a field "
              "without a default, which consumers on the old schema cannot read past).")
def register_command(url: str | None, prefix: str, schemas_dir: Path | None, compatibility: str) -> None:
    """Register every record type of every Avro topic under its subject, compatibility BACKWARD unless told;
    prints `subject -> id`. A version the registry refuses as incompatible: named, exit 1."""
    url, api = _api(url)
    from confluent_kafka.schema_registry.error import SchemaRegistryError

    refused = 0
    with registry_errors(url), closing(api):
        for subject, _record, schema_str in our_subjects(schemas_dir, prefix):
            api.set_compatibility(subject, compatibility.upper())
            try:
                schema_id = api.register(subject, schema_str)
            except SchemaRegistryError as exc:
                if exc.http_status_code != 409:
                    raise
                refused += 1
                click.echo(f"{subject}: refused: {exc.error_message}", err=True)
                continue
            click.echo(f"{subject} -> {schema_id}")
    sys.exit(EXIT_REJECTED if refused else EXIT_OK)


@schemas.command("export")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@url_option
def export_command(directory: Path, url: str | None) -> None:
    """Write the latest version of every subject on the registry as DIRECTORY/<subject>.avsc."""
    url, api = _api(url)
    directory.mkdir(parents=True, exist_ok=True)
    with registry_errors(url), closing(api):
        for subject in sorted(api.subjects()):
            latest = api.latest(subject)
            if latest is None:  # deleted between the listing and now
                continue
            path = directory / f"{subject.replace('/', '_')}.avsc"
            try:
                text = json.dumps(json.loads(latest.schema_str), indent=2, ensure_ascii=False) + "\n"
            except ValueError:  # not JSON (a Protobuf schema): written as the registry holds it
                text = latest.schema_str
            path.write_text(text, encoding="utf-8")
            click.echo(f"{subject} -> {path} (id {latest.schema_id}, version {latest.version})")


@schemas.command("check")
@url_option
@prefix_option
@schemas_dir_option
@click.option("--strict", is_flag=True, help="A subject missing on the registry is a failure too.")
def check_command(url: str | None, prefix: str, schemas_dir: Path | None, strict: bool) -> None:
    """Test our schemas against each subject's latest version with the registry's compatibility check; an
    incompatible change: the subject and the reason, exit 1."""
    url, api = _api(url)
    failed = 0
    with registry_errors(url), closing(api):
        for subject, _record, schema_str in our_subjects(schemas_dir, prefix):
            latest = api.latest(subject)
            if latest is None:
                click.echo(f"{subject}: not on the registry" + (" (--strict)" if strict else ""))
                failed += strict
                continue
            reasons = api.incompatibilities(subject, schema_str)
            if reasons is None:
                click.echo(f"{subject}: compatible with version {latest.version}")
                continue
            failed += 1
            if not reasons:  # the registry said no without saying why: our own reading of the change
                found = backward_problems(json.loads(schema_str), _expanded(latest.schema_str))
                reasons = [f"{p} (local diff; the registry gave no reason)" for p in found] or ["no reason given"]
            click.echo(f"{subject}: INCOMPATIBLE with version {latest.version}: {'; '.join(reasons)}")
    sys.exit(EXIT_REJECTED if failed else EXIT_OK)


# ------------------------------------------------------------------ a readable reason for a BACKWARD refusal
def _expanded(schema_str: str) -> Any:
    """A registry's schema with every name made full, as ours are (fastavro qualifies them)."""
    try:
        return json.loads(schema_json(parse_schema(json.loads(schema_str))))
    except Exception:  # noqa: BLE001 - only a hint is at stake: compare the text as the registry holds it
        return json.loads(schema_str)


_PROMOTIONS = {"int": {"long", "float", "double"}, "long": {"float", "double"}, "float": {"double"},
               "string": {"bytes"}, "bytes": {"string"}}
_NAMED = ("record", "enum", "fixed")


def backward_problems(reader: Any, writer: Any) -> list[str]:
    """Why `reader` cannot read what `writer` wrote, by Avro schema resolution (the usual causes: a field added
    without a default, a type changed without a promotion, an enum symbol or union branch dropped)."""
    return _resolve(reader, writer, "", _names(reader), _names(writer), set())


def _names(schema: Any, found: dict[str, Any] | None = None) -> dict[str, Any]:
    found = {} if found is None else found
    if isinstance(schema, list):
        for branch in schema:
            _names(branch, found)
    elif isinstance(schema, dict):
        if schema.get("type") in _NAMED:
            name = schema["name"]
            namespace = schema.get("namespace")
            found[".".join([namespace, name]) if namespace and "." not in name else name] = schema
        for child in [f["type"] for f in schema.get("fields", [])] + [schema.get("items"), schema.get("values")]:
            if child is not None:
                _names(child, found)
    return found


def _kind(schema: Any, named: dict[str, Any]) -> Any:
    schema = named.get(schema, schema) if isinstance(schema, str) else schema
    if isinstance(schema, dict) and schema.get("type") not in (*_NAMED, "array", "map"):
        return _kind(schema["type"], named)  # {"type": "string", "logicalType": ...}: the underlying type
    return schema


def _type_name(schema: Any) -> str:
    if isinstance(schema, dict):
        return str(schema.get("name") or schema.get("type"))
    return "union" if isinstance(schema, list) else str(schema)


def _resolve(reader: Any, writer: Any, path: str, rnamed: dict[str, Any], wnamed: dict[str, Any],
             seen: set[tuple[str, str]]) -> list[str]:
    r, w = _kind(reader, rnamed), _kind(writer, wnamed)
    at = path or "the record"
    if isinstance(w, list):
        return [p for branch in w for p in _resolve(r, branch, path, rnamed, wnamed, seen)]
    if isinstance(r, list):
        for branch in r:
            if not _resolve(branch, w, path, rnamed, wnamed, seen):
                return []
        return [f"{at}: {_type_name(w)} is in no branch of the new union"]
    rtype = r.get("type") if isinstance(r, dict) else r
    wtype = w.get("type") if isinstance(w, dict) else w
    if rtype != wtype:
        if rtype in _PROMOTIONS.get(str(wtype), set()):
            return []
        return [f"{at}: type changed from {_type_name(w)} to {_type_name(r)}"]
    if rtype == "record":
        key = (r["name"], w["name"])
        if key in seen:
            return []
        seen = seen | {key}
        old = {f["name"]: f for f in w["fields"]}
        problems = []
        for field in r["fields"]:
            where = f"{path}.{field['name']}" if path else field["name"]
            match = next((old[n] for n in [field["name"], *field.get("aliases", [])] if n in old), None)
            if match is None:
                if "default" not in field:
                    problems.append(f"{where}: added without a default")
                continue
            problems += _resolve(field["type"], match["type"], where, rnamed, wnamed, seen)
        return problems
    if rtype == "enum" and "default" not in r:
        dropped = [s for s in w["symbols"] if s not in r["symbols"]]
        return [f"{at}: enum symbols removed: {', '.join(dropped)}"] if dropped else []
    if rtype in ("array", "map"):
        part = "items" if rtype == "array" else "values"
        return _resolve(r[part], w[part], f"{path}[]", rnamed, wnamed, seen)
    if rtype == "fixed" and r.get("size") != w.get("size"):
        return [f"{at}: fixed size changed from {w.get('size')} to {r.get('size')}"]
    return []
