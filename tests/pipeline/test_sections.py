"""Header / body / footer spans in doc.spans["sections"] (invented reports only)."""

import pytest

from meddocan_deid.pipeline.sections import section_of

HEADER = (
    "Datos del paciente.\n"
    "Nombre: Ana.\n"
    "Apellidos: Ruiz Olmedo.\n"
    "Médico: Dr. Luis Gil  NºCol: 28 31 64120.\n"
)
BODY = "Informe clínico del paciente: mujer de 40 años con dolor.\nSin más hallazgos.\n"
FOOTER = "Remitido por: Dra. Sol Pardo. Hospital Central.\n"


def sections(doc):
    return [(s.label_, s.start_char, s.end_char) for s in doc.spans["sections"]]


def texts(doc):
    return {s.label_: s.text for s in doc.spans["sections"]}


def assert_partition(doc):
    """Sections never overlap, are in order and cover the whole doc except blank edges."""
    spans = list(doc.spans["sections"])
    for a, b in zip(spans, spans[1:]):
        assert a.end == b.start
    if spans:
        assert not doc[: spans[0].start].text.strip()
        assert not doc[spans[-1].end :].text.strip()


def test_normal_report(rule_nlp):
    text = HEADER + "\n" + BODY + "\n" + FOOTER
    doc = rule_nlp(text)
    assert [s.label_ for s in doc.spans["sections"]] == ["header", "body", "footer"]
    parts = texts(doc)
    assert parts["header"].startswith("Datos del paciente.")
    assert "NºCol: 28 31 64120." in parts["header"]
    assert parts["body"].startswith("Informe clínico")
    assert parts["body"].rstrip().endswith("Sin más hallazgos.")
    assert parts["footer"] == FOOTER
    assert text.index("Informe clínico") == doc.spans["sections"][1].start_char
    assert text.index("Remitido por") == doc.spans["sections"][2].start_char
    assert_partition(doc)


def test_no_header(rule_nlp):
    text = BODY + "\n" + FOOTER
    doc = rule_nlp(text)
    assert sections(doc) == [("body", 0, len(BODY) + 1), ("footer", len(BODY) + 1, len(text))]
    assert_partition(doc)


def test_no_footer(rule_nlp):
    text = HEADER + "\n" + BODY
    doc = rule_nlp(text)
    start = text.index("Informe clínico")
    assert sections(doc) == [("header", 0, start), ("body", start, len(text))]
    assert_partition(doc)


def test_neither_header_nor_footer_is_all_body(rule_nlp):
    doc = rule_nlp(BODY)
    assert sections(doc) == [("body", 0, len(BODY))]


def test_only_header(rule_nlp):
    doc = rule_nlp(HEADER)
    assert sections(doc) == [("header", 0, len(HEADER))]


def test_crlf_line_endings(rule_nlp):
    text = (HEADER + "\n" + BODY + "\n" + FOOTER).replace("\n", "\r\n")
    doc = rule_nlp(text)
    assert [s.label_ for s in doc.spans["sections"]] == ["header", "body", "footer"]
    assert doc.spans["sections"][1].start_char == text.index("Informe clínico")
    assert doc.spans["sections"][2].start_char == text.index("Remitido por")
    assert texts(doc)["footer"] == FOOTER.replace("\n", "\r\n")
    assert_partition(doc)


def test_blank_lines_and_tabs(rule_nlp):
    text = (
        "\n\n\tDatos del paciente.\n\tNombre: Ana.\n\n\n\t\n"
        "Informe clínico:\tdolor.\n\n\n\tResponsable clínico: Dra. Sol Pardo.\n"
    )
    doc = rule_nlp(text)
    assert [s.label_ for s in doc.spans["sections"]] == ["header", "body", "footer"]
    header, body, footer = doc.spans["sections"]
    assert header.start_char == 0
    assert body.start_char == text.index("Informe clínico")
    assert footer.start_char == text.index("Responsable clínico")
    assert footer.end_char == len(text)
    assert_partition(doc)


def test_bom_at_start(rule_nlp):
    text = "\ufeff" + HEADER + "\n" + BODY
    doc = rule_nlp(text)
    assert [s.label_ for s in doc.spans["sections"]] == ["header", "body"]
    assert doc.spans["sections"][0].start_char == 0
    assert doc.spans["sections"][1].start_char == text.index("Informe clínico")


@pytest.mark.parametrize(
    "footer",
    [
        "Remitido por: Dra. Sol Pardo.\n",
        "Responsable clínico: Dra. Sol Pardo.\n",
        "Responsable clinico: Dra. Sol Pardo.\n",
        "Correspondencia: Dra. Sol Pardo.\n",
        "Dirección para la correspondencia: C/ Mayor 5.\n",
        "  REMITIDO POR: Dra. Sol Pardo.\n",
    ],
)
def test_footer_titles(rule_nlp, footer):
    text = HEADER + BODY + footer
    doc = rule_nlp(text)
    assert texts(doc)["footer"] == footer.lstrip(" ")  # leading blanks stay with the body
    assert texts(doc)["body"].rstrip(" ") == BODY


@pytest.mark.parametrize(
    "line",
    [
        "El paciente fue remitido por su médico de cabecera.\n",  # not at the start of a line
        "Remitidos los resultados al laboratorio.\n",  # not the title
    ],
)
def test_not_a_footer(rule_nlp, line):
    doc = rule_nlp(BODY + line)
    assert [s.label_ for s in doc.spans["sections"]] == ["body"]


def test_header_title_inside_body_does_not_extend_header(rule_nlp):
    text = HEADER + "\n" + BODY + "Nombre: se anota en la historia.\n"
    doc = rule_nlp(text)
    assert [s.label_ for s in doc.spans["sections"]] == ["header", "body"]
    assert texts(doc)["body"].endswith("Nombre: se anota en la historia.\n")


def test_footer_never_before_header_end(rule_nlp):
    # a footer title right after the header lines
    text = HEADER + FOOTER
    doc = rule_nlp(text)
    assert sections(doc) == [("header", 0, len(HEADER)), ("footer", len(HEADER), len(text))]


@pytest.mark.parametrize("text", ["", " ", "\n", "\t", "  \n\t\n ", "\r\n\r\n"])
def test_empty_and_whitespace_only_text_has_no_sections(rule_nlp, text):
    doc = rule_nlp(text)
    assert list(doc.spans["sections"]) == []
    assert doc.text == text


def test_section_of(rule_nlp):
    text = HEADER + "\n" + BODY + "\n" + FOOTER
    doc = rule_nlp(text)
    header, body, footer = doc.spans["sections"]
    assert section_of(doc, header.start, header.start + 1) == "header"
    assert section_of(doc, body.start, body.start + 2) == "body"
    assert section_of(doc, footer.end - 1, footer.end) == "footer"
    assert section_of(doc, body.end - 1, footer.start + 1) is None  # crosses a boundary
