"""Kafka client security settings: env parsing, validation, the one helper every aiokafka client uses, and Faust's
broker credentials; plus the topic roles that `deploy/kafka/kafka.sh acls` turns into ACLs."""

from __future__ import annotations

import ssl

import faust
import pytest

from streams.settings import Settings, SettingsError, kafka_client_options
from streams.topics import (
    ALL_TOPICS,
    DEAD_LETTERS,
    INPUTS,
    OUTPUTS,
    PACKETS,
    PACKETS_JSON,
    VERDICTS,
    main,
    topic_name,
)
from streams.worker.app import broker_credentials

SASL_ENV = {"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "KAFKA_SASL_MECHANISM": "SCRAM-SHA-512",
            "KAFKA_SASL_USERNAME": "omega-worker", "KAFKA_SASL_PASSWORD": "s3cret"}
KAFKA_ENV = ("KAFKA_SECURITY_PROTOCOL", "KAFKA_SASL_MECHANISM", "KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD")


def test_default_is_plaintext_without_credentials() -> None:
    settings = Settings.from_env({})

    assert settings.security_protocol == "PLAINTEXT"
    assert not settings.sasl
    assert settings.kafka_client_options() == {"security_protocol": "PLAINTEXT"}
    assert broker_credentials(settings) is None


def test_sasl_env_gives_the_aiokafka_options() -> None:
    settings = Settings.from_env(SASL_ENV)

    assert settings.kafka_client_options() == {
        "security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_username": "omega-worker", "sasl_plain_password": "s3cret",
    }


def test_a_username_alone_implies_sasl_plaintext_and_scram_sha_512() -> None:
    settings = Settings.from_env({"KAFKA_SASL_USERNAME": "u", "KAFKA_SASL_PASSWORD": "p"})

    assert (settings.security_protocol, settings.sasl_mechanism) == ("SASL_PLAINTEXT", "SCRAM-SHA-512")


def test_protocol_and_mechanism_are_case_insensitive() -> None:
    settings = Settings.from_env({**SASL_ENV, "KAFKA_SECURITY_PROTOCOL": "sasl_plaintext",
                                  "KAFKA_SASL_MECHANISM": "scram-sha-256"})

    assert (settings.security_protocol, settings.sasl_mechanism) == ("SASL_PLAINTEXT", "SCRAM-SHA-256")


NEEDS_CREDENTIALS = "KAFKA_SECURITY_PROTOCOL='SASL_PLAINTEXT' needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD"


@pytest.mark.parametrize(("env", "message"), [
    ({"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT"}, NEEDS_CREDENTIALS),
    ({**SASL_ENV, "KAFKA_SASL_USERNAME": ""}, NEEDS_CREDENTIALS),
    ({"KAFKA_SASL_USERNAME": "u"}, NEEDS_CREDENTIALS),
    ({**SASL_ENV, "KAFKA_SECURITY_PROTOCOL": "SSL_MAYBE"},
     "KAFKA_SECURITY_PROTOCOL='SSL_MAYBE': expected one of PLAINTEXT, SASL_PLAINTEXT, SASL_SSL"),
    ({**SASL_ENV, "KAFKA_SASL_MECHANISM": "GSSAPI"},
     "KAFKA_SASL_MECHANISM='GSSAPI': expected one of SCRAM-SHA-512, SCRAM-SHA-256, PLAIN"),
])
def test_incomplete_or_unknown_security_settings_are_refused_naming_the_variable(
    env: dict[str, str], message: str,
) -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env(env)
    assert str(raised.value) == message


def test_an_unknown_protocol_is_named_as_written_not_as_normalised() -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({"KAFKA_SECURITY_PROTOCOL": "ssl"})
    assert str(raised.value) == "KAFKA_SECURITY_PROTOCOL='ssl': expected one of PLAINTEXT, SASL_PLAINTEXT, SASL_SSL"


def test_the_mechanism_is_not_checked_without_sasl() -> None:
    # as before: a PLAINTEXT client never uses it
    assert Settings.from_env({"KAFKA_SASL_MECHANISM": "GSSAPI"}).security_protocol == "PLAINTEXT"


def test_the_password_is_not_in_the_repr() -> None:
    assert "s3cret" not in repr(Settings.from_env(SASL_ENV))


def test_sasl_ssl_adds_a_verifying_ssl_context() -> None:
    options = Settings.from_env({**SASL_ENV, "KAFKA_SECURITY_PROTOCOL": "SASL_SSL"}).kafka_client_options()

    assert options["security_protocol"] == "SASL_SSL"
    assert isinstance(options["ssl_context"], ssl.SSLContext)
    assert options["ssl_context"].verify_mode == ssl.CERT_REQUIRED


def test_the_module_helper_reads_the_environment_when_given_no_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in KAFKA_ENV:
        monkeypatch.delenv(name, raising=False)
    assert kafka_client_options() == {"security_protocol": "PLAINTEXT"}

    for name, value in SASL_ENV.items():
        monkeypatch.setenv(name, value)
    assert kafka_client_options() == Settings.from_env(SASL_ENV).kafka_client_options()
    assert kafka_client_options(Settings()) == {"security_protocol": "PLAINTEXT"}


def test_faust_gets_the_same_credentials_as_our_clients() -> None:
    settings = Settings.from_env(SASL_ENV)

    credentials = broker_credentials(settings)

    assert isinstance(credentials, faust.SASLCredentials)
    assert (credentials.username, credentials.password) == ("omega-worker", "s3cret")
    assert credentials.mechanism.value == "SCRAM-SHA-512"
    assert credentials.protocol.value == "SASL_PLAINTEXT"


def test_overrides_keep_the_security_settings() -> None:
    settings = Settings.from_env(SASL_ENV, bootstrap_servers="b:1", topic_prefix="p.")

    assert settings.sasl_username == "omega-worker"
    assert settings.bootstrap_servers == "b:1"


def test_topic_roles_split_the_contract_for_the_acls() -> None:
    assert set(INPUTS) | set(OUTPUTS) == set(ALL_TOPICS)
    assert set(INPUTS) & set(OUTPUTS) == {PACKETS}  # Avro producers and the ingress agent both write it
    assert PACKETS_JSON in INPUTS
    assert {VERDICTS, DEAD_LETTERS} <= set(OUTPUTS) - set(INPUTS)


def test_the_topics_command_prints_prefixed_names(capsys: pytest.CaptureFixture[str]) -> None:
    main(["inputs", "--prefix", "t."])

    assert capsys.readouterr().out.splitlines() == [topic_name(t, "t.") for t in INPUTS]


def test_the_worker_refuses_an_unusable_security_setting_with_exit_2_and_no_traceback() -> None:
    from click.testing import CliRunner

    from streams.cli.main import main

    result = CliRunner().invoke(main, ["worker"], env={"KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
                                                       "KAFKA_SASL_USERNAME": "", "KAFKA_SASL_PASSWORD": ""})
    assert result.exit_code == 2
    assert result.output == f"omega: {NEEDS_CREDENTIALS}\n"
