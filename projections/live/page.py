"""The live page of the read API (issue 25): `GET /` (episodes in trouble, a budget-burn chart, the alert feed over
SSE), its assets under `/static`, and Swagger UI / ReDoc at /docs and /redoc with vendored assets.

Everything the browser loads comes from this package (projections/static/, package data): no CDN, no build step.
The page only reads the JSON routes of projections.http (/episodes, /episodes/{id}, /alerts, /alerts/stream).
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.routing import BaseRoute

STATIC = Path(__file__).parents[1] / "static"  # projections/static/, package data
VENDOR = "static/vendor"
SWAGGER_JS = f"{VENDOR}/swagger-ui/swagger-ui-bundle.js"
SWAGGER_CSS = f"{VENDOR}/swagger-ui/swagger-ui.css"
REDOC_JS = f"{VENDOR}/redoc/redoc.standalone.js"
FAVICON = "static/favicon.svg"

# The browser enforces "nothing from another origin": the page allows no inline script or style either; the docs
# pages keep FastAPI's inline bootstrap script and the bundles' injected styles, and ReDoc's search worker is a blob.
# Without it ReDoc would fetch its "by Redocly" logo from a CDN (hard-coded in the bundle; blocked, it is not shown).
PAGE_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
               "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
DOCS_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
               "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; "
               "base-uri 'none'; frame-ancestors 'none'")


def mount_live_page(app: FastAPI) -> None:
    """Serve the live page at `/`, its assets at `/static`, and local-asset Swagger UI and ReDoc (replacing
    FastAPI's CDN-backed /docs and /redoc when the app was created with them)."""
    docs_path, redoc_path = app.docs_url or "/docs", app.redoc_url or "/redoc"
    replaced = {docs_path, redoc_path, "/"}
    app.router.routes[:] = [r for r in app.router.routes if _path(r) not in replaced]
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    title = app.title

    @app.get("/", include_in_schema=False, response_class=HTMLResponse)
    def live_page() -> HTMLResponse:
        return HTMLResponse(page, headers={"Content-Security-Policy": PAGE_POLICY, "Cache-Control": "no-cache",
                                           "X-Content-Type-Options": "nosniff"})

    @app.get(docs_path, include_in_schema=False)
    def swagger_ui(request: Request) -> HTMLResponse:
        root = _root(request)
        # validatorUrl null: Swagger UI would otherwise fetch a badge from validator.swagger.io
        return _local(get_swagger_ui_html(
            openapi_url=root + (app.openapi_url or "/openapi.json"), title=f"{title} - Swagger UI",
            swagger_js_url=f"{root}/{SWAGGER_JS}", swagger_css_url=f"{root}/{SWAGGER_CSS}",
            swagger_favicon_url=f"{root}/{FAVICON}", oauth2_redirect_url=None,
            swagger_ui_parameters={"validatorUrl": None}))

    @app.get(redoc_path, include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        root = _root(request)
        return _local(get_redoc_html(openapi_url=root + (app.openapi_url or "/openapi.json"),
                                     title=f"{title} - ReDoc", redoc_js_url=f"{root}/{REDOC_JS}",
                                     redoc_favicon_url=f"{root}/{FAVICON}", with_google_fonts=False))

    app.docs_url, app.redoc_url = docs_path, redoc_path


def _local(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = DOCS_POLICY
    return page


def _path(route: BaseRoute) -> str | None:
    path = getattr(route, "path", None)
    return path if isinstance(path, str) else None


def _root(request: Request) -> str:
    """The prefix a proxy serves the app under (ASGI root_path), so that asset URLs survive one."""
    return str(request.scope.get("root_path", "")).rstrip("/")
