"""Connection and runtime settings, from the environment (the CLI's options fall back to the same variables)."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

SECURITY_PROTOCOLS = ("PLAINTEXT", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN")
AVRO_WIRES = ("single-object", "confluent")  # the framing of Avro output records (streams/wire/confluent.py)
EVENT_LOOPS = ("uvloop", "asyncio")  # the worker's event loops (its own and Faust's consumer thread's)

N = TypeVar("N", int, float)


class SettingsError(ValueError):
    """An environment variable holds a value the shell cannot use; the message names it, its value and what fits."""


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
    web_port: int = 0  # > 0: the worker serves /metrics, /healthz and /ready there (worker/metrics.py); 0: no server
    tick_interval_seconds: float = 5.0
    # 20 ms, not 5: two workers' Avro burst 1.44x and 1.75x the throughput in alternated A/B runs (either order),
    # one worker paced at 400/s p99 69-80 against 83-88 ms, p50 up to 13 ms higher (BENCHMARKS.md, Faust settings)
    producer_linger_seconds: float = 0.020
    fetch_max_wait_ms: int = 50  # the worker consumer's long-poll bound (kafka/transport.py); Faust's own is 1500
    # 8192: two workers paced at 630/s used 15% less worker, 20% less broker CPU per packet, p50 a few ms higher;
    # 1, since at a low rate every fetch would wait the whole fetch_max_wait_ms (BENCHMARKS.md, issue 24)
    fetch_min_bytes: int = 1
    # > 1: each agent takes up to this many records at a time (Faust `take_events`), acked after the batch;
    # 1: record by record (worker/app.py `_agent_loop`)
    batch_max: int = 1
    batch_wait_seconds: float = 0.01  # how long a batch waits to fill before it runs with what it has
    # the worker freezes what survived each full garbage collection (worker/gc_pauses.py: 58-174 ms pauses every
    # ~8 s were the p99 tail at half capacity); 0 turns it off
    gc_freeze: bool = True
    # uvloop: two workers' Avro burst 1.02-1.12x (median 1.11x), worker CPU per packet 2-9% less, p99 paced at
    # 900/s 44.5-54.6 against 47.9-79.9 ms, alternated (BENCHMARKS.md, issue 24); asyncio where uvloop is not built
    event_loop: str = "asyncio" if sys.platform == "win32" else "uvloop"
    standby_replicas: int | None = None  # None: by the store (`standbys`)
    stall_seconds: float = 120.0  # waiting work unmoved this long crashes the worker (worker/watchdog.py); 0: off
    # > 0: an episode's packets wait until their partition's watermark passes created_at + this, then are judged in
    # event-time order (stages/lateness.py); 0: judged on arrival, in partition order (no added latency)
    max_lateness_ms: int = 0
    # under a lateness, a packets partition that received no packet for this much wall time releases its waiting
    # packets as if its watermark had passed them (worker/idle_release.py); 0: they wait for the next traffic
    idle_release_ms: int = 5_000
    # every contract topic and every Faust changelog/repartition topic; a 3-broker cluster wants 3 (issue 23)
    replication_factor: int = 1
    min_insync_replicas: int | None = None  # None: replication_factor - 1, at least 1 (`min_insync`)
    packet_auth_policy: Path | None = None  # issue 9: YAML/JSON key policy; None = signatures not checked
    security_protocol: str = "PLAINTEXT"  # or SASL_PLAINTEXT / SASL_SSL (then the sasl_* fields are required)
    sasl_mechanism: str = "SCRAM-SHA-512"
    sasl_username: str | None = None
    sasl_password: str | None = field(default=None, repr=False)
    # issue 26: Avro output framing, and the Schema Registry (confluent-kafka's client names for its options)
    avro_wire: str = "single-object"
    schema_registry_url: str | None = None
    schema_registry_basic_auth_user_info: str | None = field(default=None, repr=False)
    schema_registry_ssl_ca_location: str | None = None
    schema_registry_ssl_certificate_location: str | None = None
    schema_registry_ssl_key_location: str | None = None

    def __post_init__(self) -> None:
        if self.min_insync_replicas is not None and self.min_insync_replicas > self.replication_factor:
            raise SettingsError(f"OMEGA_MIN_INSYNC_REPLICAS={self.min_insync_replicas} is more than "
                                f"OMEGA_REPLICATION_FACTOR={self.replication_factor}: no write could succeed")
        if self.security_protocol not in SECURITY_PROTOCOLS:
            raise _expected("KAFKA_SECURITY_PROTOCOL", self.security_protocol, _one_of(SECURITY_PROTOCOLS))
        if self.sasl:
            if self.sasl_mechanism not in SASL_MECHANISMS:
                raise _expected("KAFKA_SASL_MECHANISM", self.sasl_mechanism, _one_of(SASL_MECHANISMS))
            if not self.sasl_username or self.sasl_password is None:
                raise SettingsError(f"KAFKA_SECURITY_PROTOCOL={self.security_protocol!r} needs "
                                    "KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD")
        if self.event_loop not in EVENT_LOOPS:
            raise _expected("OMEGA_EVENT_LOOP", self.event_loop, _one_of(EVENT_LOOPS))
        if self.avro_wire not in AVRO_WIRES:
            raise _expected("OMEGA_AVRO_WIRE", self.avro_wire, _one_of(AVRO_WIRES))
        if self.avro_wire == "confluent" and not self.schema_registry_url:
            raise SettingsError("OMEGA_AVRO_WIRE='confluent' needs OMEGA_SCHEMA_REGISTRY_URL (the registry that "
                                "hands out the schema ids)")

    @property
    def standbys(self) -> int:
        """Faust standby replicas of the tables: as set, else 1 with a store that keeps its offsets (RocksDB) and 0
        with the memory store, where a standby buys nothing.

        A standby reads another worker's changelogs so that a takeover can start from the offsets it kept. The
        memory store keeps no offsets (a takeover reads the changelog from its start either way) and drops every
        key outside its active partitions when a recovery completes, standbys' included (faust/stores/memory.py).
        Measured (BENCHMARKS.md, issue 24), memory store, two workers: takeover after 20,000 / 60,000 packets 10.5 /
        27.6 s with a standby and 10.4 / 25.6 s without; paced at 830/s on 2 cores a standby cost 15% of a
        worker's CPU per packet (0.83-0.88 against 0.69-0.76 ms) and the tail (p99 118-528 against 62-69 ms)."""
        if self.standby_replicas is not None:
            return self.standby_replicas
        return 0 if self.memory_store else 1

    @property
    def memory_store(self) -> bool:
        """Whether the tables live in Faust's memory store (no local state kept across restarts)."""
        return self.store.split(":", 1)[0].lower() == "memory"

    @property
    def min_insync(self) -> int:
        """The `min.insync.replicas` of every topic: as set, else one less than the replication factor, at least 1
        (a write acknowledged by all in-sync replicas survives the loss of one broker)."""
        return self.min_insync_replicas or max(1, self.replication_factor - 1)

    @property
    def sasl(self) -> bool:
        """Whether clients authenticate with SASL."""
        return self.security_protocol.startswith("SASL_")

    def schema_registry_config(self) -> dict[str, str] | None:
        """The confluent-kafka `SchemaRegistryClient` configuration; None without `OMEGA_SCHEMA_REGISTRY_URL`."""
        if not self.schema_registry_url:
            return None
        optional = {"basic.auth.user.info": self.schema_registry_basic_auth_user_info,
                    "ssl.ca.location": self.schema_registry_ssl_ca_location,
                    "ssl.certificate.location": self.schema_registry_ssl_certificate_location,
                    "ssl.key.location": self.schema_registry_ssl_key_location}
        return {"url": self.schema_registry_url, **{k: v for k, v in optional.items() if v}}

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
        """Read `OMEGA_*` / `KAFKA_*`; explicit keyword overrides win when not None. A bad value: `SettingsError`."""
        env = os.environ if env is None else env
        base = cls()
        settings = cls(
            bootstrap_servers=env.get("KAFKA_BOOTSTRAP_SERVERS", base.bootstrap_servers),
            app_id=env.get("OMEGA_APP_ID", base.app_id),
            topic_prefix=env.get("OMEGA_TOPIC_PREFIX", base.topic_prefix),
            partitions=_whole(env, "OMEGA_PARTITIONS", base.partitions, minimum=1),
            store=env.get("OMEGA_STORE", base.store),
            data_dir=Path(env.get("OMEGA_DATA_DIR", str(base.data_dir))),
            max_event_bytes=_whole(env, "OMEGA_MAX_EVENT_BYTES", base.max_event_bytes, minimum=1),
            log_level=env.get("OMEGA_LOG_LEVEL", base.log_level).upper(),
            web_port=_whole(env, "OMEGA_WEB_PORT", base.web_port, minimum=0, maximum=65535),
            tick_interval_seconds=_real(env, "OMEGA_TICK_INTERVAL", base.tick_interval_seconds, above=0.0),
            producer_linger_seconds=_real(env, "OMEGA_PRODUCER_LINGER_MS", base.producer_linger_seconds * 1000,
                                          minimum=0.0) / 1000,
            fetch_max_wait_ms=_whole(env, "OMEGA_FETCH_MAX_WAIT_MS", base.fetch_max_wait_ms, minimum=0),
            fetch_min_bytes=_whole(env, "OMEGA_FETCH_MIN_BYTES", base.fetch_min_bytes, minimum=1),
            batch_max=_whole(env, "OMEGA_BATCH_MAX", base.batch_max, minimum=1, maximum=10_000),
            gc_freeze=bool(_whole(env, "OMEGA_GC_FREEZE", int(base.gc_freeze), minimum=0, maximum=1)),
            event_loop=env.get("OMEGA_EVENT_LOOP") or base.event_loop,
            batch_wait_seconds=_real(env, "OMEGA_BATCH_WAIT_MS", base.batch_wait_seconds * 1000, above=0.0) / 1000,
            standby_replicas=_whole(env, "OMEGA_STANDBY_REPLICAS", 0, minimum=0) if "OMEGA_STANDBY_REPLICAS" in env
            else None,
            stall_seconds=_real(env, "OMEGA_STALL_SECONDS", base.stall_seconds, minimum=0.0),
            max_lateness_ms=_whole(env, "OMEGA_MAX_LATENESS_MS", base.max_lateness_ms, minimum=0),
            idle_release_ms=_whole(env, "OMEGA_IDLE_RELEASE_MS", base.idle_release_ms, minimum=0),
            replication_factor=_whole(env, "OMEGA_REPLICATION_FACTOR", base.replication_factor, minimum=1),
            min_insync_replicas=_whole(env, "OMEGA_MIN_INSYNC_REPLICAS", 0, minimum=0) or None,
            packet_auth_policy=_auth_policy(env),
            **_security_from_env(env),
            **_registry_from_env(env),
        )
        return _overridden(settings, overrides)

    @classmethod
    def offline_from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Only what the file commands use (`OMEGA_MAX_EVENT_BYTES`, `OMEGA_PACKET_AUTH_POLICY`,
        `OMEGA_MAX_LATENESS_MS`, and under a lateness `OMEGA_PARTITIONS`, since each packets partition has its own
        watermark), the rest default: a Kafka or worker variable they never use cannot stop them."""
        env = os.environ if env is None else env
        settings = _overridden(cls(
            max_event_bytes=_whole(env, "OMEGA_MAX_EVENT_BYTES", cls.max_event_bytes, minimum=1),
            packet_auth_policy=_auth_policy(env),
            max_lateness_ms=_whole(env, "OMEGA_MAX_LATENESS_MS", cls.max_lateness_ms, minimum=0)), overrides)
        if settings.max_lateness_ms > 0 and overrides.get("partitions") is None:
            settings = replace(settings, partitions=_whole(env, "OMEGA_PARTITIONS", cls.partitions, minimum=1))
        return settings


def kafka_client_options(settings: Settings | None = None) -> dict[str, Any]:
    """Security keyword arguments for an aiokafka client: from `settings`, or else from the environment."""
    return (settings or Settings(**_security_from_env(os.environ))).kafka_client_options()


def _overridden(settings: Settings, overrides: Mapping[str, object]) -> Settings:
    given = {k: v for k, v in overrides.items() if v is not None}
    return replace(settings, **given) if given else settings  # type: ignore[arg-type]


def _expected(name: str, value: str, what: str) -> SettingsError:
    return SettingsError(f"{name}={value!r}: expected {what}")


def _one_of(choices: tuple[str, ...]) -> str:
    return f"one of {', '.join(choices)}"


def _bounds(kind: str, minimum: N | None, maximum: N | None, above: N | None) -> str:
    if minimum is not None and maximum is not None:
        return f"{kind} from {minimum:g} to {maximum:g}"
    if above is not None:
        return f"{kind} > {above:g}"
    return f"{kind} >= {minimum:g}" if minimum is not None else kind


def _parsed(env: Mapping[str, str], name: str, default: N, parse: Callable[[str], N], kind: str, *,
            minimum: N | None = None, maximum: N | None = None, above: N | None = None) -> N:
    raw = env.get(name)
    if raw is None:
        return default
    try:
        value = parse(raw)  # int()/float() as before: surrounding blanks and `_` separators still accepted
    except ValueError:
        value = None
    if (value is None or not math.isfinite(value) or (minimum is not None and value < minimum)
            or (maximum is not None and value > maximum) or (above is not None and value <= above)):
        raise _expected(name, raw, _bounds(kind, minimum, maximum, above))
    return value


def _whole(env: Mapping[str, str], name: str, default: int, *, minimum: int, maximum: int | None = None) -> int:
    return _parsed(env, name, default, int, "a whole number", minimum=minimum, maximum=maximum)


def _real(env: Mapping[str, str], name: str, default: float, *, minimum: float | None = None,
          above: float | None = None) -> float:
    return _parsed(env, name, default, float, "a number", minimum=minimum, above=above)


def _auth_policy(env: Mapping[str, str]) -> Path | None:
    return Path(env["OMEGA_PACKET_AUTH_POLICY"]) if env.get("OMEGA_PACKET_AUTH_POLICY") else None


def _security_from_env(env: Mapping[str, str]) -> dict[str, Any]:
    """KAFKA_SECURITY_PROTOCOL / KAFKA_SASL_*; a username alone implies SASL_PLAINTEXT. Named with the value as
    given when it is not one the clients know."""
    username = env.get("KAFKA_SASL_USERNAME") or None
    protocol = env.get("KAFKA_SECURITY_PROTOCOL") or ("SASL_PLAINTEXT" if username else Settings.security_protocol)
    if protocol.upper() not in SECURITY_PROTOCOLS:
        raise _expected("KAFKA_SECURITY_PROTOCOL", protocol, _one_of(SECURITY_PROTOCOLS))
    mechanism = env.get("KAFKA_SASL_MECHANISM", Settings.sasl_mechanism)
    if protocol.upper().startswith("SASL_") and mechanism.upper() not in SASL_MECHANISMS:
        raise _expected("KAFKA_SASL_MECHANISM", mechanism, _one_of(SASL_MECHANISMS))
    return {"security_protocol": protocol.upper(), "sasl_mechanism": mechanism.upper(),
            "sasl_username": username, "sasl_password": env.get("KAFKA_SASL_PASSWORD")}


def _registry_from_env(env: Mapping[str, str]) -> dict[str, Any]:
    """OMEGA_AVRO_WIRE and OMEGA_SCHEMA_REGISTRY_*; an empty variable counts as unset."""
    names = {"schema_registry_url": "URL", "schema_registry_basic_auth_user_info": "BASIC_AUTH_USER_INFO",
             "schema_registry_ssl_ca_location": "SSL_CA_LOCATION",
             "schema_registry_ssl_certificate_location": "SSL_CERTIFICATE_LOCATION",
             "schema_registry_ssl_key_location": "SSL_KEY_LOCATION"}
    found: dict[str, Any] = {key: env.get(f"OMEGA_SCHEMA_REGISTRY_{suffix}") or None for key, suffix in names.items()}
    found["avro_wire"] = env.get("OMEGA_AVRO_WIRE") or Settings.avro_wire
    return found
