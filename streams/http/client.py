"""One OpenAI-compatible chat-completions client on httpx, shared by the fact extractor's LLM and the judge.

A POST to `{base_url}/chat/completions` with a bounded timeout, retried with exponential backoff on 429, 5xx,
connection errors and timeouts (a `Retry-After` header, in seconds or as an HTTP date, wins over the backoff;
both are capped), up to a bounded number of attempts; then, or at once for any other failure, it raises
ChatCompletionError. The sleep is injected so that tests do not wait; nothing reads the wall clock.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

DEFAULT_TIMEOUT_SECONDS = 30.0
RETRYABLE_NETWORK_ERRORS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)


class ChatCompletionError(RuntimeError):
    """The provider could not give a completion; `status` is the last HTTP status, if there was a response."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class RetryPolicy:
    """How many times to retry after the first attempt and how long to wait between attempts."""

    retries: int = 3
    base_seconds: float = 0.5
    cap_seconds: float = 30.0
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        if self.retries < 0 or self.base_seconds < 0 or self.cap_seconds < 0:
            raise ValueError(f"retries and waits must not be negative: {self}")

    def backoff(self, retry: int) -> float:
        """The wait before retry number `retry` (0 for the first): base * 2^retry, capped."""
        return min(self.cap_seconds, self.base_seconds * 2.0**retry)

    def wait(self, retry: int, headers: Mapping[str, str] | None = None) -> float:
        """The wait before retry `retry`: the response's `Retry-After` when it is readable, else the backoff."""
        asked = retry_after_seconds(headers.get("Retry-After"), headers.get("Date")) if headers else None
        return self.backoff(retry) if asked is None else min(self.cap_seconds, asked)


def retry_after_seconds(retry_after: str | None, date: str | None) -> float | None:
    """The seconds a `Retry-After` asks for, never negative: delay-seconds, or an HTTP date less the response's
    `Date`; None when absent or unreadable (the caller then backs off)."""
    if retry_after is None:
        return None
    try:
        seconds = float(retry_after.strip())
    except ValueError:
        # Measured against the server's own `Date`, not our clock: no wall-clock read, and no clock skew.
        when, now = _http_date(retry_after), _http_date(date)
        if when is None or now is None:
            return None
        seconds = (when - now).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _http_date(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError):
        return None
    # An HTTP date is GMT by definition; a zone-less one must still compare with an aware one.
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def is_retryable(status: int) -> bool:
    """Whether an HTTP status is worth another attempt: rate limited or a server-side failure."""
    return status == 429 or 500 <= status <= 599


@dataclass(frozen=True)
class ChatClient:
    """POSTs chat completions to `{base_url}/chat/completions`; `api_key` goes in a Bearer header when set."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    transport: httpx.BaseTransport | None = None

    def chat(self, messages: Sequence[Mapping[str, str]], **params: object) -> object:
        """The content of the first choice for `messages`; `params` (temperature, seed, ...) join the body."""
        return self.post({"model": self.model, "messages": [dict(m) for m in messages], **params})

    def post(self, body: Mapping[str, object]) -> object:
        """POST a whole request body; the content of the first choice (of any JSON type) or ChatCompletionError."""
        payload = self._payload(body)
        try:
            return payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ChatCompletionError("the response has no choices[0].message.content") from exc

    def _payload(self, body: Mapping[str, object]) -> Any:
        if not self.base_url.startswith(("http://", "https://")):
            raise ChatCompletionError(f"not an http(s) URL: {self.base_url}")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        url = self.base_url.rstrip("/") + "/chat/completions"
        attempts = self.retry.retries + 1
        with httpx.Client(transport=self.transport, timeout=self.timeout_seconds) as http:
            for attempt in range(1, attempts + 1):
                after = "" if attempt == 1 else f" after {attempt} attempts"
                try:
                    response = http.post(url, json=dict(body), headers=headers)
                except RETRYABLE_NETWORK_ERRORS as exc:
                    if attempt == attempts:
                        raise ChatCompletionError(f"cannot reach {self.base_url}{after}: {_describe(exc)}") from exc
                    self.retry.sleep(self.retry.wait(attempt - 1))
                    continue
                except httpx.HTTPError as exc:
                    raise ChatCompletionError(f"cannot reach {self.base_url}: {_describe(exc)}") from exc
                if response.is_success:
                    try:
                        return response.json()
                    except ValueError as exc:
                        raise ChatCompletionError(f"the response is not JSON: {exc}") from exc
                if not is_retryable(response.status_code) or attempt == attempts:
                    raise ChatCompletionError(
                        f"HTTP {response.status_code} from {self.base_url}{after}", response.status_code)
                self.retry.sleep(self.retry.wait(attempt - 1, response.headers))
        raise AssertionError("unreachable: the last attempt returns or raises")


def _describe(exc: Exception) -> str:
    # httpx timeouts often carry an empty message: the type name is then all there is to say.
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
