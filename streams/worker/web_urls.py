"""Where the worker's web server answers: the URLs of /metrics and /healthz, logged once the server listens
(issue 43: "servers print their URL at start")."""

from __future__ import annotations

import faust

from streams.logs import get_logger

log = get_logger("omega.worker")


def web_urls(bind: str, port: int) -> dict[str, str]:
    """Where the worker's /metrics and /healthz answer: its web server's bind address (an IPv6 one in brackets) and
    port, as `web_server_started` logs them."""
    host = f"[{bind}]" if ":" in bind else bind
    return {"metrics_url": f"http://{host}:{port}/metrics", "healthz_url": f"http://{host}:{port}/healthz"}


def announce_web_server(app: faust.App) -> None:
    """Log one `web_server_started` line with the URLs of /metrics and /healthz once Faust's web server is up: when
    its service has started, so after the server child that binds the port (a bind that fails raises before the
    line). It starts with the worker's first services, before table recovery."""
    web = app.web
    on_started = web.on_started

    async def started_and_announced() -> None:
        await on_started()
        log.info("web_server_started", **web_urls(app.conf.web_bind, app.conf.web_port))

    # Faust sends no signal for it: the web service's own start-up hook (mode's `on_started`) is the place
    web.on_started = started_and_announced  # type: ignore[method-assign]
