"""Avro single-object encoding (marker C3 01, CRC-64-AVRO fingerprint, body) over the schemas in schemas_avro/.

Schemas are parsed once, when the registry is built; the reader resolves the writer schema by the
fingerprint in the header, so older and newer writers are read through Avro schema resolution.

Every read also takes the Confluent Schema Registry framing (issue 26: 0x00, a 4-byte schema id, the same body):
with a registry attached (`remote`, streams/wire/confluent.py) such a record is put under our header first, its
writer schema looked up by id once; without one it is a DecodeError saying which setting is missing.
"""

from __future__ import annotations

import io
import os
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import fastavro
from fastavro.schema import fingerprint, load_schema, parse_schema, to_parsing_canonical_form

from streams.wire.avro_reader import Reader, Unreadable, compile_reader
from streams.wire.avro_writer import Unsupported, Writer, compile_writer

MARKER = b"\xc3\x01"
HEADER_SIZE = len(MARKER) + 8
CONFLUENT_MAGIC = b"\x00"  # a Schema Registry frame's first byte; a single-object one starts with C3


class RemoteSchemas(Protocol):
    """A Schema Registry behind our registry: a registry-framed record as the same body under our header."""

    def to_single_object(self, data: bytes) -> bytes: ...


class DecodeError(ValueError):
    """Bytes that are not a readable single-object Avro event; `error_class` names the failure."""

    def __init__(self, error_class: str, message: str) -> None:
        super().__init__(message)
        self.error_class = error_class


class EncodeError(ValueError):
    """A datum the writer schema cannot carry."""


def crc64_avro_fingerprint(canonical_form: str) -> bytes:
    """The 8-byte CRC-64-AVRO fingerprint of a schema's Parsing Canonical Form, little-endian as on the wire."""
    # fastavro's hex string already spells the little-endian bytes (spec vector: "int" -> 8f5c393f1ad57572)
    return bytes.fromhex(fingerprint(canonical_form, "CRC-64-AVRO"))


def default_schemas_dir() -> Path:
    """`OMEGA_SCHEMAS_DIR`, else `schemas_avro/` of a source tree, else the copy installed with the package."""
    env = os.environ.get("OMEGA_SCHEMAS_DIR")
    if env:
        return Path(env)
    beside = Path(__file__).resolve().parents[2] / "schemas_avro"
    if beside.is_dir():
        return beside
    return packaged_schemas_dir()


def packaged_schemas_dir() -> Path:
    """`streams/wire/schemas/` of an installed wheel: pyproject maps that package onto `schemas_avro/`."""
    # a Path, not a Traversable: fastavro resolves named types by file name in the schema's own directory,
    # and setuptools installs wheels unzipped, so the resource is a real directory
    return Path(str(resources.files("streams.wire") / "schemas"))


@dataclass(frozen=True)
class RegisteredSchema:
    """A parsed schema, its full name and its fingerprint."""

    name: str
    parsed: Any
    fingerprint: bytes


_UNCOMPILED: Any = object()  # a schema whose writer was not generated yet


def _compiled(entry: RegisteredSchema) -> Writer | None:
    try:
        return compile_writer(entry.parsed)[0]
    except Unsupported:
        return None


def _compiled_reader(entry: RegisteredSchema) -> Reader | None:
    try:
        return compile_reader(entry.parsed)[0]
    except Unreadable:
        return None


class SchemaRegistry:
    """Every schema the process reads or writes, by full name and by fingerprint."""

    def __init__(self) -> None:
        self._by_name: dict[str, RegisteredSchema] = {}
        self._by_fingerprint: dict[bytes, RegisteredSchema] = {}
        self.remote: RemoteSchemas | None = None  # a Schema Registry, for registry-framed records
        self._writers: dict[str, Writer | None] = {}  # full name -> generated writer (None: fastavro's only)
        self._readers: dict[str, Reader | None] = {}  # full name -> generated reader of its own writes

    def single_object(self, data: bytes) -> bytes:
        """`data` under our single-object header: as it is, or converted from the registry framing."""
        if data[:1] != CONFLUENT_MAGIC or len(data) < 5:  # shorter: no schema id, so neither framing
            return data
        if self.remote is None:
            schema_id = int.from_bytes(data[1:5], "big")
            raise DecodeError("REGISTRY_FRAMED", f"a Schema Registry frame (magic 0x00, schema id {schema_id}) and "
                                                 "no registry to look it up: set OMEGA_SCHEMA_REGISTRY_URL")
        return self.remote.to_single_object(data)

    @classmethod
    def from_directory(cls, directory: Path | None = None) -> SchemaRegistry:
        """Load and parse every `.avsc` of the directory (one named type per file)."""
        registry = cls()
        root = directory or default_schemas_dir()
        files = sorted(root.glob("*.avsc"))
        if not files:
            raise FileNotFoundError(f"no .avsc schemas in {root}")
        for path in files:
            parsed = load_schema(str(path))
            if not isinstance(parsed, dict):
                raise ValueError(f"{path}: a schema file holds one named type")
            registry.register(parsed)
        return registry

    def register(self, schema: Mapping[str, Any], *, current: bool = True) -> RegisteredSchema:
        """Add a schema; `current=False` adds a writer version that is read but not written or read into."""
        parsed: Any = schema if schema.get("__fastavro_parsed") else parse_schema(dict(schema))
        entry = RegisteredSchema(parsed["name"], parsed, crc64_avro_fingerprint(to_parsing_canonical_form(parsed)))
        self._by_fingerprint[entry.fingerprint] = entry
        if current or entry.name not in self._by_name:
            self._by_name[entry.name] = entry
            self._writers.pop(entry.name, None)
            self._readers.pop(entry.name, None)
        return entry

    def get(self, name: str) -> RegisteredSchema:
        """The current schema of a full name."""
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"no schema named {name!r}") from None

    def names(self) -> Iterable[str]:
        """Full names of all current schemas."""
        return self._by_name.keys()

    def encode(self, name: str, datum: object) -> bytes:
        """Single-object encoding of `datum` with the current schema `name`: by the schema's generated writer
        (wire/avro_writer.py) when the datum is in its fast path, else by fastavro, to the same bytes."""
        entry = self.get(name)
        writer = self._writers.get(name, _UNCOMPILED)
        if writer is _UNCOMPILED:
            writer = self._writers[name] = _compiled(entry)
        if writer is not None:
            out = bytearray(MARKER)
            out += entry.fingerprint
            try:
                writer(datum, out)
                return bytes(out)
            except (Unsupported, KeyError, UnicodeEncodeError):
                pass  # fastavro writes it, or says why it cannot
        return self.fastavro_encode(name, datum)

    def fastavro_encode(self, name: str, datum: object) -> bytes:
        """`encode` by fastavro alone: the reference the generated writers are held to (and their fallback)."""
        entry = self.get(name)
        buffer = io.BytesIO()
        buffer.write(MARKER)
        buffer.write(entry.fingerprint)
        try:
            fastavro.schemaless_writer(buffer, entry.parsed, datum)
        except (TypeError, ValueError, AttributeError, KeyError, UnicodeEncodeError, OverflowError) as exc:
            raise EncodeError(f"{name}: {exc}") from exc
        return buffer.getvalue()

    def writer_of(self, data: bytes) -> RegisteredSchema:
        """The writer schema named by a single-object header (or a registry frame's schema id)."""
        data = self.single_object(data)
        if len(data) < HEADER_SIZE or data[:2] != MARKER:
            raise DecodeError("NOT_SINGLE_OBJECT", "not Avro single-object encoding (marker C3 01 missing)")
        entry = self._by_fingerprint.get(bytes(data[2:HEADER_SIZE]))
        if entry is None:
            raise DecodeError("UNKNOWN_FINGERPRINT", f"unknown writer schema fingerprint {data[2:HEADER_SIZE].hex()}")
        return entry

    def decode(self, data: bytes, reader_name: str | None = None) -> tuple[str, Any]:
        """Decode to `(full name, datum)`, reading into the current schema of the same (or the given) name: by the
        schema's generated reader (wire/avro_reader.py) when it is the writer's too and reads the bytes, else by
        fastavro, to the same datum."""
        data = self.single_object(data)
        writer = self.writer_of(data)
        reader = self.get(reader_name or writer.name)
        if reader is writer:  # no schema resolution
            read = self._readers.get(reader.name, _UNCOMPILED)
            if read is _UNCOMPILED:
                read = self._readers[reader.name] = _compiled_reader(reader)
            if read is not None:
                whole = data if type(data) is bytes else bytes(data)
                try:
                    datum, end = read(whole, HEADER_SIZE)
                    if end == len(whole):
                        return reader.name, datum
                except (Unreadable, IndexError, struct.error, UnicodeDecodeError):
                    pass  # fastavro reads it, or says why it cannot
        return reader.name, self.fastavro_decode(data, writer, reader)

    def decode_batch(self, values: Sequence[bytes]) -> list[tuple[str, Any] | DecodeError]:
        """`decode` of each value in order, each its `(full name, datum)` or the DecodeError it raised: the same
        answers, with the generated reader looked up once per single-object header instead of once per record
        (what a consumer of many records of a few schemas pays per record otherwise)."""
        out: list[tuple[str, Any] | DecodeError] = []
        readers: dict[bytes, tuple[str, Reader] | None] = {}
        for value in values:
            header = value[:HEADER_SIZE]
            found = readers.get(header, _UNCOMPILED)
            if found is _UNCOMPILED:
                found = readers[header] = self._own_reader(header)
            if found is not None and type(value) is bytes:
                try:
                    datum, end = found[1](value, HEADER_SIZE)
                    if end == len(value):
                        out.append((found[0], datum))
                        continue
                except (Unreadable, IndexError, struct.error, UnicodeDecodeError):
                    pass  # `decode` reads it by fastavro, or says why it cannot
            try:
                out.append(self.decode(value))
            except DecodeError as exc:
                out.append(exc)
        return out

    def _own_reader(self, header: bytes) -> tuple[str, Reader] | None:
        """(name, generated reader) when `decode` would read a record with this header by that reader first."""
        if len(header) < HEADER_SIZE or header[:2] != MARKER:
            return None  # a registry frame or no single object: `decode` says
        writer = self._by_fingerprint.get(bytes(header[2:]))
        if writer is None or self._by_name.get(writer.name) is not writer:
            return None  # unknown, or an older writer read through schema resolution
        read = self._readers.get(writer.name, _UNCOMPILED)
        if read is _UNCOMPILED:
            read = self._readers[writer.name] = _compiled_reader(writer)
        return None if read is None else (writer.name, read)

    @staticmethod
    def fastavro_decode(data: bytes, writer: RegisteredSchema, reader: RegisteredSchema) -> Any:
        """The datum of single-object `data` read by fastavro alone, `writer` resolved to `reader`: the reference
        the generated readers are held to (and their fallback); raises DecodeError."""
        body = io.BytesIO(data[HEADER_SIZE:])
        try:
            datum = fastavro.schemaless_reader(body, writer.parsed, reader.parsed)
        except (EOFError, ValueError, TypeError, KeyError, IndexError, UnicodeDecodeError, OverflowError) as exc:
            raise DecodeError("AVRO_DECODE", f"{writer.name}: body does not decode: {exc!r}") from exc
        except fastavro.read.SchemaResolutionError as exc:
            raise DecodeError("SCHEMA_RESOLUTION", f"{writer.name} -> {reader.name}: {exc}") from exc
        if body.tell() != len(data) - HEADER_SIZE:
            raise DecodeError("AVRO_DECODE", f"{writer.name}: {len(data) - HEADER_SIZE - body.tell()} trailing bytes")
        return datum
