"""The fields component: keyed PHI in any layout and section (invented reports)."""
import pytest

from meddocan_deid.pipeline.fields import Fields, fold, key_regex, validate_entries


def values(nlp, text):
    doc = nlp(text)
    return [(s.label_, s.text) for s in doc.spans["fields"]]


def ents(nlp, text):
    return [(e.label_, e.text) for e in nlp(text).ents]


@pytest.mark.parametrize("text,expected", [
    # `Key: value` and `KEY: VALUE`, several keys on one line
    ("Paciente: Ana Ruiz Gil\nNHC: 1234567   Edad: 76 años   Sexo: Mujer\n",
     [("NOMBRE_SUJETO_ASISTENCIA", "Ana Ruiz Gil"), ("ID_SUJETO_ASISTENCIA", "1234567"),
      ("EDAD_SUJETO_ASISTENCIA", "76 años"), ("SEXO_SUJETO_ASISTENCIA", "Mujer")]),
    ("PACIENTE: RUIZ GIL, ANA\nFECHA DE NACIMIENTO: 12/03/1950\n",
     [("NOMBRE_SUJETO_ASISTENCIA", "RUIZ GIL"), ("NOMBRE_SUJETO_ASISTENCIA", "ANA"), ("FECHAS", "12/03/1950")]),
    # Key<TAB>value
    ("NHC\t7788991\nCIP\tABCD123456789012\n",
     [("ID_SUJETO_ASISTENCIA", "7788991"), ("ID_SUJETO_ASISTENCIA", "ABCD123456789012")]),
    # `Key | value | Key | value` rows
    ("Paciente | Juan Pérez Gómez | NHC | 445566 |\nCama | 412-B | Episodio | 99887766\n",
     [("NOMBRE_SUJETO_ASISTENCIA", "Juan Pérez Gómez"), ("ID_SUJETO_ASISTENCIA", "445566"),
      ("OTROS_SUJETO_ASISTENCIA", "412-B"), ("ID_CONTACTO_ASISTENCIAL", "99887766")]),
    # a key and its value on consecutive lines
    ("Nombre y apellidos\nJosé Antonio Martín Sáez\nFecha de ingreso\n2024-04-14\n",
     [("NOMBRE_SUJETO_ASISTENCIA", "José Antonio Martín Sáez"), ("FECHAS", "2024-04-14")]),
    # dates: a time of day is never part of the date (N6.1); Roman-numeral months
    ("Fecha de ingreso: 2024-04-14 10:32   Fecha de alta: 3-IV-2024\n",
     [("FECHAS", "2024-04-14"), ("FECHAS", "3-IV-2024")]),
    # titles stay out of a name (N1.1, N5.1); the collegiate number is its own entity
    ("Médico responsable: Dra. María del Carmen López-Sanz (Nº Col. 28/123456)\n",
     [("NOMBRE_PERSONAL_SANITARIO", "María del Carmen López-Sanz"),
      ("ID_TITULACION_PERSONAL_SANITARIO", "28/123456")]),
    # a street up to its postal code; the postal code and the town are two places
    ("INFORME DE ALTA\nDomicilio: C/ Mayor 5, 3º B, 28001 Madrid\n",
     [("CALLE", "C/ Mayor 5, 3º B"), ("TERRITORIO", "28001"), ("TERRITORIO", "Madrid")]),
    ("Localidad: Getafe (Madrid)\n", [("TERRITORIO", "Getafe"), ("TERRITORIO", "Madrid")]),
    # centres, insurers, professions, relatives
    ("Centro de salud: CS Delicias\nMutua: Fremap\nProfesión: albañil\n",
     [("CENTRO_SALUD", "CS Delicias"), ("INSTITUCION", "Fremap"), ("PROFESION", "albañil")]),
    ("Persona de contacto: Pedro Ruiz (hijo)\n", [("FAMILIARES_SUJETO_ASISTENCIA", "Pedro Ruiz")]),
    # key phrases in prose, then an identifier-like value within a few words
    ("La paciente, identificada con el número de historia clínica 7788991, acude con DNI 12345678Z.\n",
     [("ID_SUJETO_ASISTENCIA", "7788991"), ("ID_SUJETO_ASISTENCIA", "12345678Z")]),
    ("Firmado electrónicamente por Dr. Luis Gil Roca el 14/04/2024.\n",
     [("NOMBRE_PERSONAL_SANITARIO", "Luis Gil Roca")]),
    # signature and salutation cues
    ("Atentamente,\n\nDra. Elena Vidal Puig\nServicio de Cardiología\n",
     [("NOMBRE_PERSONAL_SANITARIO", "Elena Vidal Puig")]),
    ("Estimada Sra. Ruiz:\nLe escribimos.\n", [("NOMBRE_SUJETO_ASISTENCIA", "Ruiz")]),
    ("Estimado Dr. Gil:\nLe remito a la paciente.\n", [("NOMBRE_PERSONAL_SANITARIO", "Gil")]),
    ("Fdo.: J.R.G.\n", [("NOMBRE_PERSONAL_SANITARIO", "J.R.G.")]),
    # `nhc-` is not part of the identifier (N17.1)
    ("CIPA: nhc-150679\n", [("ID_SUJETO_ASISTENCIA", "150679")]),
])
def test_field_values(rule_nlp, text, expected):
    found = ents(rule_nlp, text)
    for item in expected:
        assert item in found, (item, found)


@pytest.mark.parametrize("text", [
    "Informe clínico del paciente: Varón de 45 años que acude por disnea.\n",  # a key after `del` is prose
    "Estimado compañero:\nLe remito a esta paciente.\n",  # no name in the salutation
    "Estudio: TAC de tórax con 64 cortes.\n",  # an identifier needs its digits first
    "Muestra: sangre venosa.\n",
    "Profesión: \n",
    "Ingreso: programado\n",  # a date key with no date
    "Historia actual: refiere dolor desde hace 3 días.\n",
    "acude a control en su estudio 2 semanas después\n",  # prose identifiers need four digits
    "Fecha de ingreso del número de historia clínica: 14/04/2024\n",  # a date is not an identifier
])
def test_no_field_value(rule_nlp, text):
    labels = [label for label, _ in values(rule_nlp, text)]
    assert "NOMBRE_SUJETO_ASISTENCIA" not in labels and "ID_SUJETO_ASISTENCIA" not in labels
    assert "ID_CONTACTO_ASISTENCIAL" not in labels and "PROFESION" not in labels


def test_value_ends_at_next_key_pipe_tab_and_line(rule_nlp):
    found = values(rule_nlp, "Paciente: Ana Ruiz NHC: 123456\nPaciente: Luis Gil | Cama: 12\nPaciente: Eva Sanz\tHab.: 4\n")
    assert ("NOMBRE_SUJETO_ASISTENCIA", "Ana Ruiz") in found
    assert ("NOMBRE_SUJETO_ASISTENCIA", "Luis Gil") in found
    assert ("NOMBRE_SUJETO_ASISTENCIA", "Eva Sanz") in found


def test_key_decides_patient_or_staff(rule_nlp):
    """The same name is the patient's after `Paciente:` and staff after `Médico:`, not by position."""
    assert ents(rule_nlp, "Paciente: Carmen Ortega Vidal\n") == [("NOMBRE_SUJETO_ASISTENCIA", "Carmen Ortega Vidal")]
    assert ents(rule_nlp, "Médico: Carmen Ortega Vidal\n") == [("NOMBRE_PERSONAL_SANITARIO", "Carmen Ortega Vidal")]


def test_header_rules_keep_their_values(rule_nlp):
    """MEDDOCAN's own header rules keep their entities; the fields add nothing over them."""
    doc = rule_nlp("Datos del paciente.\nNombre: Ana.\nApellidos: Ruiz Gil.\nNHC: 5192837.\n")
    rules = {(s.start_char, s.end_char) for s in doc.spans["rule_entities"]}
    fields = {(s.start_char, s.end_char) for s in doc.spans["fields"]}
    assert fields <= rules
    assert ("ID_SUJETO_ASISTENCIA", "5192837") in [(e.label_, e.text) for e in doc.ents]


def test_field_values_are_trusted_elsewhere(rule_nlp):
    """A patient named in a field is found again in the prose (trusted-PHI propagation)."""
    doc = rule_nlp("Paciente: Carmen Ortega Vidal\n\nEvolución: Carmen Ortega Vidal refiere mejoría.\n")
    names = [e for e in doc.ents if e.label_ == "NOMBRE_SUJETO_ASISTENCIA"]
    assert len(names) == 2


def test_key_regex_number_forms_and_word_end():
    import re
    number = re.compile(key_regex("Nº historia"))
    for form in ("nº historia", "n.º historia", "num. historia", "numero de historia", "no. historia"):
        assert number.fullmatch(fold(form)), form
    assert not re.compile(key_regex("Pac.")).match("paciente")


def test_fold_keeps_offsets():
    text = "Ñandú ÁRBOL İ"
    assert len(fold(text)) == len(text)
    assert fold("Número") == "numero"


@pytest.mark.parametrize("entry,message", [
    ({"label": "NOMBRE", "kind": "name", "keys": ["x"]}, "unknown label"),
    ({"label": "FECHAS", "kind": "when", "keys": ["x"]}, "'kind' must be one of"),
    ({"label": "FECHAS", "kind": "date"}, "needs 'keys' or 'phrases'"),
    ({"label": "FECHAS", "kind": "date", "keys": [""]}, "non-empty strings"),
])
def test_bad_entries_name_the_source_and_entry(entry, message):
    with pytest.raises(ValueError) as err:
        validate_entries([entry], "hospital_keys.jsonl")
    assert "hospital_keys.jsonl: entry 1" in str(err.value) and message in str(err.value)


def test_local_keys_extend_the_component(rule_nlp):
    """A hospital's own key (here an invented one) is data: add_patterns, no code change."""
    fields = Fields(rule_nlp, "fields_test")
    fields.add_patterns([{"label": "ID_SUJETO_ASISTENCIA", "kind": "id", "keys": ["Código HSX"]}])
    text = "Código HSX: 00991122\n"
    assert [(text[s:e], label) for s, e, label in fields.find(text)] == [("00991122", "ID_SUJETO_ASISTENCIA")]


def test_serialization_round_trip(rule_nlp, tmp_path):
    fields = rule_nlp.get_pipe("fields")
    copy = Fields(rule_nlp, "copy").from_bytes(fields.to_bytes())
    text = "Paciente: Ana Ruiz\nNHC: 123456\n"
    assert copy.find(text) == fields.find(text)
    fields.to_disk(tmp_path / "fields")
    assert Fields(rule_nlp, "disk").from_disk(tmp_path / "fields").find(text) == fields.find(text)


@pytest.mark.parametrize("text,expected", [
    ("Se comenta el caso con el Dr. Ignacio Bermejo Sanz, de guardia.\n", ("NOMBRE_PERSONAL_SANITARIO", "Ignacio Bermejo Sanz")),
    ("Acude la paciente Lucía Ferrer Ibáñez por dolor.\n", ("NOMBRE_SUJETO_ASISTENCIA", "Lucía Ferrer Ibáñez")),
    ("Hablamos con la Sra. Ferrer sobre el alta.\n", ("NOMBRE_SUJETO_ASISTENCIA", "Ferrer")),
    ("Viene acompañada de su hija Dña. Marta Ferrer.\n", ("FAMILIARES_SUJETO_ASISTENCIA", "Marta Ferrer")),
    # staff roles other than physicians name staff too
    ("Curas realizadas por la enfermera Nuria Canet Soler.\n", ("NOMBRE_PERSONAL_SANITARIO", "Nuria Canet Soler")),
    ("La matrona Irene Vallés controla el registro.\n", ("NOMBRE_PERSONAL_SANITARIO", "Irene Vallés")),
])
def test_title_and_patient_cues_in_prose(rule_nlp, text, expected):
    assert expected in values(rule_nlp, text)


@pytest.mark.parametrize("text", [
    "El paciente con Diabetes tipo 2 acude a revisión.\n",  # no filler words between a cue and a name
    "Se avisa al doctor de guardia.\n",
    "Se informa a la Enfermera Gestora de Casos.\n",  # a role written in capitals is not a name
    "Valoración por Terapeuta Ocupacional y Trabajadora Social.\n",
    "Técnico Superior en Radiodiagnóstico.\n",
])
def test_cues_without_a_name(rule_nlp, text):
    assert not [v for v in values(rule_nlp, text) if v[0].startswith("NOMBRE")]
