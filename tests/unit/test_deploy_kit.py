"""The deploy kit (deploy/Dockerfile, deploy/docker-compose.yml, deploy/k8s/) against the code it runs: every
`omega` command it starts exists and parses, every OMEGA_*/KAFKA_* name it sets is one the code reads, and every
port it probes is the port the process serves on. Docker and Kubernetes do not run here: the files are parsed."""

from __future__ import annotations

import json
import os
import re
import shlex
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from click.testing import CliRunner

from streams.cli.main import main
from streams.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "docker-compose.yml"
K8S = DEPLOY / "k8s"
ENV_PREFIXES = ("OMEGA_", "KAFKA_")
WORKLOADS = ("Deployment", "StatefulSet")


# --------------------------------------------------------------------------- what the code reads
class _Recorder(Mapping[str, str]):
    """An empty environment that remembers every name looked up in it."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def __getitem__(self, name: str) -> str:
        self.names.add(name)
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def _cli_envvars(command: click.Command) -> set[str]:
    names = {name for param in command.params
             for name in ([param.envvar] if isinstance(param.envvar, str) else param.envvar or [])}
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            names |= _cli_envvars(sub)
    return names


def _names_the_code_reads() -> set[str]:
    """What `Settings.from_env` looks up, plus the variables behind the CLI's options."""
    recorder = _Recorder()
    Settings.from_env(recorder)
    return recorder.names | _cli_envvars(main)


KNOWN_ENV = _names_the_code_reads()


# --------------------------------------------------------------------------- the Dockerfile
def _instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per instruction: continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1].strip()) for line in joined.splitlines()
            if line.strip()]


INSTRUCTIONS = _instructions(DOCKERFILE.read_text(encoding="utf-8"))
FINAL_STAGE = INSTRUCTIONS[max(i for i, (op, _) in enumerate(INSTRUCTIONS) if op == "FROM"):]


def _last(op: str) -> str:
    return [args for name, args in FINAL_STAGE if name == op][-1]


ENTRYPOINT: list[str] = json.loads(_last("ENTRYPOINT"))
IMAGE_CMD: list[str] = json.loads(_last("CMD"))
IMAGE_ENV = dict(pair.split("=", 1) for name, args in FINAL_STAGE if name == "ENV" for pair in shlex.split(args))


# --------------------------------------------------------------------------- the omega processes of the kit
@dataclass
class Process:
    """One omega container of the kit: where it is, its full command line, its environment (image ENV first)."""

    where: str
    argv: list[str]
    env: dict[str, str]
    spec: dict[str, Any] = field(repr=False)

    @property
    def path(self) -> str:
        """The subcommand it runs, e.g. `memory serve`."""
        return _resolve(self.argv)[1]


def _is_omega(image: str) -> bool:
    return image.rsplit("/", 1)[-1].split(":", 1)[0] == "omega"


COMPOSE_FILE: dict[str, Any] = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
SERVICES: dict[str, dict[str, Any]] = COMPOSE_FILE["services"]
K8S_FILES = sorted(K8S.glob("*.yaml"))
K8S_DOCS = [doc for path in K8S_FILES for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def _named(kind: str) -> dict[str, dict[str, Any]]:
    return {doc["metadata"]["name"]: doc for doc in K8S_DOCS if doc.get("kind") == kind}


def _compose_processes() -> list[Process]:
    return [Process(f"compose:{name}", ENTRYPOINT + list(svc.get("command") or IMAGE_CMD),
                    {**IMAGE_ENV, **{k: str(v) for k, v in (svc.get("environment") or {}).items()}}, svc)
            for name, svc in SERVICES.items() if _is_omega(svc.get("image", ""))]


def _container_env(container: Mapping[str, Any]) -> dict[str, str]:
    maps, secrets = _named("ConfigMap"), _named("Secret")
    env = dict(IMAGE_ENV)
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            env.update(maps[source["configMapRef"]["name"]]["data"])
        else:
            env.update(secrets[source["secretRef"]["name"]]["stringData"])
    env.update({item["name"]: str(item.get("value", "")) for item in container.get("env", [])})
    return env


def _k8s_processes() -> list[Process]:
    return [Process(f"k8s:{doc['metadata']['name']}/{c['name']}", c.get("command") or ENTRYPOINT + c["args"],
                    _container_env(c), c)
            for doc in K8S_DOCS if doc.get("kind") in WORKLOADS
            for c in doc["spec"]["template"]["spec"]["containers"] if _is_omega(c["image"])]


COMPOSE_PROCESSES = _compose_processes()
K8S_PROCESSES = _k8s_processes()
PROCESSES = COMPOSE_PROCESSES + K8S_PROCESSES
by_process = pytest.mark.parametrize("process", PROCESSES, ids=[p.where for p in PROCESSES])


def _resolve(argv: list[str]) -> tuple[click.Command, str, list[str]]:
    """The (sub)command `omega ARGS...` runs, its path (`memory serve`) and its own arguments; a name that does not
    exist fails."""
    assert argv[0] == "omega", f"{argv}: not the omega command"
    command: click.Command = main
    rest = list(argv[1:])
    names = []
    while isinstance(command, click.Group):
        names.append(rest.pop(0))
        found = command.get_command(click.Context(main), names[-1])
        assert found is not None, f"omega {' '.join(names)}: no such command"
        command = found
    return command, " ".join(names), rest


def _params(process: Process, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The options `process` starts with, parsed and converted by the real command with its environment."""
    for name in [n for n in os.environ if n.startswith(ENV_PREFIXES)]:
        monkeypatch.delenv(name)
    for name, value in process.env.items():
        monkeypatch.setenv(name, value)
    command, path, rest = _resolve(process.argv)
    return dict(command.make_context(f"omega {path}", rest).params)


def _one(processes: list[Process], path: str) -> Process:
    [process] = [p for p in processes if p.path == path]
    return process


# --------------------------------------------------------------------------- the commands
def test_the_kit_runs_two_workers_a_projector_and_the_memory_api_in_compose_and_k8s() -> None:
    assert sorted(p.path for p in COMPOSE_PROCESSES) == ["memory serve", "project", "worker", "worker"]
    assert sorted(p.path for p in K8S_PROCESSES) == ["memory serve", "project", "worker"]


@by_process
def test_every_omega_command_of_the_kit_answers_help(process: Process) -> None:
    result = CliRunner().invoke(main, [*process.argv[1:], "--help"], prog_name="omega", env=process.env)
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Usage: omega {process.path} [OPTIONS]")


@by_process
def test_every_omega_command_parses_with_its_environment(process: Process, monkeypatch: pytest.MonkeyPatch) -> None:
    # --help exits before option values are converted: this catches a bad value, or a bad variable behind an option
    assert _params(process, monkeypatch)


@by_process
def test_every_env_name_the_kit_sets_is_one_the_code_reads(process: Process) -> None:
    assert {"OMEGA_WEB_PORT", "OMEGA_READ_MODEL", "KAFKA_BOOTSTRAP_SERVERS"} <= KNOWN_ENV  # the scan sees both kinds
    assert {name for name in process.env if name.startswith(ENV_PREFIXES)} - KNOWN_ENV == set()


def test_every_configmap_and_secret_key_is_one_the_code_reads() -> None:
    keys = {k for kind, part in (("ConfigMap", "data"), ("Secret", "stringData")) for doc in _named(kind).values()
            for k in doc[part]}
    assert "OMEGA_REPLICATION_FACTOR" in keys
    assert keys - KNOWN_ENV == set()


@by_process
def test_the_settings_accept_every_environment_of_the_kit(process: Process) -> None:
    assert Settings.from_env(process.env).bootstrap_servers == process.env["KAFKA_BOOTSTRAP_SERVERS"]


# --------------------------------------------------------------------------- the image
def test_the_image_installs_the_wheel_with_its_extras_as_a_non_root_user() -> None:
    assert [args for op, args in INSTRUCTIONS if op == "FROM"][-1] == "python:3.11-slim"
    assert any('"omega-stream-verifier[rocksdb,postgres,registry]"' in args and "--no-index" in args
               for op, args in FINAL_STAGE if op == "RUN")
    assert _last("USER") not in {"root", "0"}
    assert ENTRYPOINT == ["omega"]
    assert IMAGE_CMD == ["worker"]


def _ignored(path: str, patterns: list[str]) -> bool:
    """.dockerignore's rule: the last pattern matching the path or one of its parents decides."""
    parts = path.split("/")
    verdict = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        bare = pattern.lstrip("!").rstrip("/")
        if any(fnmatch("/".join(parts[:i]), bare) for i in range(1, len(parts) + 1)):
            verdict = not negated
    return verdict


def test_the_build_context_holds_every_source_of_the_wheel() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    needed = ({"pyproject.toml", "README.md", *setuptools["package-dir"].values()}
              | {name.split(".")[0] for name in setuptools["packages"] if name not in setuptools["package-dir"]})
    copied = {source.rstrip("/") for op, args in INSTRUCTIONS if op == "COPY" and "--from" not in args
              for source in args.split()[:-1]}
    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.startswith("#")]
    assert copied == needed
    assert [s for s in sorted(copied) if _ignored(s, patterns) or not (ROOT / s).exists()] == []
    assert _ignored(".venv", patterns)
    assert _ignored("streams/__pycache__/x.pyc", patterns)


# --------------------------------------------------------------------------- compose: ports and order
def _healthcheck_url(service: Mapping[str, Any]) -> tuple[int, str]:
    match = re.search(r"http://127\.0\.0\.1:(\d+)(/[\w/.]*)", " ".join(service["healthcheck"]["test"]))
    assert match, service["healthcheck"]
    return int(match.group(1)), match.group(2)


def test_compose_workers_probe_healthz_on_their_own_web_port_after_kafka_is_healthy() -> None:
    workers = [p for p in COMPOSE_PROCESSES if p.path == "worker"]
    ports = [Settings.from_env(p.env).web_port for p in workers]
    assert [_healthcheck_url(p.spec) for p in workers] == [(port, "/healthz") for port in ports]
    assert len(set(ports)) == len(ports)  # one network (the host's): one port each
    assert all(p.spec["depends_on"]["kafka"]["condition"] == "service_healthy" for p in workers)
    assert all(Settings.from_env(p.env).store == "rocksdb://" for p in workers)
    assert len({p.spec["volumes"][0].split(":")[1] for p in workers} | {Settings.from_env(workers[0].env).data_dir
                                                                        .as_posix()}) == 1


def test_compose_projector_and_api_are_probed_on_the_ports_they_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    projector, api = _one(COMPOSE_PROCESSES, "project"), _one(COMPOSE_PROCESSES, "memory serve")
    assert _healthcheck_url(projector.spec) == (_params(projector, monkeypatch)["metrics_port"], "/metrics")
    assert _healthcheck_url(api.spec) == (_params(api, monkeypatch)["port"], "/health")
    assert api.spec["depends_on"]["projector"]["condition"] == "service_healthy"  # the tables exist by then


# --------------------------------------------------------------------------- kubernetes
def _port(container: Mapping[str, Any], ref: int | str) -> int:
    """A probe's or Service's port: a number, or the name of one of the container's ports."""
    return ref if isinstance(ref, int) else next(p["containerPort"] for p in container["ports"] if p["name"] == ref)


def test_the_kustomization_lists_every_manifest_of_the_directory() -> None:
    [kustomization] = [doc for doc in K8S_DOCS if doc.get("kind") == "Kustomization"]
    assert sorted(kustomization["resources"]) == sorted(p.name for p in K8S_FILES if p.name != "kustomization.yaml")


def test_the_k8s_worker_probes_healthz_and_ready_on_its_web_port() -> None:
    worker = _one(K8S_PROCESSES, "worker")
    port = Settings.from_env(worker.env).web_port
    assert port > 0
    assert [p["containerPort"] for p in worker.spec["ports"]] == [port]
    probes = {name: worker.spec[name]["httpGet"] for name in ("livenessProbe", "readinessProbe")}
    assert {name: (get["path"], _port(worker.spec, get["port"])) for name, get in probes.items()} == {
        "livenessProbe": ("/healthz", port), "readinessProbe": ("/ready", port)}


def test_the_k8s_worker_keeps_rocksdb_tables_on_its_claimed_volume_with_standbys() -> None:
    [statefulset] = _named("StatefulSet").values()
    worker = _one(K8S_PROCESSES, "worker")
    settings = Settings.from_env(worker.env)
    claims = {c["metadata"]["name"] for c in statefulset["spec"]["volumeClaimTemplates"]}
    mounts = {m["mountPath"]: m["name"] for m in worker.spec["volumeMounts"]}
    assert settings.store == "rocksdb://"
    assert mounts[settings.data_dir.as_posix()] in claims
    assert settings.standby_replicas >= 1
    assert settings.stall_seconds > 0
    assert statefulset["spec"]["replicas"] <= settings.partitions  # a worker without partitions is never Ready


def test_the_k8s_kit_replicates_for_a_three_broker_cluster() -> None:
    for process in K8S_PROCESSES:
        settings = Settings.from_env(process.env)
        assert (settings.replication_factor, settings.min_insync) == (3, 2), process.where
        assert len(settings.bootstrap_servers.split(",")) == 3


def test_the_k8s_api_service_reaches_the_port_the_api_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    api = _one(K8S_PROCESSES, "memory serve")
    params = _params(api, monkeypatch)
    assert params["host"] == "0.0.0.0"  # reachable from outside the pod
    assert [p["containerPort"] for p in api.spec["ports"]] == [params["port"]]
    assert _port(api.spec, api.spec["readinessProbe"]["httpGet"]["port"]) == params["port"]
    assert params["store_url"].startswith("postgresql://")  # shared with the projector, across pods
    [service] = [s for s in _named("Service").values() if s["spec"]["selector"].get("app.kubernetes.io/name")
                 == "omega-memory-api"]
    assert [_port(api.spec, p["targetPort"]) for p in service["spec"]["ports"]] == [params["port"]]


def test_the_k8s_projector_writes_the_read_model_the_api_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    projector, api = _one(K8S_PROCESSES, "project"), _one(K8S_PROCESSES, "memory serve")
    [deployment] = [d for d in _named("Deployment").values()
                    if d["spec"]["template"]["spec"]["containers"][0] is projector.spec]
    assert _params(projector, monkeypatch)["store_url"] == _params(api, monkeypatch)["store_url"]
    assert (deployment["spec"]["replicas"], deployment["spec"]["strategy"]["type"]) == (1, "Recreate")
    assert [p["containerPort"] for p in projector.spec["ports"]] == [_params(projector, monkeypatch)["metrics_port"]]
