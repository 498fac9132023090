"""Numbers in words as dictation writes them: read with their offsets, found by context (ages,
dates, phones, record numbers, postal codes), in lower case and capitals; doses, durations and
counts left alone. Every sentence here is invented."""

import pytest
import spacy

from meddocan_deid.pipeline.number_words import NumberWords


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("es")
    nlp.add_pipe("meddocan_number_words")
    return nlp


def found(nlp, text):
    return [(e.label_, e.text) for e in nlp(text).ents]


# --- what the component finds ------------------------------------------------------------------

AGES = [
    ("Varón de setenta y nueve años que acude por disnea.", "setenta y nueve años"),
    ("Mujer de ochenta y dos años, hipertensa.", "ochenta y dos años"),
    ("paciente de cuarenta y cinco años sin antecedentes", "cuarenta y cinco años"),
    ("Lactante de tres meses con fiebre.", "tres meses"),
    ("Recién nacido de dos días de vida.", "dos días de vida"),
    ("La paciente tiene sesenta y un años.", "sesenta y un años"),
    ("Edad: treinta y ocho años.", "treinta y ocho años"),
    ("Niña de once años traída por su madre.", "once años"),
    ("varón caucásico de noventa y dos años", "noventa y dos años"),
    ("Tenía veintiún años cuando empezó.", "veintiún años"),
]


@pytest.mark.parametrize("text,age", AGES)
def test_ages(nlp, text, age):
    assert found(nlp, text) == [("EDAD_SUJETO_ASISTENCIA", age)]


def test_a_relatives_age_is_the_relatives(nlp):
    assert found(nlp, "Su madre de sesenta y siete años vive con ella.") == [
        ("FAMILIARES_SUJETO_ASISTENCIA", "sesenta y siete años")
    ]


DATES = [
    ("Acude el tres de marzo de dos mil veintiséis.", "tres de marzo de dos mil veintiséis"),
    ("Revisión el día veintidós.", "día veintidós"),
    ("Ingresa el lunes, primero de mayo.", "lunes, primero de mayo"),
    ("Intervenido el quince de agosto del noventa y ocho.", "quince de agosto del noventa y ocho"),
    (
        "Nacido el treinta y uno de diciembre de mil novecientos ochenta y dos.",
        "treinta y uno de diciembre de mil novecientos ochenta y dos",
    ),
    ("Diagnosticado en marzo de dos mil veinte.", "marzo de dos mil veinte"),
    ("Vacunado en el año dos mil diecinueve.", "dos mil diecinueve"),
    ("Cita el martes veinticuatro de junio.", "martes veinticuatro de junio"),
    ("Alta el diez de octubre de 2025.", "diez de octubre de 2025"),
    ("Control el 3 de marzo de dos mil veintiséis.", "3 de marzo de dos mil veintiséis"),
    ("nacido el doce del tres del ochenta y cinco", "doce del tres del ochenta y cinco"),
    (
        "fecha de la cita: doce barra tres barra dos mil veinte",
        "doce barra tres barra dos mil veinte",
    ),
]


@pytest.mark.parametrize("text,date", DATES)
def test_dates(nlp, text, date):
    assert found(nlp, text) == [("FECHAS", date)]


CODES = [
    (
        "Teléfono seis uno cero cuarenta y dos treinta y tres diecinueve.",
        "NUMERO_TELEFONO",
        "seis uno cero cuarenta y dos treinta y tres diecinueve",
    ),
    (
        "móvil de contacto: seiscientos doce, treinta y cuatro, cincuenta y seis, setenta y ocho",
        "NUMERO_TELEFONO",
        "seiscientos doce, treinta y cuatro, cincuenta y seis, setenta y ocho",
    ),
    (
        "llamar al novecientos quince treinta y siete cuarenta y ocho veintiuno",
        "NUMERO_TELEFONO",
        "novecientos quince treinta y siete cuarenta y ocho veintiuno",
    ),
    (
        "Fax nueve uno cinco tres siete cuatro ocho dos uno.",
        "NUMERO_FAX",
        "nueve uno cinco tres siete cuatro ocho dos uno",
    ),
    (
        "teléfono más treinta y cuatro seis uno cero cuarenta y dos treinta y tres diecinueve",
        "NUMERO_TELEFONO",
        "más treinta y cuatro seis uno cero cuarenta y dos treinta y tres diecinueve",
    ),
    (
        "Su hija deja el seis cero cero once veintidós treinta y tres.",
        "NUMERO_TELEFONO",
        "seis cero cero once veintidós treinta y tres",
    ),
    (
        "historia número cuatro cinco ocho dos uno nueve",
        "ID_SUJETO_ASISTENCIA",
        "cuatro cinco ocho dos uno nueve",
    ),
    (
        "NHC: siete siete ocho ocho nueve nueve uno.",
        "ID_SUJETO_ASISTENCIA",
        "siete siete ocho ocho nueve nueve uno",
    ),
    (
        "número de historia clínica cuatrocientos cincuenta y ocho mil doscientos diecinueve",
        "ID_SUJETO_ASISTENCIA",
        "cuatrocientos cincuenta y ocho mil doscientos diecinueve",
    ),
    (
        "tarjeta SIP uno dos tres cuatro cinco seis siete ocho",
        "ID_SUJETO_ASISTENCIA",
        "uno dos tres cuatro cinco seis siete ocho",
    ),
    (
        "DNI cinco uno dos tres cuatro cinco seis siete C",
        "ID_SUJETO_ASISTENCIA",
        "cinco uno dos tres cuatro cinco seis siete C",
    ),
    ("episodio ocho ocho tres uno dos", "ID_CONTACTO_ASISTENCIAL", "ocho ocho tres uno dos"),
    ("código postal veintiocho cero cero nueve", "TERRITORIO", "veintiocho cero cero nueve"),
    (
        "número de colegiado dos ocho tres uno seis cuatro",
        "ID_TITULACION_PERSONAL_SANITARIO",
        "dos ocho tres uno seis cuatro",
    ),
]


@pytest.mark.parametrize("text,label,value", CODES)
def test_codes(nlp, text, label, value):
    assert found(nlp, text) == [(label, value)]


@pytest.mark.parametrize(
    "text", [t for t, _ in AGES[:3]] + [t for t, _ in DATES[:3]] + [t for t, *_ in CODES[:3]]
)
def test_lower_case_and_capitals_alike(nlp, text):
    as_written = found(nlp, text)
    assert [(label, value.lower()) for label, value in found(nlp, text.lower())] == [
        (label, value.lower()) for label, value in as_written
    ]
    assert [(label, value.upper()) for label, value in found(nlp, text.upper())] == [
        (label, value.upper()) for label, value in as_written
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Tomar dos comprimidos tres veces al día.",
        "Hace tres años fue intervenido.",
        "Refiere dolor desde hace dos semanas.",
        "Durante seis meses recibió quimioterapia.",
        "Paciente de cuarenta años de evolución de su diabetes.",
        "Fumador de veinte cigarrillos al día durante treinta años.",
        "Se pautan quinientos miligramos cada ocho horas.",
        "Tres episodios de fiebre en el último mes.",
        "historia de dos años de cefalea",
        "Tras cuatro días de ingreso, mejora.",
        "Al día tres del postoperatorio inicia tolerancia.",
        "Teléfono: no disponible; dos hijos.",
        "tensión ciento veinte ochenta, frecuencia setenta y dos",
        "DNI pendiente; toma uno dos tres comprimidos",
        "Dos de los tres hermanos viven en casa.",
        "peso setenta y nueve kilos, talla ciento setenta",
        "En el año dos de tratamiento.",
        "dos de los tres de cada cuatro",
        "uno de tres de noventa",
        "Un día tres veces y otro día dos.",
        "teléfono: tomar seiscientos doce treinta y cuatro cincuenta y seis setenta y ocho miligramos",
        "historia: cuatro mil quinientas unidades",
        "NHC pendiente. Cuatro, cinco, ocho y dos comprimidos.",
    ],
)
def test_look_alikes_are_left_alone(nlp, text):
    assert found(nlp, text) == []


def test_a_longer_entity_stays_and_a_shorter_one_gives_way(nlp):
    text = "Acude el tres de marzo de dos mil veintiséis con su hija."
    doc = nlp.make_doc(text)
    start = text.index("tres")
    doc.ents = [doc.char_span(start, start + len("tres de marzo"), label="FECHAS")]
    doc = nlp.get_pipe("meddocan_number_words")(doc)
    assert [e.text for e in doc.ents] == ["tres de marzo de dos mil veintiséis"]
    doc = nlp.make_doc(text)
    doc.ents = [
        doc.char_span(start - 3, text.index(" con"), label="FECHAS")
    ]  # `el tres ... veintiséis`
    doc = nlp.get_pipe("meddocan_number_words")(doc)
    assert [e.text for e in doc.ents] == ["el tres de marzo de dos mil veintiséis"]
    assert [s.text for s in doc.spans["number_words"]] == ["tres de marzo de dos mil veintiséis"]


def test_an_identifier_span_stays(nlp):
    text = "historia número cuatro cinco ocho dos uno nueve"
    doc = nlp.make_doc(text)
    start = text.index("cuatro")
    span = doc.char_span(start, start + len("cuatro cinco"), label="OTRO_NUMERO_IDENTIF")
    doc.ents = [span]
    doc.spans["identifiers"] = [span]
    doc = nlp.get_pipe("meddocan_number_words")(doc)
    assert [(e.label_, e.text) for e in doc.ents] == [("OTRO_NUMERO_IDENTIF", "cuatro cinco")]


def test_word_lists_are_config():
    nlp = spacy.blank("es")
    nlp.add_pipe("meddocan_number_words", config={"keys": {"ID_SUJETO_ASISTENCIA": ["expediente"]}})
    assert found(nlp, "expediente cuatro cinco ocho dos uno") == [
        ("ID_SUJETO_ASISTENCIA", "cuatro cinco ocho dos uno")
    ]
    # five digits need a key; six said one by one are a code with or without one
    assert found(nlp, "historia cuatro cinco ocho dos uno") == []
    assert nlp.config["components"]["meddocan_number_words"]["age_units"][:2] == ["anos", "ano"]


def test_in_the_assembled_rule_pipeline(rule_nlp):
    assert "number_words" in rule_nlp.pipe_names
    doc = rule_nlp(
        "Informe clínico del paciente:\nvarón de setenta y nueve años; teléfono seis uno cero "
        "cuarenta y dos treinta y tres diecinueve; acude el tres de marzo de dos mil veintiséis.\n"
    )
    ents = {(e.label_, e.text) for e in doc.ents}
    assert {
        ("EDAD_SUJETO_ASISTENCIA", "setenta y nueve años"),
        ("NUMERO_TELEFONO", "seis uno cero cuarenta y dos treinta y tres diecinueve"),
        ("FECHAS", "tres de marzo de dos mil veintiséis"),
    } <= ents


def test_the_component_class_alone():
    component = NumberWords(spacy.blank("es"), "nw", month_names=["marzo"])
    assert component.find("el tres de marzo") == [(3, 16, "FECHAS")]
