"""The validator steps over a plain dict as the episodes table: ledgers and judgements as separate entries,
what a crash between their writes leaves, ledgers stored the old way, and the episodes a tick advances."""

from __future__ import annotations

import asyncio
import functools
import json
from pathlib import Path
from typing import Any

import pytest

from omega.packets.ledger import EpisodeLedger
from streams.kafka.partitioning import partition_of
from streams.stages import episodes as episodes_module
from streams.stages.base import Emit, Source
from streams.stages.episodes import EpisodeSteps, judgement_key
from streams.stages.packets import PacketStage
from tests.unit.streams.log_capture import captured

PARTITION_OF_4 = functools.partial(partition_of, partitions=4)  # the packets topic's 4 partitions

EXAMPLE = Path(__file__).parents[4] / "examples" / "omen" / "dangling_directive.jsonl"
KEY = "corr_dangling_0001"
PARTITION = partition_of(KEY, 4)


@pytest.fixture
def packets(pipeline: PacketStage) -> list[bytes]:
    """The dangling-directive episode as Avro packets (three directives; one answered, two left open)."""
    return [pipeline.ingress(line.encode(), Source("t", 0, n))[0].value
            for n, line in enumerate(EXAMPLE.read_text().splitlines())]


def _run(steps: EpisodeSteps, packets: list[bytes], start: int = 0) -> list[list[Emit]]:
    return [steps.packet(Source("packets", PARTITION, start + n), raw, KEY, steps.packet_stage.read_packet(raw))
            for n, raw in enumerate(packets)]


def _values(emits: list[Emit]) -> list[bytes]:
    return [e.value for e in emits]


def test_each_packet_stores_its_judgement_and_the_ledger_without_judgements(pipeline: PacketStage,
                                                                             packets: list[bytes]) -> None:
    table: dict[str, Any] = {}
    _run(EpisodeSteps(pipeline, table, PARTITION_OF_4), packets[:3])

    assert sorted(table) == [KEY, *(judgement_key(KEY, f"pkt_dd_000{n}") for n in (1, 2, 3))]
    assert "applied" not in table[KEY]
    assert table[KEY]["judged"] == 3
    assert [table[judgement_key(KEY, f"pkt_dd_000{n}")][0] for n in (1, 2, 3)] == [0, 1, 2]


def test_a_redelivery_after_a_restart_re_emits_the_stored_judgement_and_writes_nothing(
        pipeline: PacketStage, packets: list[bytes]) -> None:
    table: dict[str, Any] = {}
    first = _run(EpisodeSteps(pipeline, table, PARTITION_OF_4), packets)
    before = dict(table)

    again = _run(EpisodeSteps(pipeline, table, PARTITION_OF_4), packets)  # a new process: nothing cached

    assert [_values(e) for e in again] == [_values(e) for e in first]
    assert table == before


def test_a_judgement_stored_without_its_ledger_is_judged_again_to_the_same_verdict(
        pipeline: PacketStage, packets: list[bytes]) -> None:
    whole: dict[str, Any] = {}
    expected = _run(EpisodeSteps(pipeline, whole, PARTITION_OF_4), packets[:5])
    table: dict[str, Any] = {}
    _run(EpisodeSteps(pipeline, table, PARTITION_OF_4), packets[:4])
    ledger_after_four = table[KEY]
    _run(EpisodeSteps(pipeline, table, PARTITION_OF_4), packets[4:5], start=4)
    table[KEY] = ledger_after_four  # the crash: the fifth packet's judgement was stored, its ledger was not

    redelivered = _run(EpisodeSteps(pipeline, table, PARTITION_OF_4), packets[4:5], start=4)

    assert _values(redelivered[0]) == _values(expected[4])
    assert table == whole


def test_a_packet_the_stored_ledger_applied_whose_judgement_is_gone_is_logged_as_a_lost_judgement(
        pipeline: PacketStage, packets: list[bytes]) -> None:
    table: dict[str, Any] = {}
    _run(EpisodeSteps(pipeline, table, PARTITION_OF_4), packets[:4])
    assert table[KEY]["at"] == [PARTITION, 3]  # the input position of the last packet the ledger applied
    del table[judgement_key(KEY, "pkt_dd_0003")]  # its changelog record lost, later ones kept

    steps = EpisodeSteps(pipeline, table, PARTITION_OF_4)
    with captured(episodes_module) as logs:
        _run(steps, packets[2:3], start=2)  # redelivered from offset 2: at or before offset 3, yet no judgement
        _run(steps, packets[4:5], start=4)  # a packet after the ledger's position: judged as usual

    assert steps.lost == 1
    assert [(e["event"], e["offset"], e["ledger_at"]) for e in logs if e["log_level"] == "warning"] == [
        ("judgement_lost", 2, 3)]


def test_a_ledger_stored_with_its_judgements_inline_has_them_moved_out_at_its_next_packet(
        pipeline: PacketStage, packets: list[bytes]) -> None:
    reference: dict[str, Any] = {}
    expected = _run(EpisodeSteps(pipeline, reference, PARTITION_OF_4), packets[:4])
    ledger, _ = pipeline.packet(None, packets[0], Source("t", 0, 0))
    for raw in packets[1:3]:
        ledger, _ = pipeline.packet(ledger, raw, Source("t", 0, 0))
    assert ledger is not None
    table: dict[str, Any] = {KEY: ledger.to_dict()}  # the layout before judgements had entries of their own
    assert "applied" in table[KEY]

    fourth = _run(EpisodeSteps(pipeline, table, PARTITION_OF_4), packets[3:4], start=3)

    assert _values(fourth[0]) == _values(expected[3])
    assert table == reference
    assert _values(_run(EpisodeSteps(pipeline, table, PARTITION_OF_4), packets[:1])[0]) == _values(expected[0])


def _tick(steps: EpisodeSteps, pipeline: PacketStage, watermark_ms: int) -> list[Emit]:
    return steps.record(pipeline.encode_tick(PARTITION, watermark_ms), Source("packets", PARTITION, 99))


def test_a_tick_finds_open_directives_another_process_stored_and_follows_them_afterwards(
        pipeline: PacketStage, packets: list[bytes]) -> None:
    table: dict[str, Any] = {}
    _run(EpisodeSteps(pipeline, table, PARTITION_OF_4), packets[:6])  # another worker: three directives opened
    steps = EpisodeSteps(pipeline, table, PARTITION_OF_4)
    late = 2_000_000_000_000  # far past every deadline

    alerts = [e.record for e in _tick(steps, pipeline, late) if e.topic.logical == "alerts"]

    assert sorted(json.loads(a["details"])["task_id"] for a in alerts) == [
        "task_dd_prices_01", "task_dd_timers_01", "task_dd_wallet_01"]
    assert steps.open == {PARTITION: {KEY}}
    assert EpisodeLedger.from_dict(table[KEY]).open_directives["task_dd_wallet_01"].timed_out


def test_an_episode_leaves_the_tick_index_when_its_last_directive_is_answered(pipeline: PacketStage) -> None:
    table: dict[str, Any] = {KEY: {"open_directives": {"t": {}}}, "other": {"open_directives": {}},
                         judgement_key(KEY, "p"): [0, []]}
    steps = EpisodeSteps(pipeline, table, PARTITION_OF_4)
    assert steps._open_in(PARTITION) == {KEY}
    ledger = EpisodeLedger(KEY)

    steps._store(KEY, PARTITION, ledger, [(KEY, ledger.to_dict(judgements=False))])

    assert steps.open == {PARTITION: set()}
    asyncio.run(steps.on_partitions_revoked(None, set()))
    assert steps.open == {}
