"""Repeated client warnings are thinned: the first of each message template passes, its repeats within the
window are dropped, and the next one after the window says how many were dropped."""

from __future__ import annotations

import logging

import pytest
from aiokafka.errors import KafkaConnectionError

from streams.logs import RepeatFilter, error_text, thin_repeats


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def record(msg: str, *args: object, level: int = logging.ERROR, name: str = "aiokafka.conn") -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, msg, args, None)


def test_repeats_of_a_template_within_the_window_are_dropped_and_counted_after_it() -> None:
    clock = Clock()
    thin = RepeatFilter(window=10, clock=clock)
    template = "Unable connect to node with id %s: %s"
    assert thin.filter(record(template, 1, "refused"))
    for second in range(1, 10):
        clock.now = second
        assert not thin.filter(record(template, second % 2, "refused"))  # other arguments, same template
    clock.now = 12
    closing = record(template, 1, "refused")
    assert thin.filter(closing)
    assert closing.getMessage() == "Unable connect to node with id 1: refused [9 more like this in the last 12 s]"


def test_other_templates_levels_and_loggers_each_have_their_own_window() -> None:
    thin = RepeatFilter(window=10, clock=Clock())
    assert thin.filter(record("Unable to update metadata from %s", 1))
    assert thin.filter(record("Failed fetch messages from %s", 1))
    assert thin.filter(record("Unable to update metadata from %s", 1, level=logging.WARNING))
    assert thin.filter(record("Unable to update metadata from %s", 1, name="aiokafka.client"))
    assert not thin.filter(record("Unable to update metadata from %s", 2))


def test_info_and_debug_records_are_never_dropped() -> None:
    thin = RepeatFilter(window=10, clock=Clock())
    assert all(thin.filter(record("Worker ready", level=logging.INFO)) for _ in range(5))


def test_thin_repeats_attaches_one_filter_to_the_client_loggers_only() -> None:
    client, ours = logging.getLogger("aiokafka.test_thin"), logging.getLogger("omega.test_thin")
    thin = RepeatFilter()
    try:
        assert thin_repeats(repeat_filter=thin) is thin
        thin_repeats(repeat_filter=thin)
        assert client.filters.count(thin) == 1
        assert thin not in ours.filters
    finally:
        for name in list(logging.Logger.manager.loggerDict):
            logging.getLogger(name).removeFilter(thin)


def test_a_plain_exception_is_named_then_its_message() -> None:
    assert error_text(ValueError("bad offset")) == "ValueError: bad offset"


def test_an_aiokafka_error_that_names_itself_is_not_named_twice() -> None:
    assert error_text(KafkaConnectionError("broker gone")) == "KafkaConnectionError: broker gone"


def test_an_exception_without_a_message_is_just_its_type() -> None:
    assert error_text(TimeoutError()) == "TimeoutError"


def test_a_url_password_is_masked_in_stdlib_log_records_and_the_user_kept() -> None:
    from streams.logs import SecretMask

    rec = record("cannot reach %s", "postgresql://reader:s3cr3t@db:5432/x", level=logging.WARNING)
    assert SecretMask().filter(rec)
    assert rec.getMessage() == "cannot reach postgresql://reader:***@db:5432/x"


def test_a_url_password_is_masked_in_structlog_lines(capsys: pytest.CaptureFixture[str]) -> None:
    import structlog

    from streams.logs import configure_logging

    configure_logging("INFO")
    structlog.get_logger("t").warning("store_failed", url="https://u:pw-123@registry:8081/apis")
    err = capsys.readouterr().err
    assert "pw-123" not in err
    assert '"url": "https://u:***@registry:8081/apis"' in err
