"""entity_checks: vetoed phrases and numbers whose shape contradicts the label leave
the NER's entities; good entities and rule entities stay."""

import pytest
from conftest import build_rule_nlp
from spacy.tokens import Span


@pytest.fixture(scope="module")
def nlp():
    return build_rule_nlp()


def run(nlp, text, word, label, rule=False):
    doc = nlp.make_doc(text)
    for name in ("sections", "phi_rules", "place_names"):
        doc = nlp.get_pipe(name)(doc)
    i = [t.text for t in doc].index(word)
    span = Span(doc, i, i + 1, label=label)
    doc.ents = [span]
    doc.spans["rule_entities"] = [span] if rule else []
    doc = nlp.get_pipe("entity_checks")(doc)
    return [(e.label_, e.text) for e in doc.ents]


@pytest.mark.parametrize(
    "text,word,label,expected",
    [
        # a profession is not a relative
        (
            "lo remitió su médico de familia al hospital",
            "familia",
            "FAMILIARES_SUJETO_ASISTENCIA",
            [],
        ),
        # years read as places are dates; lab values are nothing
        ("laringitis en 1993 y 1994 tratada", "1994", "TERRITORIO", [("FECHAS", "1994")]),
        ("PSA: agosto 2004: 0.7, febrero 2005", "0.7", "TERRITORIO", []),
        ("leucocitos: 12700 sin neutrofilia", "12700", "FECHAS", []),
        ("ingresó el 123 de mayo", "123", "FECHAS", []),  # neither a day nor a year
        ("Leucocitos de aspecto activado: 6000 (N: 30%)", "6000", "NUMERO_TELEFONO", []),
        (
            "Gran Vía, 87. Barcelona 08014 E-mail",
            "08014",
            "NUMERO_TELEFONO",
            [("TERRITORIO", "08014")],
        ),
        # a country name is a country
        (
            "Avda. Central 12, Pune 411001, India. E-mail",
            "India",
            "TERRITORIO",
            [("PAIS", "India")],
        ),
        ("nacida en Marruecos y adoptada", "Marruecos", "FECHAS", [("PAIS", "Marruecos")]),
    ],
)
def test_contradicted_entities_change(nlp, text, word, label, expected):
    assert run(nlp, text, word, label) == expected


@pytest.mark.parametrize(
    "text,word,label",
    [
        ("vive con su familia en Getafe", "familia", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("C/ Mayor 3 28905 Getafe", "28905", "TERRITORIO"),
        ("ingresó en 1994 por fiebre", "1994", "FECHAS"),
        ("ingresó el 12 de mayo por fiebre", "12", "FECHAS"),  # a day
        ("Hospital de Txagorritxu 01009 Vitoria", "01009", "TERRITORIO"),
        ("fue operado en Madrid en 2001", "Madrid", "TERRITORIO"),
        ("Teléfono: 915304000 para citas", "915304000", "NUMERO_TELEFONO"),
        (
            "la paciente Francia refiere dolor",
            "Francia",
            "NOMBRE_SUJETO_ASISTENCIA",
        ),  # a name, not a country
        ("vive en Chile desde 2001", "Chile", "PAIS"),
    ],
)
def test_good_entities_stay(nlp, text, word, label):
    assert run(nlp, text, word, label) == [(label, word)]


def test_rule_entities_are_not_checked(nlp):
    assert run(nlp, "CP: 0.7", "0.7", "TERRITORIO", rule=True) == [("TERRITORIO", "0.7")]
    assert run(nlp, "Localidad: Italia", "Italia", "TERRITORIO", rule=True) == [
        ("TERRITORIO", "Italia")
    ]


def run_span(nlp, text, first, last, label):
    doc = nlp.make_doc(text)
    for name in ("sections", "phi_rules"):
        doc = nlp.get_pipe(name)(doc)
    words = [t.text for t in doc]
    start = words.index(first)
    doc.ents = [Span(doc, start, words.index(last, start) + 1, label=label)]
    doc.spans["rule_entities"] = []
    doc = nlp.get_pipe("entity_checks")(doc)
    return [(e.label_, e.text) for e in doc.ents]


RUNAWAY = (
    "vive con sus padres en la calle Ramon Rubiales Ferrandiz, 23, sin antecedentes de patología "
    "orgánica, psiquiátrica o abuso de tóxicos, ingresada en neurología por alteraciones de "
    "conducta"
)


def test_a_runaway_street_keeps_its_number(nlp):
    assert run_span(nlp, RUNAWAY, "calle", "conducta", "CALLE") == [
        ("CALLE", "calle Ramon Rubiales Ferrandiz, 23")
    ]


def test_other_runaway_entities_are_dropped(nlp):
    assert run_span(nlp, RUNAWAY, "Ramon", "conducta", "INSTITUCION") == []


def test_a_long_name_is_not_a_runaway(nlp):
    text = "Calle del Alcalde Pedro Durán y López de Castro, 6, 11, A. Madrid"
    assert run_span(nlp, text, "Calle", "A", "CALLE") == [
        ("CALLE", "Calle del Alcalde Pedro Durán y López de Castro, 6, 11, A")
    ]


@pytest.mark.parametrize(
    "text,age,expected",
    [
        ("Vive con su hija, de 12 años, y su marido.", "12 años", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("Su madre de 70 años padece diabetes.", "70 años", "FAMILIARES_SUJETO_ASISTENCIA"),
        (
            "Paciente de 45 años. Su hija le acompaña.",
            "45 años",
            "EDAD_SUJETO_ASISTENCIA",
        ),  # the relative comes after
        (
            "La madre refiere que la niña, de 3 años, tose.",
            "3 años",
            "EDAD_SUJETO_ASISTENCIA",
        ),  # beyond the window
        ("Viu amb el seu germà, de 12 anys.", "12 anys", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("Vive coa súa avoa, de 91 anos.", "91 anos", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("Bere alabak 12 urte ditu.", "12 urte", "FAMILIARES_SUJETO_ASISTENCIA"),
        (
            "Ama de casa de 52 años.",
            "52 años",
            "EDAD_SUJETO_ASISTENCIA",
        ),  # `ama` (Basque mother) is Spanish too
        (
            "Dona de 45 anys que consulta.",
            "45 anys",
            "EDAD_SUJETO_ASISTENCIA",
        ),  # a woman, the patient
    ],
)
def test_age_after_a_kinship_word_is_the_relatives(text, age, expected):
    import spacy

    import meddocan_deid.pipeline.entity_checks  # noqa: F401

    nlp = spacy.blank("es")
    checks = nlp.add_pipe("meddocan_entity_checks")
    doc = nlp.make_doc(text)
    start = text.index(age)
    doc.ents = [doc.char_span(start, start + len(age), label="EDAD_SUJETO_ASISTENCIA")]
    doc = checks(doc)
    assert [(e.text, e.label_) for e in doc.ents] == [(age, expected)]


@pytest.mark.parametrize(
    "text,word,label,expected",
    [
        # an inflected Spanish word in lower case, on a line with capitals, is that word
        ("La analítica que aporta es normal.", "aporta", "TERRITORIO", []),
        ("El paciente refiere dolor lumbar.", "refiere", "NOMBRE_SUJETO_ASISTENCIA", []),
        # a text typed in lower case keeps its names and places
        ("la analítica que aporta es normal.", "aporta", "TERRITORIO", [("TERRITORIO", "aporta")]),
        # capitalised, not an inflected form, or a label the check leaves alone
        ("Vive en Aporta desde niño.", "Aporta", "TERRITORIO", [("TERRITORIO", "Aporta")]),
        (
            "Vive en la calle con su tía rosa.",
            "rosa",
            "NOMBRE_SUJETO_ASISTENCIA",
            [("NOMBRE_SUJETO_ASISTENCIA", "rosa")],
        ),
        (
            "Acude con su madre.",
            "madre",
            "FAMILIARES_SUJETO_ASISTENCIA",
            [("FAMILIARES_SUJETO_ASISTENCIA", "madre")],
        ),
    ],
)
def test_a_common_word_is_not_a_name_or_a_place(nlp, text, word, label, expected):
    assert run(nlp, text, word, label) == expected


def test_a_rule_entity_of_a_common_word_stays(nlp):
    assert run(nlp, "La analítica que aporta es normal.", "aporta", "TERRITORIO", rule=True) == [
        ("TERRITORIO", "aporta")
    ]


@pytest.mark.parametrize(
    "text,word,label,expected",
    [
        # one word opening a sentence that is a conjugated verb, in any case, is that verb
        ("Se cura bien. Nieva en la sierra y no baja.", "Nieva", "TERRITORIO", []),
        ("se cura bien. nieva en la sierra y no baja.", "nieva", "TERRITORIO", []),
        ("SE CURA BIEN. NIEVA EN LA SIERRA Y NO BAJA.", "NIEVA", "TERRITORIO", []),
        # not a verb, not opening a sentence, or a first name the gazetteer knows
        ("Se cura bien. Toledo queda lejos.", "Toledo", "TERRITORIO", [("TERRITORIO", "Toledo")]),
        ("Vive en Nieva desde niño.", "Nieva", "TERRITORIO", [("TERRITORIO", "Nieva")]),
        (
            "Se cura bien. Pablo refiere mejoría.",
            "Pablo",
            "NOMBRE_SUJETO_ASISTENCIA",
            [("NOMBRE_SUJETO_ASISTENCIA", "Pablo")],
        ),
        # one dictionary word read as a hospital on a line without case
        ("nieva en la sierra y no baja.", "sierra", "HOSPITAL", []),
        ("NIEVA EN LA SIERRA Y NO BAJA.", "SIERRA", "HOSPITAL", []),
        ("Ingresa en Sierra desde ayer.", "Sierra", "HOSPITAL", [("HOSPITAL", "Sierra")]),
    ],
)
def test_a_verb_opening_a_sentence_and_a_common_noun_as_hospital(nlp, text, word, label, expected):
    assert run(nlp, text, word, label) == expected


@pytest.mark.parametrize(
    "text,phrase,expected",
    [
        ("Natural de Tolosa, aporta informe.", "Tolosa, aporta", [("TERRITORIO", "Tolosa")]),
        ("reside en tolosa y aporta teléfono", "tolosa y aporta", [("TERRITORIO", "tolosa")]),
        # a place that ends in a word that is no verb stays whole
        (
            "Vive en Puerto de la Cruz hoy.",
            "Puerto de la Cruz",
            [("TERRITORIO", "Puerto de la Cruz")],
        ),
    ],
)
def test_a_place_run_on_into_a_verb_stops_before_it(nlp, text, phrase, expected):
    assert check_place(nlp, text, phrase) == expected


def check_place(nlp, text, phrase):
    """The entities entity_checks leaves of `phrase` read by the NER as a place."""
    doc = nlp.make_doc(text)
    for name in ("sections", "phi_rules", "place_names"):
        doc = nlp.get_pipe(name)(doc)
    start = text.index(phrase)
    doc.ents = [doc.char_span(start, start + len(phrase), label="TERRITORIO")]
    doc.spans["rule_entities"] = []
    doc = nlp.get_pipe("entity_checks")(doc)
    return [(e.label_, e.text) for e in doc.ents]


@pytest.fixture(scope="module")
def place_nlp(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gazetteer")
    (folder / "Municipios (Cities and towns).txt").write_text("El Ejido\nCampo\n", encoding="utf-8")
    return build_rule_nlp(**{"paths.gazetteer": str(folder)})


@pytest.mark.parametrize(
    "text,phrase,expected",
    [
        # an article and dictionary words, not capitalised, read as a place: no named place
        ("Trabaja en el campo y fuma.", "el campo", []),
        ("trabaja en el campo y fuma.", "el campo", []),
        ("TRABAJA EN EL CAMPO Y FUMA.", "EL CAMPO", []),
        ("Vive en el pueblo de sus padres.", "el pueblo", []),
        # a town the gazetteer knows as a phrase, a capitalised place, a word not in the dictionary
        ("Vive en el ejido desde enero.", "el ejido", [("TERRITORIO", "el ejido")]),
        ("Vive en El Campo desde enero.", "El Campo", [("TERRITORIO", "El Campo")]),
        ("Vive en La Línea desde enero.", "La Línea", [("TERRITORIO", "La Línea")]),
        ("vive en la getafe nueva.", "la getafe", [("TERRITORIO", "la getafe")]),
    ],
)
def test_an_article_and_a_common_noun_are_no_place(place_nlp, text, phrase, expected):
    assert check_place(place_nlp, text, phrase) == expected
