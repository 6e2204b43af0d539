"""The validator and the FSM call only the rules that can fire on a packet's type: on real episodes, and on
every packet re-typed as every other type, the rules left out answer nothing."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

from omega.eventtime import to_ms
from omega.packets import fsm
from omega.packets.invariants import _ALL, invariants_for
from omega.packets.ledger import EpisodeLedger
from omega.packets.schema_rules import PACKET_TYPES
from omega.packets.validator import evolve
from tests.factories import merged_log, mixed_episode


def judged_pairs() -> list[tuple[EpisodeLedger, dict[str, Any]]]:
    """(ledger before, packet) over 40 mixed episodes, as the validator sees them."""
    start = datetime(2025, 12, 21, 9, 0, tzinfo=UTC)
    log = merged_log([mixed_episode(e, 40, start + timedelta(seconds=2 * e), tight_budget=e % 25 == 7)
                      for e in range(40)])
    ledgers: dict[str, EpisodeLedger] = {}
    pairs = []
    for packet in log:
        key = packet["header"]["correlation_id"]
        if key in ledgers:
            pairs.append((ledgers[key], packet))
        ledgers[key], _ = evolve(ledgers.get(key), packet)
    return pairs


def retyped(packet: dict[str, Any], kind: str) -> dict[str, Any]:
    other = copy.deepcopy(packet)
    other["header"]["packet_type"] = kind
    return other


def test_the_invariants_left_out_for_a_packet_type_answer_nothing_on_any_packet_of_that_type() -> None:
    checked = 0
    for ledger, packet in judged_pairs()[::7]:
        for kind in PACKET_TYPES:
            p = retyped(packet, kind)
            now = to_ms(p["header"]["created_at"])
            chosen = invariants_for(kind)
            for invariant in _ALL:
                if invariant not in chosen:
                    assert invariant(p, ledger, now) == [], (invariant.__name__, kind)
                    checked += 1
    assert checked > 1000


def test_the_fsm_rules_left_out_for_a_packet_type_answer_nothing_on_any_packet_of_that_type() -> None:
    checked = 0
    for ledger, packet in judged_pairs()[::7]:
        for kind in PACKET_TYPES:
            p = retyped(packet, kind)
            chosen = fsm._RULES_FOR.get(kind, ())
            for rule in fsm._RULES:
                if rule not in chosen:
                    assert rule(ledger, p) is None, (rule.__name__, kind)
                    checked += 1
    assert checked > 1000
