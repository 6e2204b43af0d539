"""A pytest plugin for mutation runs only (`scripts/mutation.sh` loads it through [tool.mutmut]).

- mutmut 3.7, the newest whose click requirement faust-streaming accepts, reads `item._nodeid`, which pytest 9 no
  longer has: aliased to `nodeid`.
- mutmut forks each mutant's run from a process that has already run the tests, so memoised results (functools
  caches, the grounding analyses and per-fact memos) would answer for the mutated code and hide it: every session
  starts with them empty.
- For the same reason a mutant of a function that runs at import time (tables built by the module's own helpers,
  the compiled schema predicates) would never run: for the mutants of those modules (IMPORT_TIME, found by
  scanning omega/ for module-level calls), our packages and the test modules are imported afresh.
- A test that reads the tree as text (SOURCE_READERS) reads mutmut's copy: rewritten files, every mutant's text
  inline, and only the folders it copies; it judges that copy, not the mutant: deselected from mutation runs (the
  suite runs it as always).
"""

from __future__ import annotations

import functools
import gc
import os
import sys

import pytest
from _pytest.nodes import Node

if not hasattr(Node, "_nodeid"):
    Node._nodeid = property(lambda self: self.nodeid)  # type: ignore[attr-defined]

MEMO_DICTS = {"omega.grounding.facts": ("_ANALYSES", "_BY_OBJECT")}
# module -> (its functions called at import time, "*" for all; the tests that judge what they build). mutmut picks
# a mutant's tests by the calls it saw while tests ran; calls made while a module was being imported are credited
# to whichever test was running, so these functions' mutants also run their module's own tests. Every mutant of
# these modules gets a fresh import (a function may serve both import time and run time).
IMPORT_TIME: dict[str, tuple[frozenset[str] | str, tuple[str, ...]]] = {
    "omega.agents.crossrefs": (frozenset({"_name_pattern"}), ("tests/unit/omega/agents/test_crossrefs.py",)),
    "omega.agents.roster": (frozenset({"normalise"}), ("tests/unit/omega/agents/test_roster.py",)),
    "omega.answers.planner": (frozenset({"_lookup", "_minutes", "_yes_no"}), ("tests/unit/omega/answers",)),
    "omega.answers.rules": (frozenset({"_comparison", "_inherited_requirement", "_inverse", "_transitive"}),
                            ("tests/unit/omega/answers",)),
    "omega.grounding.quantities": (frozenset({"unit_words"}), ("tests/unit/omega/grounding/test_tokens.py",)),
    "omega.grounding.tokens": (frozenset({"lemma", "lexicon", "normal", "normals"}),
                               ("tests/unit/omega/grounding/test_tokens.py",)),
    "omega.grounding.words": (frozenset({"place_mark", "word_set"}), ("tests/unit/omega/grounding/test_words.py",)),
    "omega.packets.fsm_table": (frozenset({"_after", "_outcome", "pending", "writes"}),
                                ("tests/unit/omega/packets/test_fsm.py",)),
    "omega.packets.schema": (frozenset({"_packet_rules"}), ("tests/unit/omega/packets/test_schema.py",)),
    "omega.packets.schema_compile": ("*", ("tests/unit/omega/packets/test_schema.py",
                                           "tests/unit/omega/packets/test_schema_compile.py")),
    "omega.packets.schema_rules": ("*", ("tests/unit/omega/packets/test_schema.py",
                                         "tests/unit/omega/packets/test_schema_rules.py")),
    "omega.packets.schema_vocabulary": ("*", ("tests/unit/omega/packets/test_schema.py",
                                              "tests/unit/omega/packets/test_schema_rules.py")),
    "omega.records": (frozenset({"constructor"}), ("tests/unit/omega/packets/test_validator.py",)),
}
FRESH_PACKAGES = ("omega", "streams", "projections", "tests")
# test id prefixes -> what of the tree they read as text
SOURCE_READERS = {
    "tests/unit/projections/test_live_views.py::test_the_kind_enum_holds_every_kind_the_validator_raises":
        "the alert kinds named in omega/packets/validator.py's source",
    "tests/unit/test_architecture.py::test_no_module_of_the_three_packages_is_over_400_lines": "module lengths",
    "tests/unit/test_cli_reference.py::": "the committed CLI reference page (docs/, scripts/)",
    "tests/unit/test_docs.py::test_every_path_named_in_the_docs_and_docstrings_exists": "every path the docs name",
    "tests/unit/test_docs.py::test_make_test_builds_the_docs_site_strictly": "mkdocs.yml and the site",
}


def _import_afresh() -> None:
    """Forget our packages and the test modules (not this plugin), so collection imports them under the mutant."""
    for name in [n for n in sys.modules if n.split(".")[0] in FRESH_PACKAGES and n != __name__]:
        del sys.modules[name]


def _mutant_module() -> str:
    return os.environ.get("MUTANT_UNDER_TEST", "").rpartition(".")[0]


def _mutant_function() -> str:
    """`f` of `pkg.mod.x_f__mutmut_3` (a method's mangled `xǁClassǁm` is never called at import)."""
    mangled = os.environ.get("MUTANT_UNDER_TEST", "").rpartition(".")[2].rpartition("__mutmut_")[0]
    return mangled[2:] if mangled.startswith("x_") else ""


def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """A mutant of a function that runs at import time is also judged by its module's own tests."""
    functions, tests = IMPORT_TIME.get(_mutant_module(), (frozenset(), ()))
    if functions == "*" or _mutant_function() in functions:
        args.extend(tests)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the tests that read source text (SOURCE_READERS)."""
    readers = tuple(SOURCE_READERS)
    dropped = [item for item in items if item.nodeid.startswith(readers)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if not item.nodeid.startswith(readers)]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Empty every functools cache and the known memo tables before the mutant's tests run; import afresh for a
    mutant of a module whose functions run at import time."""
    if _mutant_module() in IMPORT_TIME:
        _import_afresh()
    for obj in gc.get_objects():
        if isinstance(obj, functools._lru_cache_wrapper):  # the type has no public name
            obj.cache_clear()
        elif type(obj).__qualname__ == "ByObject" and type(obj).__module__ == "omega.grounding.memo":
            obj.clear()  # per-fact memos: a fact built at a test module's top is the same object in every mutant's run
    for module_name, names in MEMO_DICTS.items():
        module = sys.modules.get(module_name)
        for name in names:
            memo = getattr(module, name, None)
            if isinstance(memo, dict):
                memo.clear()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A mutant that breaks the import of a test module is caught: report it as a failure (mutmut reads exit code 2,
    "interrupted", as undecided)."""
    if exitstatus == pytest.ExitCode.INTERRUPTED and session.testsfailed:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
