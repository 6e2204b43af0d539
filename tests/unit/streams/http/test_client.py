"""The shared chat-completions client on a scripted MockTransport: what the server sees, which failures are
retried and after how long (Retry-After in seconds or as an HTTP date, else exponential backoff, both capped),
and the error after the last attempt."""

from __future__ import annotations

import httpx
import pytest

from streams.http.client import ChatClient, ChatCompletionError, RetryPolicy, retry_after_seconds
from tests.unit.streams.http.support import RecordingSleep, ScriptedServer, chat_response, no_wait

URL = "http://llm.test/v1"
MESSAGES = [{"role": "user", "content": "hello"}]


def client(server: ScriptedServer, sleep: RecordingSleep, **policy: float) -> ChatClient:
    return ChatClient(URL, "m1", api_key="k-test", timeout_seconds=5.0, retry=no_wait(sleep, **policy),
                      transport=server.transport)


# ---------------------------------------------------------------------------------- the request on the wire


def test_the_server_sees_a_bearer_json_post_with_model_messages_and_params() -> None:
    server = ScriptedServer(chat_response("hi there"))
    assert client(server, RecordingSleep()).chat(MESSAGES, temperature=0, seed=7) == "hi there"
    [request] = server.requests
    assert (request.method, str(request.url)) == ("POST", "http://llm.test/v1/chat/completions")
    assert request.headers["Authorization"] == "Bearer k-test"
    assert request.headers["Content-Type"] == "application/json"
    assert server.bodies() == [{"model": "m1", "messages": [{"role": "user", "content": "hello"}],
                                "temperature": 0, "seed": 7}]
    assert request.extensions["timeout"] == {"connect": 5.0, "read": 5.0, "write": 5.0, "pool": 5.0}


def test_without_an_api_key_no_authorization_header_is_sent_and_a_trailing_slash_is_dropped() -> None:
    server = ScriptedServer()
    ChatClient(URL + "/", "m1", transport=server.transport).post({"model": "other", "messages": []})
    [request] = server.requests
    assert "Authorization" not in request.headers
    assert str(request.url) == "http://llm.test/v1/chat/completions"
    assert server.bodies() == [{"model": "other", "messages": []}]


# ---------------------------------------------------------------------------------- retries


def test_a_429_with_retry_after_2_is_retried_once_after_2_seconds() -> None:
    server, sleep = ScriptedServer(httpx.Response(429, headers={"Retry-After": "2"}), chat_response("late")), \
        RecordingSleep()
    assert client(server, sleep).chat(MESSAGES) == "late"
    assert sleep.waits == [2.0]
    assert len(server.requests) == 2


def test_a_503_every_time_fails_after_the_last_attempt_with_the_status_and_exponential_waits() -> None:
    server, sleep = ScriptedServer(reply=httpx.Response(503)), RecordingSleep()
    with pytest.raises(ChatCompletionError, match=r"^HTTP 503 from http://llm.test/v1 after 4 attempts$") as caught:
        client(server, sleep).chat(MESSAGES)
    assert caught.value.status == 503
    assert len(server.requests) == 4  # the first attempt and the default 3 retries
    assert sleep.waits == [0.5, 1.0, 2.0]  # no wait after the last attempt


def test_three_503s_with_two_retries_configured_is_three_attempts() -> None:
    server, sleep = ScriptedServer(reply=httpx.Response(503)), RecordingSleep()
    with pytest.raises(ChatCompletionError, match=r"HTTP 503 .* after 3 attempts"):
        client(server, sleep, retries=2).chat(MESSAGES)
    assert (len(server.requests), sleep.waits) == (3, [0.5, 1.0])


def test_a_5xx_then_success_returns_the_success() -> None:
    server, sleep = ScriptedServer(httpx.Response(500), httpx.Response(502), chat_response("fine")), RecordingSleep()
    assert client(server, sleep).chat(MESSAGES) == "fine"
    assert sleep.waits == [0.5, 1.0]


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_a_client_error_is_not_retried(status: int) -> None:
    server, sleep = ScriptedServer(reply=httpx.Response(status, headers={"Retry-After": "1"})), RecordingSleep()
    with pytest.raises(ChatCompletionError, match=rf"^HTTP {status} from http://llm.test/v1$"):
        client(server, sleep).chat(MESSAGES)
    assert (len(server.requests), sleep.waits) == (1, [])


@pytest.mark.parametrize("failure", [httpx.ConnectError("refused"), httpx.ReadTimeout("slow"),
                                     httpx.RemoteProtocolError("dropped")])
def test_a_connection_error_or_timeout_is_retried(failure: Exception) -> None:
    server, sleep = ScriptedServer(failure, chat_response("back")), RecordingSleep()
    assert client(server, sleep).chat(MESSAGES) == "back"
    assert (len(server.requests), sleep.waits) == (2, [0.5])


def test_a_server_never_reached_fails_after_the_last_attempt() -> None:
    server, sleep = ScriptedServer(reply=httpx.ConnectError("refused")), RecordingSleep()
    with pytest.raises(ChatCompletionError, match=r"^cannot reach http://llm.test/v1 after 4 attempts: "
                                                  r"ConnectError: refused$") as caught:
        client(server, sleep).chat(MESSAGES)
    assert caught.value.status is None
    assert sleep.waits == [0.5, 1.0, 2.0]


def test_a_retry_after_http_date_is_measured_against_the_servers_date() -> None:
    server, sleep = ScriptedServer(
        httpx.Response(503, headers={"Date": "Wed, 21 Oct 2015 07:28:00 GMT",
                                     "Retry-After": "Wed, 21 Oct 2015 07:28:07 GMT"}), chat_response("ok")), \
        RecordingSleep()
    client(server, sleep).chat(MESSAGES)
    assert sleep.waits == [7.0]


def test_a_long_retry_after_is_capped() -> None:
    server, sleep = ScriptedServer(httpx.Response(429, headers={"Retry-After": "3600"})), RecordingSleep()
    client(server, sleep).chat(MESSAGES)
    assert sleep.waits == [30.0]


# ---------------------------------------------------------------------------------- Retry-After and backoff


@pytest.mark.parametrize(("retry_after", "date", "seconds"), [
    ("2", None, 2.0),
    (" 1.5 ", None, 1.5),
    ("0", None, 0.0),
    ("-3", None, 0.0),  # never a negative wait
    ("Wed, 21 Oct 2015 07:28:10 GMT", "Wed, 21 Oct 2015 07:28:00 GMT", 10.0),
    ("Wed, 21 Oct 2015 07:27:00 GMT", "Wed, 21 Oct 2015 07:28:00 GMT", 0.0),  # already past
    ("Wed, 21 Oct 2015 07:28:10 GMT", None, None),  # no server date to measure from: back off instead
    ("soon", None, None),
    ("nan", None, None),
    (None, "Wed, 21 Oct 2015 07:28:00 GMT", None),
])
def test_retry_after_reads_seconds_or_an_http_date(retry_after: str | None, date: str | None,
                                                   seconds: float | None) -> None:
    assert retry_after_seconds(retry_after, date) == seconds


def test_an_unreadable_retry_after_falls_back_to_the_backoff() -> None:
    assert RetryPolicy().wait(2, httpx.Headers({"Retry-After": "soon"})) == 2.0


def test_the_backoff_doubles_from_the_base_up_to_the_cap() -> None:
    policy = RetryPolicy(base_seconds=10.0, cap_seconds=30.0)
    assert [policy.backoff(n) for n in range(4)] == [10.0, 20.0, 30.0, 30.0]


def test_a_negative_retry_count_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        RetryPolicy(retries=-1)


# ---------------------------------------------------------------------------------- failures that are not retried


def test_a_non_http_url_is_refused_before_any_request() -> None:
    server = ScriptedServer()
    with pytest.raises(ChatCompletionError, match="not an http"):
        ChatClient("file:///etc/passwd", "m", transport=server.transport).chat(MESSAGES)
    assert server.requests == []


@pytest.mark.parametrize(("response", "message"), [
    (httpx.Response(200, text="<html>"), "the response is not JSON"),
    (httpx.Response(200, json={"choices": []}), r"no choices\[0\].message.content"),
    (httpx.Response(200, json={"error": "x"}), r"no choices\[0\].message.content"),
])
def test_a_malformed_success_is_an_error_without_retry(response: httpx.Response, message: str) -> None:
    server, sleep = ScriptedServer(reply=response), RecordingSleep()
    with pytest.raises(ChatCompletionError, match=message):
        client(server, sleep).chat(MESSAGES)
    assert (len(server.requests), sleep.waits) == (1, [])


def test_a_non_string_content_is_returned_as_is_for_the_caller_to_judge() -> None:
    assert client(ScriptedServer(chat_response(None)), RecordingSleep()).chat(MESSAGES) is None
