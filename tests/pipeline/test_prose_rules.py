"""Rules for PHI written in prose and in letters (configs/patterns/*.jsonl and
towns_geonames.txt, professions.txt; meddocan_rule_entities, meddocan_fields,
meddocan_entity_checks): towns in letter lines and letterheads, extensions and pagers, file
numbers, unit bed codes, holidays, jobs and employers, staff named after a role. Invented
sentences, each table with look-alikes that must stay unlabelled."""

import pytest

INTRO = "Informe clínico del paciente:\n"


def labelled(nlp, sentence, label):
    doc = nlp(INTRO + sentence)
    return [e.text for e in doc.ents if e.label_ == label]


@pytest.mark.parametrize(
    "sentence,expected",
    [
        # a letter's place and date line, a letterhead that ends in the town
        ("Un saludo.\n\nOurense, 3 de mayo de 2025\n", ["Ourense"]),
        ("Queda a su disposición.\nLa Orotava, a 12/03/2025.", ["La Orotava"]),
        ("Parte de lesiones. Cáceres, 2025-02-01 11:00.", ["Cáceres"]),
        ("Hospital Comarcal Santa Ana, Motril\nServicio de Medicina Interna\n", ["Motril"]),
        ("Hospital General · Villarrobledo · Urgencias\n", ["Villarrobledo"]),
        # a big town is not a common word; a town that only GeoNames lists
        ("Vive en Madrid con su hermano.", ["Madrid"]),
        ("Es vecina de Tegueste desde niña.", ["Tegueste"]),
        # look-alikes
        ("Servicio de Cardiología, Urgencias\n", []),
        ("Reposo. Fiebre, 38 grados.", []),
        ("Reside en Mayor.", []),
    ],
)
def test_towns_in_letters_and_prose(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "TERRITORIO") == expected


@pytest.mark.parametrize(
    "sentence,label,expected",
    [
        ("Avisar al residente (busca 4471) si empeora.", "NUMERO_TELEFONO", ["4471"]),
        ("Consulta: 924 111 000, ext. 53120.", "NUMERO_TELEFONO", ["924 111 000", "53120"]),
        (
            "La Guardia Civil instruye el atestado nº GC-0712/25.",
            "OTROS_SUJETO_ASISTENCIA",
            ["GC-0712/25"],
        ),
        (
            "Consta el expediente de accidente de trabajo nº AT-2025-004411.",
            "OTROS_SUJETO_ASISTENCIA",
            ["AT-2025-004411"],
        ),
        (
            "Con la autorización de la mutua nº MT-25-7781203 se hizo la resonancia.",
            "ID_CONTACTO_ASISTENCIAL",
            ["MT-25-7781203"],
        ),
        (
            "Paciente con CIPNA 11223344 y CIPAC 5566778899.",
            "ID_SUJETO_ASISTENCIA",
            ["11223344", "5566778899"],
        ),
        # a collegiate number that looks like month-year is not a date (no month 17)
        (
            "Firma la Dra. Ana Soler (col. 17-4209).",
            "ID_TITULACION_PERSONAL_SANITARIO",
            ["17-4209"],
        ),
        (
            "La trabajadora social (nº empl. SAL-40218) lo valora.",
            "ID_EMPLEO_PERSONAL_SANITARIO",
            ["SAL-40218"],
        ),
        (
            "Se tramita el traslado (expediente nº TRS-CM-2025-0099).",
            "ID_CONTACTO_ASISTENCIAL",
            ["TRS-CM-2025-0099"],
        ),
        # look-alikes
        ("Busca 3 veces al día el inhalador.", "NUMERO_TELEFONO", []),
        ("El atestado no consta.", "OTROS_SUJETO_ASISTENCIA", []),
    ],
)
def test_numbers_after_prose_keys(rule_nlp, sentence, label, expected):
    assert labelled(rule_nlp, sentence, label) == expected


@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Ingresa en la UCI, cama UCI-07.", ["UCI-07"]),
        ("Se ubica en el box OBS-3 y luego en la habitación 4.21, cama B.", ["OBS-3", "4.21", "B"]),
        ("El recién nacido sigue en la incubadora N-12.", ["N-12"]),
        # look-alikes
        ("Reposo en cama 2 semanas.", []),
        ("Cama articulada en domicilio.", []),
    ],
)
def test_unit_bed_codes(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "OTROS_SUJETO_ASISTENCIA") == expected


@pytest.mark.parametrize(
    "sentence,expected",
    [
        (
            "Empeoró en Navidad de 2021 y de nuevo en Semana Santa.",
            ["Navidad de 2021", "Semana Santa"],
        ),
        ("Sin crisis desde el invierno de 2023.", ["invierno de 2023"]),
        ("Dejó la medicación en Reyes.", ["Reyes"]),
        # look-alikes
        ("Le operó el Dr. Reyes.", []),
        ("Empeora cada invierno.", []),
    ],
)
def test_holidays_and_seasons(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "FECHAS") == expected


@pytest.mark.parametrize(
    "sentence,expected",
    [
        ("Trabaja como fontanera en una empresa local.", ["fontanera"]),
        ("Es tractorista desde joven.", ["tractorista"]),
        ("Varón de 47 años, carpintero, sin antecedentes.", ["carpintero"]),
        ("Albañil jubilado, vive con su hija.", ["Albañil"]),
        ("Trabajó de camarera de pisos muchos años.", ["camarera de pisos"]),
        ("Su hija, enfermera en el Hospital de Teruel, la acompaña.", ["enfermera"]),
        # look-alikes
        ("Es portador de marcapasos.", []),
        ("El paciente es alérgico a la penicilina.", []),
        ("Se avisa al conductor de la ambulancia.", []),
    ],
)
def test_jobs_next_to_a_cue(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "PROFESION") == expected


@pytest.mark.parametrize(
    "sentence,employer,institution",
    [
        ("Es soldadora en Calderería Ebro Sur S.L. desde 2015.", ["Calderería Ebro Sur S.L."], []),
        (
            "Trabaja como peón en Frutas del Valle S.C.A. en campaña.",
            ["Frutas del Valle S.C.A."],
            [],
        ),
        (
            "Trabaja como ingeniero en Nordlicht Software GmbH en Múnich.",
            ["Nordlicht Software GmbH"],
            [],
        ),
        ("Jubilado de Minas del Sil S.A., vive solo.", ["Minas del Sil S.A."], []),
        ("Su hijo, camionero en Transportes Gil S.L., vive lejos.", ["Transportes Gil S.L."], []),
        # a company that is not the patient's employer stays an institution
        ("Oxígeno suministrado por Gases Norte S.L. a domicilio.", [], ["Gases Norte S.L."]),
        ("Se avisa a la empresa suministradora, Gases Norte S.L., hoy.", [], ["Gases Norte S.L."]),
    ],
)
def test_companies_and_employers(rule_nlp, sentence, employer, institution):
    assert labelled(rule_nlp, sentence, "OTROS_SUJETO_ASISTENCIA") == employer
    assert labelled(rule_nlp, sentence, "INSTITUCION") == institution


@pytest.mark.parametrize(
    "sentence,expected",
    [
        (
            "Lo valora la psicóloga de la unidad, Marta Ibáñez Sola, el lunes.",
            ["Marta Ibáñez Sola"],
        ),
        ("Se avisa a la logopeda, Nuria Pons, para la disfagia.", ["Nuria Pons"]),
        ("La enfermera de enlace, Rocío Vela, coordina el alta.", ["Rocío Vela"]),
        # look-alikes: a role and a comma, then no name
        ("Se informa a la enfermera, que avisa a Urgencias.", []),
        ("La fisioterapeuta de planta, por la tarde.", []),
    ],
)
def test_staff_named_after_a_role(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "NOMBRE_PERSONAL_SANITARIO") == expected


@pytest.mark.parametrize(
    "sentence,expected",
    [
        # minutes list the staff with their specialty in brackets
        (
            "Asisten los doctores Luis Javier Mora Ruiz (Neumología) y Eva Salas (Oncología "
            "Radioterápica).",
            ["Luis Javier Mora Ruiz", "Eva Salas"],
        ),
        ("Presenta el caso Marta Gil Ros (Anatomia Patològica).", ["Marta Gil Ros"]),
        # look-alikes: a place or one word before the bracket
        ("Ingresa en el Hospital Central Norte (Cardiología) estable.", []),
        ("Seguimiento por Neumología (Consultas Externas).", []),
    ],
)
def test_staff_named_before_their_specialty(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "NOMBRE_PERSONAL_SANITARIO") == expected


@pytest.mark.parametrize(
    "sentence,patient",
    [
        ("Acude D. Tomás Ferrer Gil por disnea.", ["Tomás Ferrer Gil"]),
        # `D.` as a door letter, or after a doctor's title
        ("Domicilio: C/ Real, 5, 2 D.\nLocalidad: Soria", []),
        ("Lo atiende el Dr. D. Pablo Ruiz.", []),
    ],
)
def test_don_names_the_patient(rule_nlp, sentence, patient):
    assert labelled(rule_nlp, sentence, "NOMBRE_SUJETO_ASISTENCIA") == patient


def test_town_list_is_saved_with_the_pipeline(rule_nlp, tmp_path):
    ruler = rule_nlp.get_pipe("rule_entities")
    assert "Tegueste" in ruler.towns and "fontanero" in ruler.professions
    ruler.to_disk(tmp_path)
    other = rule_nlp.get_pipe("rule_entities").from_disk(tmp_path)
    assert other.towns == ruler.towns and other.professions == ruler.professions
    restored = type(ruler).from_bytes(ruler, ruler.to_bytes())
    assert restored.towns == ruler.towns


@pytest.mark.parametrize(
    "sentence,expected",
    [
        # a street word, `de la`, a capitalised name, a house number and floor, wherever it stands
        ("Viven en la avenida de Ronda 31, 5ºA, de Getafe.", ["avenida de Ronda 31, 5ºA"]),
        ("Viu al carrer de la Font 22 amb la seva filla.", ["carrer de la Font 22"]),
        (
            "Chocó en la rotonda de la avenida de Portugal con la calle Río Tajo.",
            ["avenida de Portugal", "calle Río Tajo"],
        ),
        ("Domiciliado en el Lugar de Fontán, 12, con su hija.", ["Lugar de Fontán, 12"]),
        ("Encontrado en la carretera CA-180, a la altura del cruce.", ["carretera CA-180"]),
        # look-alikes: no name after the street word, a word that is a street only with a number
        ("Pasea por el paseo marítimo cada día.", []),
        ("En lugar de Ibuprofeno toma Paracetamol.", []),
        ("Cruza la calle sin mirar.", []),
    ],
)
def test_streets_in_prose(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "CALLE") == expected


def test_a_street_in_prose_gives_way_to_a_field(rule_nlp):
    # the fallback street never cuts an entity that another rule found
    # (the field takes the floor letter)
    assert labelled(rule_nlp, "Domicilio: C/ Mayor 5, 3º B, 28001 Madrid\n", "CALLE") == [
        "C/ Mayor 5, 3º B"
    ]


@pytest.mark.parametrize(
    "sentence,expected",
    [
        # a code after `nº` with four digits or more, where no other rule or the NER took it
        ("La biopsia (nº B24-18877) informa de carcinoma.", ["B24-18877"]),
        ("Documento registrado con el nº DVA-31-0004417 en el registro.", ["DVA-31-0004417"]),
        ("Tarjeta de la mutua nº 2210 0487 3359 01, la familia.", ["2210 0487 3359 01"]),
        (
            "La biopsia con aguja gruesa (estudio AP24-033571) informa de carcinoma.",
            ["AP24-033571"],
        ),
        # look-alikes: fewer than four digits, no key, a study without a code
        ("Juzgado nº 3 de la ciudad.", []),
        ("El estudio 2/3 de los casos no cambia.", []),
        ("Toma 2 comprimidos del envase nº 20.", []),
        ("Control en 2025 sin cambios.", []),
    ],
)
def test_codes_after_a_number_key(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "OTRO_NUMERO_IDENTIF") == expected


@pytest.mark.parametrize(
    "sentence,expected",
    [
        # the ages of relatives in a list: each age one entity, the last with its unit (P4.3)
        (
            "Tienen otros tres hijos, de 8, 5 y 2 años; los mayores van al colegio.",
            ["8", "5", "2 años"],
        ),
        ("Sus nietos, de 7 y 4 años, viven con ella.", ["nietos", "7", "4 años"]),
        # look-alikes: no kinship word, no age unit
        ("Lesiones de 3 y 5 años de evolución.", []),
        ("Hijos de 3 y 5 kg al nacer.", []),
    ],
)
def test_ages_of_relatives_in_a_list(rule_nlp, sentence, expected):
    assert labelled(rule_nlp, sentence, "FAMILIARES_SUJETO_ASISTENCIA") == expected
