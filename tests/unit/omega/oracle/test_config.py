"""Thresholds come only from the config's symbols; `CONFIG:NAME` references resolve or fail as bad input."""

from __future__ import annotations

import copy

import pytest

from omega.oracle.case import CaseError
from omega.oracle.config import ConfigError, load_config
from tests.unit.omega.oracle.support import CONFIG, CONFIG_RAW, case, view


def test_the_shared_config_resolves_its_four_symbols() -> None:
    assert (CONFIG.unsupported_max, CONFIG.necessity_min_ratio, CONFIG.stability_factor,
            CONFIG.ablation_strategy) == (0, 0.85, 3.0, "single-segment")
    assert CONFIG.resolve("CONFIG:UNSUPPORTED_MAX") == 0
    assert CONFIG.resolve(7) == 7
    assert len(CONFIG.config_hash) == 64


@pytest.mark.parametrize(("name", "value"), [
    ("UNSUPPORTED_MAX", -1), ("UNSUPPORTED_MAX", 0.5), ("NECESSITY_MIN_RATIO", 1.5),
    ("STABILITY_FACTOR", "three"), ("ABLATION_STRATEGY", "random-k"),
])
def test_an_unusable_symbol_is_a_config_error(name: str, value: object) -> None:
    raw = copy.deepcopy(CONFIG_RAW)
    raw[name]["value"] = value
    with pytest.raises(ConfigError):
        load_config(raw)


def test_a_missing_symbol_is_a_config_error() -> None:
    raw = {k: v for k, v in CONFIG_RAW.items() if k != "STABILITY_FACTOR"}
    with pytest.raises(ConfigError, match="STABILITY_FACTOR"):
        load_config(raw)


def test_a_different_config_changes_the_thresholds_and_the_hash() -> None:
    raw = copy.deepcopy(CONFIG_RAW)
    raw["UNSUPPORTED_MAX"]["value"] = 1
    raw["NECESSITY_MIN_RATIO"] = 0.5  # a bare value is accepted too
    loose = load_config(raw)
    assert (loose.unsupported_max, loose.necessity_min_ratio) == (1, 0.5)
    assert loose.config_hash != CONFIG.config_hash
    v = view("Fact one. Made up claim.", ["Fact one."], config=loose)
    assert v.unsupported_max == 1


def test_case_thresholds_resolve_through_the_config_and_may_only_tighten_it() -> None:
    raw = copy.deepcopy(CONFIG_RAW)
    raw["UNSUPPORTED_MAX"]["value"] = 2
    config = load_config(raw)
    assert view("x.", ["x."], config=config, max_unsupported_claims="CONFIG:UNSUPPORTED_MAX").unsupported_max == 2
    assert view("x.", ["x."], config=config, max_unsupported_claims=1).unsupported_max == 1
    assert view("x.", ["x."], config=config, max_unsupported_claims=5).unsupported_max == 2  # needs a waiver
    assert view("x.", ["x."], config=config).unsupported_max == 2


def test_an_unknown_config_reference_in_a_case_is_bad_input() -> None:
    with pytest.raises(CaseError, match="NOPE"):
        view("x.", ["x."], max_unsupported_claims="CONFIG:NOPE")
    assert case("x.", ["x."]).expected is None


def _refusal(raw: object) -> str:
    with pytest.raises(ConfigError) as refused:
        load_config(raw)  # type: ignore[arg-type]
    return str(refused.value)


def test_each_unusable_config_is_refused_with_a_message_naming_the_symbol_and_its_value() -> None:
    assert _refusal([]) == "the config must be a JSON object"
    cases = {("UNSUPPORTED_MAX", -1): "UNSUPPORTED_MAX must be a count >= 0, got -1",
             ("NECESSITY_MIN_RATIO", 1.5): "NECESSITY_MIN_RATIO must be within [0, 1], got 1.5",
             ("NECESSITY_MIN_RATIO", "high"): "NECESSITY_MIN_RATIO must be a number, got 'high'",
             ("STABILITY_FACTOR", "three"): "STABILITY_FACTOR must be a number, got 'three'",
             ("STABILITY_FACTOR", -1): "STABILITY_FACTOR must be >= 0, got -1.0",
             ("ABLATION_STRATEGY", "random-k"): "ABLATION_STRATEGY 'random-k' is not supported (only single-segment)"}
    for (name, value), message in cases.items():
        raw = copy.deepcopy(CONFIG_RAW)
        raw[name]["value"] = value
        assert _refusal(raw) == message
    assert _refusal({**CONFIG_RAW, "STABILITY_FACTOR": {"unit": "x"}}) == (
        "config symbol STABILITY_FACTOR has no 'value'")


def test_a_loaded_config_resolves_every_symbol() -> None:
    loaded = load_config(copy.deepcopy(CONFIG_RAW))
    assert (loaded.unsupported_max, loaded.necessity_min_ratio, loaded.stability_factor, loaded.ablation_strategy,
            loaded.symbols) == (0, 0.85, 3.0, "single-segment",
                                {"ABLATION_STRATEGY": "single-segment", "NECESSITY_MIN_RATIO": 0.85,
                                 "STABILITY_FACTOR": 3, "UNSUPPORTED_MAX": 0})
