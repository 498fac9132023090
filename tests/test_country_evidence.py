"""Kinds of evidence country detection scores (meddocan_deid.country): Paraguay and Bolivia,
phones valid in one plan only, currency words, voseo, Guaraní, identifiers with their checks
after their keys, demonyms, US addresses and dates; Peru's professional colleges and EsSalud's
words, Venezuela's keyed cédulas, ministries, states and phones, Ecuador's checked cédulas and
mobiles; reference hospitals; places named like a country. Invented snippets; each kind is
shown found and, on a near miss, not found."""

import pytest

from meddocan_deid.country import (
    DEMONYM_WEIGHT,
    HOSPITAL_WEIGHT,
    PHONE_WEIGHT,
    PLACE_WEIGHT,
    country_of,
    detect_country,
)
from meddocan_deid.country_data import countries, detection_places, places
from meddocan_deid.lexicon import lookup_key


def scores(text, spans=()):
    return detect_country(text, spans).scores


@pytest.mark.parametrize(
    "country,text",
    [
        ("PY", "Asegurada del IPS, RUC 1234567-9, vive en Ciudad del Este."),
        ("PY", "Mba'éichapa, doctora. Che sy está mejor; pagamos 250.000 guaraníes."),
        ("BO", "Afiliado a la Caja Nacional de Salud, CI 4567891 LP, vive en Oruro."),
        ("BO", "Matrícula CNS 85-0512-PQR; atendido por el SUS en Tarija."),
    ],
)
def test_paraguay_and_bolivia_are_detected(country, text):
    assert country_of(text) == country


def test_paraguay_and_bolivia_are_countries_with_places():
    assert {"PY", "BO"} <= set(countries())
    assert countries()["PY"].dialling == ("595",) and countries()["BO"].dialling == ("591",)
    assert places("PY") and places("BO")


def test_a_division_written_as_a_common_word_is_no_detection_place():
    # Paraguay's departments `Central` and `Cordillera`: `Hospital Central`
    assert lookup_key("Central") not in detection_places()
    assert lookup_key("Cochabamba") in detection_places()


def test_a_phone_valid_in_one_plan_only_counts_for_that_country():
    assert scores("Tel.: (021) 555 1234")["PY"] == 2.0
    # eight digits valid in several plans of Central America: no country's alone
    assert "BO" not in scores("Celular: 7123 4567")


def test_a_phone_entity_valid_in_one_plan_counts_once():
    text = "Se avisa al hermano (11 4823-9051)."
    start = text.index("11")
    span = ("NUMERO_TELEFONO", start, start + len("11 4823-9051"))
    assert "AR" not in scores(text)
    assert scores(text, [span])["AR"] == PHONE_WEIGHT
    keyed = "Teléfono: 11 4823-9051."
    start = keyed.index("11")
    both = scores(keyed, [("NUMERO_TELEFONO", start, start + 12)])
    assert both["AR"] == PHONE_WEIGHT  # the cue and the entity are one phone


@pytest.mark.parametrize(
    "country,text",
    [
        ("PY", "Costo Gs. 150.000"),
        ("PE", "La consulta costó S/ 80"),
        ("VE", "Pagó en bolívares"),
        ("GT", "Pagó 300 quetzales"),
        ("CR", "Pagó 5000 colones"),
        ("DO", "Monto RD$ 2,500"),
        ("ES", "Pagó 30 euros"),
    ],
)
def test_currency_words(country, text):
    assert scores(text).get(country, 0) >= 2


def test_soles_are_currency_after_a_number_only():
    assert "PE" not in scores("Trabaja bajo los soles del verano.")


def test_voseo_counts_for_the_river_plate_not_for_tuteo():
    found = scores("¿Tenés fiebre? Contame cómo seguís.")
    assert found["AR"] == found["UY"] == found["PY"] == 1
    assert scores("¿Tienes fiebre? Cuéntame cómo sigues.") == {}


@pytest.mark.parametrize(
    "country,good,bad",
    [
        ("PY", "R.U.C. 1234567-9", "R.U.C. 1234567-8"),
        ("PE", "dni 45678912-4", "dni 45678912-5"),
        ("UY", "C.I. 3.456.789-4", "C.I. 3.456.789-5"),
        ("CU", "carné de identidad 85031212345", "carné 85131212345"),
    ],
)
def test_identifiers_after_their_keys_count_with_their_check(country, good, bad):
    assert scores(good).get(country, 0) >= 2
    assert scores(bad).get(country, 0) < 2


def test_a_bolivian_cedula_needs_its_department():
    assert scores("CI 4567891 SC")["BO"] == 4
    assert "BO" not in scores("CI 4567891")


def test_a_cns_registration_needs_a_birth_month():
    assert scores("85-5512-PQR")["BO"] == 3  # a woman's: month + 50
    assert "BO" not in scores("85-1312-PQR")


def test_guarani_words():
    assert scores("aguyje, doctor")["PY"] == 3
    assert "PY" not in scores("aguja del catéter")


def test_a_demonym_names_a_country():
    assert scores("Paciente hondureña de 40 años.")["HN"] == DEMONYM_WEIGHT
    assert scores("Paciente de nacionalidad boliviana.")["BO"] == DEMONYM_WEIGHT
    # Spain's reports need no evidence: its demonym scores nothing
    assert "ES" not in scores("Paciente española.")


def test_us_state_and_zip_after_a_place():
    assert scores("Houston, TX 77002")["US"] >= 3
    assert scores("Bayamón, PR 00961")["US"] == 3
    assert "US" not in scores("ID 28001")


def test_a_date_written_month_first():
    assert scores("Visita 03/17/2025")["US"] == 2
    assert "US" not in scores("Visita 17/03/2025")


def test_an_argentinian_medical_licence():
    assert scores("Dra. Pérez, M.N. 98765")["AR"] == 2
    assert scores("dr lópez mp 51873")["AR"] == 2


def test_obra_social_in_the_singular():
    assert scores("Tiene obra social provincial.")["AR"] == 3


def test_colombian_prepaid_medicine():
    assert scores("Cubierto por su medicina prepagada.")["CO"] == 2


def test_a_spanish_report_with_a_spanish_phone_stays_spanish():
    text = "Varón de 60 años, natural de Getafe. Teléfono: 612 345 678. Pagó 20 euros."
    assert country_of(text) == "ES"


def test_a_costa_rican_cedula_in_its_written_form():
    assert scores("Identificación 2-0456-0789")["CR"] == 3
    assert "CR" not in scores("Lote 2-0456-07891")


def test_a_uruguayan_cedula_after_the_word_cedula():
    assert scores("cédula 3.456.789-4")["UY"] == 4  # the shape and the keyed value
    assert scores("cédula 3.456.789-5").get("UY", 0) == 0


def test_essalud_networks_and_peruvian_programmes():
    assert scores("Red Asistencial Sabogal")["PE"] == 2
    assert scores("pensionista de la ONP")["PE"] == 3


def test_insurers_of_puerto_rico_count_for_the_us_and_a_spanish_word_is_no_insurer():
    assert scores("aseguradora Triple-S")["US"] == 3
    assert scores("virus de la inmunodeficiencia humana") == {}


def test_a_us_street_address_and_not_a_doctor_after_a_room():
    assert scores("Dirección: 2710 Maple Ave")["US"] == 2
    assert "US" not in scores("Box 12 Urgencias Dr. López")


@pytest.mark.parametrize(
    "text",
    [
        "Se acuerda con la familia un plan vital centrado en el confort.",
        "El lactante duerme en la cuna más cercana a la ventana.",
        "Cobra una pensión 65 euros por encima de la mínima.",
        "Estudio del CNS sin hallazgos agudos.",
        "Informe autogenerado por el sistema a las 08:00.",
        "Expediente 1-2019-0045 del juzgado de guardia.",
        "Heparina 100000 SC cada 24 h durante el ingreso.",
        "Mujer peruana; coordinada con la red asistencial de su área.",
        "Incluida en el programa de atención domiciliaria del centro de salud.",
    ],
)
def test_spanish_sentences_with_the_words_of_a_foreign_cue_stay_spanish(text):
    # each holds the words, not the evidence: a programme named in ordinary words, a dose and
    # its route, a file number in a cédula's shape, a code word without its key
    assert country_of(text) == "ES"


@pytest.mark.parametrize(
    "country,text",
    [
        ("PE", "Asegurado de EsSalud, código autogenerado 4512309ABCDE0, Red Asistencial Cusco."),
        ("CR", "Cédula 1-0234-0567, asegurada directa."),
        ("BO", "C.I. 4567891 LP; vive en Sucre."),
    ],
)
def test_the_same_cues_with_their_key_still_count(country, text):
    assert scores(text).get(country, 0) >= 2


@pytest.mark.parametrize(
    "text,weight",
    [
        ("Dra. Rosa Quispe, CMP 045678", 3),  # the Colegio Médico del Perú
        ("firma: cmp 061234", 3),
        ("Obst. Liz Vargas, COP 30112", 2),  # a Peruvian professional college
        ("Lic. enf. Ana Ríos, CEP 71234", 2),
        ("Se extiende el CITT por siete días.", 3),  # EsSalud's incapacity certificate
        ("Paciente asegurado regular, acude con su DNI.", 3),
    ],
)
def test_peruvian_colleges_certificates_and_kinds_of_insured(text, weight):
    assert scores(text)["PE"] == weight


@pytest.mark.parametrize(
    "text",
    [
        "Perfil CMP sin alteraciones.",  # a laboratory panel, no registration number
        "Colegiado COP M-12345 (psicología).",  # Spain's college of psychologists
        "Agente del CNP 12345 presente en la exploración.",  # Spain's police
        "Paciente asegurada por su mutua, sin incidencias.",
    ],
)
def test_spanish_keys_that_look_like_peruvian_ones_are_not_peruvian(text):
    assert "PE" not in scores(text)


@pytest.mark.parametrize(
    "text,weight",
    [
        ("C.I. V 12345678.", 3),  # the cédula's letter after its key
        ("ci v-12.345.678", 3),  # in lower case
        ("C.I. V-12.345.678", 7),  # and the written V- shape
        ("Ministerio del Poder Popular para la Salud", 6),  # the cue and the institution
        ("Presenta su carnet de la patria.", 3),
        ("Referido del ambulatorio urbano tipo II.", 2),
        ("Procedente del estado Zulia.", 2 + PLACE_WEIGHT),  # and the place
        ("Llamar al 0414-555.12.34", 3),  # a number of Venezuela's plan alone
        ("Fijo: 0212 555 1234", 3),
    ],
)
def test_venezuelan_cedulas_ministries_centres_states_and_phones(text, weight):
    assert scores(text)["VE"] == weight


@pytest.mark.parametrize(
    "text",
    [
        "Seguimiento ambulatorio en su centro de salud.",  # Spain's outpatient follow-up
        "Vive en el Estado de México.",  # Mexico's state, written with `de`
        "Código de sala V 12 en la planta tercera.",  # a letter and a number, no key
        "Teléfono: 912 345 678",  # Spain's plan
    ],
)
def test_spanish_words_near_the_venezuelan_cues_are_not_venezuelan(text):
    assert "VE" not in scores(text)


def test_a_town_named_like_another_country_names_that_country():
    # Cuba has a town `Venezuela`; a Venezuelan report writes the country's name
    assert "CU" not in scores("Natural de Venezuela, reside en el país desde niña.")
    # a Cuban town named by a phrase of health text
    assert lookup_key("La Salud") not in detection_places()
    assert "CU" not in scores("MINISTERIO DEL PODER POPULAR PARA LA SALUD")


def test_a_bare_policlinico_is_shared_and_a_teaching_one_is_cuban():
    assert scores("Acude al policlínico del barrio.") == {"PE": 1, "CU": 1}
    assert scores("Policlínico Docente Playa")["CU"] == 2.5


@pytest.mark.parametrize(
    "text,weight",
    [
        ("C.I. 1710034065", 5),  # keyed and checked, and checked alone
        ("cédula 0926687856 ingresa a piso.", 6.5),  # and a Guayas cédula has a mobile's shape
        ("HCU 0926687856 ingresa a piso.", 3.5),  # HCU is Spain's hospital too: no key
        ("601  1710034065  GUAMÁN PÉREZ ROSA", 2),  # a list: the checked ten digits alone
        ("hijo 099 123 4567", 1.5),  # a mobile of ten digits with its trunk 0
    ],
)
def test_ecuadorian_cedulas_and_mobiles(text, weight):
    assert scores(text)["EC"] == weight


@pytest.mark.parametrize(
    "text",
    [
        "C.I. 1710034066",  # the check digit wrong
        "NHC 3310034065 en el HCU de Zaragoza.",  # no province 33; Spain's university hospital
        "Teléfono: 912 345 678",
    ],
)
def test_ten_digits_without_the_cedula_check_are_not_ecuadorian(text):
    assert "EC" not in scores(text)


def test_a_mobile_written_with_a_trunk_zero_is_not_peruvian():
    # Peru dials its mobiles without a trunk 0: `0991234567` is Ecuador's or Paraguay's
    text = "Contacto de la hija: 0991234567."
    start = text.index("0991")
    found = scores(text, [("NUMERO_TELEFONO", start, start + 10)])
    assert "PE" not in found
    assert found["EC"] >= 1.5
    # Peru's landlines keep theirs
    assert scores("Teléfono: (01) 411 2233")["PE"] == PHONE_WEIGHT


def test_a_reference_hospital_counts_once_and_does_not_decide_alone():
    # its name and its acronym are one hospital; a patient may be referred from abroad
    text = "Interconsulta al HNERM (Hospital Nacional Edgardo Rebagliati Martins)."
    assert scores(text) == {"PE": HOSPITAL_WEIGHT}
    assert country_of(text) == "ES"
    assert country_of(text + " Asegurado regular.") == "PE"
    assert scores("Ingresa en el Hospital Carlos Andrade Marín.")["EC"] == HOSPITAL_WEIGHT


@pytest.mark.parametrize(
    "text",
    [
        "Ingresó el dos de mayo en el Hospital de Almenara.",  # a date and a Spanish town
        "Interconsulta a la Dra. Heredia; revisa el Dr. Loayza.",  # surnames alone
    ],
)
def test_words_and_surnames_of_a_hospital_name_are_no_hospital(text):
    assert scores(text) == {}


@pytest.mark.parametrize(
    "country,text,weight",
    [
        ("PE", "Vive en Mz. G Lt. 22, sector tres.", 1.5),  # a block by its letter
        ("PE", "grupo quince, manzana B, lote 7", 1.5),
        ("PE", "Reside en el asentamiento humano Los Olivos.", 2),
        ("PE", "Accidente laboral cubierto por el SCTR.", 2),
        ("EC", "Dirección: Av. 10 de Agosto N24-56 y Luis Cordero.", 3),  # Quito's numbering
    ],
)
def test_peruvian_settlements_and_plots_and_quito_house_numbers(country, text, weight):
    assert scores(text)[country] == weight


@pytest.mark.parametrize(
    "text",
    [
        "Mz 12 Lt 4, colonia Centro.",  # a block by its number: Mexico's shape
        "Muestra N24-56 enviada a microbiología.",  # a code, no cross street
        "Paciente en tratamiento tópico con mupirocina.",
    ],
)
def test_near_misses_of_peruvian_and_quito_addresses(text):
    found = scores(text)
    assert "PE" not in found and "EC" not in found


@pytest.mark.parametrize(
    "text,weight",
    [
        ("Paciente V 12.345.678, sin alergias.", 3),  # the letter and the dots, no key
        ("Vive en la parroquia Caricuao.", 2),  # a parish of Caracas
        ("Inscrita en la Misión Negra Hipólita.", 2),  # the others are institutions too
        ("Atendido por médico integral comunitario.", 3),
        ("Pagó Bs.S 1500 por el examen.", 3),  # a bolívar with its letter
    ],
)
def test_venezuelan_parishes_programmes_doctors_and_bolivares(text, weight):
    assert scores(text)["VE"] == weight


def test_a_cuban_doctor_and_the_mgi_specialty_count_for_cuba_and_venezuela_alike():
    # Cuba's doctors work in Venezuela's Barrio Adentro: what they write is not Cuba's alone
    found = scores("Valorada por la Dra. Yanet, médico cubana, especialista en MGI.")
    assert found["VE"] == 2  # the doctor and the specialty
    assert found["CU"] == 1 + DEMONYM_WEIGHT  # the specialty and the demonym
    assert scores("Especialista en MGI.") == {"CU": 1, "VE": 1}


@pytest.mark.parametrize(
    "text",
    [
        "Ingresa en la parroquia de Santa María de Ribeira.",  # a Galician parish
        "Cobra 300 Bs. de su pensión.",  # Bolivia's too: no letter
        "Ve 12 pacientes por turno.",
    ],
)
def test_near_misses_of_venezuelan_parishes_bolivares_and_cedulas(text):
    assert scores(text).get("VE", 0) < 2


@pytest.mark.parametrize(
    "text",
    [
        # people named like the reference hospitals of Cuba, Ecuador and Venezuela
        "Paciente Manuel Fajardo, remitido por el Dr. Calixto García Pérez. Hospital La Paz.",
        "Paciente Enrique Garcés Baca Ortiz, natural de Huesca.",
        "De origen venezolano, residente en Madrid. Dr. Enrique Tejera.",
        # clinical text shaped like a Quito house number, a TNM stage
        "Afectación de raíces S2-4 y disfunción esfinteriana. Hospital de Cruces.",
        "Estadio T3 N1-2 y M0.",
        # Spain's Hospital Clínico Universitario and its record number; a date and a time
        "Ingresa en el HCU Valladolid, NHC 1712345600.",
        "Visita el 09-12-2023 10:30 en consulta.",
        # where a doctor studied, and the words of generic bodies
        "Licenciado por la Universidad Peruana Cayetano Heredia y la Universidad del Zulia.",
        "Se activó el sistema de atención médica de emergencias; trabaja para una mejor niñez.",
        "Notificado al Sistema Nacional de Vigilancia en Salud Pública.",
    ],
)
def test_spanish_text_near_the_new_evidence_stays_spains(text):
    assert country_of(text) == "ES"


def test_a_hospital_named_for_a_person_counts_after_its_head():
    assert scores("Ingresó en el Hospital Docente Calixto García.")["CU"] == 2
    assert scores("Control en el HNERM.")["PE"] == 2
    assert "CU" not in scores("Dr. Calixto García, neumólogo.")
