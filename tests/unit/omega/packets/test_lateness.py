"""The lateness rule (omega/packets/lateness.py): a packet is released, or late, once its partition's watermark
has passed its created_at plus the lateness; released packets come in (created_at, packet id) order."""

from __future__ import annotations

from dataclasses import dataclass

from omega.packets.lateness import is_late, releasing_watermark, ripe


@dataclass(frozen=True)
class P:
    created_ms: int
    packet_id: str
    digest: str = "h"


def test_a_packet_is_late_only_once_the_watermark_has_passed_its_time_plus_the_lateness() -> None:
    assert not is_late(1_000, None, 500)  # no watermark yet
    assert not is_late(1_000, 1_400, 500)
    assert not is_late(1_000, 1_500, 500)  # reached, not passed
    assert is_late(1_000, 1_501, 500)


def test_ripe_packets_come_in_event_time_then_packet_id_order_and_the_rest_keep_arrival_order() -> None:
    waiting = [P(3_000, "c"), P(1_000, "b"), P(9_000, "z"), P(1_000, "a"), P(8_000, "y")]

    ready, rest = ripe(waiting, 4_001, 1_000)

    assert ready == [P(1_000, "a"), P(1_000, "b"), P(3_000, "c")]
    assert rest == [P(9_000, "z"), P(8_000, "y")]


def test_an_id_re_used_at_the_same_time_with_other_content_is_ordered_by_content_not_by_arrival() -> None:
    first, second = P(1_000, "a", "f00"), P(1_000, "a", "0ff")
    assert ripe([first, second], 9_000, 0)[0] == ripe([second, first], 9_000, 0)[0] == [second, first]


def test_nothing_is_ripe_without_a_watermark() -> None:
    assert ripe([P(1, "a")], None, 0) == ([], [P(1, "a")])


def test_an_idle_release_watermark_releases_everything_up_to_the_newest_packet_and_nothing_after() -> None:
    # lateness 500 ms, newest packet at 9,000: the watermark must pass 9,000 + 500, i.e. be 9,501
    mark = releasing_watermark(9_000, 500)
    waiting = [P(9_000, "b"), P(8_600, "a"), P(9_001, "c")]

    assert mark == 9_501
    assert ripe(waiting, mark, 500) == ([P(8_600, "a"), P(9_000, "b")], [P(9_001, "c")])
    assert is_late(9_000, mark, 500)  # after it, a packet at the newest time is late
    assert not is_late(9_001, mark, 500)
