"""§3 provider-agnostic extraction: the `complete(prompt, options)` client protocol, an LLM-backed extractor
that only builds the prompt and parses JSON (validation happens outside), and the default deterministic
rule-based extractor for the declared vocabulary (sentence templates, one per predicate).

Choice: rule templates match a sentence from its start (after an optional leading clause ending in a comma);
the span is the whole sentence; a negation word before the verb sets polarity `negate`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict

from omega.answers.model import Chunk
from omega.answers.text import canonical_entity
from omega.answers.vocabulary import Vocabulary


class CompletionOptions(TypedDict, total=False):
    """§3 options: deterministic settings when possible (temperature 0, fixed model and seed)."""

    model: str
    temperature: float
    seed: int
    responseFormat: str
    maxTokens: int


@dataclass(frozen=True)
class Completion:
    """What a client returns: the raw content string (parsing happens outside)."""

    content: str


class LLMClient(Protocol):
    """§3: any provider implements `complete`; it returns content or raises."""

    def complete(self, prompt: str, options: CompletionOptions | None = None) -> Completion:
        """Complete `prompt` with `options`."""
        ...


@dataclass(frozen=True)
class Unparseable:
    """Extractor output that is not a JSON list of facts; the validator rejects it as UNPARSEABLE."""

    raw: str
    error: str


Extractor = Callable[[Chunk, Vocabulary], list[Any]]
DETERMINISTIC: CompletionOptions = {"temperature": 0.0, "seed": 7, "responseFormat": "json"}

_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+(?:[.!?]+|$)")
_NP = r"(?:the |a |an )?[A-Za-z][\w-]*(?: [A-Za-z][\w-]*){0,4}?"
_SUBJ = rf"^(?:[^,]*, )?(?P<subject>{_NP})"
_OBJ = r"(?P<object>(?:the |a |an )?[A-Za-z][\w-]*(?: [A-Za-z][\w-]*){0,3}?)(?=[.,;!?]|$| and | when | for )"
_DUR = r"(?P<object>\d+(?:\.\d+)? ?(?:seconds?|minutes?|hours?|days?|weeks?))"
_TS = r"(?P<object>\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d\d:\d\d)?)?)"
_DO_NOT = r"(?P<neg>(?:do|does|did) not |don't |doesn't |never |cannot )?"
_BE_NOT = r"(?:is|are|was|were)(?P<neg> not| never)?"
TEMPLATES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((p, re.compile(rx, re.IGNORECASE)) for p, rx in (
    ("expires_after", rf"{_SUBJ} {_DO_NOT}expires? after {_DUR}"),
    ("valid_for", rf"{_SUBJ} {_BE_NOT} valid for {_DUR}"),
    ("created_at", rf"{_SUBJ} {_BE_NOT} created (?:at|on) {_TS}"),
    ("requires", rf"{_SUBJ} {_DO_NOT}requires? {_OBJ}"),
    ("contains", rf"{_SUBJ} {_DO_NOT}contains? {_OBJ}"),
    ("part_of", rf"{_SUBJ} {_BE_NOT} (?:a )?part of {_OBJ}"),
    ("has_type", rf"{_SUBJ} {_BE_NOT} of type (?P<object>[\w-]+)"),
    ("has_status", rf"^(?:[^,]*, )?the status of (?P<subject>{_NP}) {_BE_NOT} (?P<object>[\w-]+)"),
    ("has_value", rf"^(?:[^,]*, )?the value of (?P<subject>{_NP}) {_BE_NOT} (?P<object>-?[\w.]+?)(?=[.,;]?$|[,;] )"),
))
ENTITY_OBJECTS = frozenset({"requires", "contains", "part_of"})


def _object(predicate: str, text: str) -> str | int | float:
    if predicate in ENTITY_OBJECTS:
        return canonical_entity(text)
    if predicate == "has_value" and re.fullmatch(r"-?\d+", text):
        return int(text)
    if predicate == "has_value" and re.fullmatch(r"-?\d+\.\d+", text):
        return float(text)
    return text.lower() if predicate in {"has_type", "has_status"} else text


def rule_extract(chunk: Chunk, vocabulary: Vocabulary) -> list[Any]:
    """Candidates for every template of a vocabulary predicate that matches a sentence of the chunk."""
    out: list[Any] = []
    for sentence in _SENTENCE.finditer(chunk.text):
        text = sentence.group(0).strip()
        start = sentence.start() + (len(sentence.group(0)) - len(sentence.group(0).lstrip()))
        for predicate, pattern in TEMPLATES:
            match = pattern.search(text)
            if predicate not in vocabulary or match is None:
                continue
            out.append({
                "span": {"start": start, "end": start + len(text)},
                "subject": canonical_entity(match.group("subject")),
                "predicate": predicate,
                "object": _object(predicate, match.group("object")),
                "source": {"docId": chunk.doc_id, "chunkId": chunk.chunk_id},
                "polarity": "negate" if match.group("neg") else "affirm",
            })
    return out


def extraction_prompt(chunk: Chunk, vocabulary: Vocabulary) -> str:
    """The extraction prompt: the vocabulary, the §4.1 schema and the chunk text; asks for a JSON array."""
    predicates = "\n".join(f"- {name}: ({a}, {b})" for name, (a, b) in sorted(vocabulary.items()))
    return (
        "Extract facts from the text. Answer with a JSON array only. Each fact is an object with keys "
        '"span" {"start","end"} (character offsets into the text), "subject" (lower snake_case entity), '
        '"predicate", "object" (string, number or boolean), "polarity" ("affirm" or "negate").\n'
        f"Use only these predicates (argument types):\n{predicates}\n\nText:\n{chunk.text}\n"
    )


def parse_facts(content: str) -> list[Any]:
    """Content -> candidate list (a JSON array, or an object with a `facts` array); else one Unparseable."""
    try:
        value = json.loads(content)
    except ValueError as exc:
        return [Unparseable(content, f"not JSON: {exc}")]
    if isinstance(value, dict) and isinstance(value.get("facts"), list):
        value = value["facts"]
    if not isinstance(value, list):
        return [Unparseable(content, "expected a JSON array of facts")]
    return value


def llm_extractor(client: LLMClient, options: CompletionOptions | None = None) -> Extractor:
    """An extractor calling `client.complete` with deterministic options; the chunk's source is filled in."""
    settings: CompletionOptions = {**DETERMINISTIC, **(options or {})}

    def extract(chunk: Chunk, vocabulary: Vocabulary) -> list[Any]:
        content = client.complete(extraction_prompt(chunk, vocabulary), settings).content
        candidates = parse_facts(content)
        for candidate in candidates:
            if isinstance(candidate, dict) and "source" not in candidate:
                candidate["source"] = {"docId": chunk.doc_id, "chunkId": chunk.chunk_id}
        return candidates

    return extract
