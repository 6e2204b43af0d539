"""A pytest plugin for mutation runs only (`scripts/mutation.sh` loads it through [tool.mutmut]).

- mutmut 3.7, the newest whose click requirement faust-streaming accepts, reads `item._nodeid`, which pytest 9 no
  longer has: aliased to `nodeid`.
- mutmut forks each mutant's run from a process that has already run the tests, so memoised results (functools
  caches, the grounding analyses) would answer for the mutated code and hide it: every session starts with them
  empty.
- For the same reason a mutant of a function that runs at import time (tables built by the module's own helpers,
  the compiled schema predicates) would never run: for the mutants of those modules (IMPORT_TIME, found by
  scanning omega/ for module-level calls), our packages and the test modules are imported afresh.
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
IMPORT_TIME = frozenset({
    "omega.agents.crossrefs", "omega.agents.roster", "omega.answers.planner", "omega.answers.rules",
    "omega.grounding.quantities", "omega.grounding.tokens", "omega.grounding.words", "omega.packets.fsm",
    "omega.packets.schema", "omega.packets.schema_compile", "omega.packets.schema_rules", "omega.records",
})
FRESH_PACKAGES = ("omega", "streams", "projections", "tests")


def _import_afresh() -> None:
    """Forget our packages and the test modules (not this plugin), so collection imports them under the mutant."""
    for name in [n for n in sys.modules if n.split(".")[0] in FRESH_PACKAGES and n != __name__]:
        del sys.modules[name]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Empty every functools cache and the known memo tables before the mutant's tests run; import afresh for a
    mutant of a module whose functions run at import time."""
    if os.environ.get("MUTANT_UNDER_TEST", "").rpartition(".")[0] in IMPORT_TIME:
        _import_afresh()
    for obj in gc.get_objects():
        if isinstance(obj, functools._lru_cache_wrapper):  # the type has no public name
            obj.cache_clear()
    for module_name, names in MEMO_DICTS.items():
        module = sys.modules.get(module_name)
        for name in names:
            memo = getattr(module, name, None)
            if isinstance(memo, dict):
                memo.clear()
