"""The projections depend on the core only, and the reducers stay pure: no shell, broker, database, clock or
randomness below the stores (docs/design.md, "Shape" and "Determinism")."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[3] / "projections"
# every module of the memories floor, and the live reducers
PURE = (*sorted(p.relative_to(PACKAGE).with_suffix("").as_posix() for p in (PACKAGE / "memories").glob("*.py")),
        "live/model")
NEVER = {"streams", "faust", "mode", "aiokafka", "kafka", "fastavro"}
NOT_IN_REDUCERS = NEVER | {"sqlite3", "psycopg", "time", "random", "secrets", "logging", "structlog", "asyncio",
                           "projections.store", "projections.projector", "projections.runner", "projections.batches",
                           "projections.http", "projections.live.tables", "projections.live.views",
                           "projections.live.projection"}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def _hits(names: set[str], banned: set[str]) -> set[str]:
    """The names that are a banned module or package, or inside one."""
    return {n for n in names if any(n == b or n.startswith(f"{b}.") for b in banned)}


@pytest.mark.parametrize("module", sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_the_streams_shell_or_the_broker(module: Path) -> None:
    assert _hits(_imports(module), NEVER) == set()


@pytest.mark.parametrize("name", PURE)
def test_reducer_modules_import_no_store_clock_or_randomness(name: str) -> None:
    assert _hits(_imports(PACKAGE / f"{name}.py"), NOT_IN_REDUCERS) == set()
