"""Header and footer rules (phi_rules span_ruler + meddocan_rule_entities) on
invented reports: the entity is the value only (no key, no title, no trailing
punctuation), and each rule applies only inside its own section."""

import pytest

HEADER = """Datos del paciente.
Nombre: María José.
Apellidos: García-Lorca Pérez.
NHC: 4567321.
CIPA: nhc-248135.
NASS: 26 80427163.
Domicilio: C/ Olmo, 7.
Localidad/ Provincia: Tolosa, Gipuzkoa.
CP:28029
Fecha de nacimiento: 12/03/1962.
País: España.
Edad: 16 años
Sexo: H.
Fecha de Ingreso: 19/11/2016.
Episodio: 0098712.
Médico: Dr. Luis Albarrán Tejero  NºCol: 28 31 64120.
"""

BODY = """
Informe clínico del paciente: varón que acude por dolor abdominal de tres días.
Nombre: pendiente de confirmar Pedro Gil Sanz.
Sexo: M.
Se contacta con el laboratorio en resultados@laboratorio.es y en el Teléfono: 600 123 456.
Código 28031 del protocolo.

"""

FOOTER = """Remitido por: Dra. Ana Sol Pardo. Servicio de Urología. Hospital Central.
C/ Eduardo Rosales, 3. 28045 Madrid.
Correo electrónico: asol@hcentral.es
Fax: 987 41 06 58
Teléfono: 915 37 48 21
Tfno.+34 945118273
"""

REPORT = HEADER + BODY + FOOTER


@pytest.fixture(scope="module")
def doc(rule_nlp):
    return rule_nlp(REPORT)


@pytest.fixture(scope="module")
def doc_all_footer(rule_nlp_all_footer):
    return rule_nlp_all_footer(REPORT)


def footer_enabled(nlp, label):
    allowed = nlp.get_pipe("rule_entities").footer_labels
    return allowed is None or label in allowed


def ents(doc, key=None):
    spans = doc.ents if key is None else doc.spans[key]
    if (
        key == "rule_entities"
    ):  # this component's own entities: the field values join that group later
        spans = own_rule_entities(doc)
    return [(e.label_, e.text) for e in spans]


def own_rule_entities(doc):
    """The rule entities that `rule_entities` wrote (the `fields` component adds its keyed
    values, in any section, to the same group)."""
    fields = {(s.start, s.end, s.label) for s in doc.spans.get("fields", [])}
    return [s for s in doc.spans["rule_entities"] if (s.start, s.end, s.label) not in fields]


def section_text(doc, label):
    return next(s for s in doc.spans["sections"] if s.label_ == label)


HEADER_EXPECTED = [
    ("NOMBRE_SUJETO_ASISTENCIA", "María José"),
    ("NOMBRE_SUJETO_ASISTENCIA", "García-Lorca Pérez"),
    ("ID_SUJETO_ASISTENCIA", "4567321"),
    ("ID_SUJETO_ASISTENCIA", "248135"),
    ("ID_ASEGURAMIENTO", "26 80427163"),
    ("CALLE", "C/ Olmo, 7"),
    ("TERRITORIO", "Tolosa"),
    ("TERRITORIO", "Gipuzkoa"),
    ("TERRITORIO", "28029"),
    ("FECHAS", "12/03/1962"),
    ("PAIS", "España"),
    ("EDAD_SUJETO_ASISTENCIA", "16 años"),
    ("SEXO_SUJETO_ASISTENCIA", "H"),
    ("FECHAS", "19/11/2016"),
    ("ID_CONTACTO_ASISTENCIAL", "0098712"),
    ("NOMBRE_PERSONAL_SANITARIO", "Luis Albarrán Tejero"),
    ("ID_TITULACION_PERSONAL_SANITARIO", "28 31 64120"),
]

FOOTER_EXPECTED = [
    ("CALLE", "C/ Eduardo Rosales, 3"),
    ("TERRITORIO", "28045"),
    ("CORREO_ELECTRONICO", "asol@hcentral.es"),
    ("NUMERO_FAX", "987 41 06 58"),
    ("NUMERO_TELEFONO", "915 37 48 21"),
    ("NUMERO_TELEFONO", "34 945118273"),
]


def test_sections_of_the_test_report(doc):
    assert [s.label_ for s in doc.spans["sections"]] == ["header", "body", "footer"]
    assert section_text(doc, "body").text.startswith("Informe clínico")
    assert section_text(doc, "footer").text.startswith("Remitido por")


def test_rule_entities_exactly(rule_nlp, doc):
    footer = [e for e in FOOTER_EXPECTED if footer_enabled(rule_nlp, e[0])]
    assert ents(doc, "rule_entities") == HEADER_EXPECTED + footer


def test_rule_entities_exactly_with_all_footer_rules(doc_all_footer):
    assert ents(doc_all_footer, "rule_entities") == HEADER_EXPECTED + FOOTER_EXPECTED


@pytest.mark.parametrize("label,text", HEADER_EXPECTED + FOOTER_EXPECTED)
def test_rule_entity_in_ents(rule_nlp, doc, doc_all_footer, label, text):
    assert (label, text) in ents(doc_all_footer)
    if footer_enabled(rule_nlp, label) or (label, text) in HEADER_EXPECTED:
        assert (label, text) in ents(doc)


def test_configured_footer_labels_are_respected(rule_nlp, doc):
    footer = section_text(doc, "footer")
    for span in own_rule_entities(doc):
        if footer.start <= span.start < footer.end:
            assert footer_enabled(rule_nlp, span.label_)


def test_values_have_no_key_title_or_edge_punctuation(doc):
    keys = {
        "nombre",
        "apellidos",
        "sexo",
        "edad",
        "nºcol",
        "cipa",
        "nhc",
        "cp",
        "médico",
        "dr.",
        "dra.",
    }
    for span in own_rule_entities(doc):
        assert span[0].lower_ not in keys
        assert span[-1].text not in {".", ",", ":", ";", "-"}
        assert not span.text[0].isspace() and not span.text[-1].isspace()


@pytest.mark.parametrize(
    "label,text",
    [
        ("NOMBRE_SUJETO_ASISTENCIA", "Pedro Gil Sanz"),  # header key used in the body
        ("SEXO_SUJETO_ASISTENCIA", "M"),
        ("CORREO_ELECTRONICO", "resultados@laboratorio.es"),  # footer rule, body e-mail
        ("NUMERO_TELEFONO", "600 123 456"),
        ("TERRITORIO", "28031"),
    ],
)
@pytest.mark.parametrize("which", ["doc", "doc_all_footer"])
def test_rules_do_not_fire_in_the_body(request, which, label, text):
    doc = request.getfixturevalue(which)
    body = section_text(doc, "body")
    # body e-mails and phones are the identifiers component's, not the footer rules'
    # nor the keyed values that `fields` finds in any section (`Sexo: M` in the body is PHI)
    others = {(s.start, s.end) for key in ("identifiers", "fields") for s in doc.spans.get(key, [])}
    for spans in (own_rule_entities(doc), [e for e in doc.ents if (e.start, e.end) not in others]):
        inside = [(e.label_, e.text) for e in spans if body.start <= e.start and e.end <= body.end]
        assert (label, text) not in inside
    # the rule matcher did see the candidate; the section restriction dropped it
    assert any(body.start <= c.start < body.end for c in doc.spans["phi_rules"])


@pytest.mark.parametrize("which", ["doc", "doc_all_footer"])
def test_body_has_no_rule_entities(request, which):
    doc = request.getfixturevalue(which)
    body = section_text(doc, "body")
    assert [e for e in own_rule_entities(doc) if body.start <= e.start < body.end] == []


@pytest.mark.parametrize(
    "line,expected",
    [
        ("Nombre: María José.", [("NOMBRE_SUJETO_ASISTENCIA", "María José")]),
        ("Apellidos: García-Lorca Pérez.", [("NOMBRE_SUJETO_ASISTENCIA", "García-Lorca Pérez")]),
        ("Sexo: H.", [("SEXO_SUJETO_ASISTENCIA", "H")]),
        ("Sexo: Mujer.", [("SEXO_SUJETO_ASISTENCIA", "Mujer")]),
        ("Edad: 16 años", [("EDAD_SUJETO_ASISTENCIA", "16 años")]),
        ("NºCol: 28 31 64120", [("ID_TITULACION_PERSONAL_SANITARIO", "28 31 64120")]),
        (
            "Médico: Dr. Luis Albarrán Tejero  NºCol: 28 31 64120.",
            [
                ("NOMBRE_PERSONAL_SANITARIO", "Luis Albarrán Tejero"),
                ("ID_TITULACION_PERSONAL_SANITARIO", "28 31 64120"),
            ],
        ),
        (
            "Médico: Dra. Ana Sol NºCol: 12 34 56789",
            [
                ("NOMBRE_PERSONAL_SANITARIO", "Ana Sol"),
                ("ID_TITULACION_PERSONAL_SANITARIO", "12 34 56789"),
            ],
        ),
        (
            "Médico: Luis Gil MartínezNºCol: 49",
            [
                ("NOMBRE_PERSONAL_SANITARIO", "Luis Gil Martínez"),
                ("ID_TITULACION_PERSONAL_SANITARIO", "49"),
            ],
        ),
        ("CIPA: nhc-248135.", [("ID_SUJETO_ASISTENCIA", "248135")]),
        ("NHC: 4567321.", [("ID_SUJETO_ASISTENCIA", "4567321")]),
        ("NASS: 26 80427163.", [("ID_ASEGURAMIENTO", "26 80427163")]),
        (
            "Localidad/ Provincia: Tolosa, Gipuzkoa.",
            [("TERRITORIO", "Tolosa"), ("TERRITORIO", "Gipuzkoa")],
        ),
        (
            "Localidad/ Provincia: Getafe - Madrid.",
            [("TERRITORIO", "Getafe"), ("TERRITORIO", "Madrid")],
        ),
        ("Localidad/ Provincia: Vitoria-Gasteiz.", [("TERRITORIO", "Vitoria-Gasteiz")]),
        (
            "Localidad/ Provincia: Monterrey. Nuevo León.",
            [("TERRITORIO", "Monterrey"), ("TERRITORIO", "Nuevo León")],
        ),
        ("Localidad/ Provincia: Cdad. Real.", [("TERRITORIO", "Cdad. Real")]),
        ("CP:28029", [("TERRITORIO", "28029")]),
        ("CP: 28029.", [("TERRITORIO", "28029")]),
        ("Domicilio: Calle Mayor, 12, 3º B.", [("CALLE", "Calle Mayor, 12, 3º B")]),
        ("Fecha de nacimiento: 12/03/1962.", [("FECHAS", "12/03/1962")]),
        ("Fecha de Ingreso:19/11/2016", [("FECHAS", "19/11/2016")]),
        # the hour is not part of the date (N6.1)
        ("Fecha de Ingreso: 19/11/2016 a las 10:30.", [("FECHAS", "19/11/2016")]),
        ("Fecha de alta: 02/04/2021, 8:05 h", [("FECHAS", "02/04/2021")]),
        ("País: España.", [("PAIS", "España")]),
        # no value: nothing, and no crash
        ("Nombre: .", []),
        ("Sexo:", []),
        ("CIPA: no consta.", []),
    ],
)
def test_header_line(rule_nlp, line, expected):
    doc = rule_nlp("Datos del paciente.\n" + line + "\n\nInforme clínico: sin hallazgos.\n")
    assert [s.label_ for s in doc.spans["sections"]][0] == "header"
    assert ents(doc, "rule_entities") == expected


@pytest.mark.parametrize(
    "line,expected",
    [
        (
            "Correo electrónico: ana.sol@hcentral.es",
            [("CORREO_ELECTRONICO", "ana.sol@hcentral.es")],
        ),
        ("Email:x@y.com", [("CORREO_ELECTRONICO", "x@y.com")]),
        ("Fax: 987 41 06 58", [("NUMERO_FAX", "987 41 06 58")]),
        ("Fax. 987-237-392.", [("NUMERO_FAX", "987-237-392")]),
        ("Teléfono: 915 37 48 21", [("NUMERO_TELEFONO", "915 37 48 21")]),
        ("Tfno.+34 945118273", [("NUMERO_TELEFONO", "34 945118273")]),
        (
            "Teléfono: 915 37 48 21 Fax: 915 20 22 01",
            [("NUMERO_TELEFONO", "915 37 48 21"), ("NUMERO_FAX", "915 20 22 01")],
        ),
        ("C/ Eduardo Rosales, 3", [("CALLE", "C/ Eduardo Rosales, 3")]),
        ("Avda. de la Paz s/n", [("CALLE", "Avda. de la Paz s/n")]),
        ("Plaza Mayor, S/N.", [("CALLE", "Plaza Mayor, S/N")]),
        (
            "Boulevard Marie Curie, 32. 29071 Málaga",
            [("CALLE", "Boulevard Marie Curie, 32"), ("TERRITORIO", "29071")],
        ),
        ("Carrer de Sant Quintí, 89", [("CALLE", "Carrer de Sant Quintí, 89")]),
        ("28029 Madrid", [("TERRITORIO", "28029")]),
        # not PHI by these rules
        ("Fax: no disponible", []),
        ("Teléfono:", []),
        ("Servicio de Urología, planta 99999.", []),
    ],
)
def test_footer_line(rule_nlp, rule_nlp_all_footer, line, expected):
    text = "Informe clínico: sin hallazgos.\n\nRemitido por: Servicio de Urología.\n" + line + "\n"
    doc = rule_nlp_all_footer(text)
    assert [s.label_ for s in doc.spans["sections"]] == ["body", "footer"]
    assert ents(doc, "rule_entities") == expected
    # the shipped config writes only its footer_labels
    assert ents(rule_nlp(text), "rule_entities") == [
        e for e in expected if footer_enabled(rule_nlp, e[0])
    ]


@pytest.mark.parametrize(
    "line",
    [
        "Nombre: Pedro Gil.",
        "Edad: 16 años",
        "Sexo: H.",
        "NºCol: 28 31 64120",
    ],
)
def test_header_key_without_header_section_is_not_labelled(rule_nlp, line):
    # a report with no header: the key is in the body, so the header rule does not apply...
    doc = rule_nlp("Informe clínico: paciente estable.\n" + line + "\n")
    assert [s.label_ for s in doc.spans["sections"]] == ["body"]
    assert own_rule_entities(doc) == []
    # ...but the value is PHI all the same: the fields component (any section) or the
    # identifiers (`NºCol: 28 31 64120`, every section) label it
    assert list(doc.ents) and all(
        e in doc.spans["fields"] or e in doc.spans["identifiers"] for e in doc.ents
    )


def test_footer_key_in_header_is_not_labelled(rule_nlp):
    doc = rule_nlp("Datos del paciente.\nNombre: Ana.\nTeléfono: 600 123 456\nInforme clínico.\n")
    assert ("NUMERO_TELEFONO", "600 123 456") not in ents(doc, "rule_entities")
    # the phone is still PHI: the identifiers component labels it in any section
    assert ("NUMERO_TELEFONO", "600 123 456") in ents(doc, "identifiers")


def test_ents_and_rule_entities_agree(doc):
    assert set(ents(doc, "rule_entities")) <= set(ents(doc))
    for span in doc.spans["rule_entities"]:
        assert doc[span.start].ent_iob_ == "B"
        assert doc[span.start].ent_type_ == span.label_


# Unambiguous date formats (`any/match` patterns) are entities in every section.
@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("El 23-8-06 se colocó un catéter.", "23-8-06"),
        ("Ingresó el 18/06/2013 por fiebre.", "18/06/2013"),
        ("TC torácica (18/10/05) sin hallazgos.", "18/10/05"),
        ("Revisión el 4.8.2004 en consulta.", "4.8.2004"),
        ("Falleció el 17 de marzo de 2003.", "17 de marzo de 2003"),
        ("Operado el 3 de Junio del 1998 sin incidencias.", "3 de Junio del 1998"),
        ("Recibió RT en octubre de 2005.", "octubre de 2005"),
        ("Desde Marzo 2001 asintomático.", "Marzo 2001"),
        ("En febrero y abril de 2005 acude a urgencias.", "febrero y abril de 2005"),
        ("Hospitalización en octubre-09 por infección.", "octubre-09"),
        ("Se retiró en sep-04, al disponer de una FAVI.", "sep-04"),
        ("El 12-enero-2006 se le implantó un catéter.", "12-enero-2006"),
    ],
)
def test_body_date(rule_nlp, sentence, expected):
    doc = rule_nlp("Informe clínico del paciente: varón de 50 años.\n" + sentence)
    assert [(e.label_, e.text) for e in doc.ents if e.label_ == "FECHAS"] == [("FECHAS", expected)]


@pytest.mark.parametrize(
    "sentence",
    [
        "Morfina 10-0-10 mg al día.",  # a dosing schedule: month 0
        "EVA 2-3/10 en los controles.",  # two numbers and a ratio
        "Ciclos 35/14/2 de quimioterapia.",  # day 35
        "Plaquetas 12/13/2001 según otra escala.",  # month 13
        "Leucocitos 12700 y plaquetas 291000.",
        "Se vio en mayo de este año.",  # no year: left to the NER
        "Dieta mayo-2 sin cambios.",  # one digit is no year
    ],
)
def test_not_a_body_date(rule_nlp, sentence):
    doc = rule_nlp("Informe clínico del paciente: varón de 50 años.\n" + sentence)
    assert [e for e in doc.ents if e.label_ == "FECHAS"] == []


# A regional health service (`Servicio <X> de Salud`), an institute of legal medicine, a
# university and a faculty (`any/match` patterns) are institutions in every section; a
# hospital department is not.
@pytest.mark.parametrize(
    "sentence,expected",
    [
        (
            "Hospital Comarcal Servicio Castellano-Leonés de Salud Servicio de Urología",
            ["Servicio Castellano-Leonés de Salud"],
        ),
        (
            "Remitido desde el Servicio Canario de la Salud para estudio.",
            ["Servicio Canario de la Salud"],
        ),
        ("Valorado en el Servicio de Urología por hematuria.", []),
        ("Consulta en el servicio andaluz de salud.", []),  # lowercase: left to the NER
        (
            "Dra. Ana Soto Institut de Medicina Legal de Catalunya Servei de Patologia",
            ["Institut de Medicina Legal de Catalunya"],
        ),
        ("Instituto Vasco de Medicina Legal c/ Barroeta", ["Instituto Vasco de Medicina Legal"]),
        (
            "Instituto de Medicina Legal de la Comunidad",
            ["Instituto de Medicina Legal"],
        ),  # no dangling `de`
        ("Remitido al instituto de medicina legal.", []),
        ("Tratado de Medicina Legal y Forense.", []),
        (
            "Facultad de Medicina. Universidad de Málaga Boulevard Marie Curie, 32.",
            ["Facultad de Medicina", "Universidad de Málaga"],
        ),
        ("Universidad Central de Venezuela", ["Universidad Central de Venezuela"]),
        (
            "Facultad de Medicina y Odontología. Universidad de Valencia",
            ["Facultad de Medicina y Odontología", "Universidad de Valencia"],
        ),
        (
            "Facultad de Ciencias de la Salud, Universidad de Granada.",
            ["Facultad de Ciencias de la Salud", "Universidad de Granada"],
        ),
        (
            "Facultad de Medicina de la universidad local",
            ["Facultad de Medicina"],
        ),  # no dangling `de la`
        ("Estudia en la universidad de su ciudad.", []),
        ("Servicio de Radiología Clínica Universidad de Navarra", []),  # a hospital (below)
    ],
)
def test_health_service(rule_nlp, sentence, expected):
    doc = rule_nlp("Informe clínico del paciente: varón de 50 años.\n" + sentence)
    assert [e.text for e in doc.ents if e.label_ == "INSTITUCION"] == expected


# A university hospital named after its university is a hospital, not an institution.
@pytest.mark.parametrize(
    "sentence,expected",
    [
        (
            "Servicio de Radiología Clínica Universidad de Navarra Avda. Pío XII",
            ["Clínica Universidad de Navarra"],
        ),
        (
            "Servicio de Urología del Hospital Clínico Universidad de Chile y Hospital San José.",
            ["Hospital Clínico Universidad de Chile"],
        ),
    ],
)
def test_university_hospital(rule_nlp, sentence, expected):
    doc = rule_nlp("Informe clínico del paciente: varón de 50 años.\n" + sentence)
    assert [e.text for e in doc.ents if e.label_ == "HOSPITAL"] == expected
    assert not [e for e in doc.ents if e.label_ == "INSTITUCION"]


# Ages of the patient (`any/age` patterns); a relative's age is left to the NER.
@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Niña de 3 meses que acude por fiebre.", ["3 meses"]),
        ("Varón de 45 años, fumador.", ["45 años"]),
        ("Lactante de tres meses y medio de edad.", ["tres meses y medio"]),
        ("Paciente de 4 años y 2 meses de edad, sin antecedentes.", ["4 años y 2 meses"]),
        ("Onfalorrexis a los 14 días de vida.", ["14 días"]),
        ("Niña de un mes y medio de vida.", ["un mes y medio"]),
        ("Fue diagnosticada a la edad de 10 años de calcificaciones.", ["10 años"]),
        ("A la edad de 6 meses presentaba una masa.", ["6 meses"]),
        # relatives
        ("madre de 31 años de edad y padre de 36.", []),
        ("vive con su mujer de 87 años.", []),
        ("hermano mayor de 8 años de edad.", []),
        # not an age
        ("Ex fumador de 8 años.", []),
        ("Dolor de 3 días de evolución.", []),
        ("a la edad de piedra", []),
    ],
)
def test_body_age(rule_nlp, sentence, expected):
    doc = rule_nlp("Informe clínico del paciente:\n" + sentence)
    assert [e.text for e in doc.ents if e.label_ == "EDAD_SUJETO_ASISTENCIA"] == expected


# Relatives after a possessive (`any/relative` patterns): the entity is the relative.
@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Acude con su esposa, que refiere fiebre.", ["esposa"]),
        ("Su hermana mayor no es portadora.", ["hermana mayor"]),
        ("Sus padres no son consanguíneos.", ["padres"]),
        ("La madre refiere fiebre.", []),  # no possessive: left to the NER
        ("Lo remitió su médico de familia.", []),
    ],
)
def test_body_relative(rule_nlp, sentence, expected):
    doc = rule_nlp("Informe clínico del paciente:\n" + sentence)
    assert [e.text for e in doc.ents if e.label_ == "FAMILIARES_SUJETO_ASISTENCIA"] == expected


# Population groups and sexual orientations of the patient (`any/group` patterns,
# guideline P17.2-3): the entity is the group, `raza` included, the context word not.
@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Mujer ecuatoriana de 65 años, sin antecedentes.", ["ecuatoriana"]),
        ("Paciente masculino negro de 39 años.", ["negro"]),
        ("Varón de 49 años, peruano, con residencia en Madrid.", ["peruano"]),
        ("Hombre de 52 años, de raza blanca, que consulta.", ["raza blanca"]),
        ("Varón de 30 años de procedencia subsahariana.", ["subsahariana"]),
        ("Mujer de 27 años de nacionalidad Alemana.", ["Alemana"]),
        ("Refiere hábito homosexual.", ["homosexual"]),
        # not a group of the patient
        ("Lesiones en la sustancia blanca periventricular.", []),
        ("Heces negras desde hace dos días.", []),
        ("Mujer de 40 años, de nacionalidad Argentina.", []),  # a country: left to the NER
        ("Remitida por el Instituto Colombiano de Bienestar.", []),
    ],
)
def test_body_group(rule_nlp, sentence, expected):
    doc = rule_nlp("Informe clínico del paciente:\n" + sentence)
    assert [e.text for e in doc.ents if e.label_ == "ID_SUJETO_ASISTENCIA"] == expected


# Names of relatives (`any/relative_name` patterns, guideline P4.1): the name after a
# kinship word is the relative's PHI, labelled FAMILIARES, not the patient's name.
@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Acude acompañada de su madre Carmen y su hermano Juan.", ["Carmen", "Juan"]),
        ("Según su esposo, Diego Maldonado Jiménez, no tomaba nada.", ["Diego Maldonado Jiménez"]),
        ("Nódulo similar al de la hermana María José.", ["María José"]),
        ("Serología de la madre Rh negativo.", []),  # a two-letter abbreviation, not a name
        ("La madre refiere fiebre.", []),
        ("Madre Teresa de Calcuta.", []),  # a capitalised kinship word is not a kinship context
        # Catalan, Galician and Basque kinship words
        ("Ve acompanyada del seu germà Pau i de la seva néta Laia.", ["Pau", "Laia"]),
        ("Acode coa súa irmá Uxía e o seu xenro Brais.", ["Uxía", "Brais"]),
        ("Bere alaba Ane eta bere senarra Koldo etorri dira.", ["Ane", "Koldo"]),
        ("La mare de la pacient refereix febre.", []),
    ],
)
def test_body_relative_name(rule_nlp, sentence, expected):
    doc = rule_nlp("Informe clínico del paciente:\n" + sentence)
    names = [
        e.text for e in doc.ents if e.label_ == "FAMILIARES_SUJETO_ASISTENCIA" and e[0].is_title
    ]
    assert names == expected


# Ages of relatives (`any/relative_age` patterns, guideline P4.3): the age is the
# relative's PHI, labelled FAMILIARES; the relative word is left to the NER.
@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Hijo de padres jóvenes (madre de 29 años y padre de 33 años).", ["29 años", "33 años"]),
        ("Hermano mayor de 65 años con la misma mutación.", ["65 años"]),
        ("Acude con su madre Carmen y su hermano Juan de 2 años de edad.", ["2 años"]),
        ("Varón de 45 años, fumador.", []),  # the patient's age
        ("Su madre padece diabetes desde hace 10 años.", []),
        ("La seva àvia de 90 anys i el seu germà de 12 anys.", ["90 anys", "12 anys"]),
        ("A súa nai de 88 anos vive soa.", ["88 anos"]),
        (
            "Dona de 45 anys, fumadora.",
            [],
        ),  # the patient's age: `dona` (woman) is no kinship word here
    ],
)
def test_body_relative_age(rule_nlp, sentence, expected):
    doc = rule_nlp("Informe clínico del paciente:\n" + sentence)
    ages = [
        e.text for e in doc.ents if e.label_ == "FAMILIARES_SUJETO_ASISTENCIA" and e[0].like_num
    ]
    assert ages == expected
    assert not [e for e in doc.ents if e.label_ == "EDAD_SUJETO_ASISTENCIA" and e.text in expected]


# A month alone after en/desde/hasta/durante (`any/month` patterns, guideline P6.2);
# a month with a year after it stays whole (the longer date patterns), and a month
# followed by `de` is left to the NER.
@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Consulta en junio por una tumoración azulada.", ["junio"]),
        ("Se utilizó desde septiembre hasta el 24-11-06.", ["septiembre", "24-11-06"]),
        ("En enero-04 se implantó un catéter.", ["enero-04"]),
        ("En marzo 2014 inició tratamiento.", ["marzo 2014"]),
        ("En noviembre de ese mismo año se operó.", []),
        ("Fue remitido al Hospital 12 de Octubre.", []),
    ],
)
def test_body_month(rule_nlp, sentence, expected):
    doc = rule_nlp("Informe clínico del paciente:\n" + sentence)
    assert [e.text for e in doc.ents if e.label_ == "FECHAS"] == expected
