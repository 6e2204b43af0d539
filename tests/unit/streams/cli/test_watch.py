"""`omega watch`: one frame of episodes (in trouble first, budget bars) and alerts (newest event time first) from
the read model, one line per row at any width, new alerts picked up by seq, Ctrl-C an ordinary end (exit 0), and a
broker-less `--bootstrap` path."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rich.console import Console

from projections.live import views as live_views
from projections.runner import FileSource
from projections.store.base import SqlStore
from projections.store.sqlite import SqliteStore
from streams.cli import watch as watch_module
from streams.cli.main import main
from streams.cli.watch import AlertFeed, budget_bar, watch_loop, watch_projecting
from streams.kafka.projection_source import projected_topics

REPO = Path(__file__).resolve().parents[4]


def _episode(episode_id: str, *, trouble: int, safe_mode: bool = False, rejected: int = 0,
             budgets: dict[str, Any] | None = None, top: str | None = None, alerts: int = 0) -> dict[str, Any]:
    return {"episode_id": episode_id, "fsm_state": "S9_SAFEMODE" if safe_mode else "S1_SENSE",
            "safe_mode": safe_mode, "packets": {"accepted": 3, "warnings": 0, "rejected": rejected},
            "budgets": budgets or {}, "max_burn": None, "open_directives": [], "last_rejection": None,
            "alerts": alerts, "top_severity": top, "trouble": trouble,
            "last_event_time": "2025-12-27T16:01:35.000Z"}


def _alert(seq: int, kind: str, episode_id: str | None = "ep-overrun", severity: str = "CRITICAL") -> dict[str, Any]:
    return {"seq": seq, "alert_id": f"alr_{seq}", "source": "alert", "kind": kind, "severity": severity,
            "spec_severity": severity, "subject_id": episode_id or "sess-1", "episode_id": episode_id,
            "session_id": None, "event_time": f"2025-12-27T16:0{seq}:00.000Z", "summary": f"summary of {kind}",
            "details": None}


EPISODES = [
    _episode("ep-overrun", trouble=3, safe_mode=True, rejected=1, alerts=2, top="CRITICAL",
             budgets={"tokens": {"used": 2640.0, "limit": 2000.0, "burn": 1.32},
                      "tool_calls": {"used": 1.0, "limit": 4.0, "burn": 0.25}}),
    _episode("ep-fine", trouble=0, budgets={"time_ms": {"used": 81400.0, "limit": None, "burn": None}}),
]


class FakeViews:
    """The contract's read functions over canned rows; `arrive` adds an alert as the projector would."""

    def __init__(self, alerts: list[dict[str, Any]]) -> None:
        self.stored = list(alerts)
        self.calls: list[tuple[str, Any]] = []

    def episodes(self, store: SqlStore, **options: Any) -> dict[str, Any]:
        self.calls.append(("episodes", options))
        items = [e for e in EPISODES if e["trouble"] or not options.get("trouble_only")]
        return {"items": items[: options.get("limit", 50)], "next": None}

    def alerts(self, store: SqlStore, **options: Any) -> dict[str, Any]:
        self.calls.append(("alerts", options))
        newest = sorted(self.stored, key=lambda a: a["event_time"], reverse=True)
        return {"items": newest[: options.get("limit", 50)], "next": None}

    def alerts_after(self, store: SqlStore, after_seq: int, limit: int = 100) -> list[dict[str, Any]]:
        self.calls.append(("alerts_after", after_seq))
        return [a for a in sorted(self.stored, key=lambda a: a["seq"]) if a["seq"] > after_seq][:limit]


@pytest.fixture
def views(monkeypatch: pytest.MonkeyPatch) -> FakeViews:
    fake = FakeViews([_alert(1, "BUDGET_WARNING", severity="HIGH"), _alert(2, "BUDGET_OVERRUN")])
    for name in ("episodes", "alerts", "alerts_after"):
        monkeypatch.setattr(live_views, name, getattr(fake, name))
    return fake


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    """An empty read model on disk (the watch opens it read-only, as it would a projector's)."""
    with SqliteStore(tmp_path / "m.sqlite"):
        pass
    return f"sqlite:{tmp_path / 'm.sqlite'}"


def _watch(*args: str) -> Any:
    return CliRunner().invoke(main, ["watch", *args], env={"COLUMNS": "200"})


def test_a_budget_bar_fills_with_the_burn_and_says_the_percentage() -> None:
    assert budget_bar("tokens", {"used": 1280.0, "limit": 2000.0, "burn": 0.64}).plain == "tokens ██████░░░░ 64%"
    assert budget_bar("tokens", {"used": 2640.0, "limit": 2000.0, "burn": 1.32}).plain == "tokens ██████████ 132%"
    assert budget_bar("time_ms", {"used": 81400.0, "limit": None, "burn": None}).plain == "time_ms 81400 (no limit)"


def test_once_prints_the_episodes_in_the_read_models_order_and_the_alerts_newest_first(
        views: FakeViews, store_url: str) -> None:
    result = _watch("--store", store_url, "--once")
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.index("ep-overrun") < out.index("ep-fine")  # trouble first, as the read model orders them
    assert "SAFE MODE" in out
    assert "tokens ██████████ 132%" in out
    assert "tool_calls ███░░░░░░░ 25%" in out
    assert "time_ms 81400 (no limit)" in out
    assert out.index("summary of BUDGET_OVERRUN") < out.index("summary of BUDGET_WARNING")  # seq 2 before seq 1
    assert ("episodes", {"trouble_only": False, "limit": 15}) in views.calls


def test_once_passes_the_trouble_filter_and_the_limits(views: FakeViews, store_url: str) -> None:
    result = _watch("--store", store_url, "--once", "--trouble-only", "--limit", "5", "--alerts", "1")
    assert result.exit_code == 0, result.output
    assert "ep-fine" not in result.output
    assert "summary of BUDGET_OVERRUN" in result.output
    assert "summary of BUDGET_WARNING" not in result.output  # only the newest alert
    assert ("episodes", {"trouble_only": True, "limit": 5}) in views.calls


def test_ctrl_c_ends_the_watch_with_exit_0_and_no_traceback(views: FakeViews, store_url: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    async def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(watch_module, "watch_loop", interrupted)
    result = _watch("--store", store_url)
    assert result.exit_code == 0
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output


def test_a_missing_read_model_is_a_usage_error(tmp_path: Path) -> None:
    result = _watch("--store", f"sqlite:{tmp_path / 'absent.sqlite'}", "--once")
    assert result.exit_code == 2
    assert "no read model" in result.output


def test_store_and_bootstrap_exclude_each_other(store_url: str) -> None:
    result = _watch("--store", store_url, "--bootstrap", "127.0.0.1:1", "--once")
    assert result.exit_code == 2
    assert "exclude each other" in result.output


def test_the_alert_feed_reads_only_what_arrived_after_the_last_seq_and_keeps_the_newest(views: FakeViews) -> None:
    feed = AlertFeed(keep=2)
    store: Any = object()
    feed.refresh(store)
    assert [a["seq"] for a in feed.items] == [2, 1]
    views.stored.append(_alert(3, "SAFE_MODE"))
    feed.refresh(store)
    assert [a["seq"] for a in feed.items] == [3, 2]
    assert views.calls[-1] == ("alerts_after", 2)
    feed.refresh(store)
    assert views.calls[-1] == ("alerts_after", 3)
    assert [a["seq"] for a in feed.items] == [3, 2]


def test_the_live_loop_shows_an_alert_that_arrives_between_two_frames(views: FakeViews, store_url: str) -> None:
    frames: list[str] = []

    def clock() -> str:
        if len(frames) == 1:
            views.stored.append(_alert(5, "DEADLINE_MISSED", episode_id="ep-late"))
        frames.append("drawn")
        return "12:00:00"

    buffer = io.StringIO()
    console = Console(file=buffer, width=200, force_terminal=False)
    with SqliteStore(store_url.removeprefix("sqlite:")) as store:
        asyncio.run(watch_loop(store, console, source="test", limit=10, alerts=5, trouble_only=False,
                               interval=0.01, frames=2, clock=clock))
    shown = buffer.getvalue()
    assert "summary of DEADLINE_MISSED" in shown
    assert "ep-late" in shown
    assert "updated 12:00:00" in shown


@pytest.fixture
def replay_file(tmp_path: Path) -> Path:
    out = tmp_path / "replay.jsonl"
    result = CliRunner().invoke(main, ["replay", str(REPO / "examples" / "omen" / "budget_overrun.jsonl"),
                                       "--out", str(out), "--no-summary"])
    assert result.exit_code in (0, 1), result.output
    return out


def test_bootstrap_projects_into_a_fresh_read_model_then_shows_it(replay_file: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The --bootstrap path with a file in place of the broker: the projector fills the scratch store, and the
    frame is read from what it projected."""

    def projected(store: SqlStore, **options: Any) -> dict[str, Any]:
        return {"items": [_episode(s, trouble=1) for s in store.sessions()], "next": None}

    monkeypatch.setattr(live_views, "episodes", projected)
    monkeypatch.setattr(live_views, "alerts", lambda store, **options: {"items": [], "next": None})
    buffer = io.StringIO()
    console = Console(file=buffer, width=200)
    with SqliteStore(tmp_path / "scratch.sqlite") as store:
        source = FileSource([replay_file], projected_topics(""))
        asyncio.run(watch_projecting(store, source, console, label="file", limit=10, alerts=5, trouble_only=False,
                                     interval=0.1, once=True, idle=0.5))
        assert store.positions()  # the projector ran into this store
    assert "corr_budget_overrun_0001" in buffer.getvalue()
    assert "no alerts yet" in buffer.getvalue()


LONG = "a summary long enough to need cutting at eighty columns, and at two hundred once the other columns are in"


def _late_alert(seq: int, minute: int) -> dict[str, Any]:
    """An alert whose event time (16:0`minute`) need not follow its arrival order (`seq`)."""
    alert = _alert(seq, "CONTRADICTION_CASCADE", episode_id=f"corr_contradiction_cascade_failure_{seq:04d}")
    return {**alert, "event_time": f"2025-12-27T16:0{minute}:00.000Z", "summary": f"alert {seq}: {LONG}"}


@pytest.fixture
def crowded(monkeypatch: pytest.MonkeyPatch) -> FakeViews:
    """Long episode ids, three budgets each, and alerts that arrived out of event-time order (seq 3 and 4 tie)."""
    budgets = {"tokens": {"used": 2640.0, "limit": 2000.0, "burn": 1.32},
               "tool_calls": {"used": 1.0, "limit": 4.0, "burn": 0.25},
               "time_ms": {"used": 81400.0, "limit": None, "burn": None}}
    episodes = [_episode(f"corr_contradiction_cascade_failure_{i:04d}", trouble=1, safe_mode=True, rejected=2,
                         budgets=budgets, top="CRITICAL", alerts=12) for i in range(7)]
    fake = FakeViews([_late_alert(1, 5), _late_alert(2, 1), _late_alert(3, 3), _late_alert(4, 3)])
    monkeypatch.setattr(live_views, "episodes", lambda store, **options: {"items": episodes, "next": None})
    for name in ("alerts", "alerts_after"):
        monkeypatch.setattr(live_views, name, getattr(fake, name))
    return fake


@pytest.mark.parametrize("width", [80, 200])
def test_every_row_is_one_line_that_fits_the_terminal_and_alerts_come_newest_event_time_first(
        crowded: FakeViews, store_url: str, width: int) -> None:
    result = CliRunner().invoke(main, ["watch", "--store", store_url, "--once"], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert all(len(line) <= width for line in lines), [line for line in lines if len(line) > width]
    rows = [line for line in lines if line.startswith("│")]
    assert len(rows) == 7 + 4  # 7 episodes, 4 alerts: a row is one line, nothing folded onto a second
    alert_rows = rows[7:]
    # by event time, newest first: 16:05 (seq 1), then the 16:03 tie with the later arrival first (seq 4, 3), 16:01
    assert [row.split("│")[5].strip().split(":")[0] for row in alert_rows] == ["alert 1", "alert 4", "alert 3",
                                                                              "alert 2"]
    assert "12-27 16:05:00" in alert_rows[0]


def test_a_narrow_terminal_drops_the_last_event_and_shows_only_the_worst_budget(crowded: FakeViews,
                                                                                store_url: str) -> None:
    narrow = CliRunner().invoke(main, ["watch", "--store", store_url, "--once"], env={"COLUMNS": "80"}).output
    wide = CliRunner().invoke(main, ["watch", "--store", store_url, "--once"], env={"COLUMNS": "200"}).output
    assert "last event" not in narrow
    assert "last event" in wide
    assert "tokens ██████████ 132%" in wide
    assert "tool_calls ███░░░░░░░ 25%" in wide
    assert "tokens █████ 132%" in narrow  # the worst burn, on a half-length bar
    assert "tool_calls" not in narrow


def test_the_alert_feed_orders_by_event_time_whatever_the_arrival_order(crowded: FakeViews) -> None:
    feed = AlertFeed(keep=3)
    store: Any = object()
    crowded.stored = [_late_alert(1, 1)]
    feed.refresh(store)
    crowded.stored += [_late_alert(2, 5), _late_alert(3, 3), _late_alert(4, 3)]
    feed.refresh(store)
    assert [a["seq"] for a in feed.items] == [2, 4, 3]  # 16:05, then the 16:03 tie by seq; 16:01 falls off
