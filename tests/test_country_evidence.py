"""Kinds of evidence country detection scores (meddocan_deid.country): Paraguay and Bolivia,
phones valid in one plan only, currency words, voseo, Guaraní, identifiers with their checks
after their keys, demonyms, US addresses and dates. Invented snippets; each kind is shown
found and, on a near miss, not found."""

import pytest

from meddocan_deid.country import DEMONYM_WEIGHT, PHONE_WEIGHT, country_of, detect_country
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
