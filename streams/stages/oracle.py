"""The Phase Q oracle stage: a test-set line (JSON text) -> Oracle-A/B/C -> an OracleVerdict (Avro).

Stateless and shared by the Faust oracle agent; the same core judges `omega check oracle` files. The
config comes from `OMEGA_PHASEQ_CONFIG`, else the package's copy of `../shared/data/phase-q-config.json`. The
event time is the record's timestamp (the file ingress has none: the epoch), so a redelivered request
gives a byte-identical verdict with the same id. Anything that cannot be judged is a dead letter.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

from omega.eventtime import to_iso, to_ms
from omega.oracle.case import CaseError, parse_case
from omega.oracle.config import ConfigError, OracleConfig, load_config
from omega.oracle.report import EPOCH, judge_case
from streams.stages.base import Emit, InputRejected, Outputs, Source, parse_json_object
from streams.topics import ORACLE_VERDICTS

CONFIG_ENV = "OMEGA_PHASEQ_CONFIG"
CONFIG_FILE = "phase-q-config.json"


def default_config_path() -> Path:
    """`OMEGA_PHASEQ_CONFIG`, else the Phase Q config bundled with the package."""
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env)
    return bundled_config_path()


def bundled_config_path() -> Path:
    """`streams/stages/data/phase-q-config.json`: the shared config's copy, so a wheel needs no checkout."""
    # a Path so that error messages and `--config` defaults name a real file; wheels install unzipped
    return Path(str(resources.files("streams.stages") / "data" / CONFIG_FILE))


def read_config(path: Path | None = None) -> OracleConfig:
    """Read and validate a Phase Q config file; raises ConfigError (also for I/O and JSON errors)."""
    where = path or default_config_path()
    try:
        raw = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read Phase Q config {where}: {exc}") from exc
    return load_config(raw)


class OracleStage:
    """Judges one request record; without a usable config every request is dead-lettered, with the reason."""

    def __init__(self, outputs: Outputs, config: OracleConfig | None, config_error: str = "") -> None:
        self.outputs, self.config, self.config_error = outputs, config, config_error

    @classmethod
    def from_default_config(cls, outputs: Outputs) -> OracleStage:
        """A stage with the default config, or one that dead-letters when it cannot be read."""
        try:
            return cls(outputs, read_config())
        except ConfigError as exc:
            return cls(outputs, None, str(exc))

    def request(self, raw: bytes, source: Source) -> list[Emit]:
        """One oracle request -> one verdict on the verdicts topic, or a dead letter."""
        if self.config is None:
            return [self.outputs.dead_letter(raw, source, "NO_CONFIG", self.config_error)]
        event_time = to_iso(source.timestamp_ms) or EPOCH
        try:
            case = parse_case(parse_json_object(raw, self.outputs.max_event_bytes))
            judged = judge_case(case, self.config, event_time)
        except InputRejected as exc:
            return [self.outputs.dead_letter(raw, source, exc.error_class, exc.reason)]
        except CaseError as exc:
            return [self.outputs.dead_letter(raw, source, "INVALID_CASE", str(exc))]
        return [self.outputs.encode(ORACLE_VERDICTS, case.id, judged.to_record(), to_ms(event_time))]
