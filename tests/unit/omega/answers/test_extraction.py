"""§3 extraction: the rule templates' object forms, the exact prompt, how the LLM extractor calls its client, and
how model output becomes candidates (or one Unparseable with the raw text and why)."""

from __future__ import annotations

from typing import Any

from omega.answers.extraction import (
    Completion,
    CompletionOptions,
    Unparseable,
    llm_extractor,
    parse_facts,
    rule_extract,
)
from omega.answers.model import Chunk
from omega.answers.vocabulary import DEFAULT_VOCABULARY as VOCAB


def _objects(text: str) -> list[tuple[str, Any]]:
    return [(c["predicate"], c["object"]) for c in rule_extract(Chunk("c", "d", None, 0, 0, text), VOCAB)]


def test_values_are_read_as_int_float_or_text_and_types_and_statuses_are_lowercased() -> None:
    assert _objects("The value of retries is 3.") == [("has_value", 3)]
    assert _objects("The value of ratio is 1.5.") == [("has_value", 1.5)]
    assert _objects("The value of mode is High.") == [("has_value", "High")]
    assert _objects("Reports are of type PDF.") == [("has_type", "pdf")]
    assert _objects("Reports are of type 42.") == [("has_type", "42")]
    assert _objects("The status of the server is ACTIVE.") == [("has_status", "active")]
    assert _objects("Session tokens expire after 15 Minutes.") == [("expires_after", "15 Minutes")]


class _Recorder:
    """A client that records its calls and answers with a fixed content."""

    def __init__(self, content: str) -> None:
        self.content = content
        self.calls: list[tuple[Any, Any]] = []

    def complete(self, prompt: str, options: CompletionOptions | None = None) -> Completion:
        self.calls.append((prompt, options))
        return Completion(self.content)


CHUNK = Chunk("doc/c0", "doc", None, 0, 0, "Admins require MFA.")
TWO = {"requires": ("entity", "entity"), "contains": ("entity", "entity")}
PROMPT = (
    "Extract facts from the text. Answer with a JSON array only. Each fact is an object with keys "
    '"span" {"start","end"} (character offsets into the text), "subject" (lower snake_case entity), '
    '"predicate", "object" (string, number or boolean), "polarity" ("affirm" or "negate").\n'
    "Use only these predicates (argument types):\n- contains: (entity, entity)\n- requires: (entity, entity)\n\n"
    "Text:\nAdmins require MFA.\n"
)


def test_the_llm_extractor_sends_the_prompt_with_deterministic_options() -> None:
    client = _Recorder("[]")
    assert llm_extractor(client)(CHUNK, TWO) == []
    assert llm_extractor(client, {"model": "m", "seed": 1})(CHUNK, TWO) == []
    assert client.calls == [
        (PROMPT, {"temperature": 0.0, "seed": 7, "responseFormat": "json"}),
        (PROMPT, {"temperature": 0.0, "seed": 1, "responseFormat": "json", "model": "m"}),
    ]


def test_the_llm_extractor_fills_a_missing_source_and_keeps_a_given_one() -> None:
    client = _Recorder('[{"subject": "admin"}, {"subject": "x", "source": {"docId": "o", "chunkId": "o/c1"}}]')
    assert llm_extractor(client)(CHUNK, TWO) == [
        {"subject": "admin", "source": {"docId": "doc", "chunkId": "doc/c0"}},
        {"subject": "x", "source": {"docId": "o", "chunkId": "o/c1"}},
    ]


def test_model_output_is_a_list_a_facts_object_or_one_unparseable_with_the_raw_text() -> None:
    assert parse_facts('{"facts": [{"subject": "a"}]}') == [{"subject": "a"}]
    assert parse_facts("42") == [Unparseable("42", "expected a JSON array of facts")]
    assert parse_facts('{"facts": 3}') == [Unparseable('{"facts": 3}', "expected a JSON array of facts")]
    [bad] = parse_facts("{not json")
    assert bad.raw == "{not json"
    assert bad.error.startswith("not JSON: Expecting property name enclosed in double quotes")
