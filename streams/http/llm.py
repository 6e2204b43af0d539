"""An OpenAI-compatible chat-completions client for the §3 `complete(prompt, options)` protocol.

Deterministic settings by default (temperature 0, a fixed seed, JSON response format); the transport, its
timeout and its retries are the shared ChatClient's; any transport, HTTP or shape error is raised as LLMError
(the caller decides; parsing happens outside).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx

from omega.answers.extraction import DETERMINISTIC, Completion, CompletionOptions
from streams.http.client import DEFAULT_TIMEOUT_SECONDS, ChatClient, ChatCompletionError, RetryPolicy

# One error type for every chat-completion failure, so the CLI's `except LLMError` also covers a retried one.
LLMError = ChatCompletionError

__all__ = ["DEFAULT_TIMEOUT_SECONDS", "LLMError", "OpenAICompatibleClient", "RetryPolicy"]


@dataclass(frozen=True)
class OpenAICompatibleClient:
    """POSTs to `{base_url}/chat/completions`; `api_key` goes in a Bearer header when set."""

    base_url: str
    model: str = "gpt-4o-mini"
    api_key: str | None = None
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    transport: httpx.BaseTransport | None = None

    def request_body(self, prompt: str, options: CompletionOptions | None = None) -> dict[str, object]:
        """The JSON body for a prompt: deterministic options unless overridden."""
        opts: CompletionOptions = {**DETERMINISTIC, **(options or {})}
        body: dict[str, object] = {
            "model": opts.get("model", self.model),
            "messages": [{"role": "user", "content": prompt}],
            "temperature": opts.get("temperature", 0.0),
            "seed": opts.get("seed", 7),
        }
        if opts.get("responseFormat") == "json":
            body["response_format"] = {"type": "json_object"}
        if "maxTokens" in opts:
            body["max_tokens"] = opts["maxTokens"]
        return body

    def complete(self, prompt: str, options: CompletionOptions | None = None) -> Completion:
        """One chat completion (retried on transient failures); returns its content or raises LLMError."""
        http = ChatClient(self.base_url, self.model, self.api_key, self.timeout_seconds, self.retry, self.transport)
        content = http.post(self.request_body(prompt, options))
        if not isinstance(content, str):
            raise LLMError("choices[0].message.content is not a string")
        return Completion(content)
