"""An OpenAI-compatible chat-completions client as the optional semantic entailment judge.

POST {base_url}/chat/completions with temperature 0 and a bounded timeout; the model must answer with a JSON
object {"entailed": true|false, "reason": "..."}. Anything else (network error, timeout, HTTP error, a reply
that is not that object) is "judge unavailable": the sentence stays FAIL, with the reason. Configured by
`OMEGA_JUDGE_URL`, `OMEGA_JUDGE_MODEL` and, if the server needs one, `OMEGA_JUDGE_API_KEY`.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Sequence

from omega.grounding.judge import JudgeAnswer

SYSTEM_PROMPT = (
    "You verify scientific writing. Decide whether the CLAIM is strictly entailed by the PREMISES alone: no "
    "background knowledge, no added qualifier, no stronger or wider claim, no changed number. Reply with only a "
    'JSON object: {"entailed": true or false, "reason": "<one sentence>"}.'
)


class OpenAICompatibleJudge:
    """A semantic judge behind an OpenAI-compatible `/chat/completions` endpoint."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, timeout: float = 10.0) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"the judge URL must be http(s): {base_url!r}")
        self.base_url, self.model, self.api_key, self.timeout = base_url.rstrip("/"), model, api_key, timeout
        self.name = f"{model}@{self.base_url}"

    @classmethod
    def from_env(cls) -> OpenAICompatibleJudge | None:
        """The judge `OMEGA_JUDGE_URL` names, or None when it is not set."""
        url = os.environ.get("OMEGA_JUDGE_URL")
        if not url:
            return None
        return cls(url, os.environ.get("OMEGA_JUDGE_MODEL", "gpt-4o-mini"), os.environ.get("OMEGA_JUDGE_API_KEY"),
                   float(os.environ.get("OMEGA_JUDGE_TIMEOUT", "10")))

    def entails(self, claim: str, premises: Sequence[str]) -> JudgeAnswer:
        """Ask once; never raises."""
        body = {
            "model": self.model, "temperature": 0,
            "messages": [{"role": "system", "content": SYSTEM_PROMPT},
                         {"role": "user", "content": "PREMISES:\n" + "\n".join(f"- {p}" for p in premises)
                          + f"\nCLAIM: {claim}"}],
        }
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(  # noqa: S310 - the scheme is checked to be http(s) in __init__
            f"{self.base_url}/chat/completions", json.dumps(body).encode("utf-8"), headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310 - http(s) only
                reply = json.loads(response.read().decode("utf-8"))
            return parse_reply(reply["choices"][0]["message"]["content"])
        except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:  # URLError and timeouts are OSError
            return JudgeAnswer(None, f"judge unavailable: {type(exc).__name__}: {exc}")


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
