"""`Settings.from_env` checks every number it reads in one place: a bad value is one `SettingsError` naming the
variable, the value as written and what fits; good values and the defaults read as they always did. The file
commands read only their two variables (`Settings.offline_from_env`). Security variables: test_settings_security.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from streams.settings import Settings, SettingsError


@pytest.mark.parametrize(("env", "message"), [
    ({"OMEGA_PARTITIONS": "four"}, "OMEGA_PARTITIONS='four': expected a whole number >= 1"),
    ({"OMEGA_PARTITIONS": "0"}, "OMEGA_PARTITIONS='0': expected a whole number >= 1"),
    ({"OMEGA_PARTITIONS": "2.5"}, "OMEGA_PARTITIONS='2.5': expected a whole number >= 1"),
    ({"OMEGA_MAX_EVENT_BYTES": "-1"}, "OMEGA_MAX_EVENT_BYTES='-1': expected a whole number >= 1"),
    ({"OMEGA_MAX_EVENT_BYTES": "1MB"}, "OMEGA_MAX_EVENT_BYTES='1MB': expected a whole number >= 1"),
    ({"OMEGA_WEB_PORT": "70000"}, "OMEGA_WEB_PORT='70000': expected a whole number from 0 to 65535"),
    ({"OMEGA_WEB_PORT": "http"}, "OMEGA_WEB_PORT='http': expected a whole number from 0 to 65535"),
    ({"OMEGA_TICK_INTERVAL": "0"}, "OMEGA_TICK_INTERVAL='0': expected a number > 0"),
    ({"OMEGA_TICK_INTERVAL": "5s"}, "OMEGA_TICK_INTERVAL='5s': expected a number > 0"),
    ({"OMEGA_PRODUCER_LINGER_MS": "-5"}, "OMEGA_PRODUCER_LINGER_MS='-5': expected a number >= 0"),
    ({"OMEGA_FETCH_MAX_WAIT_MS": "x"}, "OMEGA_FETCH_MAX_WAIT_MS='x': expected a whole number >= 0"),
    ({"OMEGA_FETCH_MAX_WAIT_MS": "-1"}, "OMEGA_FETCH_MAX_WAIT_MS='-1': expected a whole number >= 0"),
    ({"OMEGA_FETCH_MIN_BYTES": "0"}, "OMEGA_FETCH_MIN_BYTES='0': expected a whole number >= 1"),
    ({"OMEGA_STANDBY_REPLICAS": "one"}, "OMEGA_STANDBY_REPLICAS='one': expected a whole number >= 0"),
    ({"OMEGA_STALL_SECONDS": "-1"}, "OMEGA_STALL_SECONDS='-1': expected a number >= 0"),
    ({"OMEGA_STALL_SECONDS": "nan"}, "OMEGA_STALL_SECONDS='nan': expected a number >= 0"),
    ({"OMEGA_STALL_SECONDS": "inf"}, "OMEGA_STALL_SECONDS='inf': expected a number >= 0"),
    ({"OMEGA_STALL_SECONDS": ""}, "OMEGA_STALL_SECONDS='': expected a number >= 0"),
    ({"OMEGA_MAX_LATENESS_MS": "-1"}, "OMEGA_MAX_LATENESS_MS='-1': expected a whole number >= 0"),
    ({"OMEGA_REPLICATION_FACTOR": "0"}, "OMEGA_REPLICATION_FACTOR='0': expected a whole number >= 1"),
    ({"OMEGA_EVENT_LOOP": "trio"}, "OMEGA_EVENT_LOOP='trio': expected one of uvloop, asyncio"),
    ({"OMEGA_REPLICATION_FACTOR": "3", "OMEGA_MIN_INSYNC_REPLICAS": "4"},
     "OMEGA_MIN_INSYNC_REPLICAS=4 is more than OMEGA_REPLICATION_FACTOR=3: no write could succeed"),
])
def test_a_bad_value_is_one_error_naming_the_variable_the_value_and_what_fits(env: dict[str, str],
                                                                              message: str) -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env(env)
    assert str(raised.value) == message


def test_a_settings_error_is_a_value_error() -> None:
    # callers that caught ValueError before (the worker) still catch it
    assert issubclass(SettingsError, ValueError)


def test_good_values_read_as_before() -> None:
    settings = Settings.from_env({
        "OMEGA_PARTITIONS": " 8 ", "OMEGA_MAX_EVENT_BYTES": "2_000", "OMEGA_WEB_PORT": "0",
        "OMEGA_TICK_INTERVAL": "0.5", "OMEGA_PRODUCER_LINGER_MS": "0", "OMEGA_FETCH_MAX_WAIT_MS": "0",
        "OMEGA_STANDBY_REPLICAS": "0", "OMEGA_STALL_SECONDS": "0", "OMEGA_LOG_LEVEL": "debug",
        "OMEGA_FETCH_MIN_BYTES": "8192", "OMEGA_EVENT_LOOP": "asyncio",
    })
    assert (settings.partitions, settings.max_event_bytes, settings.web_port) == (8, 2000, 0)
    assert (settings.tick_interval_seconds, settings.producer_linger_seconds) == (0.5, 0.0)
    assert (settings.fetch_max_wait_ms, settings.standby_replicas, settings.stall_seconds) == (0, 0, 0.0)
    assert (settings.log_level, settings.fetch_min_bytes, settings.event_loop) == ("DEBUG", 8192, "asyncio")


def test_an_empty_environment_gives_the_defaults() -> None:
    settings = Settings.from_env({})
    # web_port 0: no web server (several workers share a host); replication 1: a single broker
    assert (settings.partitions, settings.max_event_bytes, settings.web_port, settings.fetch_max_wait_ms) == (
        4, 1_048_576, 0, 50)
    assert (settings.max_lateness_ms, settings.replication_factor, settings.min_insync) == (0, 1, 1)
    assert settings.fetch_min_bytes == 1  # a fetch returns what is there: at a low rate, a larger one waits
    assert settings.event_loop == ("asyncio" if sys.platform == "win32" else "uvloop")  # uvloop has no Windows build
    assert (settings.tick_interval_seconds, settings.producer_linger_seconds, settings.stall_seconds) == (
        5.0, 0.020, 120.0)
    assert (settings.standby_replicas, settings.standbys) == (None, 0)  # the memory store keeps no standby
    assert (settings.bootstrap_servers, settings.app_id, settings.store, settings.data_dir) == (
        "127.0.0.1:9092", "omega-verifier", "memory://", Path(".omega-data"))


@pytest.mark.parametrize(("env", "overrides", "standbys"), [
    ({}, {}, 0),  # memory: a standby's copy is dropped at each recovery, and no offset survives a takeover
    ({"OMEGA_STORE": "rocksdb://"}, {}, 1),  # a store that keeps its offsets: a standby makes takeovers short
    ({}, {"store": "rocksdb://"}, 1),  # the CLI's --store, given after the environment, decides too
    ({"OMEGA_STORE": "Memory://"}, {}, 0),
    ({"OMEGA_STORE": "rocksdb://", "OMEGA_STANDBY_REPLICAS": "0"}, {}, 0),  # as set, whatever the store
    ({"OMEGA_STANDBY_REPLICAS": "2"}, {}, 2),
])
def test_standby_replicas_follow_the_store_unless_set(env: dict[str, str], overrides: dict[str, object],
                                                      standbys: int) -> None:
    assert Settings.from_env(env, **overrides).standbys == standbys


def test_overrides_win_over_the_environment_and_none_does_not() -> None:
    settings = Settings.from_env({"OMEGA_PARTITIONS": "3"}, partitions=None, topic_prefix="t.")
    assert (settings.partitions, settings.topic_prefix) == (3, "t.")


def test_the_file_commands_read_only_their_two_variables() -> None:
    settings = Settings.offline_from_env({
        "OMEGA_PARTITIONS": "four", "KAFKA_SECURITY_PROTOCOL": "SSL", "OMEGA_FETCH_MAX_WAIT_MS": "x",
        "OMEGA_MAX_EVENT_BYTES": "512", "OMEGA_PACKET_AUTH_POLICY": "/etc/omega/auth.yaml",
    }, packet_auth_policy=None)
    assert (settings.max_event_bytes, settings.packet_auth_policy) == (512, Path("/etc/omega/auth.yaml"))
    assert (settings.partitions, settings.security_protocol) == (4, "PLAINTEXT")


def test_the_file_commands_refuse_a_bad_value_they_use() -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.offline_from_env({"OMEGA_MAX_EVENT_BYTES": "-1"})
    assert str(raised.value) == "OMEGA_MAX_EVENT_BYTES='-1': expected a whole number >= 1"


def test_an_explicit_policy_wins_for_the_file_commands() -> None:
    settings = Settings.offline_from_env({"OMEGA_PACKET_AUTH_POLICY": "/a.yaml"}, packet_auth_policy=Path("/b.yaml"))
    assert settings.packet_auth_policy == Path("/b.yaml")


def test_min_insync_replicas_is_one_less_than_the_replication_factor_unless_set() -> None:
    assert Settings.from_env({}).min_insync == 1
    assert Settings.from_env({"OMEGA_REPLICATION_FACTOR": "3"}).min_insync == 2
    assert Settings.from_env({"OMEGA_REPLICATION_FACTOR": "2"}).min_insync == 1
    assert Settings.from_env({"OMEGA_REPLICATION_FACTOR": "3", "OMEGA_MIN_INSYNC_REPLICAS": "3"}).min_insync == 3


def test_under_a_lateness_the_file_commands_read_the_partitions_whose_watermarks_they_keep() -> None:
    env = {"OMEGA_PARTITIONS": "8"}
    assert Settings.offline_from_env(env).partitions == 4  # no lateness: the variable is not theirs
    assert Settings.offline_from_env(env, max_lateness_ms=60_000).partitions == 8
    assert Settings.offline_from_env({**env, "OMEGA_MAX_LATENESS_MS": "1"}).partitions == 8
    with pytest.raises(SettingsError) as raised:
        Settings.offline_from_env({"OMEGA_PARTITIONS": "four"}, max_lateness_ms=60_000)
    assert str(raised.value) == "OMEGA_PARTITIONS='four': expected a whole number >= 1"


def test_the_idle_release_defaults_to_five_seconds_and_zero_turns_it_off() -> None:
    assert Settings.from_env({}).idle_release_ms == 5_000
    assert Settings.from_env({"OMEGA_IDLE_RELEASE_MS": "0"}).idle_release_ms == 0
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({"OMEGA_IDLE_RELEASE_MS": "-5"})
    assert str(raised.value) == "OMEGA_IDLE_RELEASE_MS='-5': expected a whole number >= 0"
