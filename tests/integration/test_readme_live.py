"""The README's "Live in five commands", run as written (issue 22): the commands are read from README.md itself,
so the test fails when the README drifts from what works.

Against the test broker instead of `make kafka-up`'s, under a topic prefix, app id and read model of the test's
own (environment variables every command reads), with `.venv/bin/omega` run by this interpreter. Each command
runs as the README chains it (`&` in the background, `&&` in sequence); it must exit 0, the tail must show the
budget overrun's CRITICAL alert, the last command the session's Failure Memory, and the verdicts the worker
published must be those `omega replay` gives for the same file.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from streams.topics import VERDICTS, topic_name
from streams.wire.codec import SchemaRegistry
from tests.integration.equivalence import Record, unique_by
from tests.integration.worker import REPO, consume_until

pytestmark = pytest.mark.integration

OMEGA = ".venv/bin/omega"
README_BOOTSTRAP = "127.0.0.1:9092"


def readme_commands() -> list[str]:
    """The shell commands of the README's "Live in five commands" block, continuation lines joined, comments
    dropped, one entry per `&&` step (a trailing `&` kept: it means "in the background")."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Live in five commands", 1)[1]
    block = section.split("```bash", 1)[1].split("```", 1)[0]
    joined = re.sub(r"\\\n\s*", " ", block)
    commands = []
    for raw in joined.splitlines():
        line = re.sub(r"\s+#.*$", "", raw).strip()
        if line:
            commands.extend(step.strip() for step in line.split("&&"))
    return commands


def test_the_readme_block_is_the_five_steps_it_announces() -> None:
    commands = readme_commands()
    assert commands[0] == "make kafka-up"
    assert commands[1].endswith("&")
    assert "omega worker" in commands[1]
    assert any("omega publish" in c for c in commands)
    assert any("omega tail alerts" in c for c in commands)
    assert commands[-1].startswith(f"{OMEGA} memory show")


def _argv(command: str, bootstrap: str) -> list[str]:
    words = shlex.split(command.replace(README_BOOTSTRAP, bootstrap))
    assert words[0] == OMEGA, command
    return [sys.executable, "-m", "streams.cli.main", *words[1:]]


def _run(command: str, bootstrap: str, env: dict[str, str]) -> str:
    done = subprocess.run(_argv(command, bootstrap), cwd=REPO, env=env, capture_output=True, timeout=180,
                          check=False)
    out = done.stdout.decode("utf-8", "replace")
    assert done.returncode == 0, f"{command}\nexit {done.returncode}\n{out}\n{done.stderr.decode(errors='replace')}"
    return out


def test_the_readme_five_commands_run_as_written(kafka_bootstrap: str, tmp_path: Path) -> None:
    prefix = f"readme-{uuid.uuid4().hex[:8]}."
    env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap, "OMEGA_TOPIC_PREFIX": prefix,
           "OMEGA_APP_ID": f"{prefix}app", "OMEGA_DATA_DIR": str(tmp_path / "data"),
           "OMEGA_READ_MODEL": f"sqlite:{tmp_path / 'memories.sqlite'}", "OMEGA_PROJECTOR_GROUP": f"{prefix}projector",
           "PYTHONUNBUFFERED": "1"}
    commands = readme_commands()
    assert commands[0] == "make kafka-up"  # the broker: the test's own (already up)
    worker_log = (tmp_path / "worker.log").open("wb")
    worker: subprocess.Popen[bytes] | None = None
    outputs: dict[str, str] = {}
    try:
        for command in commands[1:]:
            if command.endswith("&"):
                worker = subprocess.Popen(_argv(command[:-1].strip(), kafka_bootstrap), cwd=REPO, env=env,
                                          stdout=worker_log, stderr=subprocess.STDOUT)
                _wait_ready(worker, tmp_path / "worker.log")
                continue
            if " tail alerts" in command:
                outputs[command] = _until(lambda c=command: _run(c, kafka_bootstrap, env), "BUDGET_OVERRUN")
                continue
            outputs[command] = _run(command, kafka_bootstrap, env)
        tail = next(out for c, out in outputs.items() if " tail alerts" in c)
        alerts = [json.loads(line) for line in tail.splitlines() if line.startswith("{")]
        assert any(a["value"]["kind"] == "BUDGET_OVERRUN" and a["value"]["severity"] == "CRITICAL" for a in alerts), (
            f"{tail}\n{(tmp_path / 'worker.log').read_text(errors='replace')[-4000:]}")
        memory = outputs[commands[-1]]
        assert "Failure Memory of contradiction_cascade_failure" in memory, memory
        assert re.search(r"active_warnings \([1-9]\d*\)", memory), memory  # the cascade's warnings, projected live

        published = [c for c in commands if " publish " in c and "--topic packets_json" in c]
        replay = _replayed_verdicts([shlex.split(c)[2] for c in published], env)
        live = _live_verdicts(kafka_bootstrap, topic_name(VERDICTS, prefix), set(replay))
        assert live == replay
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=30)
        worker_log.close()


def _wait_ready(worker: subprocess.Popen[bytes], log: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert worker.poll() is None, log.read_text(errors="replace")[-3000:]
        if b"Worker]: Ready" in log.read_bytes():
            return
        time.sleep(0.2)
    raise TimeoutError(log.read_text(errors="replace")[-3000:])


def _until(run: object, needle: str, timeout: float = 90) -> str:
    """The output of `run()` once it holds `needle` (the worker may still be judging when the tail first runs)."""
    assert callable(run)
    deadline = time.monotonic() + timeout
    out: str = run()
    while needle not in out and time.monotonic() < deadline:
        time.sleep(2)
        out = run()
    return out


def _replayed_verdicts(files: list[str], env: dict[str, str]) -> dict[str, Record]:
    done = subprocess.run([sys.executable, "-m", "streams.cli.main", "replay", *files, "--out", "-",
                           "--no-summary"], cwd=REPO, env=env, capture_output=True, timeout=120, check=False)
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")
    lines = [json.loads(line) for line in done.stdout.decode().splitlines() if line.startswith("{")]
    return unique_by([line["value"] for line in lines if line["topic"] == VERDICTS.name], "verdict_id", "replay")


def _live_verdicts(bootstrap: str, topic: str, ids: set[str]) -> dict[str, Record]:
    def done(found: dict[str, list[Record]]) -> bool:
        return {r["verdict_id"] for r in found[topic]} >= ids

    found = asyncio.run(consume_until(bootstrap, [topic], SchemaRegistry.from_directory(), done, timeout=90))
    fields = ("verdict_id", "packet_id", "correlation_id", "packet_type", "status", "violations", "event_time",
              "ruleset_version", "state_before", "state_after", "content_hash", "usage", "context", "late")
    return unique_by([{f: r[f] for f in fields} for r in found[topic]], "verdict_id", "live")
