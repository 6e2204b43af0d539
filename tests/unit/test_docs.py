"""Docs point at real things (issue 44, item 6): every repository path and every `omega.` / `streams.` /
`projections.` name that README.md, BENCHMARKS.md, docs/*.md or a docstring of the packages or tests names exists,
and the module maps in the packages' `__init__` docstrings name every module there is and no module there is not.

Each test collects every miss before it fails, so one run lists all the references to fix (file:line -> name)."""

from __future__ import annotations

import ast
import importlib
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from streams.topics import ALL_TOPICS

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("omega", "streams", "projections")
DOCUMENTS = sorted([REPO / "README.md", REPO / "BENCHMARKS.md", *(REPO / "docs").rglob("*.md")])

# A path is checked when its first part is one of these tracked rooms (out/, .omega-data/, secrets/, a spec's
# seeds/ ... are made by a run or live elsewhere, so they are not checked).
ROOMS = ("omega", "streams", "projections", "tests", "docs", "deploy", "examples", "scripts", "schemas_avro")
ROOT_FILES = ("README.md", "BENCHMARKS.md", "Makefile", "pyproject.toml", "mkdocs.yml")
# The wheel carries schemas_avro/ as streams/wire/schemas/ (pyproject's package-dir), so docs may name either.
INSTALLED_AS = {"streams/wire/schemas": "schemas_avro"}
# Documents of the specifications we judge against, named by their own titles; they are not ours to carry.
SPEC_DOCUMENTS = {"OMEN.md", "FSM.md", "phase-q-oracle-rules.md", "phase-q-pipeline.md"}
# Dotted names that are not Python: OpenTelemetry span attributes (streams/kafka/otel.py)
NOT_PYTHON = {"omega.source"}
# mutmut's names of generated mutants (docs/mutation.md lists the equivalent survivors by them)
MUTANT = re.compile(r"__mutmut_\d+$")

PATH = re.compile(r"(?<![\w/.~-])((?:[\w.{},*-]+/)+[\w.{},*-]*|[\w-]+\.(?:md|py))(?![\w/])")
DOTTED = re.compile(r"(?<![\w./-])((?:omega|streams|projections)(?:\.\w+)+)(?![\w/-])")


def _texts() -> Iterator[tuple[str, int, str]]:
    """(where, line number, text) of every document line and every docstring line of the three packages and of the
    tests."""
    for document in DOCUMENTS:
        for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), 1):
            yield str(document.relative_to(REPO)), number, line
    for module in sorted(itertools.chain.from_iterable((REPO / p).rglob("*.py") for p in (*PACKAGES, "tests"))):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                body = node.body[0] if node.body else None
                if (isinstance(body, ast.Expr) and isinstance(body.value, ast.Constant)
                        and isinstance(body.value.value, str)):
                    for offset, line in enumerate(body.value.value.splitlines()):
                        yield str(module.relative_to(REPO)), body.lineno + offset, line


def _expand(pattern: str) -> list[str]:
    """`a/{b,c}_d.py` -> [`a/b_d.py`, `a/c_d.py`]; one brace group is all the docs use."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    return [pattern[:match.start()] + part + pattern[match.end():] for part in match.group(1).split(",")]


def _path_exists(token: str) -> bool:
    token = token.rstrip(".,")
    for source, target in INSTALLED_AS.items():
        token = token.replace(source, target)
    # a module named by its path without `.py` (`tests/integration/test_under_fire`) counts as that file
    return all(any(REPO.glob(path.rstrip("/"))) if "*" in path
               else (REPO / path).exists() or (REPO / f"{path}.py").is_file() for path in _expand(token))


def _named_file_exists(name: str) -> bool:
    """A bare file name ending in .py or .md names a file somewhere in the repository (by its name)."""
    if name in SPEC_DOCUMENTS or (REPO / name).exists():
        return True
    rooms = (REPO / room for room in ROOMS)
    return any(next(room.rglob(name), None) is not None for room in rooms)


def _checked_path(token: str) -> bool:
    first = token.split("/", 1)[0]
    return first in ROOMS or token in ROOT_FILES or ("/" not in token and token.endswith((".md", ".py")))


def missing_paths() -> list[str]:
    misses = []
    for where, number, line in _texts():
        for found in PATH.findall(line):
            token = found.rstrip(".,")
            if not _checked_path(token) or "<" in token:
                continue
            exists = _named_file_exists(token) if "/" not in token else _path_exists(token)
            if not exists:
                misses.append(f"{where}:{number}: {token}")
    return misses


def _avro_names() -> set[str]:
    """Record full names (one `.avsc` per record, file name = full name) and the logical types they use."""
    schemas = sorted((REPO / "schemas_avro").glob("*.avsc"))
    logical = {m for p in schemas for m in re.findall(r'"logicalType":\s*"([^"]+)"', p.read_text(encoding="utf-8"))}
    return {p.stem for p in schemas} | logical


def _topic_names() -> set[str]:
    return {spec.name for spec in ALL_TOPICS}


def _resolves(dotted: str) -> bool:
    """`package.module.Symbol.attribute`: the longest importable module, then attributes from it."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def missing_symbols() -> list[str]:
    known = _avro_names() | _topic_names() | NOT_PYTHON
    misses = []
    for where, number, line in _texts():
        for dotted in DOTTED.findall(line):
            if dotted not in known and not MUTANT.search(dotted) and not _resolves(dotted):
                misses.append(f"{where}:{number}: {dotted}")
    return misses


def test_every_path_named_in_the_docs_and_docstrings_exists() -> None:
    misses = missing_paths()
    assert not misses, f"{len(misses)} path(s) named but not in the repository:\n" + "\n".join(misses)


def test_every_module_and_symbol_named_in_the_docs_and_docstrings_exists() -> None:
    misses = missing_symbols()
    assert not misses, f"{len(misses)} name(s) that do not import:\n" + "\n".join(misses)


# ------------------------------------------------------------------ module maps
MAP_ENTRY = re.compile(r"^( {4,})([a-z_][a-z0-9_]*/?(?:, [a-z_][a-z0-9_]*)*)(?: {2,}\S.*)?$")


def map_entries(package: Path) -> list[tuple[Path, str]]:
    """(directory, name) of every entry of the map in `package/__init__.py`: `name  description` lines indented
    4 spaces or more; an entry `sub/` opens the map of that sub-package for the lines indented under it."""
    docstring = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")), clean=False)
    entries: list[tuple[Path, str]] = []
    rooms: list[tuple[int, Path]] = [(0, package)]
    for line in (docstring or "").splitlines():
        match = MAP_ENTRY.match(line)
        if not match:
            continue
        indent = len(match.group(1))
        while len(rooms) > 1 and indent <= rooms[-1][0]:
            rooms.pop()
        for name in match.group(2).split(", "):
            entries.append((rooms[-1][1], name.rstrip("/")))
            if name.endswith("/"):
                rooms.append((indent, rooms[-1][1] / name.rstrip("/")))
    return entries


def _modules(directory: Path) -> set[str]:
    names = {p.stem for p in directory.glob("*.py") if p.stem not in ("__init__", "__main__")}
    return names | {p.name for p in directory.iterdir() if (p / "__init__.py").is_file()}


def _map_text(directory: Path) -> str:
    """The docstrings of a package's own `__init__` and of every enclosing package (a parent may map a child)."""
    texts = []
    for folder in (directory, *directory.parents):
        if not (folder / "__init__.py").is_file():
            break
        texts.append(ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))) or "")
    return "\n".join(texts)


def unmapped_modules(root: str) -> list[str]:
    """Modules (and sub-packages) of `root` that neither their package's map nor an enclosing one names."""
    mapped = {(directory, name) for package in _packages(root) for directory, name in map_entries(package)}
    misses = []
    for package in _packages(root):
        text = _map_text(package)
        for name in sorted(_modules(package)):
            if (package, name) not in mapped and not re.search(rf"(?<![\w.]){name}(?!\w)", text):
                misses.append(f"{(package / name).relative_to(REPO)}")
    return misses


def _packages(root: str) -> list[Path]:
    return sorted(p.parent for p in (REPO / root).rglob("__init__.py") if "__pycache__" not in p.parts)


def mapped_but_absent(root: str) -> list[str]:
    misses = []
    for package in _packages(root):
        for directory, name in map_entries(package):
            if not ((directory / f"{name}.py").is_file() or (directory / name / "__init__.py").is_file()):
                misses.append(f"{(package / '__init__.py').relative_to(REPO)}: {(directory / name).relative_to(REPO)}")
    return misses


@pytest.mark.parametrize("root", PACKAGES)
def test_the_module_maps_name_every_module(root: str) -> None:
    misses = unmapped_modules(root)
    assert not misses, f"{len(misses)} module(s) of {root}/ missing from its maps:\n" + "\n".join(misses)


@pytest.mark.parametrize("root", PACKAGES)
def test_every_module_a_map_names_exists(root: str) -> None:
    misses = mapped_but_absent(root)
    assert not misses, f"{len(misses)} map entr(y/ies) of {root}/ with no module:\n" + "\n".join(misses)


# ------------------------------------------------------------------ the checkers catch what they must
def test_the_map_parser_reads_nested_entries_and_comma_lists(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text('"""Doc.\n\n    a           one\n    sub/        two\n'
                                          '        b       three\n    c, d\n                continued text\n"""\n')
    assert map_entries(tmp_path) == [(tmp_path, "a"), (tmp_path, "sub"), (tmp_path / "sub", "b"),
                                     (tmp_path, "c"), (tmp_path, "d")]


@pytest.mark.parametrize(("line", "found"), [
    ("see `streams/kafka/input_order.py` and DESIGN.md", ["streams/kafka/input_order.py", "DESIGN.md"]),
    ("projections/memories/{session,pattern}_memory.py", ["projections/memories/{session,pattern}_memory.py"]),
    ("http://127.0.0.1:8080/docs and `/openapi.json`", []),
])
def test_the_path_pattern_finds_repository_paths(line: str, found: list[str]) -> None:
    assert [t for t in PATH.findall(line) if _checked_path(t.rstrip(".,"))] == found


def test_a_missing_path_and_a_missing_symbol_are_reported() -> None:
    assert not _path_exists("streams/no_such_module.py")
    assert not _named_file_exists("DESIGN.md")
    assert _path_exists("projections/memories/{session,pattern}_memory.py")
    assert _path_exists("streams/wire/schemas/omega.events.Alert.avsc")
    assert not _resolves("omega.packets.no_such_function")
    assert not _resolves("omega.no_such_module")
    assert _resolves("omega.packets.validator.evolve")
    assert json.dumps(sorted(_avro_names() & {"omega.events.Alert"})) == '["omega.events.Alert"]'


# ------------------------------------------------------------------ the front page and the site (issue 44, item 7)
def test_the_readme_is_a_front_page_of_at_most_250_lines() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## The two commands", "## Live in five commands", "## Where to go next"]


def test_every_page_the_readme_sends_a_reader_to_exists_and_every_docs_page_is_listed() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([^)#]+)\)", text))
    assert all((REPO / target).is_file() for target in linked), sorted(t for t in linked if not (REPO / t).is_file())
    pages = {str(p.relative_to(REPO)) for p in (REPO / "docs").rglob("*.md")} - {"docs/index.md"}
    assert pages <= linked, sorted(pages - linked)


def test_make_test_builds_the_docs_site_strictly() -> None:
    script = (REPO / "scripts" / "run-tests.sh").read_text(encoding="utf-8")
    assert "mkdocs build --strict" in script
    dev = (REPO / "pyproject.toml").read_text(encoding="utf-8").split("\ndev = [", 1)[1].split("\n]", 1)[0]
    assert '"mkdocs>=' in dev  # so `make venv` installs it from a fresh clone
