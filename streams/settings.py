"""Connection and runtime settings, from the environment (the CLI's options fall back to the same variables)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path


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
    standby_replicas: int = 1

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
            standby_replicas=int(env.get("OMEGA_STANDBY_REPLICAS", base.standby_replicas)),
        )
        given = {k: v for k, v in overrides.items() if v is not None}
        return replace(settings, **given) if given else settings  # type: ignore[arg-type]
