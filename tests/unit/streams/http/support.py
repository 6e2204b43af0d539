"""A scripted chat-completions server on httpx.MockTransport (no socket) and a sleep that only records."""

from __future__ import annotations

import json
from typing import Any

import httpx

from streams.http.client import RetryPolicy

Answer = httpx.Response | Exception


def chat_response(content: Any, status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    """A chat-completions reply whose first choice says `content`."""
    return httpx.Response(status, headers=headers, json={"choices": [{"message": {"role": "assistant",
                                                                                  "content": content}}]})


class ScriptedServer:
    """Answers each request with the next of `script` (a response, or an exception to raise as the transport),
    then with `reply` for ever; records every request as the server sees it."""

    def __init__(self, *script: Answer, reply: Answer | None = None) -> None:
        self.script, self.reply = list(script), reply or chat_response("ok")
        self.requests: list[httpx.Request] = []
        self.transport = httpx.MockTransport(self._handle)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.script.pop(0) if self.script else self.reply
        if isinstance(answer, Exception):
            raise answer
        return answer

    def bodies(self) -> list[dict[str, Any]]:
        """The JSON body of every request, in order."""
        return [json.loads(r.content) for r in self.requests]


class RecordingSleep:
    """Stands in for time.sleep: remembers each wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def no_wait(sleep: RecordingSleep, **overrides: Any) -> RetryPolicy:
    """The default retry policy with `sleep` recording instead of waiting."""
    return RetryPolicy(sleep=sleep, **overrides)
