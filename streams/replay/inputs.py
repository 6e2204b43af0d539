"""Reading recorded events for embedded replay: files, directories, gzip and stdin, in log order, as `InputRecord`s
(replay/replayer.py judges them). A binary input is refused whole (InputError); an Avro container's records, a JSON
array's items, JSONL lines and one YAML session per file become one record each.

A JSONL line may also be a recorded topic record, as `omega tail --format replay` writes one that carried a
`traceparent` header: `{"topic", "key", "value", "headers"}` (an envelope). Its topic says where it entered: the
JSON ingress, the packets topic (its value the packet's JSON) or the raw agent messages; its `traceparent` is
carried to the outputs as the worker carries it (replay/replayer.py). A recorded record of any other topic is not
an input of the worker: it becomes a dead letter saying so, never a packet.
"""

from __future__ import annotations

import binascii
import codecs
import gzip
import io
import json
import re
import sys
import zlib
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

import fastavro

from omega import strictjson
from omega.bytes_json import bytes_of, jsonable
from omega.canonical import canonical_json
from streams.kafka.tracing import parent_of
from streams.stages.base import Source
from streams.topics import AGENT_MESSAGES_RAW, PACKETS, PACKETS_JSON

JSON_SUFFIXES = {".json"}
AVRO_SUFFIXES = {".avro"}
MESSAGE_SUFFIXES = {".yaml", ".yml"}
INPUT_SUFFIXES = JSON_SUFFIXES | AVRO_SUFFIXES | MESSAGE_SUFFIXES | {".jsonl"}  # what a directory contributes
STDIN = Path("-")
GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
AVRO_MAGIC = b"Obj\x01"
SNIFF_BYTES = 8192


class InputError(ValueError):
    """An input that cannot be read as events (binary, a broken gzip stream): `PATH: why`, nothing judged."""


@dataclass(frozen=True)
class InputRecord:
    """One recorded event: its position, its bytes, and which stage it enters (`json`, `single`, `avro`, `message`,
    or `refused` with the reason as `datum`); a recorded topic record also its topic and `traceparent`."""

    source: Source
    raw: bytes
    stage: str
    datum: Any = None
    schema_name: str | None = None
    topic: str | None = None  # the topic (unprefixed name) a recorded record was read from
    traceparent: str | None = None  # its valid W3C traceparent header, if it had one
    line: int | None = None  # the 1-based line of its file where it starts; None when unknown (Avro has no lines)

    def origin(self) -> Origin:
        """Where the record starts in its input, as `omega check` lines name it (`Origin`)."""
        path = "-" if self.source.topic == "stdin" else self.source.topic.removeprefix("file:")
        return Origin(path, self.line, None if self.line is not None else self.source.offset + 1)


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a recorded event starts in its input (the `source` of an `omega check` line): its file as given (`-`
    for stdin) and the 1-based line where the event starts, or, when the reader knows no line (an Avro container's
    record, an item of a JSON array it could not place), the event's 1-based number in its file as `index`."""

    file: str
    line: int | None
    index: int | None = None
    item: int | None = None  # an OMEGA-57 message that is one item of a list document: its 1-based number there

    def view(self) -> dict[str, str | int]:
        """`{"file", "line"}` (and `item` for an item of a list document), or `{"file", "index"}` when the line is
        not known."""
        view: dict[str, str | int] = {"file": self.file}
        if self.line is None:
            view["index"] = self.index if self.index is not None else 0
            return view
        view["line"] = self.line
        if self.item is not None:
            view["item"] = self.item
        return view

    def where(self) -> str:
        """`FILE:LINE` (`FILE #INDEX` without a line), as the stderr summary names a rejection."""
        if self.line is None:
            return f"{self.file} #{self.index}"
        return f"{self.file}:{self.line}" + (f" item {self.item}" if self.item is not None else "")


def input_suffix(path: Path) -> str:
    """The extension that decides the format: the one under `.gz` for a gzipped file."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        return suffixes[-2] if len(suffixes) > 1 else ""
    return suffixes[-1] if suffixes else ""


def input_stem(path: Path) -> str:
    """The name an input gives its session, wherever a file names one (replay, `check messages`, `publish`): the
    file name up to its first dot, so the parts of one recording (`run.part1.jsonl`, `run.part2.jsonl.gz`) are one
    session; `stdin` for `-`."""
    if path == STDIN:
        return "stdin"
    return path.name.split(".")[0] or path.name


@contextmanager
def gzip_checked(path: Path) -> Iterator[None]:
    """A broken gzip stream met inside, wherever it shows (header, body, end), as InputError `PATH: not a readable
    gzip file (why)`: the one wording of it for every reader of inputs."""
    try:
        yield
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise InputError(f"{path}: not a readable gzip file ({exc})") from exc


@contextmanager
def open_input(path: Path) -> Iterator[tuple[IO[bytes], str]]:
    """The input's bytes (gunzipped when gzip by extension or magic) and its format (`avro`, `json`, `message`,
    `jsonl`); InputError when it is neither an Avro container nor UTF-8 text."""
    with ExitStack() as stack:
        # stdin is read whole: it cannot rewind after the sniff
        handle: IO[bytes] = (io.BytesIO(sys.stdin.buffer.read()) if path == STDIN
                             else stack.enter_context(path.open("rb")))
        if handle.read(2) == GZIP_MAGIC:
            handle.seek(0)
            handle = cast(IO[bytes], stack.enter_context(gzip.GzipFile(fileobj=handle, mode="rb")))
        with gzip_checked(path):
            handle.seek(0)
            head = handle.read(SNIFF_BYTES)
            handle.seek(0)
            if head.startswith(UTF8_BOM):  # an editor's BOM is not part of the first record
                handle = io.BytesIO(handle.read()[len(UTF8_BOM):])
                head = head[len(UTF8_BOM):]
            kind = _input_format(path, head)
            if path == STDIN and kind == "jsonl":
                kind = _stdin_format(handle)
        yield handle, kind


def _stdin_format(handle: IO[bytes]) -> str:
    """Stdin has no extension: one JSON document (a pretty-printed packet, an array) is `json`, text that does not
    start as JSON is an OMEGA-57 YAML session (`message`), anything else JSONL."""
    raw = handle.read()
    handle.seek(0)
    start = raw.lstrip()[:1]
    if not start:
        return "jsonl"
    if start not in (b"{", b"["):
        return "message"
    try:
        strictjson.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return "jsonl"
    return "json"


def _input_format(path: Path, head: bytes) -> str:
    suffix = input_suffix(path)
    if head.startswith(AVRO_MAGIC) or (suffix in AVRO_SUFFIXES and not head):
        return "avro"
    if suffix in AVRO_SUFFIXES:
        raise InputError(f"{path}: not an Avro object container file")
    try:
        # a multi-byte character may straddle the end of the head: only a complete head must end cleanly
        codecs.getincrementaldecoder("utf-8")().decode(head, final=len(head) < SNIFF_BYTES)
        text = b"\x00" not in head
    except UnicodeDecodeError:
        text = False
    if not text:
        raise InputError(f"{path}: binary file (not gzip, an Avro container or UTF-8 text)")
    if suffix in MESSAGE_SUFFIXES:
        return "message"
    return "json" if suffix in JSON_SUFFIXES else "jsonl"


def directory_inputs(directory: Path) -> list[Path]:
    """The inputs under a directory, recursively: files with a known extension (gzipped or not), by relative path."""
    found = [p.relative_to(directory) for p in directory.rglob("*")
             if input_suffix(p) in INPUT_SUFFIXES and p.is_file()]
    return [directory / p for p in sorted(found)]


def read_input_bytes(path: Path) -> bytes:
    """An input's whole content, gunzipped; InputError when it is binary."""
    with open_input(path) as (handle, _), gzip_checked(path):
        return handle.read()


def read_inputs(paths: Iterable[Path]) -> Iterator[InputRecord]:
    """Events of JSON (one packet or an array), JSONL, or Avro object container files, and OMEGA-57 sessions
    (.yaml/.yml), gzipped or not, `-` for stdin (JSONL, one JSON document or a YAML session, detected), in log order;
    InputError on a binary input."""
    for path in paths:
        topic = "stdin" if path == STDIN else f"file:{path}"
        with open_input(path) as (handle, kind), gzip_checked(path):
            yield from _read_handle(handle, kind, path, topic)


def _read_handle(handle: IO[bytes], kind: str, path: Path, topic: str) -> Iterator[InputRecord]:
    if kind == "avro":
        if not handle.read(1):
            return
        handle.seek(0)
        reader = fastavro.reader(handle)
        writer = reader.writer_schema
        name = str(writer.get("name", "")) if isinstance(writer, dict) else ""
        for n, datum in enumerate(reader):
            # Avro doubles may hold NaN, which canonical JSON refuses: the raw text keeps it readable
            raw = json.dumps(jsonable(datum), sort_keys=True, separators=(",", ":"),
                             ensure_ascii=False).encode("utf-8")
            yield InputRecord(Source(topic, 0, n), raw, "avro", datum, name)
    elif kind in ("message", "json"):
        raw = handle.read()
        if not raw.strip():  # an empty file holds no record, not one broken record
            return
        if kind == "json":
            yield from _read_json_document(raw, topic)
        else:
            # An OMEGA-57 session recorded as one YAML stream: the file is the session, its stem the session id.
            yield InputRecord(Source(topic, 0, 0, input_stem(path).encode("utf-8")), raw, "message", line=1)
    else:
        for n, read in enumerate(handle, start=1):
            if not read.strip():
                continue
            line = read.rstrip(b"\r\n")
            # the search is cheap beside the ingress's parse: only a line that may be an envelope is parsed here
            envelope = _envelope(line, topic, n) if _ENVELOPE_HINT in line else None
            yield envelope or InputRecord(Source(topic, 0, n), line, "json", line=n)


_ENVELOPE_HINT = b'"topic"'
_ENVELOPE_KEYS = {"topic", "key", "value", "headers", "partition", "offset", "timestamp"}
_REPLAYED_TOPICS = {PACKETS_JSON.name: PACKETS_JSON, PACKETS.name: PACKETS, AGENT_MESSAGES_RAW.name: AGENT_MESSAGES_RAW}


def _envelope(line: bytes, topic: str, n: int) -> InputRecord | None:
    """A recorded topic record, or None when the line is not one (it is then read as a packet, as ever): a JSON
    object with a string `topic`, a `value`, and no key outside the envelope's (a packet has a `header`)."""
    try:
        document = strictjson.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not (isinstance(document, dict) and isinstance(document.get("topic"), str) and "value" in document
            and document.keys() <= _ENVELOPE_KEYS):
        return None
    key = document.get("key")
    headers = document.get("headers")
    source = Source(topic, 0, n, key.encode("utf-8") if isinstance(key, str) and key else None)
    traceparent = parent_of(headers) if isinstance(headers, dict) else None
    recorded = document["topic"]
    # the unprefixed name, as tail writes it; a prefixed one (OMEGA_TOPIC_PREFIX) ends with it
    spec = _REPLAYED_TOPICS.get(recorded) or next(
        (t for name, t in _REPLAYED_TOPICS.items() if recorded.endswith(name)), None)
    raw = _envelope_value(document["value"])
    if spec is None:
        reason = (f"a recorded {recorded} record: replay reads {', '.join(sorted(_REPLAYED_TOPICS))} records "
                  "(an output topic is read by `omega project --from`)")
        return InputRecord(source, line, "refused", reason, topic=recorded, traceparent=traceparent, line=n)
    stage = "message" if spec is AGENT_MESSAGES_RAW else "json"
    return InputRecord(source, raw, stage, topic=spec.name, traceparent=traceparent, line=n)


def _envelope_value(value: Any) -> bytes:
    """The record's bytes: `{"utf8"}` / `{"base64"}` (bytes as `jsonable` writes them) or a JSON value (a packet
    decoded from Avro), as canonical JSON."""
    try:
        found = bytes_of(value)
    except binascii.Error:
        found = None  # not base64 after all: a JSON value like any other
    if found is not None:
        return found
    if isinstance(value, str):
        return value.encode("utf-8")
    return canonical_json(value).encode("utf-8")


def _read_json_document(raw: bytes, topic: str) -> Iterator[InputRecord]:
    try:
        document = strictjson.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        # the ingress stage names the error
        yield InputRecord(Source(topic, 0, 0), raw, "json", line=_first_line(raw))
        return
    if not isinstance(document, list):  # a lone object has no episode context
        yield InputRecord(Source(topic, 0, 0), canonical_json(document).encode("utf-8"), "single",
                          line=_first_line(raw))
        return
    lines = json_item_lines(raw, len(document))
    for n, item in enumerate(document):
        yield InputRecord(Source(topic, 0, n), canonical_json(item).encode("utf-8"), "json",
                          line=lines[n] if lines is not None else None)


_JSON_SPACE = re.compile(r"[ \t\n\r]*")


def _first_line(raw: bytes) -> int:
    """The 1-based line of a text's first character that is not white space (1 for a blank text)."""
    stripped = raw.lstrip()
    return raw.count(b"\n", 0, len(raw) - len(stripped)) + 1


def json_item_lines(raw: bytes, count: int) -> list[int] | None:
    """The 1-based line where each of the `count` items of a JSON array (valid JSON, `strictjson` read it) starts;
    None when they cannot be placed (then each item is named by its number in the file)."""
    try:
        text = raw.decode("utf-8")
        decoder = json.JSONDecoder()
        at = _skip_space(text, 0)
        if text[at:at + 1] != "[":
            return None
        at = _skip_space(text, at + 1)
        lines: list[int] = []
        line, counted = 1, 0
        for _ in range(count):
            line += text.count("\n", counted, at)
            counted = at
            lines.append(line)
            _, end = decoder.raw_decode(text, at)
            at = _skip_space(text, end)
            if text[at:at + 1] == ",":
                at = _skip_space(text, at + 1)
    except (ValueError, RecursionError):
        return None
    return lines


def _skip_space(text: str, at: int) -> int:
    match = _JSON_SPACE.match(text, at)  # it matches the empty string at worst
    return match.end() if match else at
