"""Scanned reports (meddocan_deid/formats: scan.py, image.py, pdf.py; the `ocr` extra, which
`make setup-test` installs and `.ci/run` completes with Debian's tesseract-ocr-spa): a page
rendered here is read by OCR, de-identified, and written back as images only with a box over
every PHI word; text extraction from the redacted output finds none of the PHI. Content
invented with Faker (es_ES, fixed seed)."""

import json

import pypdfium2 as pdfium
import pytesseract
import pytest
from office_files import minimal_pdf
from PIL import Image, ImageDraw
from scanned_pages import image_pdf, invented_person, page_lines, phi_strings, render

from meddocan_deid.engine import run
from meddocan_deid.engine.report import RunReport
from meddocan_deid.formats.sources import read_document


@pytest.fixture(scope="module")
def person():
    return invented_person()


def pdf_text(data: bytes) -> str:
    """The text pypdfium2's text pages extract from a PDF."""
    pdf = pdfium.PdfDocument(data)
    try:
        return "".join(page.get_textpage().get_text_range() for page in pdf)
    finally:
        pdf.close()


@pytest.fixture(scope="module")
def scanned_run(tmp_path_factory, rule_nlp, person):
    """One run over a scanned PDF, a PNG and a two-page TIFF of the same invented report."""
    root = tmp_path_factory.mktemp("ocr")
    inp = root / "escaneos"
    inp.mkdir()
    page = render(page_lines(person))
    (inp / "informe.pdf").write_bytes(image_pdf([page]))
    page.save(inp / "foto.png")
    page.save(inp / "paginas.tif", save_all=True, append_images=[render(["Hoja 2."])])
    out = root / "out"
    report = run(inp, out, "tag", None, nlp=rule_nlp, progress=False, private_dir=root / "priv")
    return inp, out, root / "priv", report


def test_scans_are_read_by_ocr_and_de_identified(scanned_run, person):
    _inp, out, priv, report = scanned_run
    assert report["reports"]["written"] == 3 and report["reports"]["failed"] == 0
    assert report["encodings"] == {"image": 2, "pdf": 1}
    for stem in ("informe", "foto", "paginas"):
        original = (priv / f"{stem}.txt").read_text(encoding="utf-8")
        # the OCR text holds the PHI; the de-identified text none of it
        assert all(s in original for s in phi_strings(person))
        text = (out / f"{stem}.txt").read_text(encoding="utf-8")
        assert "NHC: [ID_SUJETO_ASISTENCIA]" in text and "dolor torácico" in text
        assert not any(s in text for s in phi_strings(person))


def test_the_run_report_has_each_page_s_ocr_confidence(scanned_run):
    report = scanned_run[3]["scanned"]
    assert report["review_below"] == 60.0 and report["documents"] == 3
    assert report["pages"] == report["pages_ocr"] == 4 and report["pages_to_review"] == 0
    tiff = next(d for d in report["read"] if d["file"] == "paginas.tif")
    assert [p["page"] for p in tiff["pages"]] == [1, 2]
    assert all(p["confidence"] > 80 and p["review"] is False for p in tiff["pages"])
    assert all(p["unread_ink"] <= 0.05 for d in report["read"] for p in d["pages"])


def test_the_redacted_pdf_is_images_only_with_no_phi_extractable(scanned_run, person):
    inp, out, _priv, _report = scanned_run
    source = (inp / "informe.pdf").read_bytes()
    redacted = (out / "informe.pdf").read_bytes()
    assert pdf_text(source) == "" and pdf_text(redacted) == ""  # no text layer to extract
    pdf = pdfium.PdfDocument(redacted)
    assert len(pdf) == 1 and all(
        obj.type == pdfium.raw.FPDF_PAGEOBJ_IMAGE for obj in pdf[0].get_objects()
    )
    pdf.close()
    # and what is drawn cannot be read back: OCR of the redacted page finds no PHI
    read_back, _scan = read_document(redacted, "pdf")
    assert "Datos del paciente." in read_back
    assert not any(s in read_back for s in phi_strings(person))


def test_the_redacted_images_keep_their_format_and_hide_the_phi(scanned_run, person):
    _inp, out, _priv, _report = scanned_run
    png = Image.open(out / "foto.png")
    assert png.format == "PNG" and not png.info.get("exif")
    tiff = Image.open(out / "paginas.tif")
    assert tiff.format == "TIFF" and tiff.n_frames == 2
    for path in (out / "foto.png", out / "paginas.tif"):
        read_back, _scan = read_document(path.read_bytes(), "image")
        assert "Teléfono:" in read_back
        assert not any(s in read_back for s in phi_strings(person))


def test_a_rerun_resumes_without_ocr(scanned_run, rule_nlp, monkeypatch):
    inp, out, _priv, _report = scanned_run

    def no_ocr(*args, **kwargs):
        raise AssertionError("a report already written was read by OCR again")

    monkeypatch.setattr(pytesseract, "image_to_data", no_ocr)
    again = run(inp, out, "tag", None, nlp=rule_nlp, progress=False)
    assert again["reports"]["skipped"] == 3 and again["reports"]["written"] == 0


def test_a_text_pdf_gets_a_redacted_pdf_when_asked(tmp_path, rule_nlp, person):
    inp = tmp_path / "in"
    inp.mkdir()
    lines = page_lines(person)
    (inp / "carta.pdf").write_bytes(minimal_pdf([lines[:3], lines[3:]]))
    plain = run(inp, tmp_path / "plain", "tag", None, nlp=rule_nlp, progress=False)
    assert plain["reports"]["written"] == 1 and "scanned" not in plain
    assert not (tmp_path / "plain" / "carta.pdf").exists()
    out = tmp_path / "out"
    report = run(inp, out, "tag", None, nlp=rule_nlp, progress=False, redacted_pdf=True)
    assert report["reports"]["written"] == 1
    assert [p["source"] for p in report["scanned"]["read"][0]["pages"]] == ["text layer"] * 2
    assert report["scanned"]["pages_to_review"] == 0
    text = (out / "carta.txt").read_text(encoding="utf-8")
    assert "Nombre: [NOMBRE_SUJETO_ASISTENCIA]." in text
    assert all(s in pdf_text((inp / "carta.pdf").read_bytes()) for s in phi_strings(person))
    redacted = (out / "carta.pdf").read_bytes()
    assert pdf_text(redacted) == ""
    read_back, _scan = read_document(redacted, "pdf")  # the pages as drawn, read by OCR
    assert "Datos del paciente." in read_back and "47 años" not in read_back
    assert not any(s in read_back for s in phi_strings(person))


def test_pages_below_the_threshold_and_blank_pages_are_flagged(tmp_path, rule_nlp, person):
    inp = tmp_path / "in"
    inp.mkdir()
    render(page_lines(person)).save(inp / "nitida.png")
    Image.new("RGB", (600, 800), "white").save(inp / "blanca.png")
    out = tmp_path / "out"
    report = run(inp, out, "tag", None, nlp=rule_nlp, progress=False, ocr_review_below=99.5)
    assert report["reports"]["written"] == 1 and report["empty"] == [
        {"id": "blanca", "file": "blanca.png"}
    ]
    pages = {d["file"]: d["pages"][0] for d in report["scanned"]["read"]}
    assert pages["blanca.png"] == {
        "page": 1,
        "source": "ocr",
        "words": 0,
        "confidence": None,
        "unread_ink": 0.0,
        "layout": "auto",
        "review": True,
    }
    assert pages["nitida.png"]["review"] is True and pages["nitida.png"]["confidence"] < 99.5
    lines = RunReport(**report_fields(out)).summary_lines(out / "run_report.json")
    assert "review: blanca.png page 1: no word recognised" in lines
    assert any(line.startswith("review: nitida.png page 1: OCR confidence ") for line in lines)


def report_fields(out):
    """The RunReport fields of a written run report (to print its summary lines)."""
    data = json.loads((out / "run_report.json").read_text(encoding="utf-8"))
    return {
        "mode": data["mode"],
        "input": data["input"],
        "output": data["output"],
        "model": data["model"],
        "library_version": data["library_version"],
        "fingerprint": data["fingerprint"],
        "options": data["options"],
        "counts": data["reports"],
        "scanned": data["scanned"],
    }


def test_missing_tesseract_or_its_spanish_model_is_named(tmp_path, rule_nlp, person, monkeypatch):
    inp = tmp_path / "in"
    inp.mkdir()
    render(page_lines(person)).save(inp / "hoja.jpg")
    (inp / "escaneo.pdf").write_bytes(image_pdf([render(["Hoja."])]))
    monkeypatch.setattr(pytesseract.pytesseract, "tesseract_cmd", "/nonexistent/tesseract")
    report = run(inp, tmp_path / "a", "tag", None, nlp=rule_nlp, progress=False)
    reasons = {f["file"]: f["reason"] for f in report["failed"]}
    assert reasons["hoja.jpg"].startswith("hoja.jpg: OCR needs the tesseract program (not found)")
    assert reasons["escaneo.pdf"].startswith(
        "escaneo.pdf: no text layer (1 page, a scanned PDF?): needs OCR; OCR needs the "
        "tesseract program"
    )
    assert "apt-get install tesseract-ocr tesseract-ocr-spa" in reasons["hoja.jpg"]
    monkeypatch.undo()
    monkeypatch.setattr(pytesseract, "get_languages", lambda config="": ["eng", "osd"])
    report = run(inp, tmp_path / "b", "tag", None, nlp=rule_nlp, progress=False)
    assert report["reports"]["failed"] == 2
    assert all(
        "tesseract has no Spanish model" in f["reason"] and "tesseract-ocr-spa" in f["reason"]
        for f in report["failed"]
    )


def test_without_the_extra_images_are_not_read_and_say_how(tmp_path, rule_nlp, monkeypatch):
    import sys

    inp = tmp_path / "in"
    inp.mkdir()
    Image.new("RGB", (50, 50), "white").save(inp / "hoja.png")
    (inp / "nota.txt").write_text("Paciente estable.\n", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "pytesseract", None)
    report = run(inp, tmp_path / "out", "tag", None, nlp=rule_nlp, progress=False)
    assert report["reports"]["written"] == 1 and report["reports"]["failed"] == 1
    reason = report["failed"][0]["reason"]
    assert "needs the ocr extra" in reason and "pip install 'meddocan-deid[ocr]'" in reason


def test_a_damaged_image_fails_by_name(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "rota.tiff").write_bytes(b"II*\x00no es una imagen")
    report = run(inp, tmp_path / "out", "tag", None, nlp=rule_nlp, progress=False)
    assert report["failed"][0]["reason"].startswith("rota.tiff: not a readable image (")


def test_the_command_line_picks_scans_up_by_suffix(tmp_path, rule_nlp, person, monkeypatch):
    from typer.testing import CliRunner

    from meddocan_deid.cli.app import app

    inp = tmp_path / "scans"
    inp.mkdir()
    lines = page_lines(person)
    render(lines).save(inp / "hoja.JPEG")
    (inp / "carta.pdf").write_bytes(minimal_pdf([lines]))
    monkeypatch.setattr("meddocan_deid.engine.runner.load_model", lambda *a, **k: rule_nlp)
    out = tmp_path / "out"
    args = ["deidentify", str(inp), str(out), "--mode", "tag", "--redacted-pdf"]
    result = CliRunner().invoke(app, [*args, "--ocr-review-below", "99.9"])
    assert result.exit_code == 0, result.output
    assert "review: hoja.JPEG page 1: OCR confidence " in result.output
    assert "reports read 2, written 2, skipped 0, failed 0" in result.output
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "audit_log.jsonl",
        "carta.ann",
        "carta.pdf",
        "carta.txt",
        "hoja.ann",
        "hoja.jpeg",
        "hoja.txt",
        "run_fingerprint.json",
        "run_report.json",
    ]
    assert (
        Image.open(out / "hoja.jpeg").format == "JPEG"
        and pdf_text((out / "carta.pdf").read_bytes()) == ""
    )
    options = json.loads((out / "run_report.json").read_text(encoding="utf-8"))["options"]
    assert options["redacted_pdf"] is True and options["ocr_review_below"] == 99.9


def test_every_word_of_an_entity_is_boxed_and_the_box_reaches_along_its_line():
    from meddocan_deid.deid.operators import Replacement
    from meddocan_deid.formats.scan import Scan, ScanWord, redaction_boxes, words_to_redact

    # "NHC: 123 456 fin" on one line, "Otra" on the next; the entity is "123 456"
    words = [
        ScanWord(0, 4, 0, (10, 10, 60, 40), 95.0, 0),
        ScanWord(5, 8, 0, (80, 10, 120, 40), 95.0, 0),
        ScanWord(9, 12, 0, (140, 10, 180, 40), 95.0, 0),
        ScanWord(13, 16, 0, (300, 10, 340, 40), 95.0, 0),
        ScanWord(17, 21, 0, (10, 60, 70, 90), 95.0, 1),
    ]
    scan = Scan("NHC: 123 456 fin\nOtra\n", words=words)
    entity = [Replacement("ID_SUJETO_ASISTENCIA", 5, 12, 5, 25)]
    assert words_to_redact(scan, entity) == words[1:3]
    assert words_to_redact(scan, [Replacement("X", 6, 7, 0, 0)]) == [words[1]]  # a word, whole
    assert words_to_redact(scan, []) == []
    first, second = (box for _page, box in redaction_boxes(scan, entity))
    # up to half the space to "NHC:" (60..80) and to "456"; 18 px (0.6 of the height) on the
    # right of "456", where "fin" is far
    assert first == (71, 8, 129, 42)
    assert second == (131, 8, 198, 42)


def test_a_redacted_pdf_without_the_extra_fails_by_name(tmp_path, rule_nlp, person, monkeypatch):
    import sys

    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "carta.pdf").write_bytes(minimal_pdf([page_lines(person)]))
    monkeypatch.setitem(sys.modules, "pypdfium2", None)
    report = run(
        inp, tmp_path / "out", "tag", None, nlp=rule_nlp, progress=False, redacted_pdf=True
    )
    assert report["failed"] == [
        {
            "id": "carta",
            "file": "carta.pdf",
            "reason": "carta.pdf: a redacted PDF needs the ocr extra (pypdfium2 is not installed): "
            "pip install 'meddocan-deid[ocr]' and apt-get install tesseract-ocr tesseract-ocr-spa",
        }
    ]


def test_a_scan_changed_since_it_was_read_is_not_redacted(tmp_path):
    from meddocan_deid.engine.scans import write_redacted
    from meddocan_deid.formats.scan import Scan

    source = tmp_path / "hoja.png"
    render(["Hoja."]).save(source)
    with pytest.raises(OSError, match="hoja.png changed while it was being de-identified"):
        write_redacted(tmp_path / "out", "hoja", source, "image", "0" * 64, Scan(""), [])
    assert not (tmp_path / "out" / "hoja.png").exists()


def test_ink_that_no_word_covers_flags_its_page(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    inp.mkdir()
    page = render(["Datos del paciente.", "Informe clínico: varón de 47 años."], size=(1240, 900))
    ImageDraw.Draw(page).rectangle((700, 400, 1100, 750), fill="black")  # a stamp, a photo
    page.save(inp / "sello.png")
    out = tmp_path / "out"
    report = run(inp, out, "tag", None, nlp=rule_nlp, progress=False)
    read = report["scanned"]["read"][0]["pages"][0]
    assert read["confidence"] > 60 and read["unread_ink"] > 0.5 and read["review"] is True
    lines = RunReport(**report_fields(out)).summary_lines(out / "run_report.json")
    flagged = [line for line in lines if line.startswith("review: sello.png page 1: ")]
    assert len(flagged) == 1 and "of its ink outside the words read" in flagged[0]
