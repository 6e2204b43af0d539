"""Feeding episodes to the validator and reading its verdicts; editing copies of episodes.

`run(packets)` threads the ledger through `evolve` packet by packet and keeps, per packet, its verdict and
the alerts/escalations it raised. The mutation helpers never touch their input: each returns a deep copy.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from omega.events import Alert, Escalation
from omega.packets.ledger import EpisodeLedger
from omega.packets.validator import evolve
from omega.packets.verdict import PacketVerdict, VerdictStatus
from omega.violations import Severity
from tests.conformance.omen.packets import Packet, at, seconds_of

REJECTED = VerdictStatus.REJECTED


@dataclass(frozen=True)
class Step:
    """One judged packet: its verdict and the other outputs (Alert / Escalation) it raised."""

    verdict: PacketVerdict
    outputs: tuple[Alert | Escalation, ...]

    @property
    def alerts(self) -> list[str]:
        return [o.kind for o in self.outputs if isinstance(o, Alert)]

    @property
    def errors(self) -> set[str]:
        return error_rules(self.verdict)

    @property
    def warnings(self) -> set[str]:
        return {v.rule for v in self.verdict.violations if v.severity is Severity.WARNING}

    @property
    def state(self) -> str | None:
        return self.verdict.state_after


def run(packets: Iterable[Packet]) -> list[Step]:
    """Judge an episode packet by packet, threading the ledger."""
    ledger: EpisodeLedger | None = None
    steps = []
    for packet in packets:
        ledger, outputs = evolve(ledger, packet)
        verdict, *rest = outputs
        assert isinstance(verdict, PacketVerdict)
        steps.append(Step(verdict, tuple(o for o in rest if isinstance(o, Alert | Escalation))))
    return steps


def judge(packets: Iterable[Packet]) -> list[PacketVerdict]:
    """The verdicts of an episode, in packet order."""
    return [step.verdict for step in run(packets)]


def error_rules(verdict: PacketVerdict) -> set[str]:
    return {v.rule for v in verdict.violations if v.severity is Severity.ERROR}


def describe(steps: Sequence[Step]) -> str:
    """A readable trace for assertion messages."""
    return "\n".join(f"{s.verdict.packet_id} {s.verdict.packet_type}: {s.verdict.status} "
                     f"{s.verdict.state_before}->{s.verdict.state_after} "
                     f"{[(v.rule, v.severity.value, v.message) for v in s.verdict.violations]} {s.alerts}"
                     for s in steps)


def assert_no_errors(steps: Sequence[Step]) -> None:
    """Every packet accepted (ACCEPTED or ACCEPTED_WITH_WARNINGS), none carrying an ERROR."""
    bad = [s for s in steps if s.verdict.status is REJECTED or s.errors]
    assert not bad, "packets with ERRORs:\n" + describe(steps)


def assert_rejected_with(steps: Sequence[Step], index: int, rule: str) -> None:
    """Every packet before `index` accepted without ERROR; the one at `index` REJECTED with `rule` an ERROR."""
    assert_no_errors(steps[:index])
    step = steps[index]
    assert step.verdict.status is REJECTED, f"packet {index} not rejected:\n" + describe(steps)
    assert rule in step.errors, f"{rule} not among the ERRORs of packet {index}:\n" + describe(steps)


def states(steps: Sequence[Step]) -> list[str | None]:
    return [s.state for s in steps]


# --------------------------------------------------------------------------- editing copies of episodes
_DELETE = object()


def index_of(packets: Sequence[Packet], pid: str) -> int:
    matches = [i for i, p in enumerate(packets) if p["header"]["packet_id"] == pid]
    assert len(matches) == 1, f"{pid}: {len(matches)} matches"
    return matches[0]


def _set(packet: Packet, path: str, value: Any) -> None:
    """Set (or delete) the value at dotted `path`; a numeric step indexes a list."""
    steps: list[str | int] = [int(k) if k.isdigit() else k for k in path.split(".")]
    *head, last = steps
    node: Any = packet
    for key in head:
        node = node[key]
    if value is _DELETE:
        del node[last]
    else:
        node[last] = value


def edit(packets: Sequence[Packet], pid: str, **changes: Any) -> list[Packet]:
    """A copy with fields of packet `pid` set; keys are dotted paths with `__` for `.`."""
    out = copy.deepcopy(list(packets))
    for path, value in changes.items():
        _set(out[index_of(out, pid)], path.replace("__", "."), value)
    return out


def drop_field(packets: Sequence[Packet], pid: str, path: str) -> list[Packet]:
    """A copy with the field at dotted `path` of packet `pid` removed."""
    out = copy.deepcopy(list(packets))
    _set(out[index_of(out, pid)], path, _DELETE)
    return out


def apply(packets: Sequence[Packet], pid: str, change: Callable[[Packet], None]) -> list[Packet]:
    """A copy with `change` applied in place to packet `pid`."""
    out = copy.deepcopy(list(packets))
    change(out[index_of(out, pid)])
    return out


def replace_packet(packets: Sequence[Packet], pid: str, packet: Packet) -> list[Packet]:
    out = copy.deepcopy(list(packets))
    out[index_of(out, pid)] = copy.deepcopy(packet)
    return out


def drop(packets: Sequence[Packet], *pids: str) -> list[Packet]:
    return [copy.deepcopy(p) for p in packets if p["header"]["packet_id"] not in pids]


def insert_after(packets: Sequence[Packet], pid: str, packet: Packet) -> tuple[list[Packet], int]:
    """A copy with `packet` inserted after `pid`, its created_at moved between its neighbours (so timestamps
    keep increasing); returns the copy and the inserted packet's index."""
    out = copy.deepcopy(list(packets))
    i = index_of(out, pid) + 1
    new = copy.deepcopy(packet)
    before = seconds_of(out[i - 1]["header"]["created_at"])
    after = seconds_of(out[i]["header"]["created_at"]) if i < len(out) else before + 60
    new["header"]["created_at"] = at((before + after) // 2)
    out.insert(i, new)
    return out, i


def created_at(packets: Sequence[Packet], pid: str) -> str:
    return str(packets[index_of(packets, pid)]["header"]["created_at"])
