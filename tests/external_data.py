"""Test data the repository does not carry (issue 43): the team's shelf `../shared` beside the clone.

What may be redistributed is vendored under `tests/data/` with its licence (FEVER-Symmetric dev). What may not
stays outside: the Phase Q public cases and report schema (from a proprietary repository) and the OMEN
specification and its JSON Schemas (github.com/Tpanarchist/omen publishes no licence). A test that reads them runs
when they are present, is required when `CI` is set (a missing shelf ends the session, see `tests/conftest.py`),
and otherwise skips with a one-line reason. The Phase Q config the oracle runs on is bundled
(`streams/stages/data/phase-q-config.json`), so the oracle's own tests need nothing from here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
REQUIRED = bool(os.environ.get("CI"))

PHASE_Q_DEV = SHARED / "data" / "phase-q-dev.ndjson"
PHASE_Q_CONFIG = SHARED / "data" / "phase-q-config.json"
PHASE_Q_REPORT_SCHEMA = SHARED / "data" / "phase-q-report.schema.json"
OMEN_SCHEMAS = SHARED / "spec" / "omen" / "schema-v0.7"
OMEN_MD = SHARED / "spec" / "omen" / "OMEN.md"


def reason(*paths: Path) -> str:
    """The one-line skip reason naming what is absent."""
    missing = ", ".join(str(p.relative_to(SHARED.parent)) for p in paths if not p.exists())
    return f"external data absent: {missing} (the team's ../shared; not redistributable; required when CI is set)"


def needs(*paths: Path) -> pytest.MarkDecorator:
    """Skip a test whose external files are absent, unless CI is set (then it runs, and fails if they are)."""
    return pytest.mark.skipif(not REQUIRED and not all(p.exists() for p in paths), reason=reason(*paths))


def text_or_empty(path: Path) -> str:
    """A file read at import time for parametrisation: empty when absent (its tests are skipped by `needs`)."""
    return path.read_text(encoding="utf-8") if path.exists() else ""
