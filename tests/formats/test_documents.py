"""Documents as reports (meddocan_deid/formats: docx.py, pdf.py, rtf.py): .docx (a
de-identified .docx with each run's formatting, entities across runs), PDF with a text layer
(without one: read by OCR), RTF; the `.ann` in the offsets of the written text; a missing
extra named. Content invented with Faker (es_ES, fixed seed); the files are made in the tests
(office_files.py)."""

import io
import sys
import zipfile

import pytest
from command_line import report_counts
from faker import Faker
from office_files import make_docx, make_rtf, minimal_pdf

from meddocan_deid.brat import validate_ann
from meddocan_deid.engine import run
from meddocan_deid.formats.base import DocumentError
from meddocan_deid.formats.docx import write_document as rewrite_docx
from meddocan_deid.formats.sources import extract_text

KEY = b"documents-key-0123456789abcdef"


@pytest.fixture(scope="module")
def person():
    fake = Faker("es_ES")
    fake.seed_instance(7031)
    return {
        "given": fake.first_name_female(),
        "s1": fake.last_name(),
        "s2": fake.last_name(),
        "nhc": str(fake.random_int(1_000_000, 9_999_999)),
        "doctor": fake.name(),
        "phone": f"9{fake.random_int(10, 99)} {fake.random_int(10, 99)} {fake.random_int(10, 99)} "
        f"{fake.random_int(10, 99)}",
    }


def report_lines(p):
    return [
        "Datos del paciente.",
        f"Nombre: {p['given']}.",
        f"Apellidos: {p['s1']} {p['s2']}.",
        f"NHC: {p['nhc']}.",
        f"Teléfono: {p['phone']}",
        "Informe clínico del paciente: mujer de 52 años con disnea.",
    ]


def docx_file(path, p):
    # the given name and the surnames are split across runs of alternating weight
    make_docx(
        path,
        header=f"Paciente: {p['s1']}",
        paragraphs=[
            ["Datos del paciente."],
            ["Nombre: ", p["given"][:2], p["given"][2:], "."],
            ["Apellidos: ", p["s1"], " ", p["s2"], "."],
            [f"NHC: {p['nhc']}."],
            ["Informe clínico del paciente: mujer de 52 años con disnea."],
        ],
        table=[["Teléfono:", p["phone"]]],
        footer="Página 1",
    )


def xml_text(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return " ".join(
            z.read(n).decode("utf-8", "replace") for n in z.namelist() if n.endswith(".xml")
        )


def test_docx_text_in_reading_order(tmp_path, person):
    path = tmp_path / "a.docx"
    docx_file(path, person)
    text = extract_text(path.read_bytes(), "docx")
    p = person
    assert text.startswith(f"Paciente: {p['s1']}\n\nDatos del paciente.\nNombre: {p['given']}.\n")
    assert f"Teléfono:\n{p['phone']}\n" in text and text.endswith("\n\nPágina 1\n")


def test_docx_round_trip_keeps_runs_and_formatting(tmp_path, rule_nlp, person):
    import docx

    inp = tmp_path / "in"
    inp.mkdir()
    docx_file(inp / "carta.docx", person)
    out = tmp_path / "out"
    rep = run(inp, out, "surrogate", KEY, nlp=rule_nlp, progress=False)
    assert rep["reports"]["written"] == 1 and rep["encodings"] == {"docx": 1}
    new_text = (out / "carta.txt").read_text(encoding="utf-8")
    assert validate_ann(new_text, (out / "carta.ann").read_text(encoding="utf-8")) >= 4
    data = (out / "carta.docx").read_bytes()
    assert extract_text(data, "docx") == new_text  # the .docx says what the .txt and its .ann say
    xml = xml_text(data)
    for value in (person["given"], person["s1"], person["s2"], person["nhc"], "Autor Inventado"):
        assert value not in xml, value
    doc = docx.Document(io.BytesIO(data))
    runs = [(r.text, bool(r.bold)) for r in doc.paragraphs[1].runs]
    # the name's new text sits in the run where it began (bold), its other run is emptied
    assert (
        runs[0] == ("Nombre: ", False)
        and runs[1][1] is True
        and runs[2] == ("", False)
        and runs[3] == (".", True)
    )
    assert runs[1][0] and runs[1][0] != person["given"][:2]
    surnames = [(r.text, bool(r.bold)) for r in doc.paragraphs[2].runs]
    assert [b for _t, b in surnames] == [False, True, False, True, False]
    assert doc.paragraphs[4].text == "Informe clínico del paciente: mujer de 52 años con disnea."


def test_rewrite_redacts_an_entity_across_runs(tmp_path, person):
    from meddocan_deid.deid.operators import apply_operator

    path = tmp_path / "b.docx"
    make_docx(
        path, header="", paragraphs=[["Vista por ", person["given"], " ", person["s1"], " hoy."]]
    )
    data = path.read_bytes()
    text = extract_text(data, "docx")
    start = text.index(person["given"])
    end = text.index(person["s1"]) + len(person["s1"])
    res = apply_operator(text, [("NOMBRE_SUJETO_ASISTENCIA", start, end)], "redact")
    out = rewrite_docx(data, res.text, res.replacements)
    assert extract_text(out, "docx") == res.text and "Vista por  hoy." in res.text
    with pytest.raises(DocumentError, match="do not fit"):
        rewrite_docx(data, res.text, [res.replacements[0]._replace(end=len(text) + 5)])


def test_pdf_and_rtf_reports_and_a_pdf_that_needs_ocr(tmp_path, rule_nlp, person):
    inp = tmp_path / "in"
    inp.mkdir()
    lines = report_lines(person)
    (inp / "informe.pdf").write_bytes(minimal_pdf([lines[:3], lines[3:]]))
    (inp / "escaneo.pdf").write_bytes(minimal_pdf([None, []]))
    (inp / "roto.pdf").write_bytes(b"%PDF-1.4\nnada")
    (inp / "nota.rtf").write_bytes(make_rtf("\n".join(lines) + "\n"))
    out = tmp_path / "out"
    rep = run(inp, out, "tag", None, nlp=rule_nlp, progress=False)
    assert rep["reports"] == report_counts(4, 2, failed=1, empty=1)
    reasons = {f["file"]: f["reason"] for f in rep["failed"]}
    # a PDF without text is read by OCR (the ocr extra, tests/formats/test_ocr.py): blank pages
    # give no text, an empty report, and each page is flagged for review
    assert rep["empty"] == [{"id": "escaneo", "file": "escaneo.pdf"}]
    assert rep["scanned"]["pages_to_review"] == 2
    assert reasons["roto.pdf"].startswith("roto.pdf: not a readable PDF (")
    for stem in ("informe", "nota"):
        text = (out / f"{stem}.txt").read_text(encoding="utf-8")
        assert validate_ann(text, (out / f"{stem}.ann").read_text(encoding="utf-8")) >= 3
        assert (
            "Nombre: [NOMBRE_SUJETO_ASISTENCIA]." in text and "NHC: [ID_SUJETO_ASISTENCIA]." in text
        )
        assert person["nhc"] not in text and person["s1"] not in text
        # accents read from cp1252 (RTF) and WinAnsi (PDF)
        assert "Informe clínico del paciente: mujer de [EDAD_SUJETO_ASISTENCIA] con disnea." in text
    assert not (out / "escaneo.txt").exists() and rep["encodings"] == {"pdf": 1, "rtf": 1}


def test_a_missing_extra_is_named(tmp_path, rule_nlp, person, monkeypatch):
    inp = tmp_path / "in"
    inp.mkdir()
    docx_file(inp / "carta.docx", person)
    (inp / "nota.txt").write_text("\n".join(report_lines(person)), encoding="utf-8")
    monkeypatch.setitem(sys.modules, "docx", None)  # python-docx not installed
    rep = run(inp, tmp_path / "out", "tag", None, nlp=rule_nlp, progress=False)
    assert rep["reports"]["failed"] == 1 and rep["reports"]["written"] == 1
    reason = rep["failed"][0]["reason"]
    assert (
        "needs the documents extra" in reason and "pip install 'meddocan-deid[documents]'" in reason
    )
    with pytest.raises(DocumentError, match="documents extra"):
        extract_text(b"", "docx")
    alone = run(inp / "carta.docx", tmp_path / "out2", "tag", None, nlp=rule_nlp, progress=False)
    assert alone["reports"]["failed"] == 1 and "documents extra" in alone["failed"][0]["reason"]
    from meddocan_deid.engine import Run, RunConfig

    skipped = Run(
        RunConfig(
            input=inp, output=tmp_path / "out3", mode="tag", skip_unsupported=True, progress=False
        ),
        nlp=rule_nlp,
    ).execute()
    assert skipped["reports"]["failed"] == 0 and skipped["not_read"][0]["file"] == "carta.docx"
    assert "documents extra" in skipped["not_read"][0]["reason"]


def test_a_changed_docx_is_not_rewritten(tmp_path, person):
    from meddocan_deid.engine.output import write_report

    path = tmp_path / "c.docx"
    docx_file(path, person)
    with pytest.raises(OSError, match="changed while it was being de-identified"):
        write_report(tmp_path / "out", "c", "x", [], docx=(path, "0" * 64))
    assert not (tmp_path / "out" / "c.txt").exists() and not (tmp_path / "out" / "c.docx").exists()


def test_a_folder_of_documents_without_the_extra_says_how_to_read_them(
    tmp_path, rule_nlp, person, monkeypatch
):
    from meddocan_deid.errors import RunError

    inp = tmp_path / "in"
    inp.mkdir()
    docx_file(inp / "carta.docx", person)
    (inp / "carta.txt").write_text("\n".join(report_lines(person)), encoding="utf-8")
    rep = run(inp, tmp_path / "both", "tag", None, nlp=rule_nlp, progress=False)
    # `carta.docx` and `carta.txt` are two reports: the second in name order keeps its suffix
    # in its id
    assert sorted(p.name for p in (tmp_path / "both").glob("carta*")) == [
        "carta.ann",
        "carta.docx",
        "carta.txt",
        "carta.txt.ann",
        "carta.txt.txt",
    ]
    assert rep["reports"]["written"] == 2
    (inp / "carta.txt").unlink()
    monkeypatch.setitem(sys.modules, "docx", None)
    with pytest.raises(
        RunError,
        match=r"no \.txt report to read \(1 \.docx, no \.txt\); .* or: reading \.docx "
        r"needs the documents extra",
    ):
        run(inp, tmp_path / "out", "tag", None, nlp=rule_nlp, progress=False)


def test_a_rewritten_docx_keeps_no_link_target_nor_change_author():
    import docx
    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    document = docx.Document()
    document.add_paragraph("Contacto por correo.")
    document.part.relate_to(
        "mailto:eulalia.marco@example.com", RELATIONSHIP_TYPE.HYPERLINK, is_external=True
    )
    para = document.add_paragraph()
    para._p.append(
        parse_xml(
            f'<w:ins {nsdecls("w")} w:id="1" w:author="Eulalia Marcó" '
            'w:date="2024-03-05T10:00:00Z">'
            "<w:r><w:t>Texto añadido.</w:t></w:r></w:ins>"
        )
    )
    buf = io.BytesIO()
    document.save(buf)
    data = buf.getvalue()
    out = rewrite_docx(data, extract_text(data, "docx"), [])
    parts = zipfile.ZipFile(io.BytesIO(out))
    blob = b"".join(parts.read(name) for name in parts.namelist())
    assert (
        b"eulalia.marco" not in blob
        and "Eulalia Marcó".encode() not in blob
        and b"2024-03-05T10" not in blob
    )
    assert "Texto añadido." in extract_text(out, "docx")
