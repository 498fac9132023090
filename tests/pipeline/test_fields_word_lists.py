"""The field finder's particles and month names are word lists (pipeline/data/<lang>/), not
literals, and still do their work. Invented texts."""

import pytest
from conftest import build_rule_nlp
from spacy.lang.es.stop_words import STOP_WORDS

from meddocan_deid.lexicon import tagged_words, words, words_by_language
from meddocan_deid.pipeline import fields


def test_the_sets_come_from_the_word_lists():
    assert fields.PARTICLES == set(tagged_words("particles", "field_name"))
    assert {"de", "la", "van", "di"} <= fields.PARTICLES and "mc" not in fields.PARTICLES
    assert fields.MONTHS == tuple(words("date_months"))
    by_language = words_by_language("date_months")
    assert sorted(by_language) == ["ca", "es", "eu", "gl"]
    assert {"ene", "sept", "setiembre"} <= set(by_language["es"]) and "maig" in by_language["ca"]
    # the stop words that may sit inside a name typed without capitals: particles, not `el`
    kept = set(tagged_words("particles", "caseless_name"))
    assert fields.CASELESS_STOP == frozenset(STOP_WORDS) - kept
    assert "de" not in fields.CASELESS_STOP and "el" in fields.CASELESS_STOP


@pytest.mark.parametrize(
    "value",
    [
        "3 mar. 2024",
        "14 de setiembre de 2023",
        "14 de maig de 2024",
        "martxoa 2024",
        "2 xullo 2022",
    ],
)
def test_a_date_value_with_a_month_of_the_lists(value):
    assert fields.DATE.match(value).group(0) == value


@pytest.fixture(scope="module")
def nlp():
    return build_rule_nlp()


def test_a_name_value_keeps_its_particles(nlp):
    doc = nlp("Nombre: Ana de la Fuente Olmedo.\nFecha de ingreso: 3 mar. 2024.\n")
    found = {(e.label_, e.text) for e in doc.ents}
    assert ("NOMBRE_SUJETO_ASISTENCIA", "Ana de la Fuente Olmedo") in found
    assert ("FECHAS", "3 mar. 2024") in found
