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
        "teléfono: tomar seiscientos doce treinta y cuatro cincuenta y seis setenta y ocho "
        "miligramos",
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


# --- codes with letter names, separators and corrections ---------------------------------------

SPELLED_CODES = [
    (
        "tarjeta sanitaria a ese te cero uno cuatro cinco seis siete ocho coma",
        "ID_SUJETO_ASISTENCIA",
        "a ese te cero uno cuatro cinco seis siete ocho",
    ),
    (
        "NIE equis siete seis cinco cuatro tres dos uno erre punto",
        "ID_SUJETO_ASISTENCIA",
        "equis siete seis cinco cuatro tres dos uno erre",
    ),
    (
        "atestado de la guardia civil número cuatro cero nueve uno barra veintiséis punto",
        "OTROS_SUJETO_ASISTENCIA",
        "cuatro cero nueve uno barra veintiséis",
    ),
    (
        "diligencias previas trescientos doce del veinticinco en el juzgado",
        "OTROS_SUJETO_ASISTENCIA",
        "trescientos doce del veinticinco",
    ),
    (
        "conducía la moto con matrícula cuatro uno dos cinco ka uve jota y chocó",
        "IDENTIF_VEHICULOS_NRSERIE",
        "cuatro uno dos cinco ka uve jota",
    ),
    (
        "marcapasos con número de serie ere ene be cuatro cinco cero seis uno dos ele sin más",
        "IDENTIF_DISPOSITIVOS_NRSERIE",
        "ere ene be cuatro cinco cero seis uno dos ele",
    ),
    (
        "teléfono de contacto de la hija seis uno tres coma veintiuno coma veintidós coma ochenta",
        "NUMERO_TELEFONO",
        "seis uno tres coma veintiuno coma veintidós coma ochenta",
    ),
    (
        "localizable en la extensión treinta y ocho cuarenta y dos punto",
        "NUMERO_TELEFONO",
        "treinta y ocho cuarenta y dos",
    ),
    (
        "número de solicitud quirúrgica QX dos mil veintiséis cero cero cuatro cinco uno dos",
        "ID_CONTACTO_ASISTENCIAL",
        "QX dos mil veintiséis cero cero cuatro cinco uno dos",
    ),
    (
        "el monitor se conecta con IP diez punto cuarenta y seis punto doce punto ciento ocho hoy",
        "IDENTIF_DISPOSITIVOS_NRSERIE",
        "diez punto cuarenta y seis punto doce punto ciento ocho",
    ),
]


@pytest.mark.parametrize("text,label,value", SPELLED_CODES)
def test_codes_with_letter_names_and_separators(nlp, text, label, value):
    assert found(nlp, text) == [(label, value)]


def test_a_key_a_few_words_before_a_long_code(nlp):
    # up to six words (not counting `de`, `la`...) between key and code, in the same sentence
    assert found(
        nlp, "el número de historia para el informe es cuatro cero nueve uno dos siete"
    ) == [("ID_SUJETO_ASISTENCIA", "cuatro cero nueve uno dos siete")]
    # a short code needs its key right before it
    assert found(nlp, "número de historia para el informe es cuatro cero nueve") == []


def test_a_corrected_code_keeps_the_label_of_the_first(nlp):
    text = (
        "SIP cuatro cinco seis cero ocho siete seis uno perdón "
        "cuatro cinco seis cero ocho siete seis dos punto"
    )
    assert found(nlp, text) == [
        ("ID_SUJETO_ASISTENCIA", "cuatro cinco seis cero ocho siete seis uno"),
        ("ID_SUJETO_ASISTENCIA", "cuatro cinco seis cero ocho siete seis dos"),
    ]


def test_codes_without_a_key(nlp):
    # six digits said one by one, or a letter name and three digits in a row
    assert found(nlp, "residente cuatro cero cuatro cuatro uno cero petición") == [
        ("OTRO_NUMERO_IDENTIF", "cuatro cero cuatro cuatro uno cero")
    ]
    assert found(nlp, "referencia interna pe a ce siete siete ocho uno cero nueve sin más") == [
        ("OTRO_NUMERO_IDENTIF", "pe a ce siete siete ocho uno cero nueve")
    ]
    # a weak letter name (`a`, `de`) does not start a code with no key; an age ends one
    assert found(nlp, "historia dos ocho tres uno nueve cero sesenta y dos años") == [
        ("ID_SUJETO_ASISTENCIA", "dos ocho tres uno nueve cero"),
        ("EDAD_SUJETO_ASISTENCIA", "sesenta y dos años"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "G dos P uno A cero sin complicaciones",  # a gestational formula: no three digits in a row
        "estadio te dos ene cero eme cero",  # TNM
        "tensión ciento veinte ochenta setenta y dos latidos",
        "la cama cinco cuatro uno",
        "decimal treinta y ocho punto cinco grados",
    ],
)
def test_code_look_alikes_are_left_alone(nlp, text):
    assert [label for label, _ in found(nlp, text) if label != "EDAD_SUJETO_ASISTENCIA"] == []


# --- streets, roads, addresses said aloud --------------------------------------------------------


@pytest.mark.parametrize(
    "text,value",
    [
        ("domicilio calle regueral dieciocho teléfono", "calle regueral dieciocho"),
        (
            "vive en calle uría cuarenta y tres segundo ce trabaja",
            "calle uría cuarenta y tres segundo ce",
        ),
        ("vive en barrio la maza cuatro con su hija", "barrio la maza cuatro"),
        (
            "visita en carrer de la Reina numero ocho puerta cuatro hoy",
            "carrer de la Reina numero ocho puerta cuatro",
        ),
        (
            "accidente en la carretera as diecinueve a la altura de Veriña",
            "carretera as diecinueve",
        ),
    ],
)
def test_house_numbers_and_roads_in_words(nlp, text, value):
    assert found(nlp, text) == [("CALLE", value)]


def test_a_street_found_runs_on_through_its_number_and_floor(nlp):
    text = "Vive en calle Gonzalo Abarca nueve quinto de Oviedo."
    doc = nlp.make_doc(text)
    doc.ents = [doc.char_span(8, 28, label="CALLE")]  # `calle Gonzalo Abarca`
    doc = nlp.get_pipe("meddocan_number_words")(doc)
    assert [(e.label_, e.text) for e in doc.ents] == [
        ("CALLE", "calle Gonzalo Abarca nueve quinto de")
    ]


def test_a_door_letter_is_no_article(nlp):
    # `a las` after a floor is a time, `de Soria` after a number the town
    assert found(nlp, "vive en calle la muralla doce tercero a las cinco") == [
        ("CALLE", "calle la muralla doce tercero")
    ]


@pytest.mark.parametrize(
    "text,label,value",
    [
        (
            "y correo ana punto gil noventa y dos arroba gmail punto com para",
            "CORREO_ELECTRONICO",
            "ana punto gil noventa y dos arroba gmail punto com",
        ),
        (
            "la web https dos puntos barra barra foro punto salud punto net barra pepe treinta "
            "y uno hoy",
            "DIREC_PROT_INTERNET",
            "https dos puntos barra barra foro punto salud punto net barra pepe treinta y uno",
        ),
    ],
)
def test_addresses_said_aloud(nlp, text, label, value):
    assert found(nlp, text) == [(label, value)]


# --- ages and dates by their context -------------------------------------------------------------


@pytest.mark.parametrize(
    "text,age",
    [
        ("paciente Ana Gil mujer sesenta y tres años historia", "sesenta y tres años"),
        ("a los cincuenta años le diagnosticaron diabetes", "cincuenta años"),
        ("coma cuarenta y siete años coma peluquera", "cuarenta y siete años"),
        ("tiene usted setenta y cuatro años", "setenta y cuatro años"),
        ("Tengo treinta y nueve.", "treinta y nueve"),
        ("edad cincuenta y siete petición", "cincuenta y siete"),
        ("consumo de cocaína desde los veinte ingresos", "veinte"),
        ("el recién nacido con cuarenta y ocho horas de vida", "cuarenta y ocho horas de vida"),
    ],
)
def test_ages_by_their_context(nlp, text, age):
    assert found(nlp, text) == [("EDAD_SUJETO_ASISTENCIA", age)]


def test_an_answer_to_a_question_about_age(nlp):
    text = "MÉDICA: ¿Qué edad tiene su padre?\nHIJO: Ochenta y cuatro, los cumplió en mayo."
    assert found(nlp, text) == [("EDAD_SUJETO_ASISTENCIA", "Ochenta y cuatro")]


@pytest.mark.parametrize(
    "text",
    [
        "convivencia de veinticinco años con su pareja",
        "lleva aquí quince años trabajando",
        "Cuarenta años en la mar.",
        "retirados a los diez días",
        "neutrófilos dos mil cien",
        "ensayo dos mil veintitrés guion cero cero cuatro",
        "la tensión era de ciento cincuenta noventa y cinco",
    ],
)
def test_age_and_year_look_alikes(nlp, text):
    assert found(nlp, text) == []


@pytest.mark.parametrize(
    "text,date",
    [
        ("complicación el día diecinueve en planta", "día diecinueve"),
        ("hallado el sábado cuatro por su pareja", "sábado cuatro"),
        ("no come desde el doce sin motivo", "doce"),
        ("parto el veinticinco a las cuatro", "veinticinco"),
        ("vive allí desde Navidad del dos mil veinticuatro", "Navidad del dos mil veinticuatro"),
        ("operado en dos mil diecinueve y en dos mil veintidós", "dos mil diecinueve"),
    ],
)
def test_dates_by_their_context(nlp, text, date):
    assert found(nlp, text)[0] == ("FECHAS", date)


def test_a_name_run_into_an_age_is_cut_back(nlp):
    text = "paciente Ana Gil setenta y dos años historia"
    doc = nlp.make_doc(text)
    doc.ents = [doc.char_span(9, 24, label="NOMBRE_SUJETO_ASISTENCIA")]  # `Ana Gil setenta`
    doc = nlp.get_pipe("meddocan_number_words")(doc)
    assert [(e.label_, e.text) for e in doc.ents] == [
        ("NOMBRE_SUJETO_ASISTENCIA", "Ana Gil"),
        ("EDAD_SUJETO_ASISTENCIA", "setenta y dos años"),
    ]


def test_bad_word_list_lines_are_named():
    with pytest.raises(ValueError, match="letter_names"):
        NumberWords(spacy.blank("es"), "nw", letter_names=["be"])
    with pytest.raises(ValueError, match="code_separators"):
        NumberWords(spacy.blank("es"), "nw", code_separators=["barra /"])
