"""entity_edges: titles and edge punctuation leave NER entities; rule entities stay."""

import pytest
from spacy.tokens import Span

import meddocan_deid  # noqa: F401
from meddocan_deid.pipeline.tokenizer import blank_pipeline


@pytest.fixture(scope="module")
def nlp():
    nlp = blank_pipeline()
    nlp.add_pipe("meddocan_entity_edges", name="entity_edges")
    return nlp


def run(nlp, text, ents, rules=()):
    """ents/rules: (first token, end token, label)."""
    doc = nlp.make_doc(text)
    doc.ents = [Span(doc, s, e, label=lab) for s, e, lab in list(ents) + list(rules)]
    doc.spans["rule_entities"] = [Span(doc, s, e, label=lab) for s, e, lab in rules]
    doc = nlp.get_pipe("entity_edges")(doc)
    return [(e.label_, e.text) for e in doc.ents]


@pytest.mark.parametrize(
    "text,ent,expected",
    [
        (
            "Remitido por: Doctor Pablo Gallardo Abril.",
            (3, 7, "NOMBRE_PERSONAL_SANITARIO"),
            "Pablo Gallardo Abril",
        ),
        (
            "Remitido por: Doctora Marta García.",
            (3, 6, "NOMBRE_PERSONAL_SANITARIO"),
            "Marta García",
        ),
        ("Remitido por: Dra. Ana Sol.", (3, 6, "NOMBRE_PERSONAL_SANITARIO"), "Ana Sol"),
        ("Acompañada por la Sra. Elena Ruiz.", (3, 6, "NOMBRE_SUJETO_ASISTENCIA"), "Elena Ruiz"),
        (
            "Sección de Nefrología, Hospital de la Santa Creu, Avda. Mossèn",
            (4, 10, "HOSPITAL"),
            "Hospital de la Santa Creu",
        ),
        ("en (Hospital Central).", (1, 5, "HOSPITAL"), "Hospital Central"),
        # a department is not part of the institution
        (
            "Hospital General Servicio Castellano-Leonés de Salud Servicio de Oftalmología 47010",
            (2, 11, "INSTITUCION"),
            "Servicio Castellano-Leonés de Salud",
        ),
        ("Hospital Clínic Unidad de Hepatología", (0, 5, "HOSPITAL"), "Hospital Clínic"),
        # a name ends where a role or a department starts
        (
            "Remitido por: Alberto Pallarés Hervás Residente de 5º año",
            (3, 8, "NOMBRE_PERSONAL_SANITARIO"),
            "Alberto Pallarés Hervás",
        ),
        (
            "Dra. Cristina Quintana Dorta Servicio de Urología",
            (1, 6, "NOMBRE_PERSONAL_SANITARIO"),
            "Cristina Quintana Dorta",
        ),
        # ... or where an institution starts
        (
            "Responsable clínico: Ana Soto Pérez Institut de Medicina Legal",
            (3, 8, "NOMBRE_PERSONAL_SANITARIO"),
            "Ana Soto Pérez",
        ),
        (
            "Remitido por: Dr. Luis Gil Hospital Central",
            (3, 8, "NOMBRE_PERSONAL_SANITARIO"),
            "Luis Gil",
        ),
        # ... or where a contact key starts
        (
            "Responsable clínico: Dra. María Vicente Sallais Correos electrónicos: mv@x.es",
            (4, 8, "NOMBRE_PERSONAL_SANITARIO"),
            "María Vicente Sallais",
        ),
        ("Médico: Ana Gil Teléfono: 600 100 200", (2, 5, "NOMBRE_PERSONAL_SANITARIO"), "Ana Gil"),
        # a town goes on through `de`/`del` + a capitalised name
        (
            "Ronda del Norte, 10, 28500 Arganda del Rey, Madrid",
            (7, 8, "TERRITORIO"),
            "Arganda del Rey",
        ),
        ("08923 Santa Coloma de Gramenet E-mail", (1, 3, "TERRITORIO"), "Santa Coloma de Gramenet"),
        ("13600 Alcázar de San Juan (Ciudad Real)", (1, 2, "TERRITORIO"), "Alcázar de San Juan"),
        ("en Puerto de la Cruz.", (1, 2, "TERRITORIO"), "Puerto de la Cruz"),
        ("Ctra. Toledo-Cuenca, s/n. 30120 El Palmar, Murcia", (12, 13, "TERRITORIO"), "El Palmar"),
        ("vive en La Coruña", (3, 4, "TERRITORIO"), "La Coruña"),
        # a name quoted inside an entity keeps its closing quote
        (
            'Hospital Clínico "Lozano Blesa" Avda. San Juan',
            (0, 5, "HOSPITAL"),
            'Hospital Clínico "Lozano Blesa"',
        ),
        (
            'Hospital Clínico "Lozano Blesa" Avda. San Juan',
            (0, 6, "HOSPITAL"),
            'Hospital Clínico "Lozano Blesa"',
        ),
        (
            "Centro Hemodiálisis “Las Encinas” C/ Huertas",
            (0, 5, "INSTITUCION"),
            "Centro Hemodiálisis “Las Encinas”",
        ),
        (
            'en el "Hospital Central".',
            (2, 6, "HOSPITAL"),
            "Hospital Central",
        ),  # quotes around: not kept
        # a place ending in a dotted abbreviation keeps its final period
        ("04030 México D.F. México", (1, 3, "TERRITORIO"), "México D.F."),
        ("04030 México D.F. México", (1, 4, "TERRITORIO"), "México D.F."),
        ("vive en el D.F. desde 2001", (3, 4, "TERRITORIO"), "D.F."),
        # a place's name goes on through `de`, `y` and capitalised words no entity holds
        (
            "en el Colegio San Juan de la Cruz, donde",
            (2, 5, "INSTITUCION"),
            "Colegio San Juan de la Cruz",
        ),
        (
            "la Agencia de Autonomía y Desarrollo de las Personas informa",
            (1, 4, "INSTITUCION"),
            "Agencia de Autonomía y Desarrollo de las Personas",
        ),
        (
            "trabaja en el IES Vegas del Guadiana.",
            (3, 5, "OTROS_SUJETO_ASISTENCIA"),
            "IES Vegas del Guadiana",
        ),
        (
            "del Hospital Central de Servicio de Urología",
            (1, 3, "HOSPITAL"),
            "Hospital Central",
        ),  # a department: no tail
        # an initial before a name is part of it
        ("El coordinador, I. Arana.", (5, 6, "NOMBRE_PERSONAL_SANITARIO"), "I. Arana"),
        (
            "La secretaria, H. Villar Cano, col. 52",
            (5, 7, "NOMBRE_PERSONAL_SANITARIO"),
            "H. Villar Cano",
        ),
    ],
)
def test_edges_are_trimmed(nlp, text, ent, expected):
    assert run(nlp, text, [ent]) == [(ent[2], expected)]


@pytest.mark.parametrize(
    "text,ent",
    [
        ("vive en Madrid con su madre", (2, 3, "TERRITORIO")),
        ("su hija de 47 años de nombre Natalia Ontiveros.", (7, 9, "NOMBRE_SUJETO_ASISTENCIA")),
        ("Fabricado por Merck, S.A. en Madrid", (2, 5, "INSTITUCION")),  # `S.A.` keeps its period
        (
            "en el Servicio Andaluz de Salud",
            (2, 6, "INSTITUCION"),
        ),  # a leading `Servicio` is the name
        ("Remitido por: María de la Fuente Sanz", (3, 8, "NOMBRE_PERSONAL_SANITARIO")),
        ("vive en Madrid desde hace años", (2, 3, "TERRITORIO")),
        (
            "natural de Sevilla de profesión albañil",
            (2, 3, "TERRITORIO"),
        ),  # lower-case word after `de`
        ("Madrid del Servicio", (0, 1, "HOSPITAL")),  # only town labels go on
        ("en la Rioja", (2, 3, "TERRITORIO")),  # a lower-case article stays out
        ("La Palmar", (1, 2, "HOSPITAL")),
        ("04030 México D.F . México", (1, 3, "TERRITORIO")),  # a period apart is punctuation
        ("Clínica Sol A.B. Madrid", (0, 3, "HOSPITAL")),  # only places take the period back
        ("Visto por D. Arana ayer", (4, 5, "NOMBRE_SUJETO_ASISTENCIA")),  # `D.` is a title (don)
        (
            "Déficit de vitamina B. Arana refiere",
            (5, 6, "NOMBRE_SUJETO_ASISTENCIA"),
        ),  # after a lower-case word: no initial
    ],
)
def test_clean_entities_are_unchanged(nlp, text, ent):
    doc = nlp.make_doc(text)
    assert run(nlp, text, [ent]) == [(ent[2], doc[ent[0] : ent[1]].text)]


def test_a_town_does_not_run_into_another_entity(nlp):
    text = "Hospital Virgen del Rocío de Sevilla"
    assert run(nlp, text, [(0, 4, "HOSPITAL"), (5, 6, "TERRITORIO")]) == [
        ("HOSPITAL", "Hospital Virgen del Rocío"),
        ("TERRITORIO", "Sevilla"),
    ]
    # `de Sevilla` is held by an entity: the town before it stops
    assert run(nlp, "Utrera de Sevilla", [(0, 1, "TERRITORIO"), (2, 3, "TERRITORIO")]) == [
        ("TERRITORIO", "Utrera"),
        ("TERRITORIO", "Sevilla"),
    ]


def test_a_title_alone_is_kept_and_titles_only_for_names(nlp):
    assert run(nlp, "el Dr. operó", [(1, 2, "NOMBRE_PERSONAL_SANITARIO")]) == [
        ("NOMBRE_PERSONAL_SANITARIO", "Dr.")
    ]
    assert run(nlp, "Calle Doctor Fleming 3", [(0, 4, "CALLE")]) == [
        ("CALLE", "Calle Doctor Fleming 3")
    ]


def test_rule_entities_are_left_alone(nlp):
    assert run(nlp, "Nombre: Dr. Luis .", [], rules=[(2, 5, "NOMBRE_SUJETO_ASISTENCIA")]) == [
        ("NOMBRE_SUJETO_ASISTENCIA", "Dr. Luis .")
    ]


def test_only_punctuation_is_dropped(nlp):
    assert run(nlp, "texto , más", [(1, 2, "HOSPITAL")]) == []


def test_touching_entities_of_one_label_are_joined(nlp):
    # `E-` + `23400`: no two gold entities touch, so a split without a space is the NER's
    assert run(
        nlp,
        "Cruz E-23400 Ubeda",
        [(1, 3, "TERRITORIO"), (3, 4, "TERRITORIO"), (4, 5, "TERRITORIO")],
    ) == [("TERRITORIO", "E-23400"), ("TERRITORIO", "Ubeda")]
    # a space between them, another label, or a rule entity: left apart
    assert run(nlp, "Lugo Llanera", [(0, 1, "TERRITORIO"), (1, 2, "TERRITORIO")]) == [
        ("TERRITORIO", "Lugo"),
        ("TERRITORIO", "Llanera"),
    ]
    assert run(nlp, "E-23400", [(0, 2, "PAIS"), (2, 3, "TERRITORIO")]) == [
        ("PAIS", "E"),
        ("TERRITORIO", "23400"),
    ]
    assert run(nlp, "E-23400", [(0, 2, "TERRITORIO")], rules=[(2, 3, "TERRITORIO")]) == [
        ("TERRITORIO", "E"),
        ("TERRITORIO", "23400"),
    ]
