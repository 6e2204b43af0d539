"""The installed package: pyproject lists every package, and a built wheel runs outside the checkout.

The wheel test builds with pip (isolated: pyproject wants setuptools>=77, which may need the network),
installs the wheel with `--no-deps` into a fresh venv that borrows this venv's dependencies through
PYTHONPATH, then runs `omega replay` and `omega check oracle` from a directory outside the repository.
It takes about 20 s and is skipped unless OMEGA_TEST_INSTALL=1 (`make test-install`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
SCHEMAS_PACKAGE = "streams.wire.schemas"
# what the wheel is built from (README.md is the long description); everything else stays out
SOURCES = ("pyproject.toml", "README.md", "omega", "streams", "projections", "schemas_avro")
# the first public Phase Q case (../shared/data/phase-q-dev.ndjson), expected.verdict PASS
ORACLE_CASE = {
    "candidate_output": "The reactor core temperature is 350 degrees Celsius.", "category": "precision",
    "expected": {"contradiction_ids": [], "expected_props": ["reactor", "temperature", "350"],
                 "max_unsupported_claims": "CONFIG:UNSUPPORTED_MAX", "must_find": ["reactor core", "350 degrees"],
                 "must_not_find": [], "verdict": "PASS"},
    "id": "Q-CASE-0001",
    "input": {"constraints": ["use only provided facts"], "context": "nuclear facility status report",
              "facts": ["The reactor core temperature is 350 degrees Celsius.", "Cooling system is operational."]},
}


def _packages_on_disk() -> set[str]:
    return {
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("omega", "streams", "projections")
        for init in (ROOT / top).rglob("__init__.py")
    }


# folders of package data, listed as packages so that setuptools ships them without a warning each (issue 43)
DATA_PACKAGES = {"omega.grounding.data", "streams.stages.data", "projections.static", "projections.static.vendor",
                 "projections.static.vendor.redoc"}


def test_pyproject_lists_every_package_with_an_init_the_schemas_package_and_the_data_folders() -> None:
    assert set(SETUPTOOLS["packages"]) == _packages_on_disk() | {SCHEMAS_PACKAGE} | DATA_PACKAGES
    assert all((ROOT / Path(*p.split("."))).is_dir() for p in DATA_PACKAGES)


def test_the_schemas_package_is_schemas_avro_and_carries_its_avsc_files() -> None:
    assert SETUPTOOLS["package-dir"] == {SCHEMAS_PACKAGE: "schemas_avro"}
    assert SETUPTOOLS["package-data"][SCHEMAS_PACKAGE] == ["*.avsc"]
    assert "data-files" not in SETUPTOOLS  # the sys.prefix copy is gone: one place per installed file


def test_the_phase_q_config_is_package_data_of_streams_stages() -> None:
    assert "*.json" in SETUPTOOLS["package-data"]["streams.stages.data"]
    assert (ROOT / "streams" / "stages" / "data" / "phase-q-config.json").is_file()


# --------------------------------------------------------------------------- the built, installed wheel
install_only = pytest.mark.skipif(os.environ.get("OMEGA_TEST_INSTALL") != "1",
                                  reason="builds and installs a wheel (~20 s, may need PyPI): OMEGA_TEST_INSTALL=1")


def _clean_env() -> dict[str, str]:
    """This process's environment without the OMEGA_ settings and PYTHONPATH (which may point at a checkout)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("OMEGA_", "PYTHON"))}


def _run(args: list[str | Path], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built from a copy of the sources, so that no build/ or egg-info lands in the checkout."""
    src = tmp_path_factory.mktemp("src")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", out, src], src, _clean_env())
    assert built.returncode == 0, built.stderr
    (found,) = out.glob("omega_stream_verifier-*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A fresh venv holding only the wheel; the dependencies come from this venv through PYTHONPATH."""
    venv = tmp_path_factory.mktemp("venv")
    made = _run([sys.executable, "-m", "venv", "--without-pip", venv], venv, _clean_env())
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    done = _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--quiet", wheel],
                venv, _clean_env())
    assert done.returncode == 0, done.stderr
    env = _clean_env()
    # PYTHONPATH directories are not site dirs: the editable install's .pth finder there stays inactive
    env["PYTHONPATH"] = sysconfig.get_paths()["purelib"]
    return venv, env


@install_only
def test_the_wheel_carries_the_schemas_and_the_config_as_package_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    avsc = {p.name for p in (ROOT / "schemas_avro").glob("*.avsc")}
    assert {n.removeprefix("streams/wire/schemas/") for n in names if n.startswith("streams/wire/schemas/")} == avsc
    assert "streams/stages/data/phase-q-config.json" in names
    assert not [n for n in names if ".data/" in n]  # nothing outside site-packages


@install_only
def test_the_installed_package_reads_its_own_files_not_the_checkout(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    venv, env = installed
    probe = ("import streams, streams.wire.codec as c, streams.stages.oracle as o; "
             "print(streams.__file__); print(c.default_schemas_dir()); print(o.default_config_path())")
    shown = _run([venv / "bin" / "python", "-c", probe], tmp_path, env)
    assert shown.returncode == 0, shown.stderr
    package, schemas, config = (Path(line) for line in shown.stdout.splitlines())
    site = package.parents[1]
    assert site.is_relative_to(venv)
    assert schemas == site / "streams" / "wire" / "schemas"
    assert config == site / "streams" / "stages" / "data" / "phase-q-config.json"


@install_only
def test_installed_omega_replays_an_example_as_the_checkout_does(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    venv, env = installed
    example = ROOT / "examples" / "omen" / "verify_loop.jsonl"
    result = _run([venv / "bin" / "omega", "replay", example, "--out", "-", "--no-summary"], tmp_path, env)
    assert result.returncode == 0, result.stderr
    checkout_env = {**env, "PYTHONPATH": f"{ROOT}{os.pathsep}{env['PYTHONPATH']}"}
    reference = _run([sys.executable, "-m", "streams.cli.main", "replay", example, "--out", "-", "--no-summary"],
                     tmp_path, checkout_env)
    assert reference.returncode == 0, reference.stderr
    assert result.stdout == reference.stdout
    verdicts = [json.loads(line)["value"]["status"] for line in result.stdout.splitlines()]
    assert verdicts == ["ACCEPTED"] * 9  # examples/README.md: verify_loop.jsonl is 9 x ACCEPTED


@install_only
def test_installed_omega_checks_a_phase_q_case_with_the_bundled_config(
    installed: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    venv, env = installed
    cases = tmp_path / "cases.ndjson"
    cases.write_text(json.dumps(ORACLE_CASE) + "\n", encoding="utf-8")
    result = _run([venv / "bin" / "omega", "check", "oracle", cases.name], tmp_path, env)
    assert result.returncode == 0, result.stderr
    (line,) = result.stdout.splitlines()
    assert (json.loads(line)["id"], json.loads(line)["verdict"]) == ("Q-CASE-0001", "PASS")
    assert "agreement with expected.verdict: 1/1" in result.stderr
