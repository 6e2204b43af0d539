"""The live routes of the read API (issue 25) over the hand-built log: paging, filters, 404s, 422 on refused
arguments, enums in the OpenAPI document, and the SSE stream delivering an alert projected while it is open."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
import uvicorn
from fastapi.testclient import TestClient

from projections.http.app import read_model_api
from projections.live import views as live_views
from projections.projector import Projector
from projections.store.sqlite import SqliteStore
from tests.unit.projections.factories import Log, alert
from tests.unit.projections.live_log import live_log


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with SqliteStore(tmp_path / "live.sqlite") as s:
        Projector(s).rebuild(live_log().events)
        yield s


@pytest.fixture
def client(store: SqliteStore) -> TestClient:
    return TestClient(read_model_api(store))


def test_episodes_page_by_cursor_in_trouble_first(client: TestClient) -> None:
    first = client.get("/episodes", params={"limit": 1}).json()
    assert [e["episode_id"] for e in first["items"]] == ["ep-hot"]
    second = client.get("/episodes", params={"limit": 1, "cursor": first["next"]}).json()
    assert ([e["episode_id"] for e in second["items"]], second["next"]) == (["ep-calm"], None)
    assert [e["episode_id"] for e in client.get("/episodes", params={"trouble": "true"}).json()["items"]] == ["ep-hot"]
    assert [e["episode_id"] for e in client.get("/episodes?state=S1_SENSE").json()["items"]] == ["ep-calm"]
    assert client.get("/episodes?severity=CRITICAL").json()["items"][0]["max_burn"] == 1.2


def test_one_episode_and_one_session_status_or_404(client: TestClient) -> None:
    hot = client.get("/episodes/ep-hot").json()
    assert (hot["fsm_state"], len(hot["timeline"]), len(hot["recent_alerts"])) == ("S9_SAFEMODE", 5, 3)
    assert client.get("/sessions/s-57/status").json()["session_status"] == "PARTIAL"
    assert client.get("/episodes/nope").status_code == 404
    assert client.get("/sessions/nope/status").json() == {"detail": "unknown session 'nope'"}


def test_the_feed_pages_and_filters(client: TestClient) -> None:
    first = client.get("/alerts", params={"limit": 3}).json()
    rest = client.get("/alerts", params={"limit": 3, "cursor": first["next"]}).json()
    assert [a["seq"] for a in first["items"] + rest["items"]] == [5, 4, 2, 3, 1]
    assert rest["next"] is None
    assert [a["seq"] for a in client.get("/alerts?kind=ESCALATION").json()["items"]] == [3]
    assert [a["seq"] for a in client.get("/alerts?severity=CRITICAL").json()["items"]] == [2]
    assert [a["seq"] for a in client.get("/alerts", params={"since": "2026-01-26T09:02:05Z"}).json()["items"]] == [5]


@pytest.mark.parametrize("query", ["/alerts?severity=SEVERE", "/alerts?kind=NOPE", "/episodes?severity=low",
                                   "/episodes?state=S42", "/alerts?since=yesterday", "/alerts?cursor=zzz",
                                   "/alerts?limit=0", "/episodes?limit=501"])
def test_refused_arguments_are_422(client: TestClient, query: str) -> None:
    assert client.get(query).status_code == 422


def test_the_openapi_document_declares_the_enums(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]

    def enum(path: str, name: str) -> list[str]:
        (param,) = [p for p in paths[path]["get"]["parameters"] if p["name"] == name]
        return list(param["schema"]["enum"])

    assert enum("/alerts", "severity") == ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"]
    assert enum("/episodes", "severity") == ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"]
    assert enum("/alerts", "kind") == list(live_views.KINDS)
    assert enum("/episodes", "state")[-1] == "UNKNOWN"
    for path in ("/episodes", "/episodes/{episode_id}", "/alerts", "/sessions/{session_id}/status"):
        assert "$ref" in paths[path]["get"]["responses"]["200"]["content"]["application/json"]["schema"], path


def _serve(store: SqliteStore) -> tuple[uvicorn.Server, threading.Thread, str]:
    server = uvicorn.Server(uvicorn.Config(read_model_api(store, poll_interval=0.05), host="127.0.0.1", port=0,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 3
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, thread, f"http://127.0.0.1:{port}"


def _next_event(lines: Iterator[str]) -> dict[str, str]:
    event: dict[str, str] = {}
    for line in lines:
        if not line:
            if "data" in event:
                return event
            continue
        name, _, value = line.partition(":")
        if name:  # a line starting with ":" is a keep-alive comment
            event[name] = value.removeprefix(" ")
    raise AssertionError("the stream ended")


def test_the_stream_delivers_an_alert_projected_while_it_is_open(tmp_path: Path) -> None:
    path = tmp_path / "stream.sqlite"
    with SqliteStore(path) as writer, SqliteStore(path, read_only=True) as reader:
        projector = Projector(writer)
        projector.rebuild(live_log().events)
        server, thread, url = _serve(reader)
        try:
            # Last-Event-ID 4: the stream first replays seq 5, then waits for new rows
            with httpx.Client(timeout=4) as http, \
                    http.stream("GET", f"{url}/alerts/stream", headers={"Last-Event-ID": "4"}) as answer:
                assert answer.headers["content-type"].startswith("text/event-stream")
                lines = answer.iter_lines()
                replayed = _next_event(lines)
                assert (replayed["event"], replayed["id"]) == ("alert", "5")
                log = Log(first_offset=100)
                log.add("alerts", alert("ep-calm", "TOKEN_MISUSE", "HIGH", "revoked token", source_event_id="c9",
                                        at=200))
                projector.process(log.events)
                fresh = _next_event(lines)
            assert (fresh["event"], fresh["id"]) == ("alert", "6")
            row = orjson.loads(fresh["data"])
            assert (row["kind"], row["severity"], row["episode_id"], row["seq"]) == ("TOKEN_MISUSE", "HIGH",
                                                                                   "ep-calm", 6)
        finally:
            server.should_exit = True
            thread.join(timeout=3)


def test_after_0_streams_the_whole_feed_and_a_bad_last_event_id_is_422(store: SqliteStore) -> None:
    server, thread, url = _serve(store)
    try:
        with httpx.Client(timeout=4) as http, http.stream("GET", f"{url}/alerts/stream?after=0") as answer:
            assert _next_event(answer.iter_lines())["id"] == "1"  # after=0: the whole feed
        assert httpx.get(f"{url}/alerts/stream", headers={"Last-Event-ID": "x"}).status_code == 422
    finally:
        server.should_exit = True
        thread.join(timeout=3)
