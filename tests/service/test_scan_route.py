"""POST /deidentify/scan: an invented report page rendered here, uploaded as a PNG and as a
scanned PDF, answers the text the command line writes for the same file, each page's OCR
confidence and review flag, and a redacted file of page images from which OCR reads none of
the PHI; and its 4xx and 501 answers (rule-only pipeline, in-process client)."""

import base64
import io
import json

import pypdfium2 as pdfium
import pytest
from fastapi.testclient import TestClient
from office_files import minimal_pdf
from PIL import Image
from scanned_pages import image_pdf, invented_person, page_lines, phi_strings, png_bytes, render

from meddocan_deid.engine import run
from meddocan_deid.formats.sources import read_document
from meddocan_deid.service.app import create_app
from meddocan_deid.service.settings import ServiceSettings

TOKEN = "token-de-prueba-para-escaneos-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def make_client(folder, rule_nlp, **settings):
    (folder / "tokens.txt").write_text(TOKEN + "\n", encoding="utf-8")
    app = create_app(ServiceSettings(token_file=folder / "tokens.txt", **settings), nlp=rule_nlp)
    return TestClient(app)


@pytest.fixture(scope="module")
def person():
    return invented_person(5421)


@pytest.fixture(scope="module")
def scans(person):
    page = render(page_lines(person))
    return {"informe.pdf": image_pdf([page]), "foto.png": png_bytes(page)}


@pytest.fixture(scope="module")
def cli_texts(tmp_path_factory, rule_nlp, scans):
    """The command line's de-identified text of each scan (the run's .txt)."""
    root = tmp_path_factory.mktemp("scan-cli")
    (root / "in").mkdir()
    for name, data in scans.items():
        (root / "in" / name).write_bytes(data)
    report = run(root / "in", root / "out", "tag", None, nlp=rule_nlp, progress=False)
    assert report["reports"]["written"] == 2
    return {
        name: (root / "out" / name.rsplit(".", 1)[0]).with_suffix(".txt").read_text("utf-8")
        for name in scans
    }


@pytest.fixture(scope="module")
def client(tmp_path_factory, rule_nlp):
    with make_client(tmp_path_factory.mktemp("scan-route"), rule_nlp) as c:
        yield c


def post(client, name, data, media, **fields):
    return client.post(
        "/deidentify/scan", files={"file": (name, data, media)}, data=fields, headers=AUTH
    )


def test_a_png_answers_the_command_line_s_text_and_a_redacted_png(client, scans, cli_texts, person):
    r = post(client, "foto.png", scans["foto.png"], "image/png", mode="tag")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["text"] == cli_texts["foto.png"]
    assert "NHC: [ID_SUJETO_ASISTENCIA]" in body["text"] and "dolor torácico" in body["text"]
    assert not any(s in body["text"] for s in phi_strings(person))
    assert body["format"] == "image" and body["review_below"] == 60.0
    assert body["pages_to_review"] == 0 and len(body["pages"]) == 1
    page = body["pages"][0]
    assert page["source"] == "ocr" and page["confidence"] > 80 and page["review"] is False
    labels = {e["label"] for e in body["entities"]}
    assert {"NOMBRE_SUJETO_ASISTENCIA", "ID_SUJETO_ASISTENCIA"} <= labels
    assert body["redacted"]["media_type"] == "image/png"
    redacted = base64.b64decode(body["redacted"]["data"])
    assert Image.open(io.BytesIO(redacted)).format == "PNG"
    read_back, _scan = read_document(redacted, "image")
    assert "Datos del paciente." in read_back
    assert not any(s in read_back for s in phi_strings(person))


def test_a_scanned_pdf_answers_the_command_line_s_text_and_an_image_only_pdf(
    client, scans, cli_texts, person
):
    r = post(client, "informe.pdf", scans["informe.pdf"], "application/pdf", review_below="99.5")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["mode"] == "tag" and body["format"] == "pdf"
    assert body["text"] == cli_texts["informe.pdf"]
    # a threshold above the page's confidence flags it
    assert body["review_below"] == 99.5 and body["pages"][0]["review"] is True
    assert body["pages_to_review"] == 1
    assert body["redacted"]["media_type"] == "application/pdf"
    pdf = pdfium.PdfDocument(base64.b64decode(body["redacted"]["data"]))
    try:
        assert len(pdf) == 1 and pdf[0].get_textpage().get_text_range() == ""
        assert all(obj.type == pdfium.raw.FPDF_PAGEOBJ_IMAGE for obj in pdf[0].get_objects())
    finally:
        pdf.close()


def test_what_is_not_a_scan_or_cannot_be_read_gets_a_4xx_naming_the_file(client, scans):
    r = post(client, "notas.txt", b"Nombre: Ana.", "text/plain")
    assert r.status_code == 415, r.text
    assert r.json()["detail"] == (
        "file: not a scanned document: expected a PDF, PNG, JPEG or TIFF file"
    )
    broken = scans["foto.png"][:8] + b"\x00" * 40
    r = post(client, "rota.png", broken, "image/png")
    assert r.status_code == 422, r.text
    assert "not a readable image" in json.dumps(r.json())
    r = post(client, "foto.png", scans["foto.png"], "image/png", policy="{no es json")
    assert r.status_code == 422 and "policy" in json.dumps(r.json())
    r = client.post("/deidentify/scan", files={"file": ("foto.png", scans["foto.png"])})
    assert r.status_code == 401


def test_the_size_and_page_limits_answer_413_before_any_ocr(tmp_path, rule_nlp, scans):
    two_pages = image_pdf([render(["Hoja 1."]), render(["Hoja 2."])])
    with make_client(
        tmp_path, rule_nlp, max_scan_pages=1, max_scan_bytes=len(two_pages) + 2000
    ) as c:
        r = post(c, "dos.pdf", two_pages, "application/pdf")
        assert r.status_code == 413 and r.json()["detail"] == (
            "file: 2 pages, over the limit of 1 a request"
        )
        big = scans["foto.png"] + b"\x00" * (len(two_pages) + 4000)
        r = post(c, "grande.png", big, "image/png")
        assert r.status_code == 413 and "over the limit of" in r.json()["detail"]


def test_without_ocr_the_route_answers_501_saying_what_to_install(client, scans, monkeypatch):
    from meddocan_deid.formats import scan_bytes

    monkeypatch.setattr(
        scan_bytes,
        "ocr_missing",
        lambda: "OCR needs the tesseract program (not found): apt-get ...",
    )
    r = post(client, "foto.png", scans["foto.png"], "image/png")
    assert r.status_code == 501
    assert r.json() == {
        "error": "ocr_unavailable",
        "detail": "OCR needs the tesseract program (not found): apt-get ...",
    }


def test_the_openapi_schema_shows_the_upload(client):
    schema = client.get("/openapi.json").json()
    post_scan = schema["paths"]["/deidentify/scan"]["post"]
    assert "multipart/form-data" in post_scan["requestBody"]["content"]
    assert post_scan["security"] == [{"bearer": []}]
    assert "ScanResponse" in json.dumps(post_scan["responses"]["200"])


def test_a_pdf_with_a_text_layer_answers_the_command_line_s_text_without_ocr(
    client, rule_nlp, monkeypatch, tmp_path
):
    from typer.testing import CliRunner

    from meddocan_deid.cli.app import app
    from meddocan_deid.formats import pdf as pdf_format
    from meddocan_deid.formats import scan_bytes

    person = invented_person(5468)
    data = minimal_pdf([page_lines(person)])
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "nota.pdf").write_bytes(data)
    monkeypatch.setattr("meddocan_deid.engine.runner.load_model", lambda *a, **k: rule_nlp)
    result = CliRunner().invoke(
        app, ["deidentify", str(tmp_path / "in"), str(tmp_path / "out"), "--mode", "tag"]
    )
    assert result.exit_code == 0, result.output
    cli_text = (tmp_path / "out" / "nota.txt").read_text("utf-8")
    # a server without OCR reads it all the same: its text layer is read
    missing = "OCR needs the tesseract program (not found): apt-get ..."
    monkeypatch.setattr(scan_bytes, "ocr_missing", lambda: missing)
    monkeypatch.setattr(pdf_format, "ocr_missing", lambda: missing)
    r = post(client, "nota.pdf", data, "application/pdf", mode="tag")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["text"] == cli_text and "NHC: [ID_SUJETO_ASISTENCIA]" in cli_text
    assert not any(s in body["text"] for s in phi_strings(person))
    assert [p["source"] for p in body["pages"]] != ["ocr"] and body["pages_to_review"] == 0
    redacted = pdfium.PdfDocument(base64.b64decode(body["redacted"]["data"]))
    try:  # pages as images: no text left under a box
        assert len(redacted) == 1 and redacted[0].get_textpage().get_text_range() == ""
    finally:
        redacted.close()
