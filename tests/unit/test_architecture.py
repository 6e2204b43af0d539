"""The architecture, checked from the source: the pure core stays pure (`omega` imports no shell, broker, Avro,
logging, asyncio or clock module, and never reads the wall clock or a random source); no package has an import
cycle; the shell's rooms keep their walls (stages and wire know no broker or framework, kafka knows no stage);
no module of streams, projections or the core outgrows 400 lines (`SIZE_CHECKED`); every core and projections
package's `__init__` maps its
modules."""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "omega"
SHELLS = ("streams", "projections")

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
        "from streams.stages.packets import PacketStage",
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


# ------------------------------------------------------------------ the import graph
Graph = Mapping[str, Mapping[str, int]]
"""module -> {module it imports: line of the first such import}."""


def module_name(path: Path) -> str:
    """Dotted name of a module file under the repository (a package's `__init__` is the package)."""
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, module: str, is_package: bool, modules: Collection[str] = ()) -> dict[str, int]:
    """Every module `module` imports, anywhere in its body (module level, in functions, under TYPE_CHECKING: a
    cycle dodged there is still one of the design), as absolute names, relative imports resolved;
    `from pkg import name` is `pkg.name` when that is one of `modules`, else `pkg`."""
    found: dict[str, int] = {}
    package = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.setdefault(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.setdefault(sub if sub in modules else target, node.lineno)
    found.pop(module, None)
    return found


def _sources(roots: Iterable[str]) -> dict[str, Path]:
    return {module_name(p): p for root in roots for p in sorted((REPO / root).rglob("*.py"))
            if "__pycache__" not in p.parts}


def import_graph(roots: Iterable[str]) -> dict[str, dict[str, int]]:
    """The import graph of the packages `roots`, restricted to their own modules."""
    paths = _sources(roots)
    graph: dict[str, dict[str, int]] = {}
    for name, path in paths.items():
        imported = imports_of(path.read_text(encoding="utf-8"), name, path.name == "__init__.py", paths)
        graph[name] = {m: line for m, line in imported.items() if m in paths}
    return graph


def strongly_connected(graph: Graph) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module, each sorted, in a stable order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def cycle_chain(graph: Graph, component: Collection[str]) -> str:
    """A shortest cycle through the first module of `component`, readable: `a:3 -> b:7 -> a` (each module with
    the line of its import of the next)."""
    start = min(component)
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph[v]):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                path.reverse()
                hops = [f"{a}:{graph[a][b]}" for a, b in zip(path, [*path[1:], start], strict=True)]
                return " -> ".join([*hops, start])
            if w in component and w not in came_from and w != start:
                came_from[w] = v
                queue.append(w)
    raise ValueError(f"no cycle through {start}")


def import_cycles(graph: Graph) -> list[str]:
    """One readable chain per strongly connected component of `graph`."""
    return [cycle_chain(graph, component) for component in strongly_connected(graph)]


def test_omega_streams_and_projections_have_no_import_cycle() -> None:
    assert import_cycles(import_graph(["omega", *SHELLS])) == []


# ------------------------------------------------------------------ the shell's rooms
BROKER_AND_FRAMEWORK = ("faust", "mode", "aiokafka", "streams.worker", "streams.kafka", "streams.cli")
STAGES = ("streams.stages",)


def layer_findings(module: str, imported: Iterable[str], forbidden: Iterable[str]) -> list[str]:
    """`module -> name` for each import of a forbidden package (or of one of its modules)."""
    banned = tuple(forbidden)
    return [f"{module} -> {name}" for name in sorted(imported)
            if any(name == b or name.startswith(f"{b}.") for b in banned)]


def reached_findings(room: str, imports: Mapping[str, Iterable[str]], forbidden: Iterable[str]) -> list[str]:
    """`module -> ... -> name` for each forbidden import a module of `room` reaches, directly or through the
    modules it imports (`imports`: every module's imports), by a shortest chain."""
    found: list[str] = []
    for module in sorted(m for m in imports if m == room or m.startswith(f"{room}.")):
        chains = {module: [module]}
        queue = deque([module])
        while queue:
            current = queue.popleft()
            for hit in layer_findings(current, imports[current], forbidden):
                found.append(" -> ".join([*chains[current][:-1], hit]))
            for name in sorted(imports[current]):
                if name in imports and name not in chains:
                    chains[name] = [*chains[current], name]
                    queue.append(name)
    return sorted(set(found))


def _room_findings(room: str, forbidden: Iterable[str]) -> list[str]:
    paths = _sources(["streams"])
    imports = {name: imports_of(path.read_text(encoding="utf-8"), name, path.name == "__init__.py", paths)
               for name, path in paths.items()}
    return reached_findings(room, imports, forbidden)


@pytest.mark.parametrize("room", ["streams.stages", "streams.wire"])
def test_stages_and_wire_reach_no_broker_framework_worker_kafka_or_cli_even_indirectly(room: str) -> None:
    assert _room_findings(room, BROKER_AND_FRAMEWORK) == []


def test_the_kafka_room_reaches_no_stage_even_indirectly() -> None:
    assert _room_findings("streams.kafka", STAGES) == []


def test_the_room_checker_follows_imports_through_other_modules() -> None:
    imports = {"streams.kafka.a": ["streams.records", "json"], "streams.records": ["streams.replay.inputs"],
               "streams.replay.inputs": ["streams.stages.base"], "streams.stages.base": [], "json": []}
    assert reached_findings("streams.kafka", imports, STAGES) == [
        "streams.kafka.a -> streams.records -> streams.replay.inputs -> streams.stages.base"]
    del imports["streams.records"]  # the chain cut: nothing reached
    assert reached_findings("streams.kafka", imports, STAGES) == []


MAX_MODULE_LINES = 400
SIZE_CHECKED: tuple[tuple[str, tuple[str, ...]], ...] = (
    # (package, subpackages left out until their own split lands); one line a package
    ("streams", ()),
    ("projections", ()),
    ("omega", ()),
)


def size_checked_modules(packages: Iterable[tuple[str, Iterable[str]]]) -> list[Path]:
    """The modules of `packages` under the size rule: every `.py` file, the left-out subpackages' excepted."""
    found: list[Path] = []
    for package, left_out in packages:
        skipped = [REPO / folder for folder in left_out]
        found += [p for p in (REPO / package).rglob("*.py") if "__pycache__" not in p.parts
                  and not any(p.is_relative_to(folder) for folder in skipped)]
    return sorted(found)


def test_the_size_rule_checks_the_three_packages_and_leaves_out_only_what_it_is_told() -> None:
    modules = size_checked_modules(SIZE_CHECKED)
    assert REPO / "streams" / "stages" / "base.py" in modules
    assert REPO / "projections" / "store" / "base.py" in modules
    assert REPO / "omega" / "packets" / "validator.py" in modules
    assert REPO / "omega" / "grounding" / "frames.py" in modules
    assert not any(p.is_relative_to(REPO / "omega" / "grounding")
                   for p in size_checked_modules([("omega", ("omega/grounding",))]))


@pytest.mark.parametrize("module", size_checked_modules(SIZE_CHECKED), ids=lambda p: str(p.relative_to(REPO)))
def test_no_module_of_the_three_packages_is_over_400_lines(module: Path) -> None:
    assert len(module.read_text(encoding="utf-8").splitlines()) <= MAX_MODULE_LINES


# ------------------------------------------------------------------ each core package maps its modules
def _core_packages() -> list[Path]:
    return sorted(p.parent for p in CORE.rglob("__init__.py") if "__pycache__" not in p.parts)


@pytest.mark.parametrize("package", _core_packages(), ids=lambda p: str(p.relative_to(REPO)))
def test_each_core_package_lists_and_maps_its_modules(package: Path) -> None:
    tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    submodules = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    submodules |= {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
    declared = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets))
    defined = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    assert set(declared) - defined == submodules
    lines = (ast.get_docstring(tree, clean=False) or "").splitlines()
    mapped = {line.split()[0] for line in lines if line.startswith("    ")}
    assert submodules <= mapped


# ------------------------------------------------------------------ the graph checkers catch what they must
def test_imports_are_resolved_relative_inside_functions_and_under_type_checking() -> None:
    source = """
from typing import TYPE_CHECKING
from . import sibling
from .. import uncle
from ..aunt import thing
from .sub.deep import x
import os.path
if TYPE_CHECKING:
    from p.q.typed import T
def f():
    from p.q import late
"""
    modules = {"p.q.sibling", "p.uncle", "p.q.late"}
    assert imports_of(source, "p.q.m", False, modules) == {
        "typing": 2, "p.q.sibling": 3, "p.uncle": 4, "p.aunt": 5, "p.q.sub.deep": 6, "os.path": 7,
        "p.q.typed": 9, "p.q.late": 11,
    }
    assert imports_of("from . import m\nfrom .m import y", "p.q", True, {"p.q.m"}) == {"p.q.m": 1}
    assert imports_of("from . import name", "p.q", True) == {}  # the package itself is not an import of itself


def test_a_cycle_in_a_synthetic_graph_is_found_as_a_readable_chain() -> None:
    graph = {"a": {"b": 3}, "b": {"c": 5, "d": 6}, "c": {"a": 7}, "d": {}, "e": {"f": 1}, "f": {"e": 2}}
    assert strongly_connected(graph) == [["a", "b", "c"], ["e", "f"]]
    assert import_cycles(graph) == ["a:3 -> b:5 -> c:7 -> a", "e:1 -> f:2 -> e"]


def test_the_shortest_cycle_is_shown() -> None:
    graph = {"a": {"b": 1, "c": 2}, "b": {"c": 3}, "c": {"a": 4}}
    assert import_cycles(graph) == ["a:2 -> c:4 -> a"]


def test_an_acyclic_graph_passes() -> None:
    graph = {"a": {"b": 1, "c": 2}, "b": {"d": 3}, "c": {"d": 4}, "d": {}}
    assert strongly_connected(graph) == []
    assert import_cycles(graph) == []


@pytest.mark.parametrize("imported", [
    "faust", "mode.utils", "aiokafka.partitioner", "streams.worker.app", "streams.kafka", "streams.cli.main",
])
def test_the_layer_checker_reports_each_forbidden_import(imported: str) -> None:
    assert layer_findings("streams.stages.x", [imported], BROKER_AND_FRAMEWORK) == [f"streams.stages.x -> {imported}"]


@pytest.mark.parametrize("imported", ["streams.wire.codec", "streams.stages.base", "omega.events", "modest",
                                      "streams.kafkaesque", "fastavro"])
def test_the_layer_checker_allows_other_imports(imported: str) -> None:
    assert layer_findings("streams.stages.x", [imported], BROKER_AND_FRAMEWORK) == []


# ------------------------------------------------------------------ each projections package maps exactly its modules
def package_contents(package: Path) -> set[str]:
    """The modules and sub-packages of a package directory, by name."""
    return ({p.stem for p in package.glob("*.py") if p.stem != "__init__"}
            | {p.name for p in package.iterdir() if (p / "__init__.py").is_file()})


def module_map(docstring: str) -> set[str]:
    """The names a module map lists: the first word of each line indented by four spaces (`name  description`;
    a sub-package may be written `name/`)."""
    return {line.split()[0].rstrip("/") for line in docstring.splitlines()
            if line.startswith("    ") and not line.startswith("     ") and line.strip()}


def test_a_module_map_is_read_from_its_indented_lines() -> None:
    docstring = ("Title.\n\n    alpha       one\n    beta/       a package\n                continued\n"
                 "Prose, not mapped.\n")
    assert module_map(docstring) == {"alpha", "beta"}


@pytest.mark.parametrize("package", sorted(p.parent for p in (REPO / "projections").rglob("__init__.py")
                                           if "__pycache__" not in p.parts),
                         ids=lambda p: str(p.relative_to(REPO)))
def test_each_projections_package_maps_exactly_its_modules(package: Path) -> None:
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")), clean=False)
    assert module_map(docstring or "") == package_contents(package)
