"""`omega check packets --report` over the near-OMEN corpus (near_omen.py) against the report written by hand in
tests/data/near_omen/expected_report.json, and the text and Markdown forms of the same report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_REJECTED
from tests.conformance.omen import near_omen

DATA = Path(__file__).resolve().parents[2] / "data" / "near_omen"
FILES = ("alpha.jsonl", "beta.jsonl", "gamma.json")


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The corpus, generated afresh, in the working directory (so places read `alpha.jsonl:3`)."""
    near_omen.write(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _report(*options: str) -> Result:
    return CliRunner().invoke(main, ["check", "packets", *FILES, "--report", *options], catch_exceptions=False)


def test_the_generator_writes_the_checked_in_corpus(tmp_path: Path) -> None:
    near_omen.write(tmp_path)
    for name in FILES:
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name


def test_the_json_report_is_the_one_written_by_hand(corpus: Path) -> None:
    result = _report("--report-format", "json")
    assert result.exit_code == EXIT_REJECTED
    expected = json.loads((DATA / "expected_report.json").read_text(encoding="utf-8"))
    assert json.loads(result.stdout) == expected


def test_the_text_report(corpus: Path) -> None:
    result = _report()
    assert result.exit_code == EXIT_REJECTED
    lines = result.stdout.splitlines()
    assert lines[:2] == ["OMEN producer conformance report",
                         "Packets: 25 (ACCEPTED 3, ACCEPTED_WITH_WARNINGS 2, REJECTED 20); dead letters: 3"]
    assert "  1. SCHEMA header.layer_source: 9 packet(s), would accept 7" in lines
    assert '      fix: write an integer 1..6 or "Integrity"' in lines
    assert ('      spec: schema-index-v0.7.md "Schema Validation Order"; schema-index-v0.7.md '
            '"PacketHeader.schema.json"; schema-v0.7/header/PacketHeader.schema.json "layer_source"') in lines
    assert ('      e.g. pkt_vl_0001 at alpha.jsonl:1: header.layer_source must be an integer 1..6 or "Integrity", '
            'got a string "6"') in lines
    assert "  3. DUPLICATE header.packet_id: 1 packet(s), would accept 1" in lines
    assert " 15. SCHEMA update_type: 1 packet(s), would accept 0" in lines
    assert "  - SCHEMA mcp.evidence.evidence_refs[].reliability_score: 2 packet(s)" not in lines
    assert "  - SCHEMA header.campaign_id: 2 packet(s)" in lines
    assert "  - MISSING_IDENTITY: 2" in lines
    assert "      at alpha.jsonl:10: invalid JSON at line 1 column 5: Extra data" in lines
    assert not any(line.startswith("{") for line in lines)  # no JSON lines with --report


def test_the_markdown_report(corpus: Path) -> None:
    result = _report("--report-format", "markdown")
    assert result.exit_code == EXIT_REJECTED
    lines = result.stdout.splitlines()
    assert lines[0] == "# OMEN producer conformance report"
    assert ("**Packets:** 25 · **ACCEPTED:** 3 · **ACCEPTED_WITH_WARNINGS:** 2 · **REJECTED:** 20 · "
            "**Dead letters:** 3") in lines
    row = next(line for line in lines if line.startswith("| 2 |"))
    assert row.startswith("| 2 | SCHEMA | `mcp.quality.definition_of_done.checks` | 2 | 2 | give at least 1 item | ")
    assert "`pkt_dd_0002` at `gamma.json#1`<br>`pkt_dd_0003` at `gamma.json#2`" in row
    assert "| MISSING_IDENTITY | 2 | `gamma.json#3`: header: packet has no header object<br>" in "\n".join(lines)
    assert "## Warnings (do not block acceptance)" in lines
