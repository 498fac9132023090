"""The fields component: keyed PHI in any layout and section (invented reports)."""

import pytest
from conftest import build_rule_nlp

from meddocan_deid.lexicon import lower_without_accents as fold
from meddocan_deid.pipeline.fields import Fields, KeyTable, key_regex, validate_entries


def values(nlp, text):
    doc = nlp(text)
    return [(s.label_, s.text) for s in doc.spans["fields"]]


def ents(nlp, text):
    return [(e.label_, e.text) for e in nlp(text).ents]


@pytest.mark.parametrize(
    "text,expected",
    [
        (
            "Nº de acceso (PACS): ACC2024771\n",
            [("ID_CONTACTO_ASISTENCIAL", "ACC2024771")],
        ),  # a note in brackets before the colon
        ("Código de barras: 8400011122233\n", [("ID_CONTACTO_ASISTENCIAL", "8400011122233")]),
        # `Key: value` and `KEY: VALUE`, several keys on one line
        (
            "Paciente: Ana Ruiz Gil\nNHC: 1234567   Edad: 76 años   Sexo: Mujer\n",
            [
                ("NOMBRE_SUJETO_ASISTENCIA", "Ana Ruiz Gil"),
                ("ID_SUJETO_ASISTENCIA", "1234567"),
                ("EDAD_SUJETO_ASISTENCIA", "76 años"),
                ("SEXO_SUJETO_ASISTENCIA", "Mujer"),
            ],
        ),
        (
            "PACIENTE: RUIZ GIL, ANA\nFECHA DE NACIMIENTO: 12/03/1950\n",
            [
                ("NOMBRE_SUJETO_ASISTENCIA", "RUIZ GIL"),
                ("NOMBRE_SUJETO_ASISTENCIA", "ANA"),
                ("FECHAS", "12/03/1950"),
            ],
        ),
        # Key<TAB>value
        (
            "NHC\t7788991\nCIP\tABCD123456789012\n",
            [("ID_SUJETO_ASISTENCIA", "7788991"), ("ID_SUJETO_ASISTENCIA", "ABCD123456789012")],
        ),
        # `Key | value | Key | value` rows
        (
            "Paciente | Juan Pérez Gómez | NHC | 445566 |\nCama | 412-B | Episodio | 99887766\n",
            [
                ("NOMBRE_SUJETO_ASISTENCIA", "Juan Pérez Gómez"),
                ("ID_SUJETO_ASISTENCIA", "445566"),
                ("OTROS_SUJETO_ASISTENCIA", "412-B"),
                ("ID_CONTACTO_ASISTENCIAL", "99887766"),
            ],
        ),
        # a key and its value on consecutive lines
        (
            "Nombre y apellidos\nJosé Antonio Martín Sáez\nFecha de ingreso\n2024-04-14\n",
            [("NOMBRE_SUJETO_ASISTENCIA", "José Antonio Martín Sáez"), ("FECHAS", "2024-04-14")],
        ),
        # dates: a time of day is never part of the date (N6.1); Roman-numeral months
        (
            "Fecha de ingreso: 2024-04-14 10:32   Fecha de alta: 3-IV-2024\n",
            [("FECHAS", "2024-04-14"), ("FECHAS", "3-IV-2024")],
        ),
        # titles stay out of a name (N1.1, N5.1); the collegiate number is its own entity
        (
            "Médico responsable: Dra. María del Carmen López-Sanz (Nº Col. 28/123456)\n",
            [
                ("NOMBRE_PERSONAL_SANITARIO", "María del Carmen López-Sanz"),
                ("ID_TITULACION_PERSONAL_SANITARIO", "28/123456"),
            ],
        ),
        # a street up to its postal code; the postal code and the town are two places
        (
            "INFORME DE ALTA\nDomicilio: C/ Mayor 5, 3º B, 28001 Madrid\n",
            [("CALLE", "C/ Mayor 5, 3º B"), ("TERRITORIO", "28001"), ("TERRITORIO", "Madrid")],
        ),
        ("Localidad: Getafe (Madrid)\n", [("TERRITORIO", "Getafe"), ("TERRITORIO", "Madrid")]),
        # centres, insurers, professions, relatives
        (
            "Centro de salud: CS Delicias\nMutua: Fremap\nProfesión: albañil\n",
            [("CENTRO_SALUD", "CS Delicias"), ("INSTITUCION", "Fremap"), ("PROFESION", "albañil")],
        ),
        (
            "Persona de contacto: Pedro Ruiz (hijo)\n",
            [("FAMILIARES_SUJETO_ASISTENCIA", "Pedro Ruiz")],
        ),
        # key phrases in prose, then an identifier-like value within a few words
        (
            "La paciente, identificada con el número de historia clínica 7788991, acude con DNI "
            "12345678Z.\n",
            [("ID_SUJETO_ASISTENCIA", "7788991"), ("ID_SUJETO_ASISTENCIA", "12345678Z")],
        ),
        (
            "Firmado electrónicamente por Dr. Luis Gil Roca el 14/04/2024.\n",
            [("NOMBRE_PERSONAL_SANITARIO", "Luis Gil Roca")],
        ),
        # signature and salutation cues
        (
            "Atentamente,\n\nDra. Elena Vidal Puig\nServicio de Cardiología\n",
            [("NOMBRE_PERSONAL_SANITARIO", "Elena Vidal Puig")],
        ),
        ("Estimada Sra. Ruiz:\nLe escribimos.\n", [("NOMBRE_SUJETO_ASISTENCIA", "Ruiz")]),
        ("Estimado Dr. Gil:\nLe remito a la paciente.\n", [("NOMBRE_PERSONAL_SANITARIO", "Gil")]),
        ("Fdo.: J.R.G.\n", [("NOMBRE_PERSONAL_SANITARIO", "J.R.G.")]),
        # `nhc-` is not part of the identifier (N17.1)
        ("CIPA: nhc-150679\n", [("ID_SUJETO_ASISTENCIA", "150679")]),
    ],
)
def test_field_values(rule_nlp, text, expected):
    found = ents(rule_nlp, text)
    for item in expected:
        assert item in found, (item, found)


@pytest.mark.parametrize(
    "text",
    [
        # a key after `del` is prose
        "Informe clínico del paciente: Varón de 45 años que acude por disnea.\n",
        "Estimado compañero:\nLe remito a esta paciente.\n",  # no name in the salutation
        "Estudio: TAC de tórax con 64 cortes.\n",  # an identifier needs its digits first
        "Muestra: sangre venosa.\n",
        "Profesión: \n",
        "Ingreso: programado\n",  # a date key with no date
        "Historia actual: refiere dolor desde hace 3 días.\n",
        "acude a control en su estudio 2 semanas después\n",  # prose identifiers need four digits
        # a date is not an identifier
        "Fecha de ingreso del número de historia clínica: 14/04/2024\n",
    ],
)
def test_no_field_value(rule_nlp, text):
    labels = [label for label, _ in values(rule_nlp, text)]
    assert "NOMBRE_SUJETO_ASISTENCIA" not in labels and "ID_SUJETO_ASISTENCIA" not in labels
    assert "ID_CONTACTO_ASISTENCIAL" not in labels and "PROFESION" not in labels


def test_value_ends_at_next_key_pipe_tab_and_line(rule_nlp):
    found = values(
        rule_nlp,
        "Paciente: Ana Ruiz NHC: 123456\n"
        "Paciente: Luis Gil | Cama: 12\n"
        "Paciente: Eva Sanz\tHab.: 4\n",
    )
    assert ("NOMBRE_SUJETO_ASISTENCIA", "Ana Ruiz") in found
    assert ("NOMBRE_SUJETO_ASISTENCIA", "Luis Gil") in found
    assert ("NOMBRE_SUJETO_ASISTENCIA", "Eva Sanz") in found


def test_key_decides_patient_or_staff(rule_nlp):
    """The same name is the patient's after `Paciente:` and staff after
    `Médico:`, not by position."""
    assert ents(rule_nlp, "Paciente: Carmen Ortega Vidal\n") == [
        ("NOMBRE_SUJETO_ASISTENCIA", "Carmen Ortega Vidal")
    ]
    assert ents(rule_nlp, "Médico: Carmen Ortega Vidal\n") == [
        ("NOMBRE_PERSONAL_SANITARIO", "Carmen Ortega Vidal")
    ]


def test_header_rules_keep_their_values(rule_nlp):
    """MEDDOCAN's own header rules keep their entities; the fields add nothing over them."""
    doc = rule_nlp("Datos del paciente.\nNombre: Ana.\nApellidos: Ruiz Gil.\nNHC: 5192837.\n")
    rules = {(s.start_char, s.end_char) for s in doc.spans["rule_entities"]}
    fields = {(s.start_char, s.end_char) for s in doc.spans["fields"]}
    assert fields <= rules
    assert ("ID_SUJETO_ASISTENCIA", "5192837") in [(e.label_, e.text) for e in doc.ents]


def test_field_values_are_trusted_elsewhere(rule_nlp):
    """A patient named in a field is found again in the prose (trusted-PHI propagation)."""
    doc = rule_nlp(
        "Paciente: Carmen Ortega Vidal\n\nEvolución: Carmen Ortega Vidal refiere mejoría.\n"
    )
    names = [e for e in doc.ents if e.label_ == "NOMBRE_SUJETO_ASISTENCIA"]
    assert len(names) == 2


def test_key_regex_number_forms_and_word_end():
    import re

    number = re.compile(key_regex("Nº historia"))
    for form in (
        "nº historia",
        "n.º historia",
        "num. historia",
        "numero de historia",
        "no. historia",
    ):
        assert number.fullmatch(fold(form)), form
    assert not re.compile(key_regex("Pac.")).match("paciente")


def test_fold_keeps_offsets():
    text = "Ñandú ÁRBOL İ"
    assert len(fold(text)) == len(text)
    assert fold("Número") == "numero"


@pytest.mark.parametrize(
    "entry,message",
    [
        ({"label": "NOMBRE", "kind": "name", "keys": ["x"]}, "unknown label"),
        ({"label": "FECHAS", "kind": "when", "keys": ["x"]}, "'kind' must be one of"),
        ({"label": "FECHAS", "kind": "date"}, "needs 'keys' or 'phrases'"),
        ({"label": "FECHAS", "kind": "date", "keys": [""]}, "non-empty strings"),
    ],
)
def test_bad_entries_name_the_source_and_entry(entry, message):
    with pytest.raises(ValueError) as err:
        validate_entries([entry], "hospital_keys.jsonl")
    assert "hospital_keys.jsonl: entry 1" in str(err.value) and message in str(err.value)


def test_local_keys_extend_the_component(rule_nlp):
    """A hospital's own key (here an invented one) is data: add_patterns, no code change."""
    fields = Fields(rule_nlp, "fields_test")
    fields.add_patterns([{"label": "ID_SUJETO_ASISTENCIA", "kind": "id", "keys": ["Código HSX"]}])
    text = "Código HSX: 00991122\n"
    assert [(text[s:e], label) for s, e, label in fields.find(text)] == [
        ("00991122", "ID_SUJETO_ASISTENCIA")
    ]


def test_serialization_round_trip(rule_nlp, tmp_path):
    fields = rule_nlp.get_pipe("fields")
    copy = Fields(rule_nlp, "copy").from_bytes(fields.to_bytes())
    text = "Paciente: Ana Ruiz\nNHC: 123456\n"
    assert copy.find(text) == fields.find(text)
    fields.to_disk(tmp_path / "fields")
    assert Fields(rule_nlp, "disk").from_disk(tmp_path / "fields").find(text) == fields.find(text)


@pytest.mark.parametrize(
    "text,expected",
    [
        (
            "Se comenta el caso con el Dr. Ignacio Bermejo Sanz, de guardia.\n",
            ("NOMBRE_PERSONAL_SANITARIO", "Ignacio Bermejo Sanz"),
        ),
        (
            "Acude la paciente Lucía Ferrer Ibáñez por dolor.\n",
            ("NOMBRE_SUJETO_ASISTENCIA", "Lucía Ferrer Ibáñez"),
        ),
        ("Hablamos con la Sra. Ferrer sobre el alta.\n", ("NOMBRE_SUJETO_ASISTENCIA", "Ferrer")),
        (
            "Viene acompañada de su hija Dña. Marta Ferrer.\n",
            ("FAMILIARES_SUJETO_ASISTENCIA", "Marta Ferrer"),
        ),
        # staff roles other than physicians name staff too
        (
            "Curas realizadas por la enfermera Nuria Canet Soler.\n",
            ("NOMBRE_PERSONAL_SANITARIO", "Nuria Canet Soler"),
        ),
        (
            "La matrona Irene Vallés controla el registro.\n",
            ("NOMBRE_PERSONAL_SANITARIO", "Irene Vallés"),
        ),
    ],
)
def test_title_and_patient_cues_in_prose(rule_nlp, text, expected):
    assert expected in values(rule_nlp, text)


@pytest.mark.parametrize(
    "text",
    [
        # no filler words between a cue and a name
        "El paciente con Diabetes tipo 2 acude a revisión.\n",
        "Se avisa al doctor de guardia.\n",
        "Se informa a la Enfermera Gestora de Casos.\n",  # a role written in capitals is not a name
        "Valoración por Terapeuta Ocupacional y Trabajadora Social.\n",
        "Técnico Superior en Radiodiagnóstico.\n",
    ],
)
def test_cues_without_a_name(rule_nlp, text):
    assert not [v for v in values(rule_nlp, text) if v[0].startswith("NOMBRE")]


# --- co-official keys: Catalan/Valencian, Galician and Basque headers (invented) ------------
CATALAN_HEADER = (
    "Pacient: Jordi Vilaró Puigdemunt       Núm. d’història clínica: 4471203\n"
    "Data de naixement: 03/11/1948    Edat: 76 anys    Sexe: Home\n"
    "Data d'ingrés: 12/02/2024   Data d'alta: 19 de febrer de 2024\n"
    "Llit | 512-A | Habitació | 512 | Episodi | 88123456 |\n"
    "Adreça: C/ Major 14, 2n 1a, 08301 Mataró\n"
    "Metgessa responsable: Dra. Montserrat Ferrer Casals (Núm. col·legiat 08/41234)\n"
    "Infermera: Laia Soler Pons\n"
    "Núm. de petició: 20240215-77   Mostra: 1155332\n"
    "La seva filla, la Sra. Núria Vilaró, l'acompanya.\n"
)
GALICIAN_HEADER = (
    "Nome e apelidos: Xosé Manuel Barreiro Outeiro     Nº HC: 7712300\n"
    "Data de nacemento: 14/05/1952   Idade: 71 anos   Sexo: Muller\n"
    "Enderezo: Rúa do Vilar 12, 2º, 15705 Santiago\n"
    "Concello: Ames\n"
    "Leito: 304-B   Nº de solicitude: 55443322\n"
    "Médico/a responsable: Dra. Uxía Castro Lema\n"
    "Coidadora principal: Antía Barreiro (filla)\n"
    "Asinado electronicamente por Dr. Brais Fernández Vila\n"
)
BASQUE_HEADER = (
    "Izena: Miren          Abizenak: Etxeberria Agirre\n"
    "Jaiotze data: 1955/07/21     Adina: 68 urte      Sexua: Emakumezkoa\n"
    "Helbidea: Nagusia kalea 5, 20740 Zestoa\n"
    "Herria: Azpeitia\n"
    "Ospitaleratze-data: 2024/01/08\n"
    "Ohea: 221-B   HKZ: 9081726   Eskaera zk.: 7001234\n"
    "Medikua: Dr. Iñaki Zubiaurre Olano\n"
    "Senidea: Jon Etxeberria (semea)\n"
)


def found_by_fields(nlp, text):
    """(label, text) of what the fields component alone finds, whatever the other rules find."""
    return [(label, text[s:e]) for s, e, label in nlp.get_pipe("fields").find(text)]


@pytest.mark.parametrize(
    "text,expected",
    [
        (
            CATALAN_HEADER,
            [
                ("NOMBRE_SUJETO_ASISTENCIA", "Jordi Vilaró Puigdemunt"),
                ("ID_SUJETO_ASISTENCIA", "4471203"),
                ("FECHAS", "03/11/1948"),
                ("EDAD_SUJETO_ASISTENCIA", "76 anys"),
                ("SEXO_SUJETO_ASISTENCIA", "Home"),
                ("FECHAS", "12/02/2024"),
                ("FECHAS", "19 de febrer de 2024"),
                ("OTROS_SUJETO_ASISTENCIA", "512-A"),
                ("OTROS_SUJETO_ASISTENCIA", "512"),
                ("ID_CONTACTO_ASISTENCIAL", "88123456"),
                ("CALLE", "C/ Major 14, 2n 1a"),
                ("TERRITORIO", "08301"),
                ("TERRITORIO", "Mataró"),
                ("NOMBRE_PERSONAL_SANITARIO", "Montserrat Ferrer Casals"),
                ("ID_TITULACION_PERSONAL_SANITARIO", "08/41234"),
                ("NOMBRE_PERSONAL_SANITARIO", "Laia Soler Pons"),
                ("ID_CONTACTO_ASISTENCIAL", "20240215-77"),
                ("ID_CONTACTO_ASISTENCIAL", "1155332"),
                ("FAMILIARES_SUJETO_ASISTENCIA", "Núria Vilaró"),
            ],
        ),
        (
            GALICIAN_HEADER,
            [
                ("NOMBRE_SUJETO_ASISTENCIA", "Xosé Manuel Barreiro Outeiro"),
                ("ID_SUJETO_ASISTENCIA", "7712300"),
                ("FECHAS", "14/05/1952"),
                ("EDAD_SUJETO_ASISTENCIA", "71 anos"),
                ("SEXO_SUJETO_ASISTENCIA", "Muller"),
                ("CALLE", "Rúa do Vilar 12, 2º"),
                ("TERRITORIO", "15705"),
                ("TERRITORIO", "Santiago"),
                ("TERRITORIO", "Ames"),
                ("OTROS_SUJETO_ASISTENCIA", "304-B"),
                ("ID_CONTACTO_ASISTENCIAL", "55443322"),
                ("NOMBRE_PERSONAL_SANITARIO", "Uxía Castro Lema"),
                ("FAMILIARES_SUJETO_ASISTENCIA", "Antía Barreiro"),
                ("NOMBRE_PERSONAL_SANITARIO", "Brais Fernández Vila"),
            ],
        ),
        (
            BASQUE_HEADER,
            [
                ("NOMBRE_SUJETO_ASISTENCIA", "Miren"),
                ("NOMBRE_SUJETO_ASISTENCIA", "Etxeberria Agirre"),
                ("FECHAS", "1955/07/21"),
                ("EDAD_SUJETO_ASISTENCIA", "68 urte"),
                ("SEXO_SUJETO_ASISTENCIA", "Emakumezkoa"),
                ("CALLE", "Nagusia kalea 5"),
                ("TERRITORIO", "20740"),
                ("TERRITORIO", "Zestoa"),
                ("TERRITORIO", "Azpeitia"),
                ("FECHAS", "2024/01/08"),
                ("OTROS_SUJETO_ASISTENCIA", "221-B"),
                ("ID_SUJETO_ASISTENCIA", "9081726"),
                ("ID_CONTACTO_ASISTENCIAL", "7001234"),
                ("NOMBRE_PERSONAL_SANITARIO", "Iñaki Zubiaurre Olano"),
                ("FAMILIARES_SUJETO_ASISTENCIA", "Jon Etxeberria"),
            ],
        ),
    ],
    ids=["catalan", "galician", "basque"],
)
def test_co_official_headers(rule_nlp, text, expected):
    found = found_by_fields(rule_nlp, text)
    for item in expected:
        assert item in found, (item, found)
    # and in the pipeline's entities: no other component undoes them
    entities = ents(rule_nlp, text)
    assert all(item in entities for item in expected), [i for i in expected if i not in entities]


@pytest.mark.parametrize(
    "text",
    [
        # Catalan: key words in running text, without a colon, tab or pipe, are not fields
        "Antecedents de l'usuari: Hipertensió arterial.\n",  # a key after `l'` is prose
        "El llit 12 de la planta quedava lliure; la data d'ingrés es va ajornar.\n",
        "Estudi: TAC toràcic sense contrast.\nMostra: sang venosa.\n",  # an identifier needs digits
        "Ha tingut un episodi de febre fa 3 dies.\n",
        # Galician
        "O paciente ingresa no leito 4 da planta e a súa idade é avanzada.\n",
        "Antecedentes do paciente: Diabetes tipo 2.\n",  # a key after `do` is prose
        "Estudo: ecografía abdominal sen achados.\n",
        # Basque
        "Gaixoaren izena ez da ageri txostenean eta ohea 3 libre dago.\n",
        "Adina kontuan hartuta, eskaera 2 asteren buruan egingo da.\n",
        "Lagina: odol benosoa.\n",
    ],
)
def test_co_official_prose_words_are_not_fields(rule_nlp, text):
    assert found_by_fields(rule_nlp, text) == []


def test_key_regex_co_official_spellings():
    """An apostrophe matches any apostrophe, `l·l` every way of writing it, a hyphen a blank,
    and `Núm. d'` is a number form."""
    import re

    checks = {
        "Data d'ingrés": ("data d'ingres", "data d’ingres", "data d' ingres"),
        "Núm. col·legiat": (
            "num. col·legiat",
            "n. col.legiat",
            "nº collegiat",
            "numero col·legiat",
        ),
        "Jaiotze-data": ("jaiotze-data", "jaiotze data", "jaiotze - data"),
        "Nº història clínica": (
            "num. d'historia clinica",
            "nº historia clinica",
            "n.º de historia clinica",
        ),
    }
    for key, forms in checks.items():
        regex = re.compile(key_regex(key))
        for form in forms:
            assert regex.fullmatch(fold(form)), (key, form)
    assert not re.compile(key_regex("Jaiotze-data")).match("jaiotzedata")


def test_lang_is_a_documented_code(rule_nlp):
    assert (
        validate_entries([{"label": "FECHAS", "kind": "date", "keys": ["Data"], "lang": "ca"}])[0][
            "lang"
        ]
        == "ca"
    )
    with pytest.raises(ValueError) as err:
        validate_entries(
            [{"label": "FECHAS", "kind": "date", "keys": ["Data"], "lang": "Catalan"}], "k.jsonl"
        )
    assert "k.jsonl: entry 1" in str(err.value) and "'lang'" in str(err.value)


def test_key_table_longest_key_wins_across_groups():
    """Keys are grouped by their first two characters (`Nº` keys by `n`); where keys of two
    groups match at one place, the longer key wins."""
    table = KeyTable({key_regex("Num. de"): "short", key_regex("Nº de caso"): "long"})
    assert [(m.group(), t) for m, t in table.finditer("num. de caso 12")] == [
        ("num. de caso", "long")
    ]
    assert [(m.group(), t) for m, t in table.finditer("num. de 12")] == [("num. de", "short")]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("nombre: ana ruiz gil\nedad: 45 años\n", [("NOMBRE_SUJETO_ASISTENCIA", "ana ruiz gil")]),
        (
            "paciente: jose luis ortega del rio, acude por dolor\n",
            [("NOMBRE_SUJETO_ASISTENCIA", "jose luis ortega del rio")],
        ),
        ("medico: dra. lucia ferrer\n", [("NOMBRE_PERSONAL_SANITARIO", "lucia ferrer")]),
    ],
)
def test_name_fields_typed_in_lower_case(rule_nlp, text, expected):
    # invented; a line without capitals: the key still counts, the name
    # is its words up to a stop word
    found = [
        (e.label_, e.text) for e in rule_nlp(text).ents if e.label_ in {lab for lab, _ in expected}
    ]
    assert found == expected


def test_only_a_line_without_capitals_is_caseless():
    from meddocan_deid.pipeline.fields import caseless_line

    text = "Nombre: pendiente.\nnombre: ana ruiz\n12/03\n"
    assert not caseless_line(text, 8, 17)  # the first line has a capital
    assert caseless_line(text, 27, 35)
    assert not caseless_line(text, 36, 41)  # no letters


@pytest.mark.parametrize(
    "text,expected",
    [
        # in a line of capitals a capital says nothing: a stop word or a leading particle is no name
        ("MEDICO DE GUARDIA EN URGENCIAS\n", []),
        ("RESPONSABLE: CON EL EQUIPO DE PLANTA\n", []),
        # names in capitals are still read, particles inside them kept
        (
            "MEDICO: ELENA DE LA FUENTE ROS\n",
            [("NOMBRE_PERSONAL_SANITARIO", "ELENA DE LA FUENTE ROS")],
        ),
        (
            "medico: elena de la fuente ros\n",
            [("NOMBRE_PERSONAL_SANITARIO", "elena de la fuente ros")],
        ),
    ],
)
def test_a_line_in_capitals_is_read_as_a_caseless_one(rule_nlp, text, expected):
    assert [e for e in ents(rule_nlp, text) if e[0].startswith("NOMBRE")] == expected


def test_only_a_line_without_lower_case_is_capitals():
    from meddocan_deid.pipeline.fields import capitals_line

    text = "Nombre: ANA GIL\nNOMBRE: ANA GIL\n12/05\n"
    assert not capitals_line(text, 8, 15)
    assert capitals_line(text, 24, 31)
    assert not capitals_line(text, 32, 37)  # no letters


@pytest.mark.parametrize(
    "text,expected",
    [
        # on a line without case a verb ends a name value: a key then a verb phrase is no name
        ("control de tensión. la paciente sale de alta con su hijo.\n", []),
        ("CONTROL DE TENSIÓN. LA PACIENTE SALE DE ALTA CON SU HIJO.\n", []),
        (
            "paciente: ana ruiz gil refiere mejoría\n",
            [("NOMBRE_SUJETO_ASISTENCIA", "ana ruiz gil")],
        ),
        ("PACIENTE: ANA RUIZ GIL ACUDE HOY\n", [("NOMBRE_SUJETO_ASISTENCIA", "ANA RUIZ GIL")]),
    ],
)
def test_a_verb_ends_a_name_on_a_line_without_case(rule_nlp, text, expected):
    assert [e for e in ents(rule_nlp, text) if e[0].startswith("NOMBRE")] == expected


def test_the_verbs_that_end_a_name_are_config(rule_nlp):
    assert "sale" in rule_nlp.config["components"]["fields"]["name_end_verbs"]
    nlp = build_rule_nlp(**{"components.fields.name_end_verbs": []})
    assert [e for e in ents(nlp, "la paciente sale de alta.\n") if e[0].startswith("NOMBRE")] == [
        ("NOMBRE_SUJETO_ASISTENCIA", "sale de alta")
    ]


@pytest.mark.parametrize(
    "text, start, end",
    [
        ("la psicóloga de la unidad, Ana Gil", 12, 27),
        ("la logopeda, Irene Mateos", 11, 13),
        ("la enfermera  ,\tLuis Paz", 12, 16),
        ("el médico de la planta del centro, Ana Gil", 9, 35),
        ("el médico de la planta del centro de día, Ana Gil", 9, None),
        ("la doctora Ruiz, Ana Gil", 10, None),
        ("la matrona de 2ª, Ana", 10, None),
        ("la enfermera d'Ull, Ana", 12, None),
        ("la enfermera d'ull, Ana", 12, 20),
    ],
)
def test_a_role_complement_reads_as_before_its_rewrite(text, start, end):
    import re

    from meddocan_deid.pipeline.fields import _ROLE_COMPLEMENT

    old = re.compile(r"(?:[ \t]+(?:de|del|en|la|el|los|las|[a-záéíóúñüçà·']+)){0,5}?[ \t]*,[ \t]*")
    for pattern in (old, _ROLE_COMPLEMENT):
        m = pattern.match(text, start, len(text))
        assert (m.end() if m else None) == end
