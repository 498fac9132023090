"""/docs and /redoc work offline: their pages name only the service's own URLs, and the
Swagger UI and ReDoc files they load are served by the service (from the fastapi-offline
package), without a token, like the pages. FastAPI's TestClient; no network."""

import re

import pytest
from fastapi.testclient import TestClient

from meddocan_deid.service import ServiceSettings, create_app

TOKEN = "prueba-token-docs-0123456789ab"
# what a browser fetches from a page: src/href attributes and Swagger UI's spec url
URLS = re.compile(r"""(?:src|href)=["']([^"']+)["']|url:\s*'([^']+)'""")


@pytest.fixture(scope="module")
def client(rule_nlp, tmp_path_factory):
    tokens = tmp_path_factory.mktemp("docs") / "tokens.txt"
    tokens.write_text(TOKEN + "\n", encoding="utf-8")
    with TestClient(create_app(ServiceSettings(token_file=tokens), nlp=rule_nlp)) as c:
        yield c


def page_urls(html):
    return [a or b for a, b in URLS.findall(html)]


@pytest.mark.parametrize(
    "page,scripts",
    [
        ("/docs", {"/docs/assets/swagger-ui-bundle.js"}),
        ("/redoc", {"/docs/assets/redoc.standalone.js"}),
    ],
)
def test_docs_pages_load_only_local_files(client, page, scripts):
    r = client.get(page)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    urls = page_urls(r.text)
    assert scripts <= set(urls) and "/openapi.json" in r.text
    assert all(u.startswith("/") and not u.startswith("//") for u in urls), urls
    assert "http://" not in r.text and "https://" not in r.text and "fonts.googleapis" not in r.text
    if page == "/docs":
        assert "/docs/assets/swagger-ui.css" in urls and '"validatorUrl": null' in r.text


@pytest.mark.parametrize(
    "path,kind,marker",
    [
        ("/docs/assets/swagger-ui-bundle.js", "javascript", "SwaggerUIBundle"),
        ("/docs/assets/swagger-ui.css", "text/css", ".swagger-ui"),
        ("/docs/assets/redoc.standalone.js", "javascript", "Redoc"),
    ],
)
def test_the_assets_are_served_without_a_token(client, path, kind, marker):
    r = client.get(path)
    assert r.status_code == 200, path
    assert kind in r.headers["content-type"]
    assert len(r.content) > 10_000 and marker in r.text
    # Swagger UI 5 reads the OpenAPI 3.1 document FastAPI writes
    assert client.get("/openapi.json").json()["openapi"].startswith("3.1")


def test_oauth2_redirect_page_and_metrics_route_label(client):
    assert client.get("/docs/oauth2-redirect").status_code == 200
    assert client.get("/docs/assets/nothing.js").status_code == 404
    metrics = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).text
    assert 'route="/docs/assets"' in metrics and 'route="other"' not in metrics
    assert client.get("/docs/../metrics").status_code in (401, 404)  # no way around the token
