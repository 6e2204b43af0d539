"""The verdict id (`omega.packets.verdict.verdict_id_for`): derived from the packet id, the packet's content hash and
the rule-set version, so the same packet judged by the same rules always gets the same id, and nothing else does."""

from __future__ import annotations

import re

from omega import RULESET_VERSION
from omega.packets.verdict import verdict_id_for

HASH = "sha256:" + "ab" * 32


def test_a_verdict_id_is_vrd_and_32_hex_digits_and_the_same_for_the_same_inputs() -> None:
    first = verdict_id_for("pkt_00001_000001", HASH, "v1")

    assert re.fullmatch(r"vrd_[0-9a-f]{32}", first)
    assert verdict_id_for("pkt_00001_000001", HASH, "v1") == first


def test_two_packets_with_the_same_content_hash_get_different_verdict_ids() -> None:
    assert verdict_id_for("pkt_00001_000001", HASH, "v1") != verdict_id_for("pkt_00001_000002", HASH, "v1")


def test_the_same_packet_judged_under_another_rule_set_gets_another_verdict_id() -> None:
    assert verdict_id_for("pkt_00001_000001", HASH, "v1") != verdict_id_for("pkt_00001_000001", HASH, "v2")


def test_a_changed_content_hash_gets_another_verdict_id() -> None:
    other = "sha256:" + "cd" * 32

    assert verdict_id_for("pkt_00001_000001", HASH, "v1") != verdict_id_for("pkt_00001_000001", other, "v1")


def test_the_rule_set_version_defaults_to_the_running_one() -> None:
    assert verdict_id_for("pkt_00001_000001", HASH) == verdict_id_for("pkt_00001_000001", HASH, RULESET_VERSION)
