"""Catalan, Galician and Basque passages read with their own word lists: each sentence is
tagged where its Spanish counterpart is (a relative, the relative's age in words, a town, a
phone and a date in words), Basque suffixed names, places and kinship words are whole-word
mentions, and ordinary Basque words are left alone. Every text here is invented."""

import pytest

SENTENCES = {
    "es": (
        "Informe clínico.\nVive con su hija, de cuarenta y un años, en Tolosa. Teléfono: seis "
        "seis cinco, doce, treinta y cuatro, cincuenta y seis. Ingresó el doce de mayo de dos "
        "mil veintitrés."
    ),
    "ca": (
        "Informe clínic.\nViu amb la seva filla, de quaranta-un anys, a Tolosa. Telèfon: sis "
        "sis cinc, dotze, trenta-quatre, cinquanta-sis. Va ingressar el dotze de maig de dos "
        "mil vint-i-tres."
    ),
    "gl": (
        "Informe clínico.\nVive coa súa filla, de corenta e un anos, en Tolosa. Teléfono: seis "
        "seis cinco, doce, trinta e catro, cincuenta e seis. Ingresou o doce de maio de dous "
        "mil vinte e tres."
    ),
    "eu": (
        "Txosten klinikoa.\nBere alabak berrogeita bat urte ditu eta Tolosan bizi da. "
        "Telefonoa: sei sei bost, hamabi, hogeita hamalau, berrogeita hamasei."
    ),
}
EXPECTED = {
    "es": [
        ("hija", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("cuarenta y un años", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("Tolosa", "TERRITORIO"),
        ("seis seis cinco, doce, treinta y cuatro, cincuenta y seis", "NUMERO_TELEFONO"),
        ("doce de mayo de dos mil veintitrés", "FECHAS"),
    ],
    "ca": [
        ("filla", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("quaranta-un anys", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("Tolosa", "TERRITORIO"),
        ("sis sis cinc, dotze, trenta-quatre, cinquanta-sis", "NUMERO_TELEFONO"),
        ("dotze de maig de dos mil vint-i-tres", "FECHAS"),
    ],
    "gl": [
        ("filla", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("corenta e un anos", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("Tolosa", "TERRITORIO"),
        ("seis seis cinco, doce, trinta e catro, cincuenta e seis", "NUMERO_TELEFONO"),
        ("doce de maio de dous mil vinte e tres", "FECHAS"),
    ],
    "eu": [
        ("alabak", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("berrogeita bat urte", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("Tolosan", "TERRITORIO"),
        ("sei sei bost, hamabi, hogeita hamalau, berrogeita hamasei", "NUMERO_TELEFONO"),
    ],
}


def ents(nlp, text):
    return [(e.text, e.label_) for e in nlp(text).ents]


@pytest.mark.parametrize("lang", ["es", "ca", "gl", "eu"])
def test_each_language_is_tagged_where_spanish_is(rule_nlp, lang):
    assert ents(rule_nlp, SENTENCES[lang]) == EXPECTED[lang]


def test_basque_suffixed_mentions_are_whole_words(rule_nlp):
    text = (
        "Izena: Nekane\nAbizenak: Urrutia Lasa\n\n"
        "Nekaneren ahizpa Zarauzko osasun zentroan egon zen. Ostiralean Gasteizko ospitalean "
        "ingresatu zuten bere senarrarekin, eta Frantziatik deitu zuten."
    )
    found = ents(rule_nlp, text)
    for mention in [
        ("Nekaneren", "NOMBRE_SUJETO_ASISTENCIA"),  # a header name with a case suffix
        ("ahizpa", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("Zarauzko osasun zentroan", "CENTRO_SALUD"),
        ("Ostiralean", "FECHAS"),
        ("Gasteizko ospitalean", "HOSPITAL"),
        ("senarrarekin", "FAMILIARES_SUJETO_ASISTENCIA"),
        ("Frantziatik", "PAIS"),
    ]:
        assert mention in found, mention


def test_a_town_with_a_suffix_and_one_without_a_facility(rule_nlp):
    found = ents(rule_nlp, "Gaixoa Durangon bizi da eta Irungo lantegi batean egiten du lan.")
    assert ("Durangon", "TERRITORIO") in found and ("Irungo", "TERRITORIO") in found


def test_ordinary_basque_words_are_not_places(rule_nlp):
    # `Berak` is Bera (a town) + ergative, but the pronoun; `Etxean`, `Lanean`: at home, at work
    text = "Berak esan du gaixoa etxean dagoela. Etxean lasai dago. Lanean ez da egon."
    assert ents(rule_nlp, text) == []


def test_a_spanish_text_is_read_as_before(rule_nlp):
    # `u` is Catalan one, `sis` six: not in a Spanish line
    assert ents(rule_nlp, "El paciente tiene siete u ocho lesiones y sis dudas.") == []


def test_catalan_and_galician_weekdays_and_bare_relatives(rule_nlp):
    ca = ents(rule_nlp, "La néta truca el dijous i el seu germà ve els diumenges.")
    assert ("néta", "FAMILIARES_SUJETO_ASISTENCIA") in ca and ("dijous", "FECHAS") in ca
    assert ("germà", "FAMILIARES_SUJETO_ASISTENCIA") in ca and ("diumenges", "FECHAS") in ca
    gl = ents(rule_nlp, "A irmá non vén o mércores porque traballa.")
    assert ("irmá", "FAMILIARES_SUJETO_ASISTENCIA") in gl and ("mércores", "FECHAS") in gl
    # the same Spanish words in a Spanish line stay words
    assert ents(rule_nlp, "Se ve que el martes pare de llover, dice el paciente.") == []


def test_basque_titles_after_a_name(rule_nlp):
    found = ents(rule_nlp, "Gaur goizean Larrea doktoreak ikusi du gaixoa.")
    assert ("Larrea", "NOMBRE_PERSONAL_SANITARIO") in found


@pytest.mark.parametrize(
    "header,expected",
    [
        (
            "Nom: Pere\nCognoms: Soler Vidal\nData de naixement: 03/02/1950\n",
            ["Pere", "Soler Vidal", "03/02/1950"],
        ),
        (
            "Nome: Uxío\nApelidos: Lema Rial\nData de nacemento: 03/02/1950\n",
            ["Uxío", "Lema Rial", "03/02/1950"],
        ),
        (
            "Izena: Ander\nAbizenak: Goñi Ruiz\nJaiotze data: 1950/02/03\n"
            "Ospitaleratze data: 2024/05/06\nHelbidea: Nagusia kalea 4\n",
            ["Ander", "Goñi Ruiz", "1950/02/03", "2024/05/06", "Nagusia kalea 4"],
        ),
    ],
)
def test_header_keys_in_each_language(rule_nlp, header, expected):
    found = [text for text, _label in ents(rule_nlp, header + "\nBilakaera ona.\n")]
    assert all(value in found for value in expected), found


def test_a_capitalised_basque_title_after_a_name(rule_nlp):
    found = ents(rule_nlp, "Txostena.\nSinatzailea: Ibarguren Doktorea\n")
    assert ("Ibarguren", "NOMBRE_PERSONAL_SANITARIO") in found
