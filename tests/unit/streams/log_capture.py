"""Capture what one module logs, at every level."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import structlog
from structlog.testing import LogCapture


@contextmanager
def captured(module: ModuleType) -> Iterator[list[dict[str, Any]]]:
    """The events `module.log` emits, at every level. A global `capture_logs` is not enough: the app's logging
    set-up caches loggers filtered at its level on first use, so an info event is lost after a test set WARNING."""
    capture = LogCapture()
    saved = module.log
    module.log = structlog.wrap_logger(None, processors=[capture],
                                       wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
    try:
        yield capture.entries
    finally:
        module.log = saved
