"""`python -m tests.bench`: a quick run of the cheap benchmarks gives figures as data, and the BENCHMARKS.md rewriter
only touches its generated section. Structure only: nothing here asserts on speed."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.bench import suite

HAND_WRITTEN = "# Benchmarks\n\n## Analysis\n\nWritten by hand: | pipes |, `code`, trailing spaces  \nno newline at end"


def test_quick_run_of_the_cheap_benchmarks_prints_figures_with_their_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "BENCHMARKS.md"
    target.write_text(HAND_WRITTEN, encoding="utf-8")
    figures_json = tmp_path / "figures.json"
    code = suite.main(["--quick", "--only", "answers", "--only", "grounding", "--only", "monitor", "--only", "oracle",
                       "--no-write",
                       "--file", str(target), "--json", str(figures_json)])
    output = capsys.readouterr().out
    assert code == 0, output
    assert output.startswith("python -m tests.bench: monitor, oracle, answers, grounding (quick)")  # suite's order
    assert "== figures" in output
    assert target.read_text(encoding="utf-8") == HAND_WRITTEN  # --no-write
    data = json.loads(figures_json.read_text(encoding="utf-8"))
    assert {f["bench"] for f in data["figures"]} == {"answers", "grounding", "monitor", "oracle"}
    for figure in data["figures"]:
        assert figure["value"] is not None
        assert figure["value"] > 0
        assert figure["command"].startswith("python -m tests.bench.bench_")
        assert "--repeat 1" in figure["command"] or "--copies 1" in figure["command"]
    grounding = next(f for f in data["figures"] if f["bench"] == "grounding")
    assert grounding["target"] is not None
    assert grounding["met"] in (True, False)
    assert {"cpu", "cores", "memory", "python", "java", "kafka", "commit"} <= set(data["machine"])


def _outcomes() -> list[suite.Outcome]:
    core = suite.Figure("omen-core", "OMEN core", 12_345.6, "packets/s", "python -m tests.bench.bench_pipeline "
                        "--core-only", "p50 61 µs", suite.CORE_TARGET)
    nan = suite.Figure("e2e", "end to end", math.nan, "", "python -m tests.bench.bench_pipeline --live $BOOTSTRAP",
                       "the run failed")
    return [suite.Outcome("omen-core", [core]), suite.Outcome("e2e", [nan], error="boom"),
            suite.Outcome("oracle", skipped="no cases")]


def test_the_rewriter_replaces_only_the_marked_section(tmp_path: Path) -> None:
    info = {"cpu": "Test CPU", "cores": "2 CPU(s), 2 usable", "memory": "1.0 GiB", "os": "Linux", "python": "3.11",
            "java": "openjdk 17", "kafka": "3.9.1", "commit": "abc1234", "load": "0.1", "load_end": "0.2"}
    when = datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
    section = suite.render(_outcomes(), info, when, ["--quick"], ["`$BOOTSTRAP`: a broker"])
    assert section.startswith(suite.BEGIN)
    assert section.endswith(suite.END + "\n")
    for text in ("2026-01-02 03:04 UTC", "Test CPU", "abc1234", "openjdk 17", "3.9.1", "12,346 packets/s",
                 "≥ 20,000 packets/s: **not met**", "`python -m tests.bench.bench_pipeline --core-only`",
                 "**failed**: boom", "skipped: no cases", "smoke run"):
        assert text in section

    path = tmp_path / "BENCHMARKS.md"
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    suite.write_benchmarks(path, section)  # no markers yet: inserted after the title
    first = path.read_text(encoding="utf-8")
    assert first == "# Benchmarks\n\n" + section + "\n## Analysis\n\nWritten by hand: | pipes |, `code`, trailing " \
        "spaces  \nno newline at end"

    again = suite.render(_outcomes()[:1], {**info, "commit": "def5678"}, when, [], [])
    suite.write_benchmarks(path, again)  # markers present: replaced, the rest byte-identical
    second = path.read_text(encoding="utf-8")
    assert second == first.replace(section, again)
    assert "abc1234" not in second
    assert "def5678" in second
    assert second.count(suite.BEGIN) == second.count(suite.END) == 1
    assert not list(tmp_path.glob(".*.tmp"))


def test_the_real_benchmarks_file_keeps_its_hand_written_part_around_a_rewrite() -> None:
    text = suite.BENCHMARKS.read_text(encoding="utf-8")
    keys = ("cpu", "cores", "memory", "os", "python", "java", "kafka", "commit", "load")
    section = suite.render([], dict.fromkeys(keys, "x"), datetime(2026, 1, 1, tzinfo=UTC), [], [])
    rewritten = suite.rewrite(text, section)
    begin, end = rewritten.index(suite.BEGIN), rewritten.index(suite.END) + len(suite.END) + 1
    if suite.BEGIN in text:
        old_begin, old_end = text.index(suite.BEGIN), text.index(suite.END) + len(suite.END) + 1
        assert rewritten[:begin] + rewritten[end:] == text[:old_begin] + text[old_end:]
    else:
        assert (rewritten[:begin] + rewritten[end:]).replace("\n\n\n", "\n\n", 1) == text


def test_a_floor_is_shown_with_its_ratio_and_anchor_met_or_not() -> None:
    def kafka(ratio: float) -> suite.Figure:
        return suite.Figure("projections-kafka", "rebuild from Kafka", 9_000.0, "events/s", "python -m x", "",
                            suite.REBUILD_TARGET, suite.KAFKA_REBUILD_FLOOR, ratio, "in process 10,000 events/s")

    assert kafka(0.9).floor_result() == "≥ 80% of the in-process rebuild: **90%** (in process 10,000 events/s), met"
    assert kafka(0.7).floor_result().endswith("**70%** (in process 10,000 events/s), **not met**")
    assert kafka(math.nan).floor_result() == "≥ 80% of the in-process rebuild: anchor not measured"
    assert (kafka(0.9).floor_met, kafka(0.7).floor_met, kafka(math.nan).floor_met) == (True, False, None)
    assert suite.Figure("x", "no floor", 1.0, "", "c").floor_result() == ""
    info = dict.fromkeys(("cpu", "cores", "memory", "os", "python", "java", "kafka", "commit", "load"), "x")
    section = suite.render([suite.Outcome("projections-kafka", [kafka(0.9)])], info,
                           datetime(2026, 1, 1, tzinfo=UTC), [], [])
    assert "| rebuild from Kafka | **9,000 events/s** | ≥ 10,000 events/s: **not met** | ≥ 80% of the in-process " \
           "rebuild: **90%** (in process 10,000 events/s), met | `python -m x` |" in section
    assert kafka(0.9).to_dict()["floor_met"] is True
