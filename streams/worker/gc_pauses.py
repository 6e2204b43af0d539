"""Garbage collection kept out of the latency tail (issue 24).

Measured (BENCHMARKS.md, issue 24): at half the capacity of two workers, the half-seconds whose p99 exceeded
100 ms came every ~8 s, each a full (generation 2) collection of 58-174 ms in each worker. A full collection scans
every tracked object: the app's start-up objects and the tables' state (ledgers, judgements, decoded caches), which
only grows; reference counting, not the cyclic collector, frees what the worker replaces.

So what survived a full collection is frozen (`gc.freeze()`: moved where the collector never scans), at start-up
and after each full collection, and the next full collection scans only what is new since. Reference counting
still frees frozen objects; only cyclic garbage among them would wait, so every REFREEZE_SECONDS the frozen
objects are handed back (`gc.unfreeze()`) for one whole collection: one long pause per period instead of one
every few seconds.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

REFREEZE_SECONDS = 600.0


class GcPauses:
    """Freezes what survived the last full collection, from the event loop (`tick`), never inside the collector."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, refreeze_seconds: float = REFREEZE_SECONDS) -> None:
        self.clock, self.refreeze_seconds = clock, refreeze_seconds
        self.full_collected = False
        self.handed_back_at = clock()

    def install(self) -> None:
        """Freeze what start-up built, and watch for full collections."""
        gc.collect()
        gc.freeze()
        gc.callbacks.append(self.on_gc)

    def uninstall(self) -> None:
        """Stop watching and hand every frozen object back to the collector."""
        if self.on_gc in gc.callbacks:
            gc.callbacks.remove(self.on_gc)
        gc.unfreeze()

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        """gc callback: note a finished full collection (acted on in `tick`, outside the collector)."""
        if phase == "stop" and info.get("generation") == 2:
            self.full_collected = True

    def tick(self) -> None:
        """After a full collection: freeze its survivors, or, once a period, hand them all back instead."""
        if not self.full_collected:
            return
        self.full_collected = False
        if self.clock() - self.handed_back_at >= self.refreeze_seconds:
            self.handed_back_at = self.clock()
            gc.unfreeze()  # the next full collection scans everything once, cyclic garbage included
        else:
            gc.freeze()
