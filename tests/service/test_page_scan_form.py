"""The try-it page's scan form, in English and Spanish: it posts the file (multipart) to
POST /deidentify/scan, a route of the app that answers those fields; the page's policy lets
the script show the redacted image (blob:) and sends nothing by itself (form-action 'none').
The PDF uploaded has a text layer of invented lines (no OCR needed)."""

from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest
from office_files import minimal_pdf
from scanned_pages import invented_person, page_lines, phi_strings
from test_scan_route import AUTH, make_client


class ScanForm(HTMLParser):
    """The attributes of the page's scan form and of the inputs inside it."""

    def __init__(self):
        super().__init__()
        self.form: dict[str, str | None] = {}
        self.inputs: list[dict[str, str | None]] = []
        self._inside = False

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if tag == "form" and found.get("id") == "scan-form":
            self.form, self._inside = found, True
        elif tag == "input" and self._inside:
            self.inputs.append(found)

    def handle_endtag(self, tag):
        if tag == "form":
            self._inside = False


def scan_form(html: str) -> ScanForm:
    parser = ScanForm()
    parser.feed(html)
    return parser


@pytest.fixture(scope="module")
def client(tmp_path_factory, rule_nlp):
    with make_client(tmp_path_factory.mktemp("page-scan"), rule_nlp) as c:
        yield c


@pytest.mark.parametrize(
    "lang,words",
    [
        ("en", ("A scanned document", "Upload and de-identify", "Open the redacted file")),
        ("es", ("Un documento escaneado", "Subir y anonimizar", "Abrir el fichero tapado")),
    ],
)
def test_the_page_carries_the_scan_form_in_its_language(client, lang, words):
    page = client.get(f"/?lang={lang}")
    assert page.status_code == 200 and f'<html lang="{lang}">' in page.text
    assert all(w in page.text for w in words)
    form = scan_form(page.text)
    assert form.form["action"] == "deidentify/scan" and form.form["method"] == "post"
    assert form.form["enctype"] == "multipart/form-data"
    assert [(i["name"], i["type"]) for i in form.inputs] == [("file", "file")]
    csp = page.headers["content-security-policy"]
    assert "img-src blob:" in csp and "form-action 'none'" in csp


def test_the_form_posts_to_the_scan_route(client):
    action = scan_form(client.get("/").text).form["action"]
    path = urlsplit(urljoin("http://testserver/", action)).path  # as the page's script sends it
    upload = client.get("/openapi.json").json()["paths"][path]["post"]
    assert "multipart/form-data" in upload["requestBody"]["content"]
    person = invented_person(5467)
    pdf = minimal_pdf([page_lines(person)])
    # the fields the page sends: the form's file and the page's mode
    r = client.post(
        path, files={"file": ("nota.pdf", pdf, "application/pdf")}, data={"mode": "tag"}
    )
    assert r.status_code == 401  # the token is the page's to send
    r = client.post(
        path,
        files={"file": ("nota.pdf", pdf, "application/pdf")},
        data={"mode": "tag"},
        headers=AUTH,
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert "NHC: [ID_SUJETO_ASISTENCIA]" in body["text"]
    assert not any(s in body["text"] for s in phi_strings(person))
    assert body["redacted"]["media_type"] == "application/pdf" and body["redacted"]["data"]
