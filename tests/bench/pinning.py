"""One-core pinning shared by the benchmarks, so a "one core" figure is explicitly one core's."""

from __future__ import annotations

import os


def pin_to_one_core() -> str:
    """Pin this process to one CPU (Linux) and say which; elsewhere leave it and say so."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity)"
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return f"pinned to CPU {cpu}"
