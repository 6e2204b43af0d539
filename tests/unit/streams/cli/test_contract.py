"""The CLI's one contract (issue 43, docs/cli.md): every command given bad input, a bad setting or an unreachable
service exits 2 with exactly one line on stderr, never a traceback, and prints no URL password; a reader that
stops reading ends the command quietly. Every command of the click tree must have its case here: a new command
without one fails `test_every_command_has_a_bad_input_case`. So must every option or argument that reads a file, an
environment variable or a network address (`_reads_input`: a path, an `envvar`, or a name such as store, url,
bootstrap, config, report, policy, key, host, port, out), or say why no value of it is bad (`NOTHING_TO_REFUSE`):
a new one without either fails `test_every_input_reading_option_has_a_bad_value_case`. The settings commands read
from the environment outside click (`ENV_CASES`) are listed by hand."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from streams.cli.main import main
from streams.cli.options import EXIT_OK, EXIT_USAGE

REPO = Path(__file__).resolve().parents[4]
NOWHERE = "/nonexistent-omega/input.jsonl"
DB_WITH_PASSWORD = "postgresql://reader:s3cr3t-pw@127.0.0.1:1/memories"
REGISTRY_WITH_PASSWORD = "http://reader:s3cr3t-pw@127.0.0.1:1"
DEAD_BROKER = "127.0.0.1:1"

# command path -> (arguments, environment): each a bad input, setting or service the command must refuse with exit 2
CASES: dict[str, list[tuple[list[str], dict[str, str]]]] = {
    "ask": [(["what", "--store", "BAD_FACTS"], {})],
    "check answers": [([NOWHERE], {})],
    "check extraction": [([NOWHERE], {})],
    "check grounding": [([NOWHERE], {}), (["EXAMPLE_GROUNDING"],
                                          {"OMEGA_JUDGE_URL": "http://127.0.0.1:1/v1", "OMEGA_JUDGE_TIMEOUT": "abc"})],
    "check memories": [(["--store", DB_WITH_PASSWORD], {})],
    "check messages": [([NOWHERE], {})],
    "check oracle": [([NOWHERE], {})],
    "check packets": [([NOWHERE], {}), (["EXAMPLE_PACKETS"], {"OMEGA_SCHEMAS_DIR": "/nonexistent-omega/schemas"}),
                      (["EXAMPLE_PACKETS", "--auth-policy", NOWHERE], {})],
    "ingest": [([NOWHERE, "--doc-id", "d"], {})],
    "memory hash": [([], {"OMEGA_READ_MODEL": DB_WITH_PASSWORD})],
    "memory serve": [(["--port", "99999"], {}), (["--store", DB_WITH_PASSWORD], {})],
    "memory show": [(["some_session", "--store", DB_WITH_PASSWORD], {})],
    "plan": [(["--type", "NOT_A_TYPE"], {})],
    "project": [(["--from", "EXAMPLE_PACKETS", "--store", DB_WITH_PASSWORD], {})],
    "publish": [([NOWHERE, "--topic", "omen.packets.json", "--bootstrap", DEAD_BROKER], {})],
    "replay": [([NOWHERE], {})],
    "schemas check": [(["--url", REGISTRY_WITH_PASSWORD], {})],
    "schemas export": [(["OUT_DIR", "--url", REGISTRY_WITH_PASSWORD], {})],
    "schemas register": [(["--url", REGISTRY_WITH_PASSWORD], {})],
    "sign packets": [([NOWHERE, "--key-id", "k", "--secret-env", "OMEGA_TEST_KEY"], {"OMEGA_TEST_KEY": "x" * 32})],
    "tail": [(["omen.verdicts", "--bootstrap", DEAD_BROKER], {})],
    "watch": [(["--store", DB_WITH_PASSWORD, "--once"], {})],
    "worker": [([], {"OMEGA_WEB_PORT": "not-a-port"})],
}


UNWRITABLE = "UNWRITABLE/sub/out.json"  # under a regular file: no directory can be made there
NO_FILE = "/nonexistent-omega/setting.yaml"

# (command path, parameter name) -> cases giving that parameter (or its environment variable) a bad value; "" is
# the `omega` group itself
OPTION_CASES: dict[tuple[str, str], list[tuple[list[str], dict[str, str]]]] = {
    ("", "log_level"): [(["--log-level", "NOPE", "check", "packets", "EXAMPLE_PACKETS"], {}),
                        (["check", "packets", "EXAMPLE_PACKETS"], {"OMEGA_LOG_LEVEL": "loud"})],
    ("ask", "store_path"): [(["what", "--store", "BAD_FACTS"], {}), (["what"], {"OMEGA_FACT_STORE": "BAD_FACTS"})],
    ("ask", "vocabulary_path"): [(["what", "--vocabulary", NO_FILE], {})],
    ("check answers", "suite_path"): [([NOWHERE], {})],
    ("check extraction", "file"): [([NOWHERE], {})],
    ("check extraction", "vocabulary_path"): [(["EXAMPLE_GUIDE", "--vocabulary", NO_FILE], {})],
    ("check extraction", "llm_url"): [(["EXAMPLE_GUIDE", "--llm-url", "http://reader:s3cr3t-pw@127.0.0.1:1/v1"], {})],
    ("check grounding", "file"): [([NOWHERE], {})],
    ("check memories", "store_url"): [(["--store", DB_WITH_PASSWORD], {}),
                                      ([], {"OMEGA_READ_MODEL": DB_WITH_PASSWORD})],
    ("check messages", "files"): [([NOWHERE], {})],
    ("check oracle", "files"): [([NOWHERE], {})],
    ("check oracle", "config_path"): [(["EXAMPLE_CASES", "--config", NO_FILE], {})],
    ("check oracle", "report_path"): [(["EXAMPLE_CASES", "--report", UNWRITABLE], {})],
    ("check packets", "files"): [([NOWHERE], {})],
    ("check packets", "auth_policy"): [(["EXAMPLE_PACKETS", "--auth-policy", NO_FILE], {}),
                                       (["EXAMPLE_PACKETS"], {"OMEGA_PACKET_AUTH_POLICY": NO_FILE})],
    ("ingest", "file"): [([NOWHERE, "--doc-id", "d"], {})],
    ("ingest", "store_path"): [(["EXAMPLE_GUIDE", "--doc-id", "d", "--store", UNWRITABLE], {}),
                               (["EXAMPLE_GUIDE", "--doc-id", "d"], {"OMEGA_FACT_STORE": UNWRITABLE})],
    ("ingest", "vocabulary_path"): [(["EXAMPLE_GUIDE", "--doc-id", "d", "--vocabulary", NO_FILE], {})],
    ("ingest", "llm_url"): [(["EXAMPLE_GUIDE", "--doc-id", "d", "--store", "FRESH_FACTS",
                              "--llm-url", "http://reader:s3cr3t-pw@127.0.0.1:1/v1"], {})],
    ("memory hash", "store_url"): [(["--store", DB_WITH_PASSWORD], {}), ([], {"OMEGA_READ_MODEL": DB_WITH_PASSWORD})],
    ("memory serve", "store_url"): [(["--store", DB_WITH_PASSWORD], {}), ([], {"OMEGA_READ_MODEL": DB_WITH_PASSWORD})],
    ("memory serve", "host"): [(["--store", "READ_MODEL", "--host", "192.0.2.1"], {})],  # TEST-NET-1: not ours
    ("memory serve", "port"): [(["--port", "99999"], {})],
    ("memory show", "store_url"): [(["s", "--store", DB_WITH_PASSWORD], {}),
                                   (["s"], {"OMEGA_READ_MODEL": DB_WITH_PASSWORD})],
    ("project", "files"): [(["--from", NOWHERE, "--store", "FRESH_READ_MODEL"], {})],
    ("project", "bootstrap"): [(["--bootstrap", DEAD_BROKER, "--store", "FRESH_READ_MODEL"], {}),
                               (["--store", "FRESH_READ_MODEL"], {"KAFKA_BOOTSTRAP_SERVERS": DEAD_BROKER})],
    ("project", "store_url"): [(["--from", "EXAMPLE_PACKETS", "--store", DB_WITH_PASSWORD], {}),
                               (["--from", "EXAMPLE_PACKETS"], {"OMEGA_READ_MODEL": DB_WITH_PASSWORD})],
    ("project", "metrics_port"): [(["--from", "EXAMPLE_PACKETS", "--metrics-port", "99999"], {}),
                                  (["--from", "EXAMPLE_PACKETS"], {"OMEGA_PROJECTOR_METRICS_PORT": "x"})],
    ("publish", "files"): [([NOWHERE, "--topic", "omen.packets.json", "--bootstrap", DEAD_BROKER], {})],
    ("publish", "bootstrap"): [(["EXAMPLE_PACKETS", "--topic", "omen.packets.json", "--bootstrap", DEAD_BROKER], {}),
                               (["EXAMPLE_PACKETS", "--topic", "omen.packets.json"],
                                {"KAFKA_BOOTSTRAP_SERVERS": DEAD_BROKER})],
    ("replay", "files"): [([NOWHERE], {})],
    ("replay", "out_path"): [(["EXAMPLE_PACKETS", "--out", UNWRITABLE], {})],
    ("replay", "auth_policy"): [(["EXAMPLE_PACKETS", "--auth-policy", NO_FILE], {}),
                                (["EXAMPLE_PACKETS"], {"OMEGA_PACKET_AUTH_POLICY": NO_FILE})],
    ("schemas check", "url"): [(["--url", REGISTRY_WITH_PASSWORD], {}),
                               ([], {"OMEGA_SCHEMA_REGISTRY_URL": REGISTRY_WITH_PASSWORD})],
    ("schemas check", "schemas_dir"): [(["--schemas-dir", NOWHERE, "--url", REGISTRY_WITH_PASSWORD], {})],
    ("schemas export", "directory"): [([UNWRITABLE, "--url", REGISTRY_WITH_PASSWORD], {})],
    ("schemas export", "url"): [(["OUT_DIR", "--url", REGISTRY_WITH_PASSWORD], {}),
                                (["OUT_DIR"], {"OMEGA_SCHEMA_REGISTRY_URL": REGISTRY_WITH_PASSWORD})],
    ("schemas register", "url"): [(["--url", REGISTRY_WITH_PASSWORD], {}),
                                  ([], {"OMEGA_SCHEMA_REGISTRY_URL": REGISTRY_WITH_PASSWORD})],
    ("schemas register", "schemas_dir"): [(["--schemas-dir", NOWHERE, "--url", REGISTRY_WITH_PASSWORD], {})],
    ("sign packets", "file"): [([NOWHERE, "--key-id", "k", "--secret-env", "OMEGA_TEST_KEY"],
                                {"OMEGA_TEST_KEY": "x" * 32})],
    ("sign packets", "secret_env"): [(["EXAMPLE_PACKETS", "--key-id", "k", "--secret-env", "OMEGA_UNSET_TEST_KEY"],
                                      {})],
    ("sign packets", "secret_file"): [(["EXAMPLE_PACKETS", "--key-id", "k", "--secret-file", NO_FILE], {})],
    ("sign packets", "out_path"): [(["EXAMPLE_PACKETS", "--key-id", "k", "--secret-env", "OMEGA_TEST_KEY",
                                     "--out", UNWRITABLE], {"OMEGA_TEST_KEY": "x" * 32})],
    ("tail", "bootstrap"): [(["omen.verdicts", "--bootstrap", DEAD_BROKER], {}),
                            (["omen.verdicts"], {"KAFKA_BOOTSTRAP_SERVERS": DEAD_BROKER})],
    ("watch", "store_url"): [(["--store", DB_WITH_PASSWORD, "--once"], {}),
                             (["--once"], {"OMEGA_READ_MODEL": DB_WITH_PASSWORD})],
    ("watch", "bootstrap"): [(["--bootstrap", DEAD_BROKER, "--once"], {})],
    # the worker's cases all name a dead broker: none may start a worker on a broker that answers
    ("worker", "bootstrap"): [(["--bootstrap", DEAD_BROKER], {}), ([], {"KAFKA_BOOTSTRAP_SERVERS": DEAD_BROKER})],
    ("worker", "store"): [(["--store", "nosuch://", "--bootstrap", DEAD_BROKER], {}),
                          (["--bootstrap", DEAD_BROKER], {"OMEGA_STORE": "nosuch://"})],
    ("worker", "data_dir"): [(["--data-dir", UNWRITABLE, "--bootstrap", DEAD_BROKER], {}),
                             (["--bootstrap", DEAD_BROKER], {"OMEGA_DATA_DIR": UNWRITABLE})],
}

# parameters that read the environment (or look as if they read input) but have no bad value to refuse
NOTHING_TO_REFUSE: dict[tuple[str, str], str] = {
    **{(command, "prefix"): "any text is a topic prefix (OMEGA_TOPIC_PREFIX); reading it reads nothing else"
       for command in ("memory serve", "project", "publish", "schemas check", "schemas register", "tail", "watch",
                       "worker")},
    ("project", "group_id"): "any text is a consumer group id (OMEGA_PROJECTOR_GROUP)",
    ("worker", "app_id"): "any text is a Faust app id (OMEGA_APP_ID)",
    ("tail", "key"): "a record key to match, not a key read from anywhere",
    ("sign packets", "key_id"): "the name the signature gives its key; the secret is --secret-env / --secret-file",
    ("memory serve", "bootstrap"): "the live feed's broker is optional: the server starts without it and retries",
}

# settings commands read from the environment outside click (Settings.offline_from_env, the judge, the oracle)
ENV_CASES: list[tuple[str, list[str], dict[str, str]]] = [
    ("check packets", ["EXAMPLE_PACKETS"], {"OMEGA_MAX_EVENT_BYTES": "abc"}),
    ("check packets", ["EXAMPLE_PACKETS"], {"OMEGA_MAX_LATENESS_MS": "-5"}),
    ("check packets", ["EXAMPLE_PACKETS", "--max-lateness-ms", "10"], {"OMEGA_PARTITIONS": "0"}),
    ("check packets", ["EXAMPLE_PACKETS"], {"OMEGA_SCHEMAS_DIR": "/nonexistent-omega/schemas"}),
    ("check messages", ["EXAMPLE_SESSION"], {"OMEGA_MAX_EVENT_BYTES": "abc"}),
    ("check messages", ["EXAMPLE_SESSION"], {"OMEGA_SCHEMAS_DIR": "/nonexistent-omega/schemas"}),
    ("replay", ["EXAMPLE_PACKETS"], {"OMEGA_MAX_LATENESS_MS": "soon"}),
    ("check oracle", ["EXAMPLE_CASES"], {"OMEGA_MAX_EVENT_BYTES": "0"}),
    ("check oracle", ["EXAMPLE_CASES"], {"OMEGA_PHASEQ_CONFIG": NO_FILE}),
    ("check grounding", ["EXAMPLE_GROUNDING"], {"OMEGA_JUDGE_URL": "not a url"}),
    ("check grounding", ["EXAMPLE_GROUNDING"], {"OMEGA_JUDGE_TIMEOUT": "x",
                                                "OMEGA_JUDGE_URL": "http://127.0.0.1:1/v1"}),
    ("worker", ["--bootstrap", DEAD_BROKER], {"OMEGA_PARTITIONS": "none"}),
    ("worker", ["--bootstrap", DEAD_BROKER], {"OMEGA_WEB_PORT": "not-a-port"}),
]

_READS = {"store", "url", "bootstrap", "config", "report", "policy", "key", "secret", "host", "port", "out", "path",
          "dir", "directory", "file", "files", "from"}


def _reads_input(param: click.Parameter) -> bool:
    """A parameter that reads a file, an environment variable or a network address: a path, one with an `envvar`,
    or one named so (`--store`, `--url`, `--bootstrap`, `--host`, `--port`, `--out`, ...); not a flag, and not a
    choice click refuses itself unless the environment can set it."""
    if isinstance(param, click.Option) and param.is_flag:
        return False
    if isinstance(param.type, click.Choice) and not param.envvar:
        return False
    return isinstance(param.type, click.Path) or bool(param.envvar) or bool(_READS & set(str(param.name).split("_")))


def _parameters(command: click.Command, path: tuple[str, ...] = ()) -> Iterator[tuple[str, click.Parameter]]:
    yield from ((" ".join(path), param) for param in command.params)
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            yield from _parameters(sub, (*path, name))


def _commands(command: click.Command, path: tuple[str, ...] = ()) -> Iterator[str]:
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            yield from _commands(sub, (*path, name))
    else:
        yield " ".join(path)


def _placeholders(args: list[str], tmp_path: Path) -> list[str]:
    bad_facts = tmp_path / "facts.jsonl"
    bad_facts.write_text("not json{\n", encoding="utf-8")
    (tmp_path / "UNWRITABLE").write_text("a file, not a directory\n", encoding="utf-8")
    real = {"BAD_FACTS": str(bad_facts), "OUT_DIR": str(tmp_path / "out"),
            "UNWRITABLE": str(tmp_path / "UNWRITABLE"), "FRESH_FACTS": str(tmp_path / "fresh.jsonl"),
            "FRESH_READ_MODEL": f"sqlite:{tmp_path / 'fresh.sqlite'}",
            "EXAMPLE_PACKETS": str(REPO / "examples" / "omen" / "verify_loop.jsonl"),
            "EXAMPLE_SESSION": str(REPO / "examples" / "omega57" / "clean_success.yaml"),
            "EXAMPLE_CASES": str(REPO / "examples" / "oracle" / "cases.ndjson"),
            "EXAMPLE_GUIDE": str(REPO / "examples" / "answers" / "guide.txt"),
            "EXAMPLE_GROUNDING": str(REPO / "examples" / "grounding" / "paragraphs.json")}
    if "READ_MODEL" in args:  # a read model that opens: what is bad is the option beside it
        store = f"sqlite:{tmp_path / 'memories.sqlite'}"
        CliRunner().invoke(main, ["project", "--from", real["EXAMPLE_PACKETS"], "--store", store])  # as busy-port's
        real["READ_MODEL"] = store
    return [a.replace("UNWRITABLE", real["UNWRITABLE"]) if a.startswith("UNWRITABLE/") else real.get(a, a)
            for a in args]


def test_every_command_has_a_bad_input_case() -> None:
    assert set(_commands(main)) == set(CASES)


def test_every_input_reading_option_has_a_bad_value_case() -> None:
    reading = {(path, str(param.name)) for path, param in _parameters(main) if _reads_input(param)}
    assert reading - OPTION_CASES.keys() - NOTHING_TO_REFUSE.keys() == set(), "add a bad-value case"
    assert (OPTION_CASES.keys() | NOTHING_TO_REFUSE.keys()) - reading == set(), "a case for no such option"
    assert not OPTION_CASES.keys() & NOTHING_TO_REFUSE.keys()
    assert all(cases for cases in OPTION_CASES.values())
    assert {path for path, _, _ in ENV_CASES} <= set(CASES)


def _all_cases() -> list[tuple[str, list[str], dict[str, str], str]]:
    found = [(p, a, e, f"{p}:{n}") for p, cases in CASES.items() for n, (a, e) in enumerate(cases)]
    found += [(p, a, e, f"{p or 'omega'} {name}:{n}") for (p, name), cases in OPTION_CASES.items()
              for n, (a, e) in enumerate(cases)]
    found += [(p, a, e, f"{p} ${next(iter(e))}:{n}") for n, (p, a, e) in enumerate(ENV_CASES)]
    return found


@pytest.mark.parametrize(("path", "args", "env"), [(p, a, e) for p, a, e, _ in _all_cases()],
                         ids=[name for _, _, _, name in _all_cases()])
def test_bad_input_exits_2_with_one_line_no_traceback_and_no_password(path: str, args: list[str],
                                                                      env: dict[str, str], tmp_path: Path) -> None:
    env = {key: _placeholders([value], tmp_path)[0] for key, value in env.items()}
    result = CliRunner().invoke(main, [*path.split(), *_placeholders(args, tmp_path)], prog_name="omega", env=env)
    stderr = result.stderr
    assert result.exit_code == EXIT_USAGE, (result.exit_code, stderr, result.exception)
    assert len(stderr.splitlines()) == 1, stderr
    assert stderr.startswith("omega: ")
    assert "Traceback" not in stderr
    assert "s3cr3t-pw" not in stderr + result.stdout


def test_a_busy_port_is_exit_2_in_one_line(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        store = tmp_path / "m.sqlite"
        CliRunner().invoke(main, ["project", "--from", str(REPO / "examples" / "omen" / "verify_loop.jsonl"),
                                  "--store", f"sqlite:{store}"])
        result = CliRunner().invoke(main, ["memory", "serve", "--store", f"sqlite:{store}", "--port", str(port)])
    assert result.exit_code == EXIT_USAGE
    assert result.stderr.startswith(f"omega: cannot serve on 127.0.0.1:{port}: ")
    assert len(result.stderr.splitlines()) == 1


def test_an_unexpected_error_names_its_type_in_one_line_and_debug_shows_the_traceback(tmp_path: Path) -> None:
    args = ["check", "packets", str(REPO / "examples" / "omen" / "verify_loop.jsonl")]
    plain = CliRunner().invoke(main, args, env={"OMEGA_SCHEMAS_DIR": str(tmp_path / "none")})
    assert plain.stderr == (f"omega: FileNotFoundError: no .avsc schemas in {tmp_path / 'none'} "
                            "(OMEGA_LOG_LEVEL=DEBUG shows the traceback)\n")
    debug = CliRunner().invoke(main, args, env={"OMEGA_SCHEMAS_DIR": str(tmp_path / "none"),
                                                "OMEGA_LOG_LEVEL": "DEBUG"})
    assert "Traceback" in debug.stderr
    assert debug.exit_code == EXIT_USAGE


@pytest.mark.parametrize("command", [["check", "packets"], ["replay", "--out", "-"]])
def test_a_reader_that_stops_reading_ends_the_command_quietly(command: list[str]) -> None:
    # a real pipe and a real process: `omega ... | head -1`
    files = sorted(str(p) for p in (REPO / "examples" / "omen").glob("*.jsonl"))
    done = subprocess.run(f"{sys.executable} -m streams.cli {' '.join(command)} {' '.join(files)} | head -1",
                          check=False, shell=True, cwd=REPO, capture_output=True, text=True, timeout=300,
                          executable="/bin/bash")
    status = subprocess.run(
        f"set -o pipefail; {sys.executable} -m streams.cli {' '.join(command)} {' '.join(files)} | head -1 "
        ">/dev/null", check=False, shell=True, cwd=REPO, capture_output=True, text=True, timeout=300,
        executable="/bin/bash")
    assert done.stdout.count("\n") == 1
    assert done.stderr == ""
    assert status.returncode == EXIT_OK, status.stderr


@pytest.mark.parametrize("command", [["schemas", "check"], ["schemas", "export", "OUT_DIR"]])
def test_an_unreachable_registry_is_named_as_such_not_as_an_unexpected_error(command: list[str],
                                                                            tmp_path: Path) -> None:
    # the client sends through httpx2, whose errors are not httpx's: they once escaped as "ConnectError: ..."
    result = CliRunner().invoke(main, [*_placeholders(command, tmp_path), "--url", REGISTRY_WITH_PASSWORD])
    assert result.exit_code == EXIT_USAGE
    assert result.stderr.startswith("omega: schema registry http://reader:***@127.0.0.1:1 unreachable: ")
    assert "OMEGA_LOG_LEVEL" not in result.stderr
