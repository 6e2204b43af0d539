"""The progress bars of the check commands (and replay's): drawn on a terminal stderr for inputs large enough to
wait for, never otherwise; nothing is then written to stderr at all."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from streams.cli import progress
from streams.cli.main import main
from streams.cli.progress import CHECK_THRESHOLD, by_input_size, with_progress
from streams.stages.oracle import bundled_config_path

REPO = Path(__file__).resolve().parents[4]
ORACLE_CASES = REPO / "examples" / "oracle" / "cases.ndjson"  # ours, bundled, with expectations
ORACLE_CONFIG = bundled_config_path()
GOOD = "Dizziness was reported by 8.4% of participants receiving drug A. [F1]"
FACT = {"id": "F1", "content": "Dizziness was reported by 8.4% of participants receiving drug A.",
        "source_type": "MANUAL", "source_span": {"document_id": "manual-entry"}, "qualifiers": {}, "confidence": 1.0}


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def no_forced_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich takes FORCE_COLOR / TTY_COMPATIBLE for a terminal; the tests decide that themselves."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)


def _terminal() -> tuple[Console, io.StringIO]:
    screen = io.StringIO()
    return Console(file=screen, force_terminal=True), screen


def test_the_threshold_is_ten_thousand_events() -> None:
    assert CHECK_THRESHOLD == 10_000


def test_a_terminal_stderr_gets_a_bar_for_ten_thousand_items_and_every_item_goes_through() -> None:
    console, screen = _terminal()
    items = list(range(10_000))
    assert list(with_progress(items, len(items), "checking", console)) == items
    assert "checking" in screen.getvalue()


def test_fewer_items_draw_no_bar() -> None:
    console, screen = _terminal()
    assert list(with_progress(range(9_999), 9_999, "checking", console)) == list(range(9_999))
    assert screen.getvalue() == ""


def test_a_stderr_that_is_not_a_terminal_gets_nothing() -> None:
    screen = io.StringIO()
    assert list(with_progress(range(10_000), 10_000, "checking", Console(file=screen))) == list(range(10_000))
    assert screen.getvalue() == ""


def test_no_bar_when_stdout_is_the_terminal_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdout", Tty())
    console, screen = _terminal()
    assert list(with_progress(range(10_000), 10_000, "checking", console)) == list(range(10_000))
    assert screen.getvalue() == ""


def test_replay_counts_on_a_terminal_for_five_megabytes_of_input(tmp_path: Path) -> None:
    big, small = tmp_path / "big.jsonl", tmp_path / "small.jsonl"
    with big.open("wb") as handle:
        handle.truncate(5_000_000)  # sparse: the size is what counts
    small.write_bytes(b"{}\n")
    console, screen = _terminal()
    assert list(by_input_size(iter([1, 2]), [small], console)) == [1, 2]
    assert screen.getvalue() == ""
    assert list(by_input_size(iter([1, 2]), [big], console)) == [1, 2]
    assert "replaying" in screen.getvalue()


# ------------------------------------------------------------------ through the commands
def _grounding_file(tmp_path: Path) -> Path:
    path = tmp_path / "in.json"
    paragraphs = [{"paragraph_id": f"p{n}", "sentences": [{"order": 1, "text": GOOD}]} for n in range(3)]
    path.write_text(json.dumps({"facts": [FACT], "paragraphs": paragraphs}), encoding="utf-8")
    return path


def test_check_grounding_writes_nothing_to_a_stderr_that_is_not_a_terminal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMEGA_JUDGE_URL", raising=False)
    monkeypatch.setattr(progress, "CHECK_THRESHOLD", 1)
    result = CliRunner().invoke(main, ["check", "grounding", str(_grounding_file(tmp_path))])
    assert result.exit_code == 0
    assert result.stderr == "3 sentences judged: PASS 3, paragraph 3\n"  # the summary only: no bar
    assert len(result.stdout.splitlines()) == 6


def test_check_grounding_draws_its_bar_on_a_terminal_stderr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMEGA_JUDGE_URL", raising=False)
    monkeypatch.setattr(progress, "CHECK_THRESHOLD", 1)
    console, screen = _terminal()
    monkeypatch.setattr(progress, "stderr_console", lambda: console)
    result = CliRunner().invoke(main, ["check", "grounding", str(_grounding_file(tmp_path))])
    assert result.exit_code == 0
    assert "verifying paragraphs" in screen.getvalue()
    assert len(result.stdout.splitlines()) == 6  # the JSON lines stay on stdout, whole


def test_check_oracle_draws_its_bar_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "CHECK_THRESHOLD", 1)
    args = ["check", "oracle", str(ORACLE_CASES), "--config", str(ORACLE_CONFIG)]
    plain = CliRunner().invoke(main, args)
    assert plain.stderr == "agreement with expected.verdict: 4/4\n4 cases judged: AGREE 4\n"  # and no bar
    console, screen = _terminal()
    monkeypatch.setattr(progress, "stderr_console", lambda: console)
    drawn = CliRunner().invoke(main, args)
    assert "judging cases" in screen.getvalue()
    assert drawn.stdout == plain.stdout
