"""Numbers in words in Catalan, Galician and Basque passages, found by the same component as
the Spanish ones: ages (Basque ones with their verb or the patient after the unit), a
relative's age after a possessive, dates with each language's link words, phones after a key
of each language. Every sentence here is invented."""

import pytest
import spacy

import meddocan_deid.pipeline.number_words  # noqa: F401  (registers the factory)


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("es")
    nlp.add_pipe("meddocan_number_words")
    return nlp


def found(nlp, text):
    return [(e.label_, e.text) for e in nlp(text).ents]


@pytest.mark.parametrize(
    "text,expected",
    [
        (
            "El pacient està bé.\nEl seu germà, de quaranta-dos anys, viu amb la seva filla.",
            [("FAMILIARES_SUJETO_ASISTENCIA", "quaranta-dos anys")],
        ),
        (
            "La pacient està bé.\nHome de seixanta-vuit anys que ingressa per dispnea.",
            [("EDAD_SUJETO_ASISTENCIA", "seixanta-vuit anys")],
        ),
        (
            "O doente está ben.\nO seu home, Xosé, de setenta e dous anos, vive coa súa filla.",
            [("FAMILIARES_SUJETO_ASISTENCIA", "setenta e dous anos")],
        ),
        (
            "Gaixoa ondo dago.\nGaixoak hamar urtekoa da eta bere alaba etxean bizi da.",
            [("EDAD_SUJETO_ASISTENCIA", "hamar urtekoa")],
        ),
        (
            "Txosten klinikoa.\nBere alabak berrogeita bat urte ditu eta etxean bizi da.",
            [("FAMILIARES_SUJETO_ASISTENCIA", "berrogeita bat urte")],
        ),
    ],
)
def test_ages_in_each_language(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,date",
    [
        ("El pacient està bé.\nVa ingressar el vint-i-tres d'abril.", "vint-i-tres d'abril"),
        ("La pacient va venir.\nTorna el dia vint-i-tres amb la seva filla.", "dia vint-i-tres"),
        (
            "O doente está ben.\nIngresou o doce de maio de dous mil vinte e tres.",
            "doce de maio de dous mil vinte e tres",
        ),
    ],
)
def test_dates_with_each_languages_links(nlp, text, date):
    assert found(nlp, text) == [("FECHAS", date)]


def test_a_phone_after_a_basque_key(nlp):
    text = (
        "Gaixoa etxean bizi da.\nTelefonoa: sei sei bost, hamabi, hogeita hamalau, "
        "berrogeita hamasei."
    )
    assert found(nlp, text) == [
        ("NUMERO_TELEFONO", "sei sei bost, hamabi, hogeita hamalau, berrogeita hamasei")
    ]


def test_date_links_are_config(nlp):
    # without `d'` among the links, a Catalan day and month are no date
    links = {
        "day_month": ["de"],
        "year": ["de"],
        "number": ["de"],
        "day_article": ["el"],
        "year_word": ["any"],
    }
    spanish_links = spacy.blank("es")
    spanish_links.add_pipe("meddocan_number_words", config={"date_links": links})
    text = "El pacient està bé.\nVa ingressar el vint-i-tres d'abril."
    assert found(spanish_links, text) == []
    assert found(nlp, text) == [("FECHAS", "vint-i-tres d'abril")]
