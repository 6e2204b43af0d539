"""The OpenAI-compatible semantic judge against a local HTTP server the test starts: the request it sends
(temperature 0, the claim and premises), its answers, and every failure becoming "judge unavailable"."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from omega.grounding.verdict import Evidence, Sentence, verify_sentence
from streams.http.judge import OpenAICompatibleJudge, parse_reply
from tests.unit.omega.grounding.support import TRIAL
from tests.unit.streams.fake_llm import FakeChatLLM, serving
from tests.unit.streams.http.support import RecordingSleep, ScriptedServer, chat_response, no_wait

PARAPHRASE = ("Drug A knocked systolic blood pressure back by 12 mmHg over 24 weeks in adults aged 65 or older in a "
              "randomised controlled trial. [F1]")


@pytest.fixture
def server() -> Iterator[FakeChatLLM]:
    with serving(FakeChatLLM()) as llm:
        yield llm


def test_the_judge_posts_a_deterministic_chat_completion_and_reads_the_answer(server: FakeChatLLM) -> None:
    judge = OpenAICompatibleJudge(server.url, "judge-model", api_key="k-test", timeout=5)
    answer = judge.entails("X lowered Y.", ["X reduced Y."])
    assert (answer.entailed, answer.reason) == (True, "same meaning")
    [sent] = server.requests
    assert sent["path"] == "/v1/chat/completions"
    assert sent["body"]["temperature"] == 0
    assert sent["body"]["model"] == "judge-model"
    assert "CLAIM: X lowered Y." in sent["body"]["messages"][1]["content"]
    assert sent["auth"] == "Bearer k-test"


def test_the_judge_passes_a_paraphrase_uncertain_sentence_end_to_end(server: FakeChatLLM) -> None:
    judge = OpenAICompatibleJudge(server.url, "m", timeout=5)
    verdict = verify_sentence(Sentence(1, PARAPHRASE), Evidence(frozenset({"F1"}), {"F1": TRIAL}), judge)
    assert verdict.outcome == "PASS"
    assert "same meaning" in verdict.rationale


def test_a_no_from_the_judge_keeps_the_sentence_fail(server: FakeChatLLM) -> None:
    server.reply = {"entailed": False, "reason": "adds a claim"}
    judge = OpenAICompatibleJudge(server.url, "m", timeout=5)
    verdict = verify_sentence(Sentence(1, PARAPHRASE), Evidence(frozenset({"F1"}), {"F1": TRIAL}), judge)
    assert verdict.outcome == "FAIL"
    assert "not entailed: adds a claim" in verdict.rationale


@pytest.mark.parametrize(("status", "reply", "delay", "attempts"), [
    (500, {"entailed": True}, 0.0, 2),  # server error, retried
    (200, "I think so", 0.0, 1),  # not JSON
    (200, {"entailed": "yes"}, 0.0, 1),  # not a boolean
    (200, {"entailed": True}, 1.0, 2),  # too slow for the timeout, retried
])
def test_any_failure_of_the_judge_is_unavailable_and_the_sentence_stays_fail(
    server: FakeChatLLM, status: int, reply: Any, delay: float, attempts: int
) -> None:
    server.status, server.reply, server.delay = status, reply, delay
    judge = OpenAICompatibleJudge(server.url, "m", timeout=0.3, retry=no_wait(RecordingSleep(), retries=1))
    assert judge.entails("c", ["p"]).entailed is None
    assert len(server.requests) == attempts
    verdict = verify_sentence(Sentence(1, PARAPHRASE), Evidence(frozenset({"F1"}), {"F1": TRIAL}), judge)
    assert verdict.outcome == "FAIL"
    assert "judge unavailable" in verdict.rationale


def test_an_unreachable_judge_is_unavailable() -> None:
    judge = OpenAICompatibleJudge("http://127.0.0.1:9/v1", "m", timeout=0.5, retry=no_wait(RecordingSleep()))
    answer = judge.entails("c", ["p"])
    assert answer.entailed is None
    assert answer.reason.startswith("judge unavailable: cannot reach http://127.0.0.1:9/v1 after 4 attempts")


def test_a_rate_limited_judge_waits_as_told_and_then_answers() -> None:
    server, sleep = ScriptedServer(httpx.Response(429, headers={"Retry-After": "2"}),
                                   reply=chat_response('{"entailed": false, "reason": "wider"}')), RecordingSleep()
    judge = OpenAICompatibleJudge("http://judge.test/v1", "m", retry=no_wait(sleep), transport=server.transport)
    answer = judge.entails("c", ["p"])
    assert (answer.entailed, answer.reason, sleep.waits) == (False, "wider", [2.0])


def test_a_judge_still_failing_after_the_last_attempt_is_unavailable_with_the_status() -> None:
    server, sleep = ScriptedServer(reply=httpx.Response(503)), RecordingSleep()
    judge = OpenAICompatibleJudge("http://judge.test/v1", "m", retry=no_wait(sleep), transport=server.transport)
    answer = judge.entails("c", ["p"])
    assert (answer.entailed, answer.reason) == (None, "judge unavailable: HTTP 503 from http://judge.test/v1 "
                                                      "after 4 attempts")
    assert sleep.waits == [0.5, 1.0, 2.0]


def test_a_reply_without_text_is_unavailable() -> None:
    server = ScriptedServer(reply=chat_response(None))
    judge = OpenAICompatibleJudge("http://judge.test/v1", "m", transport=server.transport)
    assert judge.entails("c", ["p"]).reason == "judge unavailable: the reply has no text"


def test_only_http_urls_are_accepted_and_the_env_configures_the_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="http"):
        OpenAICompatibleJudge("file:///etc/passwd", "m")
    monkeypatch.delenv("OMEGA_JUDGE_URL", raising=False)
    assert OpenAICompatibleJudge.from_env() is None
    monkeypatch.setenv("OMEGA_JUDGE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("OMEGA_JUDGE_MODEL", "local")
    judge = OpenAICompatibleJudge.from_env()
    assert judge is not None
    assert judge.model == "local"


def test_a_fenced_json_reply_is_read() -> None:
    assert parse_reply('```json\n{"entailed": false, "reason": "r"}\n```').entailed is False
