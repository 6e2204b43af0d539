"""The packets topic's contract evolved both ways (issue 41): it now carries `omega.omen.PacketAsSent` beside
`omega.omen.Packet` and the watermark ticks.

- new reader, old writer: records written before PacketAsSent existed are read and judged as before;
- old reader, new writer: a validator still on the previous contract meets a PacketAsSent record and dead-letters
  it with its bytes whole (unknown writer schema), never crashes, so an upgrade can judge it from the dead letter;
- PacketAsSent itself evolves like any record: a later version with an added optional field is read by this one
  (the field dropped) and reads this one (the field defaulted), and the packet it carries is judged the same.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

from streams.stages.base import Outputs, Source
from streams.stages.packets import PacketStage
from streams.topics import DEAD_LETTERS, PACKETS, VERDICTS
from streams.wire.codec import SchemaRegistry, default_schemas_dir
from tests.factories import packet as factory_packet

AS_SENT = "omega.omen.PacketAsSent"
SOURCE = Source(PACKETS.name, 0, 7, b"corr_ep00003", 1_766_314_800_000)


def _previous_contract(tmp_path: Path) -> SchemaRegistry:
    """The registry as it was before PacketAsSent: every schema but that one."""
    for path in default_schemas_dir().glob("*.avsc"):
        if path.stem != AS_SENT:
            shutil.copy(path, tmp_path / path.name)
    return SchemaRegistry.from_directory(tmp_path)


def _as_sent_v2() -> dict[str, Any]:
    schema = json.loads((default_schemas_dir() / f"{AS_SENT}.avsc").read_text(encoding="utf-8"))
    schema["fields"].append({"name": "producer", "type": ["null", "string"], "default": None})
    return schema


def _not_carried_packet() -> bytes:
    packet = copy.deepcopy(factory_packet(0, 3))
    packet["header"]["campaign_id"] = None
    return json.dumps(packet).encode("utf-8")


def _verdict(emits: list[Any]) -> dict[str, Any]:
    [emit] = emits
    assert emit.topic is VERDICTS
    return dict(emit.record)


def test_a_new_reader_judges_a_packet_record_written_under_the_previous_contract(tmp_path: Path) -> None:
    old, new = PacketStage(Outputs(_previous_contract(tmp_path))), PacketStage(Outputs(SchemaRegistry.from_directory()))
    [written] = old.ingress(json.dumps(factory_packet(0, 3)).encode("utf-8"), SOURCE)
    assert written.topic is PACKETS
    assert _verdict(new.packet(None, written.value, SOURCE)[1])["status"] == "ACCEPTED"
    assert new.packet(None, written.value, SOURCE)[1][0].value == old.packet(None, written.value, SOURCE)[1][0].value


def test_an_old_reader_dead_letters_a_packet_as_sent_whole_and_does_not_crash(tmp_path: Path) -> None:
    new, old = PacketStage(Outputs(SchemaRegistry.from_directory())), PacketStage(Outputs(_previous_contract(tmp_path)))
    [written] = new.ingress(_not_carried_packet(), SOURCE)
    assert new.outputs.registry.writer_of(written.value).name == AS_SENT
    ledger, [letter] = old.packet(None, written.value, SOURCE)
    assert ledger is None
    assert letter.topic is DEAD_LETTERS
    assert letter.record["error_class"] == "UNKNOWN_FINGERPRINT"
    assert letter.record["raw"] == written.value  # whole: an upgraded validator can judge it from here


def test_packet_as_sent_read_across_an_added_optional_field_both_ways() -> None:
    current = SchemaRegistry.from_directory()
    later = SchemaRegistry.from_directory()
    later.register(_as_sent_v2())
    raw = _not_carried_packet()
    stage = PacketStage(Outputs(current))
    expected = _verdict(stage.packet(None, stage.ingress(raw, SOURCE)[0].value, SOURCE)[1])

    written_later = later.encode(AS_SENT, {"packet_json": raw.decode("utf-8"), "not_carried": "WRONG_TYPE: x",
                                           "producer": "omen-runtime"})
    reader_now = SchemaRegistry.from_directory()
    reader_now.register(_as_sent_v2(), current=False)  # the writer's version is known, ours stays the reader
    assert reader_now.decode(written_later)[1] == {"packet_json": raw.decode("utf-8"), "not_carried": "WRONG_TYPE: x"}
    assert _verdict(PacketStage(Outputs(reader_now)).packet(None, written_later, SOURCE)[1]) == expected

    written_now = current.encode(AS_SENT, {"packet_json": raw.decode("utf-8"), "not_carried": "WRONG_TYPE: x"})
    later.register(json.loads((default_schemas_dir() / f"{AS_SENT}.avsc").read_text(encoding="utf-8")),
                   current=False)
    assert later.decode(written_now)[1]["producer"] is None
    assert _verdict(PacketStage(Outputs(later)).packet(None, written_now, SOURCE)[1]) == expected
