"""Properties of the validator over whole logs (docs/design.md "Determinism" and "Idempotency").

Logs are generated from the realistic episodes of `examples/omen/` and the factory episodes of
`tests/factories.py`: each source is re-addressed (its own correlation id, packet and token ids) so it
can appear more than once, truncated to a prefix, sometimes shuffled, and the episodes are merged into
one log in a drawn order that keeps each episode's own order. Raw lines go through the embedded replay
(`streams.replay.replayer.Replayer`), ingress and Avro included, exactly as `omega replay` runs them.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omega.canonical import canonical_json
from omega.packets.ledger import EpisodeLedger
from omega.packets.validator import evolve
from omega.packets.verdict import PacketVerdict
from streams.replay.inputs import InputRecord
from streams.replay.replayer import Replayer
from streams.stages.base import Emit, Outputs, Source
from streams.stages.packets import PacketStage
from streams.topics import ALERTS, DEAD_LETTERS, ESCALATIONS, VERDICTS
from streams.wire.codec import SchemaRegistry
from tests.factories import episode_packets
from tests.omen_strategies import valid_packets

EXAMPLES = Path(__file__).resolve().parents[4] / "examples" / "omen"
EPISODE_FILES = tuple(sorted(p.name for p in EXAMPLES.glob("*.jsonl")))  # malformed.jsonl included
FACTORY_SOURCES = tuple(f"factory:{n}" for n in (3, 5, 8))  # sense -> model -> decide (+ observations)
SOURCES = (*EPISODE_FILES, *FACTORY_SOURCES)
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Episode = list[bytes]


# --------------------------------------------------------------------------- building logs
@cache
def _pipeline() -> PacketStage:
    return PacketStage(Outputs(SchemaRegistry.from_directory()))


@cache
def _lines(name: str) -> tuple[str, ...]:
    return tuple(line for line in (EXAMPLES / name).read_text(encoding="utf-8").splitlines() if line.strip())


def source_episode(source: str, copy: int) -> Episode:
    """The raw lines of one source; copy `n` > 0 moves it to ids of its own (correlation, packet, token)."""
    if source.startswith("factory:"):
        count = int(source.split(":")[1])
        return [json.dumps(p).encode() for p in episode_packets(900 + copy, count)]
    lines = _lines(source)
    if copy == 0:
        return [line.encode() for line in lines]
    first = lines[0]
    corr = first.split('"correlation_id": "', 1)[1].split('"', 1)[0]
    tag = first.split('"packet_id": "pkt_', 1)[1].split("_", 1)[0]
    renames = ((corr, f"{corr}_c{copy}"), (f"pkt_{tag}_", f"pkt_{tag}c{copy}_"),
               (f"token_{tag}_", f"token_{tag}c{copy}_"))
    out = []
    for line in lines:
        text = line
        for old, new in renames:
            text = text.replace(old, new)
        out.append(text.encode())
    return out


@st.composite
def episodes(draw: st.DrawFn, max_episodes: int = 4, shuffle: bool = True) -> list[Episode]:
    """1..max_episodes independent episodes, each a re-addressed source cut to a prefix, some shuffled."""
    sources = draw(st.lists(st.sampled_from(SOURCES), min_size=1, max_size=max_episodes))
    out = []
    for copy, source in enumerate(sources):
        lines = source_episode(source, copy)
        lines = lines[: draw(st.one_of(st.just(len(lines)), st.integers(1, len(lines))), label="cut")]
        if shuffle and draw(st.booleans()):
            lines = draw(st.permutations(lines))
        out.append(list(lines))
    return out


@st.composite
def merges(draw: st.DrawFn, parts: list[Episode]) -> list[bytes]:
    """One interleaving of `parts` that keeps each part's own order."""
    schedule = [n for n, part in enumerate(parts) for _ in part]
    order = draw(st.permutations(schedule))
    cursors = [0] * len(parts)
    log = []
    for n in order:
        log.append(parts[n][cursors[n]])
        cursors[n] += 1
    return log


def records(log: Iterable[bytes]) -> list[InputRecord]:
    return [InputRecord(Source("file:generated.jsonl", 0, n), raw, "json") for n, raw in enumerate(log, start=1)]


def replay_text(log: list[bytes]) -> str:
    out = io.StringIO()
    Replayer(_pipeline().outputs).run(records(log), out)
    return out.getvalue()


def replay(log: list[bytes]) -> list[list[Emit]]:
    """The outputs of each input line, in log order, and last those of the end of the log."""
    replayer = Replayer(_pipeline().outputs)
    per_input = [replayer.feed(record) for record in records(log)]
    return [*per_input, replayer.finish()]


def judged(outputs: list[Emit]) -> list[str]:
    """Verdicts, alerts and escalations as canonical JSON (dead letters are keyed by their position in
    the log, which the properties move, so they are left out)."""
    return [canonical_json(dict(e.record)) for e in outputs if e.topic.logical != DEAD_LETTERS.logical]


IDS = {VERDICTS.logical: "verdict_id", ALERTS.logical: "alert_id", ESCALATIONS.logical: "escalation_id"}


def by_id(outputs: list[list[Emit]]) -> dict[str, dict[str, str]]:
    """Verdicts, alerts and escalations keyed by their derived ids, as canonical JSON. An id emitted
    twice in one replay must carry the same content both times."""
    found: dict[str, dict[str, str]] = {topic: {} for topic in IDS}
    for emit in (e for batch in outputs for e in batch if e.topic.logical in IDS):
        record = dict(emit.record)
        key, content = str(record[IDS[emit.topic.logical]]), canonical_json(record)
        assert found[emit.topic.logical].setdefault(key, content) == content, f"{key} emitted twice, differently"
    return found


def _statuses(outputs: list[list[Emit]]) -> list[tuple[str, ...]]:
    return [(str(e.record["status"]), *(v["rule"] for v in e.record["violations"]))
            if e.topic is VERDICTS else (e.topic.logical, str(e.record.get("kind", "")))
            for batch in outputs for e in batch]


def test_a_readdressed_copy_of_every_source_is_judged_like_the_original() -> None:
    for source in SOURCES:
        original, copy = source_episode(source, 0), source_episode(source, 3)
        assert copy != original or source.startswith("factory:")
        assert _statuses(replay(copy)) == _statuses(replay(original)), source


# --------------------------------------------------------------------------- the properties
@PROPERTY
@given(st.data())
def test_replaying_the_same_log_twice_gives_byte_identical_output(data: st.DataObject) -> None:
    log = data.draw(merges(data.draw(episodes())))
    first = replay_text(log)
    assert first == replay_text(list(log))
    assert first.endswith("\n")


@PROPERTY
@given(st.data())
def test_a_duplicated_packet_changes_no_verdict_alert_or_escalation(data: st.DataObject) -> None:
    log = data.draw(merges(data.draw(episodes())))
    i = data.draw(st.integers(0, len(log) - 1), label="copied")
    j = data.draw(st.integers(i + 1, len(log)), label="inserted at")
    duplicated = [*log[:j], log[i], *log[j:]]

    original, again = replay(log), replay(duplicated)
    assert by_id(again) == by_id(original)
    # The copy re-emits exactly what its original emitted: the same verdict, then the same alerts.
    assert judged(again[j]) == judged(again[i]) == judged(original[i])


@PROPERTY
@given(st.data())
def test_interleaving_independent_episodes_in_any_order_gives_the_same_outputs(data: st.DataObject) -> None:
    parts = data.draw(episodes())
    merged = by_id(replay(data.draw(merges(parts))))
    assert merged == by_id(replay(data.draw(merges(parts))))
    # The verdicts are those of each episode judged alone; so are the alerts, except that the end of a
    # longer log can time out more of an episode's quiet directives (INV-011 at the log's watermark).
    alone = [by_id(replay(part)) for part in parts]
    assert merged[VERDICTS.logical] == {k: v for found in alone for k, v in found[VERDICTS.logical].items()}
    for topic in (ALERTS.logical, ESCALATIONS.logical):
        assert {k: v for found in alone for k, v in found[topic].items()}.items() <= merged[topic].items()


# --------------------------------------------------------------------------- evolve never raises
@cache
def prefix_ledgers() -> tuple[EpisodeLedger, ...]:
    """The ledger after every prefix of every example episode: every FSM state S0..S9, open verify loops,
    live, spent, expired and revoked tokens, open and timed-out directives, approved and unapproved overruns."""
    found: list[EpisodeLedger] = []
    for name in EPISODE_FILES:
        ledger: EpisodeLedger | None = None
        for line in _lines(name):
            try:
                packet = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(packet, dict) and isinstance(packet.get("header"), dict):
                try:
                    ledger, _ = evolve(ledger, packet)
                except ValueError:  # no identity fields: the pipeline dead-letters it before `evolve`
                    continue
                found.append(ledger)
    return tuple(found)


def test_the_example_prefixes_reach_every_fsm_state() -> None:
    assert {ledger.state for ledger in prefix_ledgers()} == {
        "S1_SENSE", "S2_MODEL", "S3_DECIDE", "S4_VERIFY", "S5_AUTHORIZE", "S6_EXECUTE", "S7_REVIEW",
        "S8_ESCALATED", "S9_SAFEMODE", "S0_IDLE"}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), valid_packets(), st.booleans())
def test_evolve_never_raises_on_a_schema_valid_packet_in_any_reached_state(
    pick: int, packet: dict[str, Any], same_episode: bool
) -> None:
    ledgers = prefix_ledgers()
    ledger = ledgers[pick % len(ledgers)]
    if same_episode:
        packet = {**packet, "header": {**packet["header"], "correlation_id": ledger.correlation_id}}
    after, outputs = evolve(ledger, packet)
    verdict = outputs[0]
    assert isinstance(verdict, PacketVerdict)
    assert verdict.packet_id == packet["header"]["packet_id"]
    assert not [v for v in verdict.violations if v.rule == "SCHEMA"]
    assert all(not isinstance(o, PacketVerdict) for o in outputs[1:])
    assert EpisodeLedger.from_dict(json.loads(json.dumps(after.to_dict()))) == after
    # and redelivering it changes nothing and re-emits the same outputs
    again, repeated = evolve(after, packet)
    assert again is after
    assert repeated == outputs
