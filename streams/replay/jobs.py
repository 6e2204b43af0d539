"""`omega replay --jobs N`: the log's episodes split over N processes the way Kafka partitions them, the outputs
merged back into input order, so the output file is byte-identical to one job's.

Every job reads every input and judges only the records of its partition (`partition_of` of the record's key, as
the producers' partitioner places them): an OMEN packet by its `correlation_id`, an OMEGA-57 session file by its
session id (the file's stem). A record with no such key (not JSON, no header, a lone packet file) touches no state:
its dead letter or verdict depends on nothing but the record, and it goes to job `position % N`. Each output line
carries the input position that caused it; the parent merges the jobs' lines by position (every job's are already
in order). At the end of the log every job advances its episodes to the whole log's watermark (the largest of the
jobs' watermarks, which is the one job's), and those timeouts are merged in the order the one job's table would
list their episodes: by the position of the record that first stored each ledger.

What cannot be split, and runs as one job:
  * a maximum lateness (`--max-lateness-ms` > 0): every packet's release depends on the one watermark of all
    episodes' packets, in log order, which no job sees whole;
  * stdin (`-`): it can be read once only;
  * no `fork` start method (the jobs share the parsed schemas by forking).
And one case is replayed again as one job, after the split: a dead letter of the validator step itself (a ledger
too large for its changelog record) names the position of its packet among all the log's packets, which a job
counting only its own cannot know.
"""

from __future__ import annotations

import heapq
import json
import multiprocessing
import os
import tempfile
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO, Any

from omega.counts import summed
from omega.packets.authenticity import AuthPolicy
from streams.kafka.partitioning import partition_of
from streams.records import key_text
from streams.replay.inputs import STDIN, InputError, InputRecord, read_inputs
from streams.replay.replayer import PACKETS_SOURCE, Replayer, ReplaySummary, output_line
from streams.stages.base import Emit, Outputs
from streams.topics import DEAD_LETTERS
from streams.wire.omen_avro import PACKET_SCHEMA

# What the caller wraps around the records read, to show progress (the CLI's bar, cli/progress.py); job 0's only
Progress = Callable[[Iterator[InputRecord]], Iterator[InputRecord]]


def replay(paths: Sequence[Path], outputs: Outputs, max_lateness_ms: int, jobs: int, out: IO[str] | None,
           progress: Progress | None = None, partitions: int = 1, auth_policy: AuthPolicy | None = None
           ) -> ReplaySummary:
    """Replay `paths` over `jobs` processes, writing to `out` exactly what one `Replayer` writes; InputError (after
    the outputs of the records before it, as one job writes them) on an unreadable input. `partitions`: the
    worker's packets partitions, whose watermarks a lateness is measured against (`Replayer`); `auth_policy`: the
    packet stage's."""
    if jobs <= 1 or max_lateness_ms > 0 or STDIN in paths or "fork" not in multiprocessing.get_all_start_methods():
        return _one_job(paths, Replayer(outputs, max_lateness_ms, partitions, auth_policy=auth_policy), out, progress)
    with tempfile.TemporaryDirectory(prefix="omega-replay-") as tmp:
        results = _run_jobs(paths, lambda: Replayer(outputs, auth_policy=auth_policy), jobs, Path(tmp), out is not None,
                            progress)
        if results is None:  # a job could not keep to one job's outputs: the one job gives them
            return _one_job(paths, Replayer(outputs, max_lateness_ms, partitions, auth_policy=auth_policy), out,
                            progress)
        if out is not None:
            for line in _merged(Path(tmp), jobs, "records"):
                out.write(line)
        error = next((r.error for r in results if r.error is not None), None)
        if error is not None:
            raise InputError(error)
        if out is not None:
            for line in _merged(Path(tmp), jobs, "finish"):
                out.write(line)
    return summed(ReplaySummary, (r.summary for r in results))


def _one_job(paths: Sequence[Path], replayer: Replayer, out: IO[str] | None, progress: Progress | None
             ) -> ReplaySummary:
    records: Iterator[InputRecord] = read_inputs(paths)
    if progress is not None:
        records = progress(records)
    return replayer.run(records, out)


def job_of(record: InputRecord, position: int, jobs: int) -> int:
    """The job that judges `record`: its key's partition (the episode or session), else by position."""
    key = _partition_key(record)
    return position % jobs if key is None else _partition(key, jobs)


@lru_cache(maxsize=65_536)
def _partition(key: str, jobs: int) -> int:
    return partition_of(key, jobs)  # murmur2 in Python: once per episode, not once per packet and job


def _partition_key(record: InputRecord) -> str | None:
    """The key a record's state lives under: `correlation_id` for a packet, the session id for a session file;
    None for a record that touches no state (it cannot be judged as a packet of an episode)."""
    if record.stage == "message":
        return key_text(record.source.key) if record.source.key else None
    if record.stage == "json":
        try:
            packet = json.loads(record.raw)
        except (ValueError, RecursionError):
            return None  # a dead letter: no state
    elif record.stage == "avro" and record.schema_name == PACKET_SCHEMA:
        packet = record.datum  # the header is a plain record: its correlation_id is the packet's
    else:
        return None  # a lone packet (no episode), or a container of another schema (dead letters)
    header = packet.get("header") if isinstance(packet, dict) else None
    key = header.get("correlation_id") if isinstance(header, dict) else None
    return key if isinstance(key, str) else None


@dataclass
class _JobResult:
    summary: ReplaySummary
    error: str | None  # an InputError's message: the records before it were judged, the end of the log was not


def _run_jobs(paths: Sequence[Path], new_replayer: Callable[[], Replayer], jobs: int, tmp: Path, write: bool,
              progress: Progress | None) -> list[_JobResult] | None:
    """Run the jobs to the end; None when one of them cannot give one job's outputs (or failed: one job then
    fails the same way, with the same outputs before it)."""
    context = multiprocessing.get_context("fork")
    pipes, processes = [], []
    for index in range(jobs):
        parent, child = context.Pipe()
        process = context.Process(target=_job, args=(index, jobs, child, paths, new_replayer, tmp, write,
                                                     progress if index == 0 else None), daemon=True)
        process.start()
        child.close()
        pipes.append(parent)
        processes.append(process)
    try:
        return _converse(pipes)
    finally:
        for pipe in pipes:  # a job still waiting for the watermark reads the end of its pipe, and exits
            pipe.close()
        for process in processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()


def _converse(pipes: list[Connection]) -> list[_JobResult] | None:
    """Phase one: every job's watermark after its records; phase two: the end of the log at the largest."""
    first = [_receive(pipe) for pipe in pipes]
    if any(message is None for message in first):
        return None
    marks = [message[1] for message in first if message is not None and message[1] is not None]
    watermark = max(marks) if marks else None
    for pipe in pipes:
        pipe.send(watermark)
    done = [_receive(pipe) for pipe in pipes]
    results: list[_JobResult] = []
    for message, head in zip(done, first, strict=True):
        if message is None or message[1] is None or head is None:
            return None
        results.append(_JobResult(message[1], head[2]))
    return results


def _receive(pipe: Connection) -> Any:
    try:
        message = pipe.recv()
    except EOFError:  # the job died
        return None
    return None if message[0] == "failed" else message


def _job(index: int, jobs: int, pipe: Connection, paths: Sequence[Path], new_replayer: Callable[[], Replayer],
         tmp: Path, write: bool, progress: Progress | None) -> None:
    """One job: its partition's records, then (told the log's watermark) its episodes' end of the log."""
    try:
        _job_steps(index, jobs, pipe, paths, new_replayer, tmp, write, progress)
    except BaseException:  # noqa: BLE001 - reported to the parent, which replays as one job (and fails the same)
        pipe.send(("failed", traceback.format_exc()))
    finally:
        pipe.close()
        os._exit(0)  # no atexit or inherited cleanup of the parent's state in a forked child


def _job_steps(index: int, jobs: int, pipe: Connection, paths: Sequence[Path], new_replayer: Callable[[], Replayer],
               tmp: Path, write: bool, progress: Progress | None) -> None:
    replayer = new_replayer()
    first_stored: dict[str, int] = {}  # episode -> position of the record that stored its first ledger
    portable = True  # no output names a packet's position among all the log's packets
    error: str | None = None
    records: Iterator[InputRecord] = read_inputs(paths)
    if progress is not None:
        records = progress(records)
    with _lines(tmp, "records", index, write) as sink:
        try:
            for position, record in enumerate(records):
                if job_of(record, position, jobs) != index:
                    continue
                emits = replayer.feed(record)
                portable = portable and _portable(emits)
                for key in replayer.episode_order[len(first_stored):]:
                    first_stored[key] = position
                sink(position, emits)
        except InputError as exc:
            error = str(exc)
    pipe.send(("records", replayer.watermark_ms, error))
    watermark = pipe.recv()
    if error is None:
        emits = replayer.finish(watermark)
        portable = portable and _portable(emits) and all(e.key in first_stored for e in emits)
        with _lines(tmp, "finish", index, write) as sink:
            for emit in emits:
                if emit.key in first_stored:
                    sink(first_stored[emit.key], [emit])
    pipe.send(("done", replayer.summary if portable else None))


def _portable(emits: list[Emit]) -> bool:
    return not any(e.topic is DEAD_LETTERS and e.record.get("source_topic") == PACKETS_SOURCE for e in emits)


@contextmanager
def _lines(tmp: Path, phase: str, index: int, write: bool) -> Iterator[Callable[[int, list[Emit]], None]]:
    """A job's output lines, `position TAB line`, in a file of its own (none when there is no --out)."""
    if not write:
        yield lambda _position, _emits: None
        return
    with (tmp / f"{phase}.{index}").open("w", encoding="utf-8", newline="\n") as handle:
        def sink(position: int, emits: list[Emit]) -> None:
            for emit in emits:  # a JSON line holds no raw tab or newline: both are escaped in JSON text
                handle.write(f"{position}\t{output_line(emit)}\n")
        yield sink


def _merged(tmp: Path, jobs: int, phase: str) -> Iterator[str]:
    """The jobs' lines of a phase in position order (each job's are in order; a tie is one job's, kept in order)."""
    def read(index: int) -> Iterator[tuple[int, str]]:
        path = tmp / f"{phase}.{index}"
        if not path.exists():
            return
        with path.open(encoding="utf-8", newline="\n") as handle:
            for line in handle:
                position, text = line.split("\t", 1)
                yield int(position), text
    for _, text in heapq.merge(*(read(i) for i in range(jobs)), key=lambda item: item[0]):
        yield text
