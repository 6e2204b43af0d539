"""The OpenAI-compatible extractor client against a local HTTP server started by the test."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from omega.answers.chunking import chunk
from omega.answers.extraction import llm_extractor
from omega.answers.validation import validate_and_filter
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB
from streams.http.llm import LLMError, OpenAICompatibleClient

TEXT = "Session tokens expire after 15 minutes."
FACTS = [{"span": {"start": 0, "end": 39}, "subject": "session_token", "predicate": "expires_after",
          "object": "15 minutes", "polarity": "affirm"},
         {"span": {"start": 0, "end": 39}, "subject": "session_token", "predicate": "owned_by", "object": "x"}]


class Handler(BaseHTTPRequestHandler):
    requests: list[dict[str, Any]] = []
    status = 200
    content: str = json.dumps(FACTS)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Handler.requests.append({"path": self.path, "body": body})
        payload = json.dumps({"choices": [{"message": {"content": Handler.content}}]}).encode()
        self.send_response(Handler.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    Handler.requests, Handler.status, Handler.content = [], 200, json.dumps(FACTS)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def test_client_sends_deterministic_settings_and_returns_content(server: str) -> None:
    got = OpenAICompatibleClient(server, "m1").complete("hello")
    assert json.loads(got.content) == FACTS
    [request] = Handler.requests
    assert request["path"] == "/v1/chat/completions"
    assert (request["body"]["temperature"], request["body"]["seed"], request["body"]["model"]) == (0.0, 7, "m1")
    assert request["body"]["response_format"] == {"type": "json_object"}


def test_llm_extraction_is_validated_outside_the_client(server: str) -> None:
    piece = chunk(TEXT, "d", "v1")[0]
    facts, rejections = validate_and_filter(llm_extractor(OpenAICompatibleClient(server))(piece, VOCAB), piece, VOCAB)
    assert [f.predicate for f in facts] == ["expires_after"]
    assert [r.reasons[0][0] for r in rejections] == ["UNKNOWN_PREDICATE"]


def test_unparseable_content_is_rejected_not_raised(server: str) -> None:
    Handler.content = "Sure! Here are the facts"
    piece = chunk(TEXT, "d")[0]
    _, rejections = validate_and_filter(llm_extractor(OpenAICompatibleClient(server))(piece, VOCAB), piece, VOCAB)
    assert rejections[0].reasons[0][0] == "UNPARSEABLE"


def test_http_errors_and_unreachable_servers_raise_llm_error(server: str) -> None:
    Handler.status = 500
    with pytest.raises(LLMError, match="HTTP 500"):
        OpenAICompatibleClient(server).complete("x")
    with pytest.raises(LLMError, match="cannot reach"):
        OpenAICompatibleClient("http://127.0.0.1:9/v1", timeout_seconds=1).complete("x")
    with pytest.raises(LLMError, match="not an http"):
        OpenAICompatibleClient("file:///etc/passwd").complete("x")
