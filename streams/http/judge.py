"""An OpenAI-compatible chat-completions client as the optional semantic entailment judge.

POST {base_url}/chat/completions with temperature 0, a bounded timeout and the shared client's retries; the
model must answer with a JSON object {"entailed": true|false, "reason": "..."}. Anything else (network error,
timeout, HTTP error after the last attempt, a reply that is not that object) is "judge unavailable": the
sentence stays FAIL, with the reason. Configured by `OMEGA_JUDGE_URL`, `OMEGA_JUDGE_MODEL` and, if the server
needs one, `OMEGA_JUDGE_API_KEY`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence

import httpx

from omega.grounding.judge import JudgeAnswer
from streams.http.client import ChatClient, ChatCompletionError, RetryPolicy

SYSTEM_PROMPT = (
    "You verify scientific writing. Decide whether the CLAIM is strictly entailed by the PREMISES alone: no "
    "background knowledge, no added qualifier, no stronger or wider claim, no changed number. Reply with only a "
    'JSON object: {"entailed": true or false, "reason": "<one sentence>"}.'
)


class OpenAICompatibleJudge:
    """A semantic judge behind an OpenAI-compatible `/chat/completions` endpoint."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 10.0,
                 retry: RetryPolicy | None = None, transport: httpx.BaseTransport | None = None) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"the judge URL must be http(s): {base_url!r}")
        self.base_url, self.model, self.api_key, self.timeout = base_url.rstrip("/"), model, api_key, timeout
        self.name = f"{model}@{self.base_url}"
        self.http = ChatClient(self.base_url, model, api_key, timeout, retry or RetryPolicy(), transport)

    @classmethod
    def from_env(cls) -> OpenAICompatibleJudge | None:
        """The judge `OMEGA_JUDGE_URL` names, or None when it is not set."""
        url = os.environ.get("OMEGA_JUDGE_URL")
        if not url:
            return None
        return cls(url, os.environ.get("OMEGA_JUDGE_MODEL", "gpt-4o-mini"), os.environ.get("OMEGA_JUDGE_API_KEY"),
                   float(os.environ.get("OMEGA_JUDGE_TIMEOUT", "10")))

    def entails(self, claim: str, premises: Sequence[str]) -> JudgeAnswer:
        """Ask (retrying transient failures); never raises."""
        messages = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": "PREMISES:\n" + "\n".join(f"- {p}" for p in premises)
                     + f"\nCLAIM: {claim}"}]
        try:
            return parse_reply(self.http.chat(messages, temperature=0))
        except ChatCompletionError as exc:
            return JudgeAnswer(None, f"judge unavailable: {exc}")


def parse_reply(content: object) -> JudgeAnswer:
    """The model's JSON answer; anything else is an unavailable judge."""
    if not isinstance(content, str):
        return JudgeAnswer(None, "judge unavailable: the reply has no text")
    text = content.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        answer = json.loads(text)
    except ValueError:
        return JudgeAnswer(None, f"judge unavailable: not a JSON answer: {text[:80]!r}")
    if not isinstance(answer, dict) or not isinstance(answer.get("entailed"), bool):
        return JudgeAnswer(None, f"judge unavailable: no boolean 'entailed' in {text[:80]!r}")
    return JudgeAnswer(answer["entailed"], str(answer.get("reason", "")))
