"""Reading recorded events for embedded replay: files, directories, gzip and stdin, in log order, as `InputRecord`s
(streams/replay.py judges them). A binary input is refused whole (InputError); an Avro container's records, a JSON
array's items, JSONL lines and one YAML session per file become one record each.
"""

from __future__ import annotations

import base64
import codecs
import gzip
import io
import json
import sys
import zlib
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

import fastavro

from omega import strictjson
from omega.canonical import canonical_json
from streams.stages.base import Source

JSON_SUFFIXES = {".json"}
AVRO_SUFFIXES = {".avro"}
MESSAGE_SUFFIXES = {".yaml", ".yml"}
INPUT_SUFFIXES = JSON_SUFFIXES | AVRO_SUFFIXES | MESSAGE_SUFFIXES | {".jsonl"}  # what a directory contributes
STDIN = Path("-")
GZIP_MAGIC = b"\x1f\x8b"
AVRO_MAGIC = b"Obj\x01"
SNIFF_BYTES = 8192
_GZIP_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error)


class InputError(ValueError):
    """An input that cannot be read as events (binary, a broken gzip stream): `PATH: why`, nothing judged."""


@dataclass(frozen=True)
class InputRecord:
    """One recorded event: its position, its bytes, and which stage it enters (`json` or `avro`)."""

    source: Source
    raw: bytes
    stage: str
    datum: Any = None
    schema_name: str | None = None


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
        try:
            handle.seek(0)
            head = handle.read(SNIFF_BYTES)
            handle.seek(0)
        except _GZIP_ERRORS as exc:
            raise InputError(f"{path}: not a readable gzip file ({exc})") from exc
        yield handle, _input_format(path, head)


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
    with open_input(path) as (handle, _):
        try:
            return handle.read()
        except _GZIP_ERRORS as exc:
            raise InputError(f"{path}: not a readable gzip file ({exc})") from exc


def read_inputs(paths: Iterable[Path]) -> Iterator[InputRecord]:
    """Events of JSON (one packet or an array), JSONL, or Avro object container files, and OMEGA-57 sessions
    (.yaml/.yml), gzipped or not, `-` for JSONL on stdin, in log order; InputError on a binary input."""
    for path in paths:
        topic = "stdin" if path == STDIN else f"file:{path}"
        with open_input(path) as (handle, kind):
            try:
                yield from _read_handle(handle, kind, path, topic)
            except _GZIP_ERRORS as exc:
                raise InputError(f"{path}: not a readable gzip file ({exc})") from exc


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
            yield InputRecord(Source(topic, 0, 0, input_stem(path).encode("utf-8")), raw, "message")
    else:
        for n, line in enumerate(handle, start=1):
            if line.strip():
                yield InputRecord(Source(topic, 0, n), line.rstrip(b"\r\n"), "json")


def _read_json_document(raw: bytes, topic: str) -> Iterator[InputRecord]:
    try:
        document = strictjson.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        yield InputRecord(Source(topic, 0, 0), raw, "json")  # the ingress stage names the error
        return
    if not isinstance(document, list):  # a lone object has no episode context
        yield InputRecord(Source(topic, 0, 0), canonical_json(document).encode("utf-8"), "single")
        return
    for n, item in enumerate(document):
        yield InputRecord(Source(topic, 0, n), canonical_json(item).encode("utf-8"), "json")


def jsonable(value: Any) -> Any:
    """A record as JSON: bytes become `{"utf8": ...}` when they are text, else `{"base64": ...}`."""
    if isinstance(value, bytes):
        try:
            return {"utf8": value.decode("utf-8")}
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value
