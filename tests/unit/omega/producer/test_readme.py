"""The "Emit OMEN from your agents" snippet of docs/producers.md (moved there from README.md, issue 44), run as
written: read from the page itself, so the test fails when the page drifts from what the kit does. It writes
episode.jsonl (here in a temporary directory) and asserts that every packet it built is ACCEPTED."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[4]


def readme_snippet() -> str:
    section = (REPO / "docs" / "producers.md").read_text(encoding="utf-8").split("## Emit OMEN from your agents", 1)[1]
    return section.split("```python", 1)[1].split("```", 1)[0]


def test_the_readme_snippet_runs_and_its_packets_are_accepted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "readme_snippet"}
    exec(compile(readme_snippet(), "docs/producers.md#emit-omen-from-your-agents", "exec"), namespace)
    lines = (tmp_path / "episode.jsonl").read_text(encoding="utf-8").splitlines()
    packets = [json.loads(line) for line in lines]
    assert [p["header"]["packet_type"] for p in packets] == ["ObservationPacket", "BeliefUpdatePacket"]
    assert packets[1]["header"]["previous_packet_id"] == packets[0]["header"]["packet_id"] == "pkt_demo_1_0001"
