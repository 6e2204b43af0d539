"""Where the codec finds the `.avsc` contract: `OMEGA_SCHEMAS_DIR`, a checkout's `schemas_avro/`, the wheel's copy."""

from __future__ import annotations

from pathlib import Path

import pytest

import streams.wire.codec as codec
from streams.wire.codec import SchemaRegistry, default_schemas_dir, packaged_schemas_dir

ROOT = Path(__file__).resolve().parents[4]


def test_the_environment_variable_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OMEGA_SCHEMAS_DIR", str(tmp_path))
    assert default_schemas_dir() == tmp_path


def test_a_source_tree_reads_its_own_schemas_avro(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMEGA_SCHEMAS_DIR", raising=False)
    assert default_schemas_dir() == ROOT / "schemas_avro"


def test_without_a_source_tree_the_copy_inside_the_package_is_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # an installed wheel: streams/wire/codec.py sits in site-packages, with no schemas_avro/ two levels up
    installed = tmp_path / "site-packages" / "streams" / "wire" / "codec.py"
    monkeypatch.delenv("OMEGA_SCHEMAS_DIR", raising=False)
    monkeypatch.setattr(codec, "__file__", str(installed))
    assert default_schemas_dir() == packaged_schemas_dir()


def test_the_packaged_copy_is_the_schemas_directory_of_streams_wire() -> None:
    assert packaged_schemas_dir() == ROOT / "streams" / "wire" / "schemas"


def test_an_empty_directory_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=str(tmp_path)):
        SchemaRegistry.from_directory(tmp_path)
