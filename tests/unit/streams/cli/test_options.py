"""What the commands share: exit codes, the shared options' defaults and environment variables, and the checks
that end a command with exit 2 before anything is judged."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from streams.cli import options
from streams.cli.options import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_REJECTED,
    EXIT_USAGE,
    auth_policy_option,
    bootstrap_option,
    existing_files,
    fact_store_option,
    files_argument,
    policy_or_exit,
    prefix_option,
    read_model_option,
    table_store_option,
    usage_error,
)


def test_the_exit_codes_are_those_the_readme_documents() -> None:
    assert (EXIT_OK, EXIT_REJECTED, EXIT_FAILED, EXIT_USAGE) == (0, 1, 1, 2)


def test_no_cli_module_defines_its_own_exit_codes() -> None:
    defines = re.compile(r"^EXIT_\w+(, EXIT_\w+)* =", re.MULTILINE)
    modules = sorted(Path(options.__file__).parent.glob("*.py"))
    assert len(modules) > 5
    assert [p.name for p in modules if defines.search(p.read_text(encoding="utf-8"))] == ["options.py"]


@click.command()
@bootstrap_option
@prefix_option
@table_store_option
@auth_policy_option
def _kafka_echo(bootstrap: str, prefix: str, store: str, auth_policy: Path | None) -> None:
    click.echo(f"{bootstrap}|{prefix}|{store}|{auth_policy}")


@click.command()
@read_model_option
def _read_model_echo(store_url: str) -> None:
    click.echo(store_url)


@click.command()
@fact_store_option
def _fact_store_echo(store_path: Path) -> None:
    click.echo(store_path)


def test_the_shared_options_default_to_the_documented_values() -> None:
    runner = CliRunner(env={"KAFKA_BOOTSTRAP_SERVERS": None, "OMEGA_TOPIC_PREFIX": None, "OMEGA_STORE": None,
                            "OMEGA_PACKET_AUTH_POLICY": None, "OMEGA_READ_MODEL": None, "OMEGA_FACT_STORE": None})
    assert runner.invoke(_kafka_echo, []).output == "127.0.0.1:9092||memory://|None\n"
    assert runner.invoke(_read_model_echo, []).output == "sqlite:.omega-data/memories.sqlite\n"
    assert runner.invoke(_fact_store_echo, []).output == str(Path(".omega-data") / "facts.jsonl") + "\n"


def test_the_shared_options_read_their_environment_variables() -> None:
    runner = CliRunner(env={"KAFKA_BOOTSTRAP_SERVERS": "b:1", "OMEGA_TOPIC_PREFIX": "t.", "OMEGA_STORE": "rocksdb://",
                            "OMEGA_PACKET_AUTH_POLICY": "p.yaml", "OMEGA_READ_MODEL": "sqlite:x",
                            "OMEGA_FACT_STORE": "f.jsonl"})
    assert runner.invoke(_kafka_echo, []).output == "b:1|t.|rocksdb://|p.yaml\n"
    assert runner.invoke(_read_model_echo, []).output == "sqlite:x\n"
    assert runner.invoke(_fact_store_echo, []).output == "f.jsonl\n"
    assert runner.invoke(_kafka_echo, ["--bootstrap", "c:2"]).output == "c:2|t.|rocksdb://|p.yaml\n"


@click.command()
@files_argument
def _files(files: tuple[Path, ...]) -> None:
    click.echo(" ".join(str(p) for p in existing_files(files)))


def test_existing_files_keeps_the_order_and_names_every_missing_file(tmp_path: Path) -> None:
    first, second = tmp_path / "b.jsonl", tmp_path / "a.jsonl"
    first.write_text("", encoding="utf-8")
    second.write_text("", encoding="utf-8")
    assert CliRunner().invoke(_files, [str(first), str(second)]).output == f"{first} {second}\n"
    missing = CliRunner().invoke(_files, [str(first), "x.jsonl", "y.jsonl"])
    assert missing.exit_code == EXIT_USAGE
    assert missing.stderr == "omega: no such file: x.jsonl, y.jsonl\n"
    assert missing.stdout == ""


def test_usage_error_prints_on_stderr_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        usage_error("bad input: nope")
    assert ended.value.code == EXIT_USAGE
    assert capsys.readouterr().err == "omega: bad input: nope\n"


def test_no_policy_path_means_no_policy_and_a_bad_one_exits_2(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert policy_or_exit(None) is None
    with pytest.raises(SystemExit) as ended:
        policy_or_exit(tmp_path / "absent.yaml")
    assert ended.value.code == EXIT_USAGE
    assert capsys.readouterr().err.startswith("omega: ")


def test_existing_files_expands_directories_in_place_and_keeps_dash(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    (folder / "sub").mkdir(parents=True)
    for name in ("sub/b.json", "a.jsonl.gz", "c.yml", "skip.txt"):
        (folder / name).write_text("", encoding="utf-8")
    last = tmp_path / "last.jsonl"
    last.write_text("", encoding="utf-8")
    result = CliRunner().invoke(_files, [str(last), str(folder), "-"])
    assert result.output == f"{last} {folder}/a.jsonl.gz {folder}/c.yml {folder}/sub/b.json -\n"


def test_existing_files_refuses_an_empty_directory_a_binary_file_and_two_dashes(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    binary = tmp_path / "blob.jsonl"
    binary.write_bytes(b"\x00\xff")
    empty = CliRunner().invoke(_files, [str(tmp_path / "empty")])
    assert (empty.exit_code, empty.stdout) == (EXIT_USAGE, "")
    assert empty.stderr == (f"omega: {tmp_path / 'empty'}: no input files in this directory "
                            "(.avro, .json, .jsonl, .yaml, .yml, .gz)\n")
    refused = CliRunner().invoke(_files, [str(binary)])
    assert (refused.exit_code, refused.stderr) == (
        EXIT_USAGE, f"omega: {binary}: binary file (not gzip, an Avro container or UTF-8 text)\n")
    assert CliRunner().invoke(_files, ["-", "-"]).stderr == "omega: - (stdin) given more than once\n"
