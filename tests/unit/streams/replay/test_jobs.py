"""`omega replay --jobs N` (issue 24): episodes split by key over N processes give the very bytes, exit code and
summary of one job, on the bundled examples and on a multi-episode log with rejections and end-of-log timeouts."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from streams.cli.main import main
from streams.cli.options import EXIT_REJECTED, EXIT_USAGE
from streams.kafka.partitioning import partition_of
from streams.replay import jobs as replay_jobs
from streams.replay.inputs import InputRecord, read_inputs
from streams.replay.replayer import ReplaySummary
from streams.stages.base import Outputs, Source
from streams.wire.codec import SchemaRegistry
from tests.factories import merged_log, mixed_episode

EXAMPLES = Path(__file__).parents[4] / "examples"
REGISTRY = SchemaRegistry.from_directory()


def _replay(tmp_path: Path, name: str, *args: str) -> tuple[Result, bytes]:
    out = tmp_path / f"{name}.jsonl"
    result = CliRunner().invoke(main, ["replay", *args, "--out", str(out)], prog_name="omega",
                                catch_exceptions=False)
    return result, out.read_bytes() if out.exists() else b""


def _mixed_log(path: Path, episodes: int = 30, length: int = 14) -> Path:
    """A log of concurrent episodes (accepted, warned, rejected, duplicates, dangling directives, budget overruns),
    with malformed lines and packets of no episode between them."""
    start = datetime(2025, 12, 21, 9, 0, tzinfo=UTC)
    packets = merged_log([mixed_episode(ep, length, start + timedelta(seconds=2 * ep), tight_budget=ep % 7 == 3)
                          for ep in range(episodes)])
    lines = [json.dumps(p, separators=(",", ":")) for p in packets]
    for n in range(0, len(lines), 37):
        lines.insert(n, '{"header": {"packet_id": 7}}')
    for n in range(5, len(lines), 53):
        lines.insert(n, "{not json")
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("jobs", [2, 3])
def test_jobs_give_the_bytes_exit_code_and_summary_of_one_job_on_the_examples(tmp_path: Path, jobs: int) -> None:
    inputs = [str(EXAMPLES)]
    one, one_out = _replay(tmp_path, "one", *inputs)
    many, many_out = _replay(tmp_path, "many", *inputs, "--jobs", str(jobs))
    assert one_out.count(b"\n") > 200  # every example replayed: verdicts, alerts, dead letters, sessions
    assert many_out == one_out
    assert (many.exit_code, many.output) == (one.exit_code, one.output)
    assert one.exit_code == EXIT_REJECTED  # the examples hold rejected packets and dead letters


@pytest.mark.parametrize("jobs", [2, 3])
def test_jobs_give_one_jobs_bytes_on_a_multi_episode_log_with_rejections(tmp_path: Path, jobs: int) -> None:
    log = str(_mixed_log(tmp_path / "mixed.jsonl"))
    one, one_out = _replay(tmp_path, "one", log)
    many, many_out = _replay(tmp_path, "many", log, "--jobs", str(jobs))
    lines = [json.loads(line) for line in one_out.splitlines()]
    kinds = {(line["topic"].split(".")[-1], line["value"].get("status") or line["value"].get("kind")
              or line["value"].get("error_class")) for line in lines}
    # what makes the merge non-trivial: rejections, dead letters, and timeouts raised at the end of the log
    assert {("verdicts", "REJECTED"), ("deadletters", "JSON_SYNTAX"), ("deadletters", "MISSING_IDENTITY"),
            ("alerts", "TASK_TIMEOUT")} <= kinds
    assert many_out == one_out
    assert (many.exit_code, many.output) == (one.exit_code, one.output) == (EXIT_REJECTED, one.output)


def test_jobs_really_split_the_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = _mixed_log(tmp_path / "mixed.jsonl", episodes=8, length=6)
    with (tmp_path / "one.jsonl").open("w", encoding="utf-8") as out:
        one = replay_jobs.replay([log], Outputs(REGISTRY), 0, 1, out)

    def no_single_job(*_args: Any) -> ReplaySummary:
        raise AssertionError("replayed as one job")

    monkeypatch.setattr(replay_jobs, "_one_job", no_single_job)
    with (tmp_path / "two.jsonl").open("w", encoding="utf-8") as out:
        two = replay_jobs.replay([log], Outputs(REGISTRY), 0, 2, out)
    assert (tmp_path / "two.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    assert two == one
    assert one.events_in == 8 * 6 + 2 + 1  # 48 packets, a header-less packet every 37 lines, a broken line at 5


def test_a_job_whose_outputs_name_the_logs_packet_positions_makes_the_replay_one_job(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = _mixed_log(tmp_path / "mixed.jsonl", episodes=6, length=5)
    with (tmp_path / "one.jsonl").open("w", encoding="utf-8") as out:
        replay_jobs.replay([log], Outputs(REGISTRY), 0, 1, out)
    single: list[int] = []
    one_job = replay_jobs._one_job

    def counted(*args: Any) -> ReplaySummary:
        single.append(1)
        return one_job(*args)

    monkeypatch.setattr(replay_jobs, "_one_job", counted)
    monkeypatch.setattr(replay_jobs, "_portable", lambda _emits: False)  # as if a STATE_TOO_LARGE dead letter
    with (tmp_path / "two.jsonl").open("w", encoding="utf-8") as out:
        replay_jobs.replay([log], Outputs(REGISTRY), 0, 2, out)
    assert single == [1]
    assert (tmp_path / "two.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()


def test_a_maximum_lateness_replays_as_one_job_with_the_same_bytes(tmp_path: Path) -> None:
    inputs = [str(p) for p in sorted((EXAMPLES / "omen").glob("*.jsonl"))]
    one, one_out = _replay(tmp_path, "one", *inputs, "--max-lateness-ms", "5000")
    many, many_out = _replay(tmp_path, "many", *inputs, "--max-lateness-ms", "5000", "--jobs", "2")
    assert many_out == one_out
    assert one_out
    assert many.exit_code == one.exit_code


def test_a_gzip_broken_midway_ends_jobs_as_it_ends_one_job(tmp_path: Path) -> None:
    good = _mixed_log(tmp_path / "a.jsonl", episodes=4, length=5)
    whole = gzip.compress(_mixed_log(tmp_path / "b.jsonl", episodes=20, length=10).read_bytes())
    broken = tmp_path / "b.jsonl.gz"
    broken.write_bytes(whole[: len(whole) * 2 // 3])  # its head reads, its end does not
    one, one_out = _replay(tmp_path, "one", str(good), str(broken))
    many, many_out = _replay(tmp_path, "many", str(good), str(broken), "--jobs", "2")
    assert one.exit_code == many.exit_code == EXIT_USAGE
    assert "not a readable gzip file" in many.output
    assert many.output == one.output
    # the outputs of every record before the break, as one job wrote them; no end-of-log timeouts
    assert many_out == one_out
    assert one_out.count(b"\n") > 100


@pytest.mark.parametrize("jobs", ["0", "-1"])
def test_jobs_below_one_is_a_usage_error(jobs: str) -> None:
    result = CliRunner().invoke(main, ["replay", str(EXAMPLES / "omen" / "escalation.jsonl"), "--jobs", jobs],
                                prog_name="omega")
    assert result.exit_code == EXIT_USAGE
    assert "--jobs" in result.output


def test_records_go_to_the_job_of_their_key_as_kafka_partitions_them() -> None:
    packet = InputRecord(Source("file:x.jsonl", 0, 1), b'{"header": {"correlation_id": "corr_42"}}', "json")
    session = InputRecord(Source("file:run.yaml", 0, 0, b"run"), b"messages: []", "message")
    broken = InputRecord(Source("file:x.jsonl", 0, 2), b"{not json", "json")
    single = InputRecord(Source("file:one.json", 0, 0), b'{"header": {"correlation_id": "corr_42"}}', "single")
    assert replay_jobs.job_of(packet, 10, 3) == partition_of("corr_42", 3)
    assert replay_jobs.job_of(session, 10, 3) == partition_of("run", 3)
    assert replay_jobs.job_of(broken, 10, 3) == 10 % 3  # no state: by position
    assert replay_jobs.job_of(single, 11, 3) == 11 % 3  # a lone packet has no episode


def test_an_episodes_packets_all_go_to_one_job() -> None:
    log = list(read_inputs([EXAMPLES / "omen" / "escalation.jsonl", EXAMPLES / "omen" / "safe_mode.jsonl"]))
    by_episode: dict[str, set[int]] = {}
    for position, record in enumerate(log):
        key = json.loads(record.raw)["header"]["correlation_id"]
        by_episode.setdefault(key, set()).add(replay_jobs.job_of(record, position, 4))
    assert len(by_episode) == 2
    assert all(len(jobs) == 1 for jobs in by_episode.values())


def test_merged_lines_follow_positions_and_a_tied_position_keeps_its_jobs_order(tmp_path: Path) -> None:
    """`_merged`: "the jobs' lines of a phase in position order (each job's are in order; a tie is one job's, kept
    in order)". A record's outputs share its position: here a verdict, then its alert, as the job wrote them,
    whose text sorts the other way ("omega.alerts" < "omen.verdicts"), so only the job's order puts them so."""
    verdict, alert = '{"topic":"omen.verdicts"}\n', '{"topic":"omega.alerts"}\n'
    (tmp_path / "finish.0").write_text(f"0\tzero\n3\t{verdict}3\t{alert}7\tseven\n", encoding="utf-8")
    (tmp_path / "finish.1").write_text(f"1\tone\n5\t{verdict}5\t{alert}5\tlast of five\n", encoding="utf-8")
    # job 2 wrote nothing: no file
    assert list(replay_jobs._merged(tmp_path, 3, "finish")) == [
        "zero\n", "one\n", verdict, alert, verdict, alert, "last of five\n", "seven\n"]


def test_a_records_outputs_keep_their_order_through_the_merge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The record at position 6 of budget_overrun.jsonl (job 0 of 2; verify_loop's episode is job 1's) gives four
    outputs at one position: its verdict, two alerts and an escalation, in that order as one job writes them, which
    is not their text order ("omega.alerts" < "omega.escalations" < "omen.verdicts"). The merge keeps them so."""
    inputs = [EXAMPLES / "omen" / "budget_overrun.jsonl", EXAMPLES / "omen" / "verify_loop.jsonl"]
    assert [replay_jobs.job_of(next(read_inputs([path])), 0, 2) for path in inputs] == [0, 1]

    def no_single_job(*_args: Any) -> ReplaySummary:
        raise AssertionError("replayed as one job")

    monkeypatch.setattr(replay_jobs, "_one_job", no_single_job)
    with (tmp_path / "two.jsonl").open("w", encoding="utf-8") as out:
        replay_jobs.replay(inputs, Outputs(REGISTRY), 0, 2, out)
    lines = [json.loads(line) for line in (tmp_path / "two.jsonl").read_text(encoding="utf-8").splitlines()]
    overrun = [(line["topic"], line["value"].get("status") or line["value"].get("kind") or line["value"]["level"])
               for line in lines if "pkt_bo_0007" in (line["value"].get("packet_id"),
                                                      line["value"].get("source_event_id"))]
    assert overrun == [("omen.verdicts", "REJECTED"), ("omega.alerts", "BUDGET_OVERRUN"),
                       ("omega.alerts", "SAFE_MODE_ENTERED"), ("omega.escalations", "LAYER1")]
