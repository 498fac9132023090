"""Scanned documents on Spark (local mode): a binary column of files (Spark's `binaryFile`
reader) with `text_format="scan"`, and `deidentify-spark` over a folder of scans. One invented
report page rendered here: the row's text is the command line's for the same file, its pages'
OCR confidence and review flag and its redacted image are in the row, and a file that cannot
be read fails its row by its reason. A PDF with a text layer (invented lines) is read without
OCR, to the command line's text."""

import base64
import io
import json

import pytest
from office_files import minimal_pdf
from PIL import Image
from scanned_pages import invented_person, page_lines, phi_strings, png_bytes, render

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

from meddocan_deid.engine import run  # noqa: E402
from meddocan_deid.formats.sources import read_document  # noqa: E402


@pytest.fixture(scope="module")
def person():
    return invented_person(5433)


@pytest.fixture(scope="module")
def scan_folder(tmp_path_factory, person):
    folder = tmp_path_factory.mktemp("scans") / "in"
    folder.mkdir()
    (folder / "informe.png").write_bytes(png_bytes(render(page_lines(person))))
    return folder


@pytest.fixture(scope="module")
def cli_text(tmp_path_factory, rule_nlp, scan_folder):
    """The command line's de-identified text of the scan (the run's .txt)."""
    out = tmp_path_factory.mktemp("scan-cli") / "out"
    report = run(scan_folder, out, "tag", None, nlp=rule_nlp, progress=False)
    assert report["reports"]["written"] == 1
    return (out / "informe.txt").read_text(encoding="utf-8")


def test_a_binary_column_of_scans_gives_the_command_line_s_text_and_a_redacted_file(
    spark, model_dir, scan_folder, cli_text, person
):
    from meddocan_deid.spark import deidentify_dataframe

    scan = (scan_folder / "informe.png").read_bytes()
    df = spark.createDataFrame(
        [("informe", scan), ("rota", scan[:8] + b"\x00" * 40), ("nota", b"Nombre: Ana.")],
        "id string, content binary",
    )
    out = deidentify_dataframe(
        df, "tag", None, model=str(model_dir), text_col="content", text_format="scan"
    )
    assert "content" not in out.columns
    rows = {r["id"]: r for r in out.collect()}
    ok = rows["informe"]
    assert ok["status"] == "ok" and ok["deid_text"] == cli_text
    assert not any(s in ok["deid_text"] for s in phi_strings(person))
    assert {p["label"] for p in ok["phi"]} >= {"NOMBRE_SUJETO_ASISTENCIA"}
    [page] = ok["ocr_pages"]
    assert page["page"] == 1 and page["source"] == "ocr" and page["confidence"] > 80
    assert page["review"] is False and ok["ocr_review"] is False
    assert ok["redacted_type"] == "image/png"
    redacted = bytes(ok["redacted"])
    assert Image.open(io.BytesIO(redacted)).format == "PNG"
    read_back, _scan = read_document(redacted, "image")
    assert "Datos del paciente." in read_back
    assert not any(s in read_back for s in phi_strings(person))
    for rid, reason in (
        ("rota", "failed: not a readable image ("),
        ("nota", "failed: not a scanned document: expected a PDF, PNG, JPEG or TIFF file"),
    ):
        failed = rows[rid]
        assert failed["status"].startswith(reason), failed["status"]
        assert failed["deid_text"] is None and failed["redacted"] is None
        assert failed["ocr_pages"] is None


def test_a_scan_column_must_hold_bytes(spark, model_dir):
    from meddocan_deid.spark import deidentify_dataframe

    df = spark.createDataFrame([("a", "texto")], "id string, text string")
    with pytest.raises(ValueError, match="'text' is string, not binary"):
        deidentify_dataframe(df, "tag", None, model=str(model_dir), text_format="scan")


def test_the_command_line_reads_a_folder_of_scans(
    spark, model_dir, scan_folder, cli_text, tmp_path
):
    from typer.testing import CliRunner

    from meddocan_deid.cli.app import app

    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["deidentify-spark", str(scan_folder), str(out), "--mode", "tag"]
        + ["--model", str(model_dir), "--format", "jsonl", "--ocr-review-below", "99.5"],
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for p in out.glob("*.json") for line in p.read_text().splitlines()]
    assert len(rows) == 1
    row = rows[0]
    assert row["id"] == "informe" and row["file"] == "informe.png" and row["status"] == "ok"
    assert row["deid_text"] == cli_text
    # the threshold above the page's confidence flags it
    assert row["ocr_review"] is True and row["ocr_pages"][0]["review"] is True
    assert Image.open(io.BytesIO(base64.b64decode(row["redacted"]))).format == "PNG"


def test_a_pdf_with_a_text_layer_gives_the_command_line_s_text(
    spark, model_dir, rule_nlp, monkeypatch, tmp_path
):
    import pypdfium2 as pdfium
    from typer.testing import CliRunner

    from meddocan_deid.cli.app import app

    person = invented_person(5469)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "nota.pdf").write_bytes(minimal_pdf([page_lines(person)]))
    monkeypatch.setattr("meddocan_deid.engine.runner.load_model", lambda *a, **k: rule_nlp)
    cli = CliRunner().invoke(
        app, ["deidentify", str(folder), str(tmp_path / "cli"), "--mode", "tag"]
    )
    assert cli.exit_code == 0, cli.output
    cli_text = (tmp_path / "cli" / "nota.txt").read_text("utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["deidentify-spark", str(folder), str(out), "--mode", "tag", "--text-format", "scan"]
        + ["--model", str(model_dir), "--format", "jsonl"],
    )
    assert result.exit_code == 0, result.output
    [row] = [json.loads(line) for p in out.glob("*.json") for line in p.read_text().splitlines()]
    assert row["file"] == "nota.pdf" and row["status"] == "ok"
    assert row["deid_text"] == cli_text and "NHC: [ID_SUJETO_ASISTENCIA]" in cli_text
    assert not any(s in row["deid_text"] for s in phi_strings(person))
    assert [p["source"] for p in row["ocr_pages"]] == ["text layer"]
    assert row["redacted_type"] == "application/pdf"
    redacted = pdfium.PdfDocument(base64.b64decode(row["redacted"]))
    try:  # pages as images: no text left under a box
        assert len(redacted) == 1 and redacted[0].get_textpage().get_text_range() == ""
    finally:
        redacted.close()
