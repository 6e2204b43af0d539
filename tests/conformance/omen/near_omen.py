"""A day of near-OMEN logs from three teams: valid packets of the bundled examples (examples/omen) rewritten in the
dialects real producers show, for `omega check packets --report` (tests/data/near_omen holds the output and the
report expected of it, written by hand).

* alpha.jsonl (the verify loop): numbers as strings (`layer_source`, `token_budget`), a null `reliability_score`,
  and a log line that is not JSON.
* beta.jsonl: an escalation episode with UUID packet and correlation ids, load-bearing assumptions as strings and
  `recommended_next_step` as a string; a write episode with null `campaign_id`s, a result without MCP, a belief
  update with its payload flattened to the top level, and a directive resent under its id with a new timestamp.
* gamma.json (one JSON array): a null on a required field (`confidence`), `definition_of_done.checks: []`, a
  null `previous_packet_id`, a packet with no header object and one whose `packet_id` is a number.

Deterministic: `python -m tests.conformance.omen.near_omen DIR` writes the same bytes every time.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "omen"
Packet = dict[str, Any]


def _episode(name: str) -> list[Packet]:
    with open(EXAMPLES / f"{name}.jsonl", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _line(packet: object) -> str:
    return json.dumps(packet, ensure_ascii=False)


def _uuid(n: int) -> str:
    return f"7f3c9a2e-5d1b-4c8e-9a6f-{n:012d}"


# ------------------------------------------------------------------ alpha: numbers as strings
def alpha() -> list[str]:
    """The verify loop with `layer_source` as a string everywhere, `token_budget` too in two packets."""
    packets = _episode("verify_loop")
    for packet in packets:
        packet["header"]["layer_source"] = str(packet["header"]["layer_source"])
    for index in (2, 4):  # pkt_vl_0003 (the VERIFY_FIRST decision), pkt_vl_0005 (the READ directive)
        budgets = packets[index]["mcp"]["budgets"]
        budgets["token_budget"] = str(budgets["token_budget"])
    packets[0]["mcp"]["evidence"]["evidence_refs"][0]["reliability_score"] = None
    lines = [_line(p) for p in packets]
    lines.append("2025-12-21T11:31:02-05:00 INFO omen.publisher: sent pkt_vl_0009")  # a log line in the stream
    return lines


# ------------------------------------------------------------------ beta: UUID ids, shapes, nulls, a resend
def beta() -> list[str]:
    """The escalation episode with UUID ids and strings for objects; the write episode with nulls, a result
    without MCP, a flattened belief update and a resent directive."""
    escalation = _episode("escalation")
    for n, packet in enumerate(escalation, start=1):
        header = packet["header"]
        header["packet_id"] = _uuid(n)
        header["correlation_id"] = "c8d2e3f4-1a2b-4c3d-8e9f-0a1b2c3d4e5f"
        if "previous_packet_id" in header:
            header["previous_packet_id"] = _uuid(n - 1)
    decision, escalate = escalation[3]["payload"], escalation[4]["payload"]
    decision["load_bearing_assumptions"] = [a["assumption"] for a in decision["load_bearing_assumptions"]]
    step = escalate["recommended_next_step"]
    escalate["recommended_next_step"] = f"{step['step']}: {step['rationale']}"

    write = _episode("write_act")
    for index in (1, 2):  # pkt_wa_0002, pkt_wa_0003
        write[index]["header"]["campaign_id"] = None
    del write[5]["mcp"]  # pkt_wa_0006
    flattened = write[6]  # pkt_wa_0007
    flattened.update(flattened.pop("payload"))
    resent = copy.deepcopy(write[4])  # pkt_wa_0005, sent again by a retry with a fresh timestamp
    resent["header"]["created_at"] = "2025-12-22T09:15:24+00:00"
    return [_line(p) for p in (*escalation, *write, resent)]


# ------------------------------------------------------------------ gamma: one JSON array
def gamma() -> str:
    """Three packets of the dangling-directive episode with a null and empty lists, then two unattributable."""
    first, second, third = _episode("dangling_directive")[:3]
    first["mcp"]["epistemics"]["confidence"] = None
    for packet in (second, third):
        packet["mcp"]["quality"]["definition_of_done"]["checks"] = []
    second["header"]["previous_packet_id"] = None
    no_header = copy.deepcopy(first)
    no_header.update(no_header.pop("header"))
    no_header["packet_id"] = "pkt_dd_0010"
    numbered = copy.deepcopy(third)
    numbered["header"]["packet_id"] = 11
    return json.dumps([first, second, third, no_header, numbered], ensure_ascii=False, indent=1) + "\n"


def corpus() -> dict[str, str]:
    """File name -> content."""
    return {"alpha.jsonl": "".join(f"{line}\n" for line in alpha()),
            "beta.jsonl": "".join(f"{line}\n" for line in beta()),
            "gamma.json": gamma()}


def write(directory: Path) -> list[Path]:
    """Write the corpus into `directory`; its files, in name order."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in sorted(corpus().items()):
        path = directory / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":
    write(Path(sys.argv[1]))
