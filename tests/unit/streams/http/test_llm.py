"""The OpenAI-compatible extractor client against a scripted server (httpx.MockTransport, no socket)."""

from __future__ import annotations

import json

import httpx
import pytest

from omega.answers.chunking import chunk
from omega.answers.extraction import llm_extractor
from omega.answers.validation import validate_and_filter
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB
from streams.http.llm import LLMError, OpenAICompatibleClient
from tests.unit.streams.http.support import RecordingSleep, ScriptedServer, chat_response, no_wait

URL = "http://llm.test/v1"
TEXT = "Session tokens expire after 15 minutes."
FACTS = [{"span": {"start": 0, "end": 39}, "subject": "session_token", "predicate": "expires_after",
          "object": "15 minutes", "polarity": "affirm"},
         {"span": {"start": 0, "end": 39}, "subject": "session_token", "predicate": "owned_by", "object": "x"}]


def llm(server: ScriptedServer, model: str = "gpt-4o-mini", sleep: RecordingSleep | None = None,
        base_url: str = URL) -> OpenAICompatibleClient:
    return OpenAICompatibleClient(base_url, model, retry=no_wait(sleep or RecordingSleep()),
                                  transport=server.transport)


def test_client_sends_deterministic_settings_and_returns_content() -> None:
    server = ScriptedServer(reply=chat_response(json.dumps(FACTS)))
    got = llm(server, "m1").complete("hello")
    assert json.loads(got.content) == FACTS
    [request] = server.requests
    assert request.url.path == "/v1/chat/completions"
    [body] = server.bodies()
    assert (body["temperature"], body["seed"], body["model"]) == (0.0, 7, "m1")
    assert body["messages"] == [{"role": "user", "content": "hello"}]
    assert body["response_format"] == {"type": "json_object"}


def test_llm_extraction_is_validated_outside_the_client() -> None:
    piece = chunk(TEXT, "d", "v1")[0]
    server = ScriptedServer(reply=chat_response(json.dumps(FACTS)))
    facts, rejections = validate_and_filter(llm_extractor(llm(server))(piece, VOCAB), piece, VOCAB)
    assert [f.predicate for f in facts] == ["expires_after"]
    assert [r.reasons[0][0] for r in rejections] == ["UNKNOWN_PREDICATE"]


def test_unparseable_content_is_rejected_not_raised() -> None:
    piece = chunk(TEXT, "d")[0]
    server = ScriptedServer(reply=chat_response("Sure! Here are the facts"))
    _, rejections = validate_and_filter(llm_extractor(llm(server))(piece, VOCAB), piece, VOCAB)
    assert rejections[0].reasons[0][0] == "UNPARSEABLE"


def test_http_errors_and_unreachable_servers_raise_llm_error() -> None:
    with pytest.raises(LLMError, match="HTTP 500"):
        llm(ScriptedServer(reply=httpx.Response(500))).complete("x")
    with pytest.raises(LLMError, match="cannot reach"):
        llm(ScriptedServer(reply=httpx.ConnectError("refused"))).complete("x")
    with pytest.raises(LLMError, match="not an http"):
        llm(ScriptedServer(), base_url="file:///etc/passwd").complete("x")


def test_a_transient_failure_is_retried_before_the_extractor_sees_it() -> None:
    server, sleep = ScriptedServer(httpx.Response(429, headers={"Retry-After": "2"}),
                                   reply=chat_response(json.dumps(FACTS))), RecordingSleep()
    assert json.loads(llm(server, sleep=sleep).complete("x").content) == FACTS
    assert sleep.waits == [2.0]


def test_a_non_string_content_raises_llm_error() -> None:
    with pytest.raises(LLMError, match="not a string"):
        llm(ScriptedServer(reply=chat_response(["a"]))).complete("x")


def test_a_real_refused_connection_raises_llm_error() -> None:
    # The one real-socket case: httpx's own ConnectError must map to LLMError too.
    client = OpenAICompatibleClient("http://127.0.0.1:9/v1", timeout_seconds=1, retry=no_wait(RecordingSleep()))
    with pytest.raises(LLMError, match=r"cannot reach .* after 4 attempts"):
        client.complete("x")
