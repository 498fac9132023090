"""Rules for PHI in any report layout (configs/patterns/phi_rules.jsonl and
institutions.jsonl, read by the phi_rules span ruler; meddocan_rule_entities): dates in the
forms Spanish reports use, ages, health centres, health services and insurers, companies.
Each table has invented positives and look-alikes that must stay unlabelled."""

import pytest

from meddocan_deid.pipeline.patterns import PatternFileError, read_pattern_files

INTRO = "Informe clínico del paciente:\n"


def labelled(nlp, sentence, label):
    doc = nlp(INTRO + sentence)
    return [e.text for e in doc.ents if e.label_ == label]


@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Analítica del 2024-04-14 sin cambios.", ["2024-04-14"]),
        (
            "Ingreso 2024-04-14 10:32 por disnea.",
            ["2024-04-14"],
        ),  # the time is not part of the date (N6.1)
        ("Registro 2024-04-14T10:32 en urgencias.", ["2024-04-14"]),
        ("Control el 14.04.2024 sin cambios.", ["14.04.2024"]),
        ("Visto el 14/04/24 y el 15-04-24 en consulta.", ["14/04/24", "15-04-24"]),
        ("Cirugía el 3-IV-2024 y revisión el 3/V/24.", ["3-IV-2024", "3/V/24"]),
        ("Revisión el 14 abr 2024 en consulta.", ["14 abr 2024"]),
        ("Revisión el 14 abr. 24 en consulta.", ["14 abr. 24"]),
        ("Revisión el 2 mayo 2023 en consulta.", ["2 mayo 2023"]),
        ("Última dosis en abr. 2024 según pauta.", ["abr. 2024"]),
        ("Acude el lunes 14 por fiebre.", ["lunes 14"]),
        ("Acude el martes 3 de marzo por fiebre.", ["martes 3 de marzo"]),
        ("El jueves 2 de Agosto ingresó.", ["jueves 2 de Agosto"]),
        (
            "Luns 3 de febreiro de 2025. Ingresa desde Urxencias.",
            ["Luns 3 de febreiro de 2025"],
        ),  # Galician
        ("Venres 7. Estable.", ["Venres 7"]),
        ("Acude el 3 de marzo por fiebre.", ["3 de marzo"]),
        ("Egresó el 20 de octubre 2003 sin secuelas.", ["20 de octubre 2003"]),
        ("Va néixer el 3 de gener de 1950.", ["3 de gener de 1950"]),
        ("Ingrés el 5 d'abril de 2020.", ["5 d'abril de 2020"]),
        ("Visita el 9 de març.", ["9 de març"]),
        ("Naceu o 12 de xaneiro de 1960.", ["12 de xaneiro de 1960"]),
        ("Visto en febreiro de 2019.", ["febreiro de 2019"]),
        ("Jaio zen 1950eko urtarrila 3.", ["1950eko urtarrila 3"]),
        ("Kontsulta: otsaila 2019.", ["otsaila 2019"]),
        ("Ebakuntza apirilaren 14an.", ["apirilaren 14an"]),
    ],
)
def test_date(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "FECHAS") == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "Metformina 1-0-1 con las comidas.",  # a dose schedule
        "Fuerza 3/5 en miembro inferior izquierdo.",  # a score
        "TA 120/80 mmHg y FC 72 lpm.",  # blood pressure
        "Cociente 2/3 de la dosis inicial.",  # a ratio
        "Hemoglobina 14.04 g/dL.",  # a lab value
        "Diagnóstico CIE-10 I10 y J44.1.",  # ICD codes
        "A las 10:30 se traslada a planta.",  # a time
        "Versión 2.4.1 del programa.",  # a version
        "Grado IV-3 de la escala.",  # a Roman numeral that is not a month
        "Trasladado al Hospital 12 de Octubre.",  # a hospital named after a date
        "El paciente mar 3 veces al día.",  # `mar` and a number are no date without a year
        "El lunes por la mañana refiere dolor.",  # a weekday without a day is left to the NER
    ],
)
def test_not_a_date(rule_nlp, sentence):
    assert labelled(rule_nlp, sentence, "FECHAS") == []


@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Varón de 76 a. que acude por disnea.", ["76 a"]),
        ("Mujer, 35 a, sin antecedentes.", ["35 a"]),
        ("Paciente, 6 años y 7 meses, con fiebre.", ["6 años y 7 meses"]),
        ("Niña de 6 años y 7 meses con fiebre.", ["6 años y 7 meses"]),
        ("Home de 82 anys amb febre.", ["82 anys"]),
        ("Emakumea, 45 urte.", ["45 urte"]),
        ("45 urteko gizona, sukarrarekin.", ["45 urteko"]),
        ("Lactante de 3 meses con tos.", ["3 meses"]),
        ("Neonato de 2 semanas de vida.", ["2 semanas"]),
        # a relative's age is not the patient's (left to the NER, which labels it FAMILIARES)
        ("Su madre, mujer de 60 a.", []),
        ("Vive con su hermana, mujer de 70 anys.", []),
        # look-alikes
        ("Mujer de 35 a 40 kg de peso.", []),  # a range
        ("Reingresa la paciente, un mes más tarde.", []),
        ("Sedación del paciente, 2 días después.", []),
        ("Varón de 3 años de evolución.", []),  # hardly a patient's age: a time
        ("Mujer de 40 años después del parto.", []),
        ("Dolor de 3 días de evolución.", []),
        ("Tratamiento durante 2 años y 3 meses.", []),  # a duration, no patient word
        # `Edad: 35 a` is a keyed field: the `fields` component labels it in any section
        ("Edad: 35 a", ["35 a"]),
    ],
)
def test_age(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "EDAD_SUJETO_ASISTENCIA") == expected


@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Remitido desde el CS Delicias por fiebre.", ["CS Delicias"]),
        (
            "Seguimiento en Centro de Salud Virgen de la Fuensanta y luego alta.",
            ["Centro de Salud Virgen de la Fuensanta"],
        ),
        ("Derivado del C.S. Las Fuentes.", ["C.S. Las Fuentes"]),
        ("Su médico del CAP Sant Andreu lo remite.", ["CAP Sant Andreu"]),
        ("Centre d'Atenció Primària Sant Andreu.", ["Centre d'Atenció Primària Sant Andreu"]),
        (
            "Control en el Centro de Atención Primaria La Mina.",
            ["Centro de Atención Primaria La Mina"],
        ),
        (
            "Citado en el Centro de Especialidades Argüelles.",
            ["Centro de Especialidades Argüelles"],
        ),
        ("Atendido en el Consultorio Local Villar del Río.", ["Consultorio Local Villar del Río"]),
        ("Enfermería del EAP Raval Sud.", ["EAP Raval Sud"]),
        (
            "Centro de Salud Los Rosales Paseo del Prado, 3.",
            ["Centro de Salud Los Rosales"],
        ),  # a street is not part of it
        ("Remitida desde el Centro de Salud Zona 4. Sin alergias.", ["Centro de Salud Zona 4"]),
        # look-alikes
        ("Control en Centro de Salud Mental.", []),
        ("Acude a su centro de salud.", []),
        ("Consultorio de Cardiología.", []),
        ("Cs de baja intensidad.", []),
    ],
)
def test_health_centre(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "CENTRO_SALUD") == expected


@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Tiene tarjeta del SAS y está afiliado al SMS.", ["SAS", "SMS"]),
        ("Usuario del SES desde hace años.", ["SES"]),
        (
            "Afiliado a MUFACE y asegurado por Sanitas; baja por Fremap.",
            ["MUFACE", "Sanitas", "Fremap"],
        ),
        (
            "Atendido por el Servicio Madrileño de Salud (SERMAS).",
            ["Servicio Madrileño de Salud", "SERMAS"],
        ),
        ("Derivado por Osakidetza a la consulta.", ["Osakidetza"]),
        ("Cita del Servizo Galego de Saúde.", ["Servizo Galego de Saúde"]),
        ("Tarjeta sanitaria del Institut Català de la Salut.", ["Institut Català de la Salut"]),
        ("Incapacidad tramitada por el INSS y la Mutua Universal.", ["INSS", "Mutua Universal"]),
        ("Póliza de IB-Salut y de Asepeyo.", ["IB-Salut", "Asepeyo"]),
        # clinical abbreviations with the same letters: sleep apnoea, inhaled
        # corticosteroids, spinal cord stimulation
        ("SAS grave con CPAP nocturna.", []),
        ("Tratamiento del SAS con CPAP.", []),
        ("ICS a dosis altas y LABA.", []),
        ("Se implanta un SCS por dolor.", []),
        ("Envía SMS a su familia.", []),
        ("Acude a su centro de SALUD.", []),
        # letterheads in capitals; governments, courts, councils, schools, nursing homes
        ("SERVEI CATALÀ DE LA SALUT\nConsulta externa.", ["SERVEI CATALÀ DE LA SALUT"]),
        (
            "Informe para la Consejería de Sanidad y la Xunta de Galicia.",
            ["Consejería de Sanidad", "Xunta de Galicia"],
        ),
        (
            "Oficio del Juzgado de Primera Instancia nº 2 de Lorca.",
            ["Juzgado de Primera Instancia nº 2 de Lorca"],
        ),
        ("Certificado para el Ayuntamiento de Tudela.", ["Ayuntamiento de Tudela"]),
        (
            "Alumno del IES Pedro Cerrada y antes del CEIP Virgen Blanca.",
            ["IES Pedro Cerrada", "CEIP Virgen Blanca"],
        ),
        (
            "Institucionalizada en la Residencia de Mayores El Pinar.",
            ["Residencia de Mayores El Pinar"],
        ),
        ("Residencia habitual en el domicilio familiar.", []),
        ("Oxigenoterapia domiciliaria por VitalAire.", ["VitalAire"]),
    ],
)
def test_health_service_and_insurer(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "INSTITUCION") == expected


@pytest.mark.parametrize(
    "sentence,institution,employer",
    [
        # a patient's employer is OTROS_SUJETO_ASISTENCIA (guideline
        # P28.1), another company INSTITUCION
        ("Trabaja en Talleres Gil Sánchez S.L. desde 2010.", [], ["Talleres Gil Sánchez S.L."]),
        (
            "Operario de Construcciones Ruiz y Vidal, S.A. en obra.",
            [],
            ["Construcciones Ruiz y Vidal, S.A."],
        ),
        ("Prótesis de Ortopedia Norte SL colocada.", ["Ortopedia Norte SL"], []),
        (
            "Muestras enviadas a Análisis Clínicos Lema S.L.U. para estudio.",
            ["Análisis Clínicos Lema S.L.U."],
            [],
        ),
        # look-alikes
        ("Paciente con SA de 2 grados.", [], []),  # sinoatrial block
        ("Dieta sin sal, SL a demanda.", [], []),
    ],
)
def test_company(rule_nlp, sentence, institution, employer):
    assert labelled(rule_nlp, sentence, "INSTITUCION") == institution
    assert labelled(rule_nlp, sentence, "OTROS_SUJETO_ASISTENCIA") == employer


def test_tokenizer_splits_iso_date_and_time(rule_nlp):
    assert [t.text for t in rule_nlp.make_doc("2024-04-14T10:32")] == ["2024-04-14", "T", "10:32"]
    assert [t.text for t in rule_nlp.make_doc("T10:32")] == [
        "T10:32"
    ]  # no date before it: unchanged


def test_read_pattern_files(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text('{"label": "FECHAS", "pattern": "x"}\n', encoding="utf-8")
    b.write_text('{"label": "INSTITUCION", "pattern": "y"}\n\n', encoding="utf-8")
    assert [p["label"] for p in read_pattern_files([a, b])] == ["FECHAS", "INSTITUCION"]
    b.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(PatternFileError, match=r"b\.jsonl:1"):
        read_pattern_files([a, b])
    with pytest.raises(PatternFileError, match="must be a list"):
        read_pattern_files(str(a))


def test_also_upper_adds_the_capitals_of_a_phrase(tmp_path):
    path = tmp_path / "institutions.jsonl"
    path.write_text(
        '{"label": "INSTITUCION", "pattern": "Mutua Rivas", "also_upper": true}\n'
        '{"label": "INSTITUCION", "pattern": "MRV", "also_upper": true}\n',
        encoding="utf-8",
    )
    assert [p["pattern"] for p in read_pattern_files([path])] == [
        "Mutua Rivas",
        "MUTUA RIVAS",
        "MRV",
    ]
    path.write_text(
        '{"label": "INSTITUCION", "pattern": [{"LOWER": "x"}], "also_upper": true}\n',
        encoding="utf-8",
    )
    with pytest.raises(PatternFileError, match=r"institutions\.jsonl:1: 'also_upper'"):
        read_pattern_files([path])


# Towns after a place cue (`any/town`): the gazetteer's towns, stored in the vocab at
# [initialize], case as written, none that is a common Spanish word, not after a name.
@pytest.fixture(scope="module")
def town_nlp(tmp_path_factory):
    from conftest import build_rule_nlp

    folder = tmp_path_factory.mktemp("gazetteer")
    (folder / "Municipios (Cities and towns).txt").write_text(
        "Tolosa\nVillanueva de la Serena\nMayor\nQuintanilla del Agua\nDolores\n", encoding="utf-8"
    )
    return build_rule_nlp(**{"paths.gazetteer": str(folder)})


@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Vive en Tolosa desde hace años.", ["Tolosa"]),
        ("Natural de Villanueva de la Serena, acude por fiebre.", ["Villanueva de la Serena"]),
        ("Procedente de Quintanilla del Agua.", ["Quintanilla del Agua"]),
        (
            "Procedente de Villanueva De La Serena.",
            ["Villanueva De La Serena"],
        ),  # articles in any case
        ("En Tolosa trabajó de pastor.", ["Tolosa"]),
        # look-alikes
        ("Trasladado al Hospital de Tolosa.", []),  # part of a hospital's name
        ("Servicio de Urología. Hospital de Tolosa.", []),  # also at the start of a sentence
        ("Consulta con el Dr. López de Tolosa.", []),  # part of a person's name
        ("Accidente en la Ctra. de Tolosa.", []),  # part of a street
        ("Reside en Mayor.", []),  # a town that is a common word
        ("Ingresa en Urgencias.", []),  # not a town
        ("Vive en tolosa.", []),  # case as written
        ("Vive en Villanueva.", []),  # not a town of the list
    ],
)
def test_town_after_a_cue(town_nlp, sentence, expected):
    # the cued rule's own entities: the towns found anywhere come on top (test below)
    doc = town_nlp(INTRO + sentence)
    assert [e.text for e in doc.spans["rule_entities"] if e.label_ == "TERRITORIO"] == expected


@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Lo trasladan desde Tolosa en ambulancia.", ["Tolosa"]),  # a cue the rules do not list
        (
            "Su hija, que vive en la costa, viene de Villanueva de la Serena cada semana.",
            ["Villanueva de la Serena"],
        ),
        (
            "Reside ahora con su hija, en TOLOSA (GIPUZKOA).",
            ["TOLOSA"],
        ),  # capitals read in title case
        ("Hermana en Tolosa; la madre, también.", ["Tolosa"]),
        (
            "Trasladado al Hospital de Tolosa.",
            ["Tolosa"],
        ),  # no NER here to take the hospital: the town is not left
        # look-alikes
        ("Consulta con el Dr. Tolosa mañana.", []),  # after a title: a name
        ("Consulta con Ana Martín Tolosa mañana.", []),  # inside a name
        ("Vive en la calle Mayor.", []),  # a town that is a common word
        ("Dolores abdominales desde ayer.", []),  # a dictionary word opening a sentence
        ("La paciente tolosa refiere dolor.", []),  # lower case
    ],
)
def test_town_anywhere_where_no_entity_is(town_nlp, sentence, expected):
    assert labelled(town_nlp, sentence, "TERRITORIO") == expected


def test_no_town_without_a_gazetteer(rule_nlp):
    from meddocan_deid.deid.gazetteer import from_vocab

    if from_vocab(rule_nlp.vocab) is None:
        assert labelled(rule_nlp, "Vive en Tolosa desde hace años.", "TERRITORIO") == []
    else:  # a gazetteer folder next to the checkout: it must at least not label a common word
        assert labelled(rule_nlp, "Reside en Mayor.", "TERRITORIO") == []


# a bed or room number is kept (clinical_codes), in prose and after a field key alike: the
# guidelines (section 2.3) name no bed or room among the PHI, and a bed identifies no one outside
# the ward; the rules still read it (`Cama: 512-B`) and clinical_codes takes it back
@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Ingresa en la cama 14 de la planta 3.", []),
        ("Hab./Cama: 512-B", []),
        ("Cama: 412-B", []),
        ("Trasladado a la habitación 207, box 3 antes.", []),
        ("Ingrés al llit 9.", []),
        ("Habitació 207, llit 2.", []),
        # durations and doses after the same words
        ("Reposo en cama 3 días.", []),
        ("Cama articulada y colchón antiescaras.", []),
    ],
)
def test_bed_and_room_numbers(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "OTROS_SUJETO_ASISTENCIA") == expected


@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Vive con su mujer, Rosa Pérez, desde hace años.", ["mujer", "Rosa Pérez"]),
        ("Acompañada por el yerno (Luis Gil) y la nuera, Ana.", ["Luis Gil", "Ana"]),
        ("Le acompaña su suegra.", ["suegra"]),
        ("Mujer, Rosa Pérez, de 50 años.", []),  # the patient, not a relative
        # adjectives between the kinship word and the name, a second name, a Catalan article
        ("El hijo pequeño, Pablo, vive en Francia.", ["Pablo"]),
        ("Sus dos hijas, Lucía y Elena, se turnan.", ["Lucía", "Elena"]),
        ("El seu fill, el Jordi, l'acompanya.", ["fill", "Jordi"]),
        # the name before the kinship word
        ("Pablo, el hijo, vive en Francia.", ["Pablo"]),
        ("Contacto: Elena Ruiz Gil (hija), por las tardes.", ["Elena Ruiz Gil"]),
        ("Mañana, la hija, traerá los informes.", []),  # a word opening the sentence, not a name
        ("Tos y fiebre (madre con gripe).", []),
    ],
)
def test_relative_names_after_a_kinship_word(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "FAMILIARES_SUJETO_ASISTENCIA") == expected


@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Ingresado del 2 al 5 de marzo de 2024.", ["2", "5 de marzo de 2024"]),
        ("Sesiones los días 12 y 14 de mayo.", ["12", "14 de mayo"]),
        ("Control el 14/05 y el 21/05.", ["14/05", "21/05"]),
        ("14/05: afebril.\n15/05 - alta.", ["14/05", "15/05"]),
        # scores and grades written like a day and a month
        ("Fuerza 5/5 y soplo 4/6 el día 3.", []),
        ("Glasgow 15/15, agudeza 10/10.", []),
        ("Del 2 al 5 de los pacientes.", []),
    ],
)
def test_day_ranges_and_dates_without_a_year(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "FECHAS") == expected


def test_a_town_with_de_is_taken_beside_a_name_with_de(town_nlp):
    # `de` and `la` in a person's name do not make a town with them part of that name
    doc = town_nlp(
        INTRO
        + "Paciente: María de la Fuente Gil.\nVillanueva de la Serena queda lejos del hospital."
    )
    assert "Villanueva de la Serena" in [e.text for e in doc.ents if e.label_ == "TERRITORIO"]


def test_a_town_line_end_reads_as_before_its_rewrite():
    import json
    import re

    from conftest import ROOT

    rows = (ROOT / "configs" / "patterns" / "phi_rules.jsonl").read_text(encoding="utf-8")
    ends = {
        p[-1]["TEXT"]["REGEX"]
        for p in (json.loads(line)["pattern"] for line in rows.splitlines() if "any/town" in line)
        if isinstance(p[-1].get("TEXT"), dict) and "\\n" in str(p[-1]["TEXT"].get("REGEX"))
    }
    assert len(ends) == 1  # one spelling in every town rule
    examples = {"\n": True, "  \n\n ": True, "\t\n": True, "·": True, "|": True}
    examples |= {"   ": False, "\n,": False, "a\n": False, "||": False, "": False}
    for pattern in (re.compile(r"^(?:\s*\n\s*|·|\|)$"), re.compile(ends.pop())):
        assert {t: pattern.search(t) is not None for t in examples} == examples
