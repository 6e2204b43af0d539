"""structlog configured for JSON lines on stderr, level from OMEGA_LOG_LEVEL; repeated client warnings thinned.

While the broker is away, aiokafka logs every reconnection attempt, metadata refresh and failed request at
WARNING or ERROR: about 3,500 lines per worker over tests/integration/test_under_fire.py's 20 s broker bounce,
which buries the lines that matter and fills disks in a long outage. `RepeatFilter` lets the first record of
each message template through, drops its repeats for a window, and then says how many it dropped.
"""

from __future__ import annotations

import logging
import re
import sys
import time
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any

import structlog

REPEAT_WINDOW_SECONDS = 10.0
THINNED_LOGGERS = ("aiokafka", "faust", "mode")  # third-party client and framework loggers; ours stay whole


# user:password@ in a URL (postgresql://u:p@host/db, https://u:p@registry): the password is never printed or logged
_URL_SECRET = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<user>[^:/@\s]*):(?P<secret>[^@/\s]+)@")


def masked(text: str) -> str:
    """The text with every password of a URL replaced by `***` (the user name kept: it says which account)."""
    return _URL_SECRET.sub(lambda m: f"{m.group('scheme')}{m.group('user')}:***@", text)


def _mask_secrets(_logger: object, _method: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """structlog processor: URL passwords masked in every string value of a log line."""
    for key, value in event.items():
        if isinstance(value, str):
            event[key] = masked(value)
    return event


class SecretMask(logging.Filter):
    """stdlib logging filter: URL passwords masked in the record's message (its arguments folded in first)."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Always passes the record, its message masked."""
        message = record.getMessage()
        if masked(message) != message:
            record.msg, record.args = masked(message), None
        return True


def configure_logging(level: str = "INFO") -> None:
    """JSON lines with ISO timestamps; ids are bound per event by the callers."""
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        numeric = logging.INFO
    logging.basicConfig(stream=sys.stderr, level=numeric, format="%(message)s")
    for handler in logging.getLogger().handlers:  # the clients' stdlib records (aiokafka, faust) are masked too
        if not any(isinstance(f, SecretMask) for f in handler.filters):
            handler.addFilter(SecretMask())
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            _mask_secrets,
            structlog.processors.JSONRenderer(sort_keys=True),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )


def error_text(exc: BaseException) -> str:
    """`Type: message` for a log field; aiokafka's errors already start their text with their type's name, so it
    is not repeated."""
    text, name = str(exc), type(exc).__name__
    if not text:
        return name
    return text if text.startswith(name) else f"{name}: {text}"


def get_logger(name: str) -> structlog.typing.FilteringBoundLogger:
    """A named structlog logger."""
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger(name)
    return logger


class RepeatFilter(logging.Filter):
    """Per (logger, level, message template): the first record passes, repeats within `window` seconds are
    dropped, and the first record after the window passes with how many were dropped appended."""

    def __init__(self, window: float = REPEAT_WINDOW_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.window, self.clock = window, clock
        self._seen: dict[tuple[str, int, str], tuple[float, int]] = {}  # -> (window start, dropped since)

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether `record` is written (one that closes a window carries the count of the dropped)."""
        if record.levelno < logging.WARNING:
            return True
        key = (record.name, record.levelno, str(record.msg))
        now = self.clock()
        seen = self._seen.get(key)
        if seen is not None and now - seen[0] < self.window:
            self._seen[key] = (seen[0], seen[1] + 1)
            return False
        self._seen[key] = (now, 0)
        if seen is not None and seen[1]:
            record.msg = f"{record.msg} [{seen[1]} more like this in the last {now - seen[0]:.0f} s]"
        return True


def thin_repeats(prefixes: Iterable[str] = THINNED_LOGGERS, repeat_filter: RepeatFilter | None = None) -> RepeatFilter:
    """Attach one `RepeatFilter` to every logger under `prefixes` created so far (call it after the imports):
    a logger's filters see only its own records, so each needs it."""
    repeat_filter = repeat_filter or RepeatFilter()
    names = [name for name in list(logging.Logger.manager.loggerDict)
             if any(name == p or name.startswith(p + ".") for p in prefixes)]
    for name in names:
        logger = logging.getLogger(name)
        if repeat_filter not in logger.filters:
            logger.addFilter(repeat_filter)
    return repeat_filter
