"""Deterministic hostile input for every input topic: malformed events of every category, and a few valid ones.

`malformed(topic, count, seed)` yields `Hostile` events cycling through the topic's categories: random bytes,
truncated Avro (every length class), Avro with an unknown fingerprint, valid framing around a garbage body,
Avro of another schema, JSON that is not an object, nesting deeper than the limit, invalid UTF-8 (and lone
surrogates), 10 MB payloads, payloads just under the size limit with a huge field, a wrong-typed value in every
field of the input (walked from the Avro schema for packets, from a valid example for the other JSON inputs),
null and empty values, and huge keys. Every one of them must become at least one dead letter with a reason.

`valid(topic)` is the known good traffic interleaved with it. Keys of JSON events that parse as objects are the
example's corpus, so a stage that re-publishes records keyed otherwise (questions, grounding) does not: the dead
letter then carries the very position the event was produced at.
"""

from __future__ import annotations

import io
import itertools
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import fastavro
import yaml

from streams.stages.base import MAX_JSON_DEPTH
from streams.topics import (
    AGENT_MESSAGES_RAW,
    DOCUMENTS,
    GROUNDING_FACTS,
    GROUNDING_REQUESTS,
    INPUTS,
    ORACLE_REQUESTS,
    PACKETS,
    PACKETS_JSON,
    QUESTIONS,
    TopicSpec,
)
from streams.wire.codec import HEADER_SIZE, MARKER, SchemaRegistry
from streams.wire.omen_avro import PACKET_SCHEMA, PacketConverter
from tests.factories import packet as factory_packet
from tests.hostile_fields import json_field_mutants, packet_field_mutants, set_path

DATA = Path(__file__).resolve().parent / "data"
TEN_MB = 10 * 1024 * 1024
DEFAULT_MAX_EVENT_BYTES = 1_048_576
EPOCH = "1970-01-01T00:00:00+00:00"


@dataclass(frozen=True)
class Hostile:
    """One malformed event: its topic, category (for the summary), key and value (None: a Kafka null)."""

    topic: TopicSpec
    category: str
    key: bytes | None
    value: bytes | None


# ------------------------------------------------------------------------------------------- valid traffic
def _oracle_case(n: int) -> dict[str, Any]:
    return {"id": f"Q-HOSTILE-{n:04d}", "category": "precision",
            "candidate_output": "The reactor core temperature is 350 degrees Celsius.",
            "expected": {"contradiction_ids": [], "expected_props": ["reactor", "temperature", "350"],
                         "max_unsupported_claims": "CONFIG:UNSUPPORTED_MAX", "must_find": ["reactor core"],
                         "must_not_find": [], "notes": "matches the fact", "verdict": "PASS"},
            "input": {"constraints": ["use only provided facts"], "context": "nuclear facility status report",
                      "facts": ["The reactor core temperature is 350 degrees Celsius.",
                                "Cooling system is operational."]}}


@cache
def _grounding() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / "grounding" / "coffee_cohort.json").read_text("utf-8"))
    return data


@cache
def _answers_suite() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / "answers" / "suite.json").read_text("utf-8"))
    return data


@cache
def _session_messages() -> list[dict[str, Any]]:
    text = (DATA / "omega57" / "clean_success.yaml").read_text("utf-8")
    return [d for d in yaml.safe_load_all(text) if d is not None]


def valid_json(topic: TopicSpec) -> list[tuple[bytes, dict[str, Any]]]:
    """The known good JSON inputs of a JSON topic, as (key, object)."""
    if topic is PACKETS_JSON:
        return [(f"corr_ep{90000 + n:05d}".encode(), factory_packet(n % 3, 90000 + n,
                 ("ObservationPacket", "BeliefUpdatePacket", "DecisionPacket")[n % 3])) for n in range(12)]
    if topic is ORACLE_REQUESTS:
        return [(f"Q-HOSTILE-{n:04d}".encode(), _oracle_case(n)) for n in range(12)]
    if topic is DOCUMENTS:
        return [(d["docId"].encode(), d) for d in _answers_suite()["corpus"]]
    if topic is QUESTIONS:
        return [(b"default", {"id": q["id"], "question": q["question"], **({"plan": q["plan"]} if "plan" in q else {})})
                for q in _answers_suite()["questions"]]
    if topic is GROUNDING_FACTS:
        return [(b"hostile", {**f, "corpus": "hostile"}) for f in _grounding()["facts"]]
    if topic is GROUNDING_REQUESTS:
        return [(b"hostile", {**p, "corpus": "hostile", "event_time": EPOCH}) for p in _grounding()["paragraphs"]]
    raise ValueError(f"{topic.logical} is not a JSON topic")


def valid(topic: TopicSpec, registry: SchemaRegistry) -> list[tuple[bytes, bytes]]:
    """The known good records of an input topic, as (key, value) bytes."""
    if topic is PACKETS:
        converter = PacketConverter(registry.get(PACKET_SCHEMA).parsed)
        packets = [factory_packet(n % 3, 91000 + n, ("ObservationPacket", "BeliefUpdatePacket",
                                                      "DecisionPacket")[n % 3]) for n in range(12)]
        return [(p["header"]["correlation_id"].encode(), registry.encode(PACKET_SCHEMA, converter.to_avro(p)))
                for p in packets]
    if topic is AGENT_MESSAGES_RAW:
        return [(b"hostile-valid-session", yaml.safe_dump(m, sort_keys=False).encode()) for m in _session_messages()]
    return [(key, json.dumps(obj).encode()) for key, obj in valid_json(topic)]


# ------------------------------------------------------------------------------------------- byte damage
def _avro_of(topic: TopicSpec, registry: SchemaRegistry) -> bytes:
    """A valid single-object Avro encoding to damage: the packet (packets topic) or a dead letter."""
    if topic is PACKETS:
        return valid(PACKETS, registry)[0][1]
    return registry.encode("omega.events.DeadLetter", {
        "dead_letter_id": "dl_x", "source_topic": "t", "source_partition": 0, "source_offset": 1, "source_key": None,
        "raw": b"{}", "error_class": "X", "reason": "r", "event_time": None})


def _truncations(encoded: bytes) -> list[bytes]:
    """The encoding cut at every length class: nothing, inside the marker, inside the fingerprint, the bare
    header, one body byte, the middle of the body, all but the last byte."""
    cuts = [0, 1, 2, 5, HEADER_SIZE - 1, HEADER_SIZE, HEADER_SIZE + 1, (HEADER_SIZE + len(encoded)) // 2,
            len(encoded) - 1]
    return [encoded[:c] for c in sorted(set(cuts)) if c < len(encoded)]


def _deep(depth: int, rng: random.Random) -> bytes:
    kind = rng.choice(("array", "object", "mixed", "inside"))
    if kind == "array":
        return b"[" * depth + b"]" * depth
    if kind == "object":
        return b'{"a":' * depth + b"1" + b"}" * depth
    if kind == "mixed":
        return b'{"a":[' * ((depth + 1) // 2) + b"1" + b"]}" * ((depth + 1) // 2)
    return b'{"header": ' + b"[" * depth + b"]" * depth + b"}"


def _invalid_utf8(example: bytes, rng: random.Random) -> bytes:
    bad = rng.choice((b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\x80", b"\xf8\x88\x80\x80\x80"))
    quote = example.find(b'"', 2)
    at = quote + 1 if quote > 0 else rng.randrange(len(example) + 1)
    return example[:at] + bad + example[at:]


def _lone_surrogate(obj: dict[str, Any]) -> bytes:
    """Valid JSON text whose first string field holds an escaped lone surrogate (not encodable as UTF-8)."""
    for key, value in obj.items():
        if isinstance(value, str):
            return json.dumps({**obj, key: value + "\ud800"}).encode()
    return json.dumps({**obj, "x": "\udfff"}).encode()


def _big_json(size: int, example: dict[str, Any]) -> bytes:
    """An object of about `size` bytes: the example plus one huge string field."""
    body = json.dumps(example).encode()
    pad = max(0, size - len(body) - 16)
    return body[:-1] + b', "zz_pad": "' + b"x" * pad + b'"}'


def _near_limit(topic: TopicSpec, example: dict[str, Any]) -> bytes:
    """Just under the size limit, with a huge value in a field that is checked (and may be quoted in a reason)."""
    huge = "A" * (DEFAULT_MAX_EVENT_BYTES - 4096)
    if topic is PACKETS_JSON:
        return json.dumps(set_path(example, ("header", "packet_type"), huge)).encode()
    first = next((k for k, v in example.items() if isinstance(v, str)), None)
    if first is None:
        return json.dumps({**example, "zz": huge}).encode()
    return json.dumps({**example, first: [huge]}).encode()


# --------------------------------------------------------------------------------------------- generator
# (rng, the maker's own event number) -> (category, key, value)
Maker = Callable[[random.Random, int], tuple[str, bytes | None, bytes | None]]


def _categories(topic: TopicSpec, registry: SchemaRegistry) -> list[Maker]:
    """The makers of one topic, each giving (category, key, value)."""
    encoded = _avro_of(topic, registry)
    truncated = _truncations(encoded)
    fingerprint = encoded[2:HEADER_SIZE]
    body = encoded[HEADER_SIZE:]
    if topic in (PACKETS, AGENT_MESSAGES_RAW):
        example_obj: dict[str, Any] = {"message": _session_messages()[0]} if topic is AGENT_MESSAGES_RAW \
            else factory_packet(0, 1)
        example_key = b"hostile"
    else:
        example_key, example_obj = valid_json(topic)[0]
        if topic in (QUESTIONS, GROUNDING_FACTS, GROUNDING_REQUESTS, DOCUMENTS):
            example_key = str(example_obj.get("corpus", "default")).encode()
    example = json.dumps(example_obj).encode()
    if topic is AGENT_MESSAGES_RAW:
        example = yaml.safe_dump(example_obj, sort_keys=False).encode()
    if topic is PACKETS:
        mutants: list[tuple[str, Any]] = []
    elif topic is PACKETS_JSON:
        mutants = packet_field_mutants(registry)
    else:
        mutants = json_field_mutants(topic, example_obj)
    bad_json_text = _packet_with_bad_json_text(registry) if topic is PACKETS else b""
    serialize: Callable[[Any], bytes] = (
        (lambda o: yaml.safe_dump(o, sort_keys=False).encode()) if topic is AGENT_MESSAGES_RAW
        else (lambda o: json.dumps(o).encode()))

    sessions = itertools.count()

    def key_for(_: int) -> bytes:
        # the monitor keeps state per session: one session per malformed event keeps every state small
        return f"hx-{next(sessions)}".encode() if topic is AGENT_MESSAGES_RAW else example_key

    def random_bytes(rng: random.Random, n: int) -> tuple[str, bytes | None, bytes | None]:
        size = rng.choice((1, 3, 7, 16, 100, 1000, 4096))
        return "random_bytes", key_for(n), b"\xff" + rng.randbytes(size)  # 0xff: never UTF-8, never the marker

    def truncated_avro(rng: random.Random, n: int) -> tuple[str, bytes | None, bytes | None]:
        cut = truncated[n % len(truncated)]
        return "truncated_avro", key_for(n), (cut if cut else b"\xc3")

    def unknown_fingerprint(rng: random.Random, n: int) -> tuple[str, bytes | None, bytes | None]:
        fp = rng.randbytes(8)
        return "unknown_fingerprint", key_for(n), MARKER + (fp if fp != fingerprint else b"\0" * 8) + body

    def garbage_body(rng: random.Random, n: int) -> tuple[str, bytes | None, bytes | None]:
        variant = n % 3
        if variant == 0:
            return "garbage_body", key_for(n), MARKER + fingerprint + b"\xff" * rng.randint(1, 64)
        if variant == 1:
            return "garbage_body", key_for(n), encoded + rng.randbytes(rng.randint(1, 32))  # trailing bytes
        # a huge length prefix (zig-zag varint) where the first string or bytes field starts
        return "garbage_body", key_for(n), MARKER + fingerprint + b"\xfe\xff\xff\xff\xff\xff\xff\xff\x7f"

    def other_schema(rng: random.Random, n: int) -> tuple[str, bytes | None, bytes | None]:
        # a valid dead letter: well-formed Avro of a known schema, not the one the topic carries
        return "other_schema", key_for(n), _avro_of(ORACLE_REQUESTS, registry)

    def not_an_object(rng: random.Random, n: int) -> tuple[str, bytes | None, bytes | None]:
        values = (b"[]", b"[1, 2, 3]", b'"a string"', b"42", b"-1.5e300", b"true", b"null", b"[{}]",
                  b'["header"]', json.dumps([json.loads(example)]).encode() if topic is not AGENT_MESSAGES_RAW
                  else b"- 1\n- 2\n")
        return "not_an_object", key_for(n), values[n % len(values)]

    def deep(rng: random.Random, n: int) -> tuple[str, bytes | None, bytes | None]:
        # past the limit, past Python's recursion limit, and now and then a 100,000-deep one (~0.5 MB)
        depth = 100_000 if n % 64 == 0 else rng.choice((MAX_JSON_DEPTH + 1, MAX_JSON_DEPTH * 2, 1000, 5000))
        return "deep_nesting", key_for(n), _deep(depth, rng)

    def invalid_utf8(rng: random.Random, n: int) -> tuple[str, bytes | None, bytes | None]:
        if n % 4 == 3 and topic is not PACKETS:
            return "lone_surrogate", key_for(n), _lone_surrogate(example_obj) if topic is not AGENT_MESSAGES_RAW \
                else b"message: \"\\ud800\"\n"
        return "invalid_utf8", key_for(n), _invalid_utf8(example, rng)

    wrong_types = itertools.count()

    def wrong_type(rng: random.Random, _: int) -> tuple[str, bytes | None, bytes | None]:
        n = next(wrong_types)  # several slots per cycle share one walk over the mutants
        if not mutants:  # the Avro packets topic: JSON where Avro is expected, or JSON fields that are not JSON
            if n % 2:
                return "wrong_type:json_on_avro", key_for(n), example
            return "wrong_type:json_text_not_json", key_for(n), bad_json_text
        label, mutant = mutants[n % len(mutants)]
        return label, key_for(n), serialize(mutant)

    def null_or_empty(rng: random.Random, n: int) -> tuple[str, bytes | None, bytes | None]:
        return ("null_value", key_for(n), None) if n % 2 else ("empty_value", key_for(n), b"")

    def huge_key(rng: random.Random, n: int) -> tuple[str, bytes | None, bytes | None]:
        # keys past every bound a key is cut to, and twice per topic one larger than the broker's default maximum
        size = 2_000_000 if n < 2 else (300, 1024, 5000, 20_000)[n % 4]
        return "huge_key", b"k" * size, b"\xff" + rng.randbytes(32)

    def near_limit(rng: random.Random, n: int) -> tuple[str, bytes | None, bytes | None]:
        if topic in (PACKETS, AGENT_MESSAGES_RAW):
            return "oversized", key_for(n), b"\xff" * (DEFAULT_MAX_EVENT_BYTES + 1)
        return "near_limit_huge_field", key_for(n), _near_limit(topic, example_obj)

    makers: list[Maker] = [random_bytes, truncated_avro, unknown_fingerprint, garbage_body, other_schema,
                           not_an_object, deep, invalid_utf8, null_or_empty, huge_key]
    # wrong types are the largest family: several per cycle, so every field is visited in a 10,000-event run
    makers += [wrong_type] * 6
    return [*makers, near_limit]  # the last one is used by `malformed` now and then, not in the cycle


def malformed(topic: TopicSpec, count: int, registry: SchemaRegistry, seed: int = 9,
              ten_mb: int = 2) -> Iterator[Hostile]:
    """`count` malformed events for `topic`, deterministic for a seed; `ten_mb` of them are 10 MB payloads."""
    if topic not in INPUTS:
        raise ValueError(f"{topic.logical} is not an input topic")
    rng = random.Random(f"{seed}:{topic.logical}")
    makers = _categories(topic, registry)
    near_limit = makers.pop()
    big_at = {count * (i + 1) // (ten_mb + 1) for i in range(ten_mb)}
    for n in range(count):
        if n in big_at:
            payload = (rng.randbytes(TEN_MB) if n % 2 else _big_json(TEN_MB, {"big": True}))
            yield Hostile(topic, "ten_mb", b"default" if topic is not AGENT_MESSAGES_RAW else b"hx-big", payload)
        elif n % 2500 == 1250:
            category, key, value = near_limit(rng, n)
            yield Hostile(topic, category, key, value)
        else:
            category, key, value = makers[n % len(makers)](rng, n // len(makers))  # each maker counts its own
            yield Hostile(topic, category, key, value)


def _packet_with_bad_json_text(registry: SchemaRegistry) -> bytes:
    """An Avro packet that decodes, but whose free-form JSON text (an unknown key in `extras`) is not JSON."""
    entry = registry.get(PACKET_SCHEMA)
    datum = PacketConverter(entry.parsed).to_avro(factory_packet(0, 1))
    datum["extras"] = {"x": "{not json"}
    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, entry.parsed, datum)
    return MARKER + entry.fingerprint + buffer.getvalue()


# ------------------------------------------------------------------------------------ hypothesis strategies
def wild_json() -> Any:
    """Hypothesis strategy: JSON values as a hostile producer sends them (lone surrogates, ints past 64 bits, huge
    and tiny floats, any key), nested a little."""
    from hypothesis import strategies as st

    leaves = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
              | st.text(st.characters(codec=None), max_size=20)
              | st.sampled_from(["", " ", "null", "2025-13-45T99:99:99Z", "-1", "NaN", "\u202e", "x" * 300]))
    return st.recursive(leaves, lambda children: st.lists(children, max_size=4)
                        | st.dictionaries(st.text(max_size=8), children, max_size=4), max_leaves=20)


def leaf_paths(value: Any, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every path to a value inside a JSON object (containers included), for replacing one of them."""
    paths = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            paths += leaf_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            paths += leaf_paths(item, (*path, index))
    return paths


def replaced(obj: dict[str, Any], path: tuple[str | int, ...], value: object) -> dict[str, Any]:
    """A copy of `obj` with the value at `path` replaced."""
    out: dict[str, Any] = set_path(obj, path, value)
    return out


HUGE_VALID_BYTES = 990_000  # under the default input limit (1 MiB), over what fits twice in one output


def huge_valid(topic: TopicSpec, registry: SchemaRegistry) -> list[tuple[str, bytes, bytes]]:
    """(label, key, value): valid inputs just under the size limit whose string field (an id, a text) carries most
    of the bytes, so what the stage makes of them (the field in the key and the value, in a verdict, a stored
    fact) may outgrow the producer's limit. Not malformed: the stage judges them or dead-letters their output."""
    if topic is PACKETS:
        return []
    if topic is AGENT_MESSAGES_RAW:
        message = _session_messages()[0]
        paths: list[tuple[str | int, ...]] = [("message", "summary", "confidence_basis")]
        key, obj = b"hostile-huge-session", message
    else:
        key, obj = valid_json(topic)[0]
        # their own corpus and episode: what they store must not change what the known valid traffic gives
        if topic in (QUESTIONS, GROUNDING_FACTS, GROUNDING_REQUESTS, DOCUMENTS):
            key, obj = b"hostile-huge", {**obj, "corpus": "hostile-huge"}
        if topic is PACKETS_JSON:
            obj = replaced(obj, ("header", "correlation_id"), "corr_hostile_huge")
        obj = {k: f"huge-{v}" if k in ("id", "docId", "paragraph_id") else v for k, v in obj.items()}  # own ids too
        paths = [p for p in leaf_paths(obj) if isinstance(_get(obj, p), str) and p != ("corpus",)][:4]
    out = []
    for path in paths:
        base = _serialize_like(topic, obj)
        pad = "word " * ((HUGE_VALID_BYTES - len(base)) // 5)
        value = _serialize_like(topic, replaced(obj, path, f"{_get(obj, path)} {pad}"))
        out.append((".".join(map(str, path)), key, value))
    return out


def _get(obj: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        obj = obj[step]
    return obj


def _serialize_like(topic: TopicSpec, obj: Any) -> bytes:
    return yaml.safe_dump(obj, sort_keys=False).encode() if topic is AGENT_MESSAGES_RAW else json.dumps(obj).encode()
