"""The word lists of the rule components are factory config: each shows in the assembled
config and overriding it there changes what the component does. Invented texts."""

import pytest
from conftest import build_rule_nlp

from meddocan_deid.pipeline.spans import TITLES


@pytest.fixture(scope="module")
def default_nlp():
    return build_rule_nlp()


def run(nlp, component, text, ents):
    """Run the pipes before `component`, set `ents` ((phrase, label) NER entities, each at
    its first occurrence) as the NER's, then run `component`: its entities (label, text)."""
    doc = nlp.make_doc(text)
    for name, pipe in nlp.pipeline:
        if name == component:
            break
        doc = pipe(doc)
    spans = []
    for phrase, label in ents:
        start = text.index(phrase)
        spans.append(doc.char_span(start, start + len(phrase), label=label))
    if ents:
        doc.ents = spans
    doc = nlp.get_pipe(component)(doc)
    return [(e.label_, e.text) for e in doc.ents]


HEADER = "Datos del paciente.\n{}\n\nInforme clínico: sin hallazgos.\n"
BODY = "Informe clínico del paciente:\n{}\n"


@pytest.mark.parametrize(
    "component,setting,value,text,ents,default,overridden",
    [
        # a floor word after the house number keeps the street whole;
        # without it, the words are a town
        (
            "address_parts",
            "address_unit_words",
            ["piso"],
            "Remitido por: Luis Gil. Calle Daoiz, 12 Bajo B 28004 Madrid",
            [("Calle Daoiz, 12 Bajo B", "CALLE")],
            [("CALLE", "Calle Daoiz, 12 Bajo B")],
            [("CALLE", "Calle Daoiz, 12"), ("TERRITORIO", "Bajo B")],
        ),
        # titles leave a name
        (
            "entity_edges",
            "titles",
            ["dr"],
            BODY.format("Lo valoró el Doctor Pablo Gil en consulta."),
            [("Doctor Pablo Gil", "NOMBRE_PERSONAL_SANITARIO")],
            [("NOMBRE_PERSONAL_SANITARIO", "Pablo Gil")],
            [("NOMBRE_PERSONAL_SANITARIO", "Doctor Pablo Gil")],
        ),
        # a capitalised article before a town is the town's
        (
            "entity_edges",
            "town_articles",
            ["la"],
            BODY.format("Vive en El Palmar desde 2001."),
            [("Palmar", "TERRITORIO")],
            [("TERRITORIO", "El Palmar")],
            [("TERRITORIO", "Palmar")],
        ),
        # a company word makes the maker
        (
            "maker_address",
            "company_words",
            [],
            BODY.format("Colirio (Brevix®, Talmon Farma, España) cada 8 h."),
            [],
            [("INSTITUCION", "Talmon Farma"), ("PAIS", "España")],
            [("PAIS", "España")],
        ),
        # header name values leave their titles out
        (
            "rule_entities",
            "titles",
            ["dr."],
            HEADER.format("Médico: Dra. Ana Sol"),
            [],
            [("NOMBRE_PERSONAL_SANITARIO", "Ana Sol")],
            [("NOMBRE_PERSONAL_SANITARIO", "Dra. Ana Sol")],
        ),
        # a place abbreviation does not split a place
        (
            "rule_entities",
            "place_abbreviations",
            [],
            HEADER.format("Localidad/ Provincia: Cdad. Real."),
            [],
            [("TERRITORIO", "Cdad. Real")],
            [("TERRITORIO", "Cdad"), ("TERRITORIO", "Real")],
        ),
        # a possessive is not part of the relative
        (
            "rule_entities",
            "possessives",
            [],
            BODY.format("Acude con su esposa, que refiere fiebre."),
            [],
            [("FAMILIARES_SUJETO_ASISTENCIA", "esposa")],
            [("FAMILIARES_SUJETO_ASISTENCIA", "su esposa")],
        ),
    ],
)
def test_overriding_a_word_list_changes_the_component(
    default_nlp, component, setting, value, text, ents, default, overridden
):
    assert run(default_nlp, component, text, ents) == default
    nlp = build_rule_nlp(**{f"components.{component}.{setting}": value})
    assert nlp.config["components"][component][setting] == value
    assert run(nlp, component, text, ents) == overridden


@pytest.mark.parametrize("component", ["rule_entities", "entity_edges"])
def test_shared_titles_are_one_default_declared_by_each_component(default_nlp, component):
    assert default_nlp.config["components"][component]["titles"] == TITLES
    assert default_nlp.get_pipe(component).titles == set(TITLES)
