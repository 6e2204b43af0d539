"""Where the oracle stage finds the Phase Q config: `OMEGA_PHASEQ_CONFIG`, else the copy bundled in the package."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from omega.oracle.config import ConfigError
from streams.stages.oracle import CONFIG_ENV, bundled_config_path, default_config_path, read_config
from tests.external_data import PHASE_Q_CONFIG, needs

ROOT = Path(__file__).resolve().parents[4]
SHARED_CONFIG = PHASE_Q_CONFIG


def test_the_environment_variable_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path / "mine.json"))
    assert default_config_path() == tmp_path / "mine.json"


def test_without_it_the_bundled_copy_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CONFIG_ENV, raising=False)
    assert default_config_path() == ROOT / "streams" / "stages" / "data" / "phase-q-config.json"
    assert bundled_config_path() == default_config_path()


def test_the_bundled_copy_is_a_valid_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CONFIG_ENV, raising=False)
    read_config()  # raises ConfigError if the copy were missing or invalid


@needs(PHASE_Q_CONFIG)
def test_the_bundled_copy_equals_the_shared_config() -> None:
    bundled = json.loads(bundled_config_path().read_text(encoding="utf-8"))
    shared = json.loads(SHARED_CONFIG.read_text(encoding="utf-8"))
    assert bundled == shared, f"copy {SHARED_CONFIG} to {bundled_config_path()}"


def test_a_missing_override_is_a_config_error_naming_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(CONFIG_ENV, str(tmp_path / "absent.json"))
    with pytest.raises(ConfigError, match=r"absent\.json"):
        read_config()
