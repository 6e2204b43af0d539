"""Reading replay's inputs (streams/replay/inputs.py): line files, JSON documents, stdin, directories, and binary
files refused whole."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import pytest

from streams.replay.inputs import STDIN, InputError, directory_inputs, input_stem, read_inputs
from streams.stages.packets import PacketStage
from tests.factories import packet as factory_packet

MALFORMED_LINE = b'{"header": {"packet_id": "pkt_broken"'


def _line(packet: dict[str, Any]) -> bytes:
    return json.dumps(packet).encode("utf-8")


@pytest.mark.parametrize("suffix", [".jsonl", ".ndjson", ".log"])
def test_line_files_are_read_one_packet_per_line(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"episode{suffix}"
    path.write_bytes(_line(factory_packet(0, 4)) + b"\r\n" + _line(factory_packet(1, 4)) + b"\r\n")
    records = list(read_inputs([path]))
    assert [r.stage for r in records] == ["json", "json"]
    assert [r.source.offset for r in records] == [1, 2]
    assert [json.loads(r.raw) for r in records] == [factory_packet(0, 4), factory_packet(1, 4)]


def test_json_files_are_read_as_an_array_or_as_one_object(tmp_path: Path) -> None:
    array, single = tmp_path / "array.json", tmp_path / "single.JSON"
    array.write_text(json.dumps([factory_packet(0, 5), factory_packet(1, 5)]), encoding="utf-8")
    single.write_text(json.dumps(factory_packet(2, 5)), encoding="utf-8")
    records = list(read_inputs([array, single]))
    assert [json.loads(r.raw)["header"]["packet_id"] for r in records] == [
        "pkt_00005_000000", "pkt_00005_000001", "pkt_00005_000002"]
    assert [(r.source.topic, r.source.offset) for r in records] == [
        (f"file:{array}", 0), (f"file:{array}", 1), (f"file:{single}", 0)]


def test_dash_reads_jsonl_from_stdin(monkeypatch: pytest.MonkeyPatch, pipeline: PacketStage) -> None:
    body = _line(factory_packet(0, 9)) + b"\n\n" + MALFORMED_LINE + b"\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(body)))
    records = list(read_inputs([STDIN]))
    assert [(r.source.topic, r.source.offset, r.stage) for r in records] == [("stdin", 1, "json"), ("stdin", 3, "json")]
    assert records[1].raw == MALFORMED_LINE


@pytest.mark.parametrize(
    ("name", "content", "why"),
    [
        ("nul.jsonl", _line(factory_packet(0, 1)) + b"\n\x00\x01\x02\n", "binary file"),
        ("latin1.jsonl", b'{"name": "caf\xe9"}\n', "binary file"),
        ("nul.yaml", b"a: 1\n\x00", "binary file"),
        ("fake.avro", b'{"not": "avro"}\n', "not an Avro object container file"),
        ("broken.jsonl.gz", gzip.compress(b"x" * 100, mtime=0)[:20], "not a readable gzip file"),
    ],
    ids=["nul", "not-utf8", "nul-yaml", "fake-avro", "truncated-gzip"],
)
def test_a_binary_input_is_refused_whole_not_dead_lettered(tmp_path: Path, name: str, content: bytes,
                                                           why: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError) as refused:
        list(read_inputs([path]))
    assert str(refused.value).startswith(f"{path}: {why}")


def test_a_multibyte_character_cut_by_the_sniff_is_still_text(tmp_path: Path) -> None:
    path = tmp_path / "wide.jsonl"
    path.write_bytes(b"x" * 8191 + "é".encode() + b"\n")  # é straddles byte 8192
    assert [len(r.raw) for r in read_inputs([path])] == [8193]


def test_a_directory_gives_its_known_files_recursively_by_relative_path(tmp_path: Path) -> None:
    for name in ("b.jsonl", "a/z.json", "a.yaml", "notes.txt", "c.avro.gz", "d.gz", "a/b/x.YML", "e.jsonl.bak"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert [p.relative_to(tmp_path).as_posix() for p in directory_inputs(tmp_path)] == [
        "a/b/x.YML", "a/z.json", "a.yaml", "b.jsonl", "c.avro.gz"]


def test_input_stem_is_the_name_up_to_the_first_dot_and_names_stdin() -> None:
    names = ("s/clean.yaml", "s/clean.yaml.gz", "s/run.part2.jsonl", "-", "s/.hidden")
    assert [input_stem(Path(p)) for p in names] == ["clean", "clean", "run", "stdin", ".hidden"]
