"""Connection and runtime settings, from the environment (the CLI's options fall back to the same variables)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

SECURITY_PROTOCOLS = ("PLAINTEXT", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN")


@dataclass(frozen=True)
class Settings:
    """Everything the shell needs to know; the core needs none of it."""

    bootstrap_servers: str = "127.0.0.1:9092"
    app_id: str = "omega-verifier"
    topic_prefix: str = ""
    partitions: int = 4
    store: str = "memory://"
    data_dir: Path = field(default_factory=lambda: Path(".omega-data"))
    max_event_bytes: int = 1_048_576
    log_level: str = "INFO"
    web_port: int = 6066
    tick_interval_seconds: float = 5.0
    producer_linger_seconds: float = 0.005
    fetch_max_wait_ms: int = 50  # the worker consumer's long-poll bound (kafka/transport.py); Faust's own is 1500
    standby_replicas: int = 1
    stall_seconds: float = 120.0  # waiting work unmoved this long crashes the worker (worker/watchdog.py); 0: off
    packet_auth_policy: Path | None = None  # issue 9: YAML/JSON key policy; None = signatures not checked
    security_protocol: str = "PLAINTEXT"  # or SASL_PLAINTEXT / SASL_SSL (then the sasl_* fields are required)
    sasl_mechanism: str = "SCRAM-SHA-512"
    sasl_username: str | None = None
    sasl_password: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.security_protocol not in SECURITY_PROTOCOLS:
            raise ValueError(f"KAFKA_SECURITY_PROTOCOL must be one of {', '.join(SECURITY_PROTOCOLS)}, "
                             f"not {self.security_protocol!r}")
        if self.sasl:
            if self.sasl_mechanism not in SASL_MECHANISMS:
                raise ValueError(f"KAFKA_SASL_MECHANISM must be one of {', '.join(SASL_MECHANISMS)}, "
                                 f"not {self.sasl_mechanism!r}")
            if not self.sasl_username or self.sasl_password is None:
                raise ValueError(f"{self.security_protocol} needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD")

    @property
    def sasl(self) -> bool:
        """Whether clients authenticate with SASL."""
        return self.security_protocol.startswith("SASL_")

    def kafka_client_options(self) -> dict[str, Any]:
        """The security keyword arguments of every aiokafka client (producer, consumer, admin) we build."""
        if not self.sasl:
            return {"security_protocol": "PLAINTEXT"}
        options: dict[str, Any] = {
            "security_protocol": self.security_protocol, "sasl_mechanism": self.sasl_mechanism,
            "sasl_plain_username": self.sasl_username, "sasl_plain_password": self.sasl_password,
        }
        if self.security_protocol == "SASL_SSL":
            import ssl

            options["ssl_context"] = ssl.create_default_context()
        return options

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Read `OMEGA_*` / `KAFKA_BOOTSTRAP_SERVERS`; explicit keyword overrides win when not None."""
        env = os.environ if env is None else env
        base = cls()
        settings = cls(
            bootstrap_servers=env.get("KAFKA_BOOTSTRAP_SERVERS", base.bootstrap_servers),
            app_id=env.get("OMEGA_APP_ID", base.app_id),
            topic_prefix=env.get("OMEGA_TOPIC_PREFIX", base.topic_prefix),
            partitions=int(env.get("OMEGA_PARTITIONS", base.partitions)),
            store=env.get("OMEGA_STORE", base.store),
            data_dir=Path(env.get("OMEGA_DATA_DIR", str(base.data_dir))),
            max_event_bytes=int(env.get("OMEGA_MAX_EVENT_BYTES", base.max_event_bytes)),
            log_level=env.get("OMEGA_LOG_LEVEL", base.log_level).upper(),
            web_port=int(env.get("OMEGA_WEB_PORT", base.web_port)),
            tick_interval_seconds=float(env.get("OMEGA_TICK_INTERVAL", base.tick_interval_seconds)),
            producer_linger_seconds=float(env.get("OMEGA_PRODUCER_LINGER_MS", base.producer_linger_seconds * 1000))
            / 1000,
            fetch_max_wait_ms=int(env.get("OMEGA_FETCH_MAX_WAIT_MS", base.fetch_max_wait_ms)),
            standby_replicas=int(env.get("OMEGA_STANDBY_REPLICAS", base.standby_replicas)),
            stall_seconds=float(env.get("OMEGA_STALL_SECONDS", base.stall_seconds)),
            packet_auth_policy=Path(env["OMEGA_PACKET_AUTH_POLICY"]) if env.get("OMEGA_PACKET_AUTH_POLICY") else None,
            **_security_from_env(env),
        )
        given = {k: v for k, v in overrides.items() if v is not None}
        return replace(settings, **given) if given else settings  # type: ignore[arg-type]


def kafka_client_options(settings: Settings | None = None) -> dict[str, Any]:
    """Security keyword arguments for an aiokafka client: from `settings`, or else from the environment."""
    return (settings or Settings(**_security_from_env(os.environ))).kafka_client_options()


def _security_from_env(env: Mapping[str, str]) -> dict[str, Any]:
    """KAFKA_SECURITY_PROTOCOL / KAFKA_SASL_*; a username alone implies SASL_PLAINTEXT."""
    username = env.get("KAFKA_SASL_USERNAME") or None
    protocol = env.get("KAFKA_SECURITY_PROTOCOL") or ("SASL_PLAINTEXT" if username else Settings.security_protocol)
    return {"security_protocol": protocol.upper(),
            "sasl_mechanism": env.get("KAFKA_SASL_MECHANISM", Settings.sasl_mechanism).upper(),
            "sasl_username": username, "sasl_password": env.get("KAFKA_SASL_PASSWORD")}
