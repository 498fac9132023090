"""formats/scan_bytes.py: a scan given as bytes asks for OCR only when its pages need it. Every
text here is invented."""

import pytest
from office_files import minimal_pdf
from scanned_pages import image_pdf, png_bytes, render

from meddocan_deid.formats import pdf, scan_bytes
from meddocan_deid.formats.scan import OcrUnavailable

MISSING = "OCR needs the tesseract program (not found): apt-get install tesseract-ocr"


@pytest.fixture
def without_ocr(monkeypatch):
    monkeypatch.setattr(scan_bytes, "ocr_missing", lambda: MISSING)
    monkeypatch.setattr(pdf, "ocr_missing", lambda: MISSING)


def test_a_pdf_with_a_text_layer_is_read_without_ocr(without_ocr):
    data = minimal_pdf([["Paciente: Ana Gil.", "NHC: 4455667."]])
    kind, scan = scan_bytes.read_scan_bytes(data)
    assert kind.format == "pdf"
    assert "Ana Gil" in scan.text and "4455667" in scan.text
    assert {page.source for page in scan.pages} != {"ocr"}


def test_an_image_or_a_pdf_without_text_needs_ocr(without_ocr):
    page = render(["Paciente: Ana Gil."])
    with pytest.raises(OcrUnavailable, match="tesseract program"):
        scan_bytes.read_scan_bytes(png_bytes(page))
    with pytest.raises(OcrUnavailable, match="needs OCR; OCR needs the tesseract program"):
        scan_bytes.read_scan_bytes(image_pdf([page]))


def test_a_text_layer_read_with_its_boxes_is_the_text_read_without_them():
    data = minimal_pdf([["Paciente: Ana Gil.", "NHC: 4455667."], ["Alta: 3 de mayo."]])
    _kind, scan = scan_bytes.read_scan_bytes(data)
    # the redacted copy's reading (pypdfium2) and the plain one (pypdf): one text, so a run
    # with or without --redacted-pdf, the service and Spark write the same
    assert scan.text == pdf.read_text(data)
    assert " \n" not in scan.text and [page.source for page in scan.pages] == ["text layer"] * 2
    gil = scan.text.index("Gil.")
    assert any(w.start == gil and w.page == 0 for w in scan.words)
    alta = scan.text.index("Alta:")
    assert any(w.start == alta and w.page == 1 for w in scan.words)
