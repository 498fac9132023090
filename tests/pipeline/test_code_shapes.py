"""Codes anywhere: identifier shapes are PHI unless the safe list says they are clinical;
only where no entity is; saved with the pipeline. Every text here is invented."""

import pytest
import spacy
import srsly

from meddocan_deid.pipeline.code_shapes import CodeShapes, validate_patterns

PATTERNS = list(srsly.read_jsonl("configs/patterns/code_shapes.jsonl"))


@pytest.fixture(scope="module")
def shapes():
    component = CodeShapes(spacy.blank("es"), "code_shapes")
    component.initialize(patterns=PATTERNS)
    return component


@pytest.mark.parametrize(
    "code",
    [
        "AB-2023-004512",
        "Z7654321",
        "28 12 34 567 89",
        "HC-0098812",
        "4418812",
        "0024-118830",
        "PK-24-01522",
    ],
)
def test_identifier_shapes_are_found(shapes, code):
    text = f"consta con el {code} en el sistema"
    assert [(text[s:e], label) for s, e, label in shapes.codes(text)] == [
        (code, "OTRO_NUMERO_IDENTIF")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "CIE-10 I21.41",
        "ATC C10AA05",
        "LOINC 2345-7",
        "estadio pT2N1M0",
        "BRCA1 c.68_69delAG",
        "EGFR p.L858R",
        "rs1234567",
        "cariotipo 46,XX",
        "hernia L4-L5",
        "plaquetas 250000/mm3",
        "250000 plaquetas",
        "1000mg cada 8 h",
        "lote AB12345",
        "REF 1217-22-054",
        "EudraCT 2019-001234-56",
        "NCT01234567",
        "SNOMED 22298006",
        "EVA 10/10",
        "fuerza 5/5",
        "Hb 13,5 g/dl",
        "ferritina 1.250.000",
        "masa de 10x12x5 cm",
        "1.000.000/mm3",
        "10.000/microlitro",
        "hernia C10-C12",
        "campaña 2010/2011",
    ],
)
def test_clinical_codes_are_left_alone(shapes, text):
    assert shapes.codes(text) == []


def test_a_day_and_month_is_a_date(shapes):
    text = "nota del 14/02: estable; control el 03/11."
    assert [(text[s:e], label) for s, e, label in shapes.codes(text)] == [
        ("14/02", "FECHAS"),
        ("03/11", "FECHAS"),
    ]


def test_only_where_no_entity_is_and_saved_with_the_pipeline(shapes, tmp_path):
    nlp = spacy.blank("es")
    doc = nlp("NHC 4418812 y código Z7654321.")
    doc.ents = [doc.char_span(4, 11, label="ID_SUJETO_ASISTENCIA")]
    doc = shapes(doc)
    assert [(e.text, e.label_) for e in doc.ents] == [
        ("4418812", "ID_SUJETO_ASISTENCIA"),
        ("Z7654321", "OTRO_NUMERO_IDENTIF"),
    ]
    assert [s.text for s in doc.spans["code_shapes"]] == ["Z7654321"]
    shapes.to_disk(tmp_path / "cs")
    again = CodeShapes(nlp, "code_shapes").from_disk(tmp_path / "cs")
    assert again.patterns == shapes.patterns and again.codes("ref Z7654321 x") == shapes.codes(
        "ref Z7654321 x"
    )
    assert CodeShapes(nlp, "x").from_bytes(shapes.to_bytes()).patterns == shapes.patterns


def test_a_bad_pattern_names_itself():
    with pytest.raises(ValueError, match="'odd': unknown kind"):
        validate_patterns([{"kind": "odd", "id": "odd", "regex": "x"}])


def test_an_entity_that_is_wholly_a_clinical_code_is_removed(shapes):
    nlp = spacy.blank("es")
    doc = nlp("Variante rs12345678 y NHC 4418812 , estadio pT2N1M0 .")
    doc.ents = [
        doc.char_span(9, 19, label="OTRO_NUMERO_IDENTIF"),
        doc.char_span(26, 33, label="ID_SUJETO_ASISTENCIA"),
        doc.char_span(44, 51, label="OTRO_NUMERO_IDENTIF"),
    ]
    assert [e.text for e in shapes(doc).ents] == ["4418812"]
