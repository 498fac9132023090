"""maker_address: a product's parenthesis that ends with a known place reads as the
maker's address: maker INSTITUCION, towns TERRITORIO, country PAIS. Invented texts."""

import pytest
from conftest import build_rule_nlp

BEFORE = ("sections", "phi_rules", "rule_entities", "place_names")


@pytest.fixture(scope="module")
def nlp():
    return build_rule_nlp()


def run(nlp, text, ents=()):
    """ents: (text, label) of NER entities already in the doc, found in order."""
    doc = nlp.make_doc(text)
    for name in BEFORE:
        doc = nlp.get_pipe(name)(doc)
    spans = list(doc.ents)
    for phrase, label in ents:
        start = doc.text.index(phrase)
        spans.append(doc.char_span(start, start + len(phrase), label=label))
    doc.ents = spans
    doc = nlp.get_pipe("maker_address")(doc)
    return [(e.label_, e.text) for e in doc.ents]


@pytest.mark.parametrize(
    "text,expected",
    [
        # product with a dose, maker, town that is a province
        (
            "Se pautó Fotrexil 40 mg (Fotrexil 40 mg, Laboratorios Brenal, Zamora) cada 12 h.",
            [("INSTITUCION", "Laboratorios Brenal"), ("TERRITORIO", "Zamora")],
        ),
        # maker, town, US state, country
        (
            "Se implantó una prótesis (Quelmar Medical Corporation, Springvale, Ohio, EE.UU.) "
            "sin incidencias.",
            [
                ("INSTITUCION", "Quelmar Medical Corporation"),
                ("TERRITORIO", "Springvale"),
                ("TERRITORIO", "Ohio"),
                ("PAIS", "EE.UU."),
            ],
        ),
        # a product set off by `;`, then maker and country
        (
            "Con el láser (Ortex 2; Vandrel, Alemania) se trató la lesión.",
            [("INSTITUCION", "Vandrel"), ("PAIS", "Alemania")],
        ),
        # product, maker, town, country
        (
            "Colirio (Pruvex®, Talmon Farma, Terrassa, España) dos veces al día.",
            [("INSTITUCION", "Talmon Farma"), ("TERRITORIO", "Terrassa"), ("PAIS", "España")],
        ),
        # a period separates parts too, and a company suffix alone is no part of its own
        (
            "Se implantó una malla (Quelmar Medizintechnik GmbH. Lübeck, Alemania) sin "
            "incidencias.",
            [
                ("INSTITUCION", "Quelmar Medizintechnik GmbH"),
                ("TERRITORIO", "Lübeck"),
                ("PAIS", "Alemania"),
            ],
        ),
        (
            "Se implantó una malla (Talmon Co, Inc., Zamora) sin incidencias.",
            [("INSTITUCION", "Talmon Co"), ("TERRITORIO", "Zamora")],
        ),
        # `(Brand®, X, ...)`: X may be the maker or its town, so only the known places
        (
            "Se usó un expansor (Brevix®, Ardent, Nueva York, Estados Unidos) en la mama.",
            [("TERRITORIO", "Nueva York"), ("PAIS", "Estados Unidos")],
        ),
    ],
)
def test_maker_addresses_are_labelled(nlp, text, expected):
    assert run(nlp, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Paciente remitida desde su centro (Zamora) para estudio.",  # only a place: no maker
        # a list of places
        "Se pautó Fotrexil (Fotrexil, Brenal, Zamora, Ávila, Soria, Lugo) cada 12 h.",
        "Tomaba ibuprofeno (600 mg, cada 8 horas, España) sin mejoría.",  # parts that are not names
        # does not end with a place
        "Se pautó Fotrexil (Fotrexil, Laboratorios Brenal, 12 unidades) cada 12 h.",
        # no closing parenthesis
        "Se pautó Fotrexil (Fotrexil, Laboratorios Brenal, Zamora cada 12 h.",
    ],
)
def test_other_parentheses_are_left_alone(nlp, text):
    assert run(nlp, text) == []


def test_an_entity_on_a_part_takes_its_label_and_overlaps_are_left_alone(nlp):
    text = (
        "Tratada con Dalfen 30 mg (Dalfen 30 mg, Corvex, Zamora) y con Fotrexil (Fotrexil 20 mg, "
        "Brenal Iberia, Soria)."
    )
    out = run(nlp, text, ents=[("Corvex", "TERRITORIO"), ("Brenal", "PROFESION")])
    assert out == [
        ("INSTITUCION", "Corvex"),
        ("TERRITORIO", "Zamora"),
        ("PROFESION", "Brenal"),
        ("TERRITORIO", "Soria"),
    ]


def test_rule_entities_are_never_changed(nlp):
    text = "Se pautó Fotrexil 40 mg (Fotrexil 40 mg, Corvex, Zamora) cada 12 h."
    doc = nlp.make_doc(text)
    for name in BEFORE:
        doc = nlp.get_pipe(name)(doc)
    start = text.index("Corvex")
    rule = doc.char_span(start, start + len("Corvex"), label="TERRITORIO")
    doc.ents = [rule]
    doc.spans["rule_entities"] = [rule]
    doc = nlp.get_pipe("maker_address")(doc)
    assert [(e.label_, e.text) for e in doc.ents] == [
        ("TERRITORIO", "Corvex"),
        ("TERRITORIO", "Zamora"),
    ]


def test_places_are_pattern_data(nlp):
    ruler = nlp.get_pipe("place_names")
    labels = {p["label"] for p in ruler.patterns}
    assert labels == {"PAIS", "TERRITORIO"}
    assert any(p["pattern"] == "EE.UU." for p in ruler.patterns)


def test_an_entity_across_two_parts_gives_way(nlp):
    text = (
        "Prótesis (Quelmar Medical Corporation, Springvale, Ohio, EE.UU.) y (Zamora, Soria) en "
        "2010, 2011."
    )
    out = run(nlp, text, ents=[("Springvale, Ohio", "CALLE"), ("Zamora, Soria", "CALLE")])
    assert out == [
        ("INSTITUCION", "Quelmar Medical Corporation"),
        ("TERRITORIO", "Springvale"),
        ("TERRITORIO", "Ohio"),
        ("PAIS", "EE.UU."),
        ("CALLE", "Zamora, Soria"),
    ]
