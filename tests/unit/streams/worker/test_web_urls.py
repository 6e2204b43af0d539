"""The worker's web server says where it is (docs/cli.md: servers print their URL when they start): one
`web_server_started` log line with the URLs of /metrics and /healthz, once the port is bound."""

from __future__ import annotations

import asyncio
import socket
import urllib.request
from pathlib import Path

from streams.settings import Settings
from streams.wire.codec import SchemaRegistry
from streams.worker import web_urls as web_module
from streams.worker.app import create_app
from streams.worker.web_urls import web_urls
from tests.unit.streams.log_capture import captured


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_urls_are_the_bind_address_and_port_an_ipv6_address_in_brackets() -> None:
    assert web_urls("0.0.0.0", 6066) == {"metrics_url": "http://0.0.0.0:6066/metrics",
                                         "healthz_url": "http://0.0.0.0:6066/healthz"}
    assert web_urls("::", 9100) == {"metrics_url": "http://[::]:9100/metrics", "healthz_url": "http://[::]:9100/healthz"}


def test_the_worker_logs_its_web_urls_once_the_server_listens(tmp_path: Path) -> None:
    port = _free_port()
    omega = create_app(Settings(app_id="omega-web-test", web_port=port, data_dir=tmp_path),
                       SchemaRegistry.from_directory())
    web = omega.app.web

    async def start_look_stop() -> tuple[list[dict[str, object]], int]:
        with captured(web_module) as events:
            await web.start()  # the web service alone, as the worker starts it: no broker involved
            try:
                said = [dict(e) for e in events if e["event"] == "web_server_started"]
                # listening when the line is logged: /metrics answers on the port it names
                status = await asyncio.to_thread(
                    lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).status)
            finally:
                await web.stop()
        return said, status

    said, status = asyncio.run(start_look_stop())
    assert said == [{"event": "web_server_started", "log_level": "info",
                     "metrics_url": f"http://0.0.0.0:{port}/metrics", "healthz_url": f"http://0.0.0.0:{port}/healthz"}]
    assert status == 200


def test_no_web_server_no_line(tmp_path: Path) -> None:
    omega = create_app(Settings(app_id="omega-web-test", web_port=0, data_dir=tmp_path),
                       SchemaRegistry.from_directory())
    assert omega.app.conf.web_enabled is False
    # the web driver (cached on the app once built, as with a port) was never built, so nothing was hooked on it
    assert "web" not in vars(omega.app)
