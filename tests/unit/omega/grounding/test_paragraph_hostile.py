"""The grounding `evolve` over wild paragraph requests: a valid request (and its facts) with any value replaced by
any JSON value is either refused by `parse_request`/`parse_fact` (RequestError/FactError, a dead letter upstream)
or judged; `evolve` never raises on what they accept."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omega.grounding.facts import FactError, parse_fact
from omega.grounding.paragraph import ParagraphState, evolve
from omega.grounding.request import RequestError, parse_request
from tests.hostile import leaf_paths, replaced, wild_json

SUITE = Path(__file__).resolve().parents[3] / "data" / "grounding" / "coffee_cohort.json"
PROPERTY = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EPOCH = "1970-01-01T00:00:00+00:00"


@cache
def _suite() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SUITE.read_text("utf-8"))
    return data


@st.composite
def wild(draw: st.DrawFn, value: dict[str, Any]) -> dict[str, Any]:
    for _ in range(draw(st.integers(0, 2))):
        value = replaced(value, draw(st.sampled_from(leaf_paths(value))), draw(wild_json()))
    return value


@st.composite
def wild_requests(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    request = draw(wild(draw(st.sampled_from(_suite()["paragraphs"]))))
    facts = [draw(wild(f)) for f in _suite()["facts"]]
    return request, facts


@PROPERTY
@given(st.lists(wild_requests(), min_size=1, max_size=3))
def test_evolve_judges_every_request_parse_request_accepts(requests: list[tuple[dict[str, Any], list[Any]]]) -> None:
    states: dict[str, ParagraphState] = {}
    for obj, raw_facts in requests:
        facts = {}
        for raw in raw_facts:
            try:
                fact = parse_fact(raw)
            except FactError:
                continue
            facts[fact.id] = fact
        try:
            request = parse_request(obj, facts, EPOCH)
        except RequestError:
            continue
        states[request.paragraph_id], verdict = evolve(states.get(request.paragraph_id), request)
        assert len(verdict.sentences) == len(request.sentences)
        verdict.to_record()
