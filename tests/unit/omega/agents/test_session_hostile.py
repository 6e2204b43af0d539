"""The session judge's `evolve` over wild agent output: a valid message with any value replaced by any JSON value
(or the reading of any damaged text) is accepted or rejected by `parse_messages`, and `evolve` never raises on
either, whatever the order."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omega.agents.messages import parse_messages
from omega.agents.model import AgentMessage, MessageRejected
from omega.agents.session import SessionState, evolve
from omega.canonical import canonical_json
from tests.hostile import leaf_paths, replaced, wild_json

SESSION = Path(__file__).resolve().parents[3] / "data" / "omega57" / "clean_success.yaml"
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def _messages() -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(SESSION.read_text("utf-8")) if d is not None]


@st.composite
def wild_texts(draw: st.DrawFn) -> str:
    message = draw(st.sampled_from(_messages()[:12]))
    for _ in range(draw(st.integers(0, 3))):
        message = replaced(message, draw(st.sampled_from(leaf_paths(message))), draw(wild_json()))
    if draw(st.booleans()):
        return canonical_json(message)  # JSON text, lone surrogates and all
    text = yaml.safe_dump(message, sort_keys=False)
    cut = draw(st.integers(0, len(text)))
    return text if draw(st.booleans()) else text[:cut] + draw(st.text(max_size=5)) + text[cut:]


@PROPERTY
@given(st.lists(wild_texts(), min_size=1, max_size=8))
def test_evolve_never_raises_on_what_parse_messages_reads_from_wild_text(texts: list[str]) -> None:
    state: SessionState | None = None
    for text in texts:
        events = parse_messages(text, "wild-session")
        assert events
        for event in events:
            assert isinstance(event, AgentMessage | MessageRejected)
            state, _ = evolve(state, event)
            again, _ = evolve(state, event)  # a redelivery changes nothing
            assert again == state
