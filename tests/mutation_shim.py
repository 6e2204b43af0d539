"""A pytest plugin for mutation runs only (`scripts/mutation.sh` loads it through [tool.mutmut]).

- mutmut 3.7, the newest whose click requirement faust-streaming accepts, reads `item._nodeid`, which pytest 9 no
  longer has: aliased to `nodeid`.
- mutmut forks each mutant's run from a process that has already run the tests, so memoised results (functools
  caches, the grounding analyses) would answer for the mutated code and hide it: every session starts with them
  empty.
"""

from __future__ import annotations

import functools
import gc
import sys

import pytest
from _pytest.nodes import Node

if not hasattr(Node, "_nodeid"):
    Node._nodeid = property(lambda self: self.nodeid)  # type: ignore[attr-defined]

MEMO_DICTS = {"omega.grounding.facts": ("_ANALYSES", "_BY_OBJECT")}


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Empty every functools cache and the known memo tables before the mutant's tests run."""
    for obj in gc.get_objects():
        if isinstance(obj, functools._lru_cache_wrapper):  # the type has no public name
            obj.cache_clear()
    for module_name, names in MEMO_DICTS.items():
        module = sys.modules.get(module_name)
        for name in names:
            memo = getattr(module, name, None)
            if isinstance(memo, dict):
                memo.clear()
