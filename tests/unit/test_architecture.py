"""The pure core stays pure: `omega` imports no shell, broker, Avro, logging, asyncio or clock module, and
never reads the wall clock or a random source (DESIGN.md, "Shape" and "Determinism")."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "omega"

FORBIDDEN_IMPORTS = frozenset({
    "streams", "projections",  # the shells depend on the core, never the reverse
    "faust", "mode", "aiokafka", "kafka", "confluent_kafka",  # the broker and the stream framework
    "fastavro", "avro",  # the wire format
    "structlog", "logging",  # logs belong to the shell
    "asyncio",
    "time", "random", "secrets",  # the clock and randomness
})
FORBIDDEN_CALLS = frozenset({
    "datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today", "datetime.date.today",
    "time.time", "time.time_ns", "time.monotonic", "time.perf_counter", "time.localtime", "time.gmtime",
    "uuid.uuid1", "uuid.uuid4", "os.urandom", "os.getrandom",
})


@dataclass(frozen=True)
class Finding:
    where: str
    what: str


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def check_module(source: str, where: str) -> list[Finding]:
    """Forbidden imports and calls of one module; names are resolved through its import aliases."""
    tree = ast.parse(source, filename=where)
    findings: list[Finding] = []
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]  # `import a.b` binds `a`; `import a.b as x`, a.b
                aliases[local] = alias.name if alias.asname else local
                if alias.name.split(".")[0] in FORBIDDEN_IMPORTS:
                    findings.append(Finding(f"{where}:{node.lineno}", f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            if node.module.split(".")[0] in FORBIDDEN_IMPORTS:
                findings.append(Finding(f"{where}:{node.lineno}", f"from {node.module} import ..."))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__":
            findings.append(Finding(f"{where}:{node.lineno}", "__import__(...)"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name is None:
                continue
            head, _, rest = name.partition(".")
            resolved = aliases.get(head, head) + (f".{rest}" if rest else "")
            if resolved in FORBIDDEN_CALLS or resolved.split(".")[0] in {"random", "secrets"}:
                findings.append(Finding(f"{where}:{node.lineno}", f"call {resolved}()"))
    return findings


def _core_modules() -> list[Path]:
    return sorted(p for p in CORE.rglob("*.py") if "__pycache__" not in p.parts)


def test_the_core_package_has_modules_to_check() -> None:
    modules = _core_modules()
    assert CORE / "__init__.py" in modules
    assert CORE / "packets" / "validator.py" in modules


@pytest.mark.parametrize("module", _core_modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_core_module_imports_nothing_impure_and_reads_no_clock_or_randomness(module: Path) -> None:
    findings = check_module(module.read_text(encoding="utf-8"), str(module.relative_to(REPO)))
    assert findings == []


# ------------------------------------------------------------------ the checker itself catches what it must
@pytest.mark.parametrize(
    "source",
    [
        "import faust",
        "import aiokafka.structs",
        "from fastavro import schemaless_writer",
        "from streams.stages.packets import Pipeline",
        "import projections.memory as pm",
        "import structlog",
        "import logging",
        "import asyncio",
        "from mode import Service",
        "import random",
        "from random import choice",
        "import time",
        "from time import time as now",
        "from datetime import datetime\nx = datetime.now()",
        "from datetime import datetime as dt\nx = dt.utcnow()",
        "import datetime\nx = datetime.datetime.now(datetime.UTC)",
        "from datetime import date\nx = date.today()",
        "import uuid\nx = uuid.uuid4()",
        "import os\nx = os.urandom(8)",
        "m = __import__('faust')",
        "def f():\n    import fastavro\n    return fastavro",
    ],
)
def test_the_checker_reports_each_forbidden_import_or_call(source: str) -> None:
    assert check_module(source, "<example>") != []


@pytest.mark.parametrize(
    "source",
    [
        "from datetime import datetime\nx = datetime.fromisoformat('2025-01-01T00:00:00+00:00')",
        "from datetime import UTC, timedelta",
        "import hashlib\nx = hashlib.sha256(b'').hexdigest()",
        "import uuid\nx = uuid.uuid5(uuid.NAMESPACE_URL, 'omega')",
        "from . import violations",
        "from omega.canonical import derived_id",
        "import json\nx = json.dumps({})",
    ],
)
def test_the_checker_allows_pure_code(source: str) -> None:
    assert check_module(source, "<example>") == []
