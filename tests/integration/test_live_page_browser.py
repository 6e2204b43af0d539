"""The live page in a real browser (issue 25): `omega memory serve` over a read model projected from a replay of
the bundled examples, opened in headless Chromium. The episodes in trouble come first, the budget chart draws,
and an alert the projector applies while the page is open reaches the feed over SSE within 2 s. No broker.

Chromium and chromedriver come from Debian (`scripts/ensure-chromium.sh`); without them the test skips, unless
OMEGA_REQUIRE_BROWSER is set (then it fails). The page with the new alert is left in out/live-page.png."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = REPO / "out" / "live-page.png"
OMEGA = [sys.executable, "-m", "streams.cli"]
CHROME_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1400,1000")
FEED_WITHIN = 2.0  # seconds from the projector's commit to the alert on the page

pytestmark = pytest.mark.timeout(300)


def _browser() -> tuple[str, str]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if chromium and driver:
        return chromium, driver
    reason = "no Chromium or chromedriver: run scripts/ensure-chromium.sh (apt-get install chromium chromium-driver)"
    if os.environ.get("OMEGA_REQUIRE_BROWSER"):
        pytest.fail(reason)
    pytest.skip(reason)


def _omega(*args: str, ok: tuple[int, ...] = (0,)) -> str:
    done = subprocess.run([*OMEGA, *args], cwd=REPO, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode in ok, f"omega {' '.join(args)}: exit {done.returncode}\n{done.stderr[-3000:]}"
    return done.stdout


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.loads(answer.read())


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The examples replayed (exit 1: they contain rejections on purpose) and projected into a fresh read model."""
    work = tmp_path_factory.mktemp("live")
    log = work / "replay.jsonl"
    inputs = sorted(str(p.relative_to(REPO)) for p in [*(REPO / "examples" / "omen").glob("*.jsonl"),
                                                        *(REPO / "examples" / "omega57").glob("*.yaml")])
    _omega("replay", *inputs, "--out", str(log), "--no-summary", ok=(0, 1))
    store = f"sqlite:{work / 'memories.sqlite'}"
    _omega("project", "--from", str(log), "--rebuild", "--store", store)
    return log, store


@pytest.fixture(scope="module")
def served(replay: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`omega memory serve` over the read model, up and answering; its base URL."""
    port = _free_port()
    errors = tmp_path_factory.mktemp("serve") / "stderr.log"
    with errors.open("w") as stderr:
        server = subprocess.Popen([*OMEGA, "memory", "serve", "--store", replay[1], "--port", str(port)], cwd=REPO,
                                  stdout=subprocess.DEVNULL, stderr=stderr)
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                _get(base + "health")
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"omega memory serve did not come up: {errors.read_text()[-3000:]}")
                time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=20)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    chromium, driver_path = _browser()
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium (dev extra) is not installed")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console: CSP refusals
    for flag in (*CHROME_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _wait(driver: Any, condition: Any, seconds: float, what: str) -> Any:
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.05).until(condition)
    except TimeoutException:
        pytest.fail(f"{what} within {seconds} s")


def _new_alert(log: Path, served: str) -> dict[str, Any]:
    """An alert record as `omega replay --out` writes one: an episode's alert of the log, under a new id, later."""
    episode_alerts = {a["alert_id"]: a["episode_id"] for a in _get(served + "alerts?limit=100")["items"]
                      if a["episode_id"]}
    first = next(r for r in map(json.loads, log.read_text().splitlines())
                 if r["topic"] == "omega.alerts" and r["value"]["alert_id"] in episode_alerts)
    value = {**first["value"], "alert_id": "alr_browser_test_0001", "source_event_id": "pkt_browser_test_0001",
             "message": "browser test: a new alert while the page is open", "event_time": "2030-01-01T00:00:00+00:00"}
    return {**first, "value": value, "episode_id": episode_alerts[first["value"]["alert_id"]]}


def test_trouble_first_chart_and_a_new_alert_over_sse(replay: tuple[Path, str], served: str, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    log, store = replay
    browser.get(served)
    rows = _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#episodes tbody tr"), 10, "episode rows")
    api = _get(served + "episodes?limit=50")["items"]
    shown = [r.get_attribute("data-episode-id") for r in rows]
    assert shown == [e["episode_id"] for e in api]  # the page keeps the read model's order
    trouble = [e["trouble"] for e in api]
    assert trouble[0] > 0
    assert trouble == sorted(trouble, reverse=True)  # in trouble first
    marked = ["trouble" in (r.get_attribute("class") or "").split() for r in rows]
    assert marked == [t > 0 for t in trouble]
    first = api[0]
    first_classes = (rows[0].get_attribute("class") or "").split()
    assert ("safe-mode" in first_classes) == first["safe_mode"]
    assert ("rejections" in first_classes) == (first["packets"]["rejected"] > 0)

    # the first episode in trouble is shown at once: its chart has at least one drawn budget line
    paths = _wait(browser, lambda d: [p for p in d.find_elements(By.CSS_SELECTOR, "#chart svg path")
                                      if len(p.get_attribute("d") or "") > 10], 10, "a budget-burn path")
    assert paths[0].get_attribute("d").startswith("M")
    assert first["episode_id"] in browser.find_element(By.ID, "chart-title").text

    _wait(browser, lambda d: "live" in (d.find_element(By.ID, "stream-status").get_attribute("class") or ""), 10,
          "the alert stream connected")
    before = len(browser.find_elements(By.CSS_SELECTOR, "#alerts li"))
    alert = _new_alert(log, served)
    episode_id = alert.pop("episode_id")
    with log.open("a", encoding="utf-8") as out:
        out.write(json.dumps(alert) + "\n")
    applied = json.loads(_omega("project", "--from", str(log), "--store", store).splitlines()[-1])
    assert applied["applied"] == 1  # only the appended line: the rest was applied before
    committed = time.monotonic()
    item = _wait(browser, lambda d: next((li for li in d.find_elements(By.CSS_SELECTOR, "#alerts li")
                                          if li.get_attribute("data-alert-id") == "alr_browser_test_0001"), None),
                 FEED_WITHIN, "the new alert in the feed")
    assert time.monotonic() - committed <= FEED_WITHIN
    assert browser.find_elements(By.CSS_SELECTOR, "#alerts li")[0] == item  # newest first
    assert len(browser.find_elements(By.CSS_SELECTOR, "#alerts li")) == before + 1
    link = item.find_element(By.CSS_SELECTOR, "a.episode")
    assert link.get_attribute("href").endswith(f"#episode={episode_id}")
    assert "browser test: a new alert" in item.text
    SCREENSHOT.parent.mkdir(exist_ok=True)
    browser.save_screenshot(str(SCREENSHOT))
    link.click()  # the alert leads to its episode's chart
    _wait(browser, lambda d: episode_id in d.find_element(By.ID, "chart-title").text, 5, "the alert's episode chart")


@pytest.mark.parametrize(("path", "rendered"), [("docs", "#swagger-ui .opblock"), ("redoc", ".api-content")])
def test_the_api_docs_render_from_the_vendored_assets(served: str, browser: Any, path: str, rendered: str) -> None:
    from selenium.webdriver.common.by import By

    browser.get(served + path)
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, rendered), 15, f"/{path} rendered")
    loaded = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => [e.name, e.transferSize, e.duration])")
    assert served + "openapi.json" in [name for name, _, _ in loaded]
    # ReDoc's bundle asks for its "by Redocly" logo on a CDN: the page's Content-Security-Policy refuses it before
    # any request leaves (no bytes; the entry's duration is the browser's own bookkeeping, seen above zero on a
    # loaded machine), and the browser says so in its log
    elsewhere = [name for name, size, _ in loaded if not name.startswith(served) and size]
    assert elsewhere == []
    refused = [e["message"] for e in browser.get_log("browser") if "Content Security Policy" in e["message"]]
    for name, _, _ in loaded:
        if not name.startswith(served):
            assert any(name in line and "blocked" in line for line in refused), name
