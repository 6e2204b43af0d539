"""An OpenAI-compatible chat-completions client for the §3 `complete(prompt, options)` protocol.

Deterministic settings by default (temperature 0, a fixed seed, JSON response format); a bounded timeout;
any transport, HTTP or shape error is raised as LLMError (the caller decides; parsing happens outside).
Stdlib only (urllib), so the worker needs no extra HTTP dependency.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass

from omega.answers.extraction import DETERMINISTIC, Completion, CompletionOptions

DEFAULT_TIMEOUT_SECONDS = 30.0


class LLMError(RuntimeError):
    """The provider could not give a completion."""


@dataclass(frozen=True)
class OpenAICompatibleClient:
    """POSTs to `{base_url}/chat/completions`; `api_key` goes in a Bearer header when set."""

    base_url: str
    model: str = "gpt-4o-mini"
    api_key: str | None = None
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS

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
        """One chat completion; returns its content or raises LLMError."""
        if not self.base_url.startswith(("http://", "https://")):
            raise LLMError(f"not an http(s) URL: {self.base_url}")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(  # noqa: S310 - the scheme is checked above
            self.base_url.rstrip("/") + "/chat/completions",
            data=json.dumps(self.request_body(prompt, options)).encode("utf-8"), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_seconds) as response:  # noqa: S310
                payload = json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            raise LLMError(f"HTTP {exc.code} from {self.base_url}") from exc
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise LLMError(f"cannot reach {self.base_url}: {exc}") from exc
        except ValueError as exc:
            raise LLMError(f"the response is not JSON: {exc}") from exc
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError("the response has no choices[0].message.content") from exc
        if not isinstance(content, str):
            raise LLMError("choices[0].message.content is not a string")
        return Completion(content)
