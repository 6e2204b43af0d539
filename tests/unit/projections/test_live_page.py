"""The live page and the API docs load nothing from outside the app (issue 25): `/` with its script and styles,
the vendored Swagger UI and ReDoc at /docs and /redoc, each asset served with its content type."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from projections.live.page import STATIC, mount_live_page

EXTERNAL = re.compile(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", re.IGNORECASE)


class _References(HTMLParser):
    """Every src and href of an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [value for name, value in attrs if name in {"src", "href", "spec-url"} and value]


def _references(html: str) -> list[str]:
    parser = _References()
    parser.feed(html)
    return parser.urls


def _client(**app_options: object) -> TestClient:
    app = FastAPI(title="read API", **app_options)  # type: ignore[arg-type]
    mount_live_page(app)
    return TestClient(app)


@pytest.fixture
def client() -> TestClient:
    return _client()


def test_the_page_is_html_with_the_elements_the_browser_test_reads(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    for anchor in ('id="episodes"', "<tbody>", 'id="chart"', "<svg", 'id="alerts"', 'id="stream-status"'):
        assert anchor in page.text


def test_the_page_and_its_script_and_styles_name_no_external_url(client: TestClient) -> None:
    page = client.get("/")
    assert EXTERNAL.findall(page.text) == []
    own = [u for u in _references(page.text) if u.endswith((".js", ".css"))]
    assert sorted(own) == ["static/live.css", "static/live.js"]
    for url in own:
        asset = client.get(f"/{url}")
        assert asset.status_code == 200
        assert EXTERNAL.findall(asset.text) == [], url


def test_the_page_forbids_other_origins_to_the_browser(client: TestClient) -> None:
    policy = client.get("/").headers["content-security-policy"]
    assert "default-src 'self'" in policy
    assert "connect-src 'self'" in policy  # fetch and EventSource: this origin only
    assert "script-src 'self'" in policy


@pytest.mark.parametrize(("path", "media_type"), [
    ("/static/live.js", "text/javascript"),
    ("/static/live.css", "text/css"),
    ("/static/favicon.svg", "image/svg+xml"),
    ("/static/vendor/swagger-ui/swagger-ui-bundle.js", "text/javascript"),
    ("/static/vendor/swagger-ui/swagger-ui.css", "text/css"),
    ("/static/vendor/redoc/redoc.standalone.js", "text/javascript"),
])
def test_static_assets_are_served_with_their_content_type(client: TestClient, path: str, media_type: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 200
    # Python < 3.12 names .js application/javascript; both are what browsers run
    expected = {media_type, "application/javascript"} if media_type == "text/javascript" else {media_type}
    assert answer.headers["content-type"].split(";")[0] in expected
    assert answer.content == (STATIC / path.removeprefix("/static/")).read_bytes()


def test_an_unknown_asset_is_a_404(client: TestClient) -> None:
    assert client.get("/static/nothing.js").status_code == 404
    assert client.get("/static/../runner.py").status_code == 404  # projections/runner.py is beside static/


@pytest.mark.parametrize(("path", "bundle"), [("/docs", "/static/vendor/swagger-ui/swagger-ui-bundle.js"),
                                              ("/redoc", "/static/vendor/redoc/redoc.standalone.js")])
def test_docs_pages_reference_only_local_assets(client: TestClient, path: str, bundle: str) -> None:
    page = client.get(path)
    assert page.status_code == 200
    assert EXTERNAL.findall(page.text) == []
    urls = _references(page.text)
    assert bundle in urls
    assert "/openapi.json" in page.text
    for url in urls:
        assert url.startswith("/"), url
        if url != "/openapi.json":
            assert client.get(url).status_code == 200, url


def test_swagger_ui_asks_no_online_validator(client: TestClient) -> None:
    assert '"validatorUrl": null' in client.get("/docs").text


def test_fastapis_cdn_docs_routes_are_replaced_not_doubled(client: TestClient) -> None:
    paths = [getattr(r, "path", None) for r in client.app.routes]  # type: ignore[attr-defined]
    assert paths.count("/docs") == 1
    assert paths.count("/redoc") == 1
    assert paths.count("/") == 1


def test_an_app_created_without_docs_gets_the_local_ones() -> None:
    client = _client(docs_url=None, redoc_url=None)
    assert "swagger-ui-bundle.js" in client.get("/docs").text
    assert "redoc.standalone.js" in client.get("/redoc").text


def test_docs_asset_urls_carry_the_prefix_a_proxy_serves_the_app_under() -> None:
    app = FastAPI()
    mount_live_page(app)
    client = TestClient(app, root_path="/omega")
    urls = _references(client.get("/docs").text)
    assert "/omega/static/vendor/swagger-ui/swagger-ui-bundle.js" in urls
    assert "/omega/openapi.json" in client.get("/redoc").text


def test_each_vendored_bundle_ships_its_licence_and_its_version() -> None:
    vendor = STATIC / "vendor"
    for bundle in ("swagger-ui/swagger-ui-bundle.js", "swagger-ui/swagger-ui.css", "redoc/redoc.standalone.js"):
        assert (vendor / bundle).stat().st_size > 100_000
        assert (vendor / Path(bundle).parent / "LICENSE").is_file()
    readme = (vendor / "README.md").read_text(encoding="utf-8")
    assert "swagger-ui-dist@5." in readme
    assert "redoc@2." in readme


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_docs_pages_let_the_browser_load_images_and_data_from_this_origin_only(client: TestClient, path: str) -> None:
    policy = client.get(path).headers["content-security-policy"]
    assert "img-src 'self' data:" in policy  # ReDoc's hard-coded CDN logo is refused
    assert "connect-src 'self'" in policy
