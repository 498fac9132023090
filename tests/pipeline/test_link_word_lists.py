"""The small words that link the parts of a name or a town (`Sonia y Marta`, `Villanueva de la
Cañada`) and end an institution before its department are word lists per language
(pipeline/data/<lang>/), not literals. Invented texts."""

import pytest
from conftest import build_rule_nlp

from meddocan_deid.lexicon import words, words_by_language
from meddocan_deid.pipeline import entity_edges, rule_entities


def test_the_sets_come_from_the_word_lists():
    assert rule_entities.TOWN_LINKS == set(words("town_links"))
    assert rule_entities.NAME_LINKS == set(words("name_links")) == set(entity_edges.NAME_LINKS)
    assert entity_edges.DEPARTMENT_LINKS == frozenset(words("department_links"))
    # Spanish and Catalan words, each in its language's file
    assert words_by_language("name_links") == {"es": ["y", "e"], "ca": ["i"]}
    assert {"d'", "l'", "i"} == set(words("town_links", "ca"))
    assert "del" in words("town_links", "es") and "d'" in words("department_links", "ca")


@pytest.fixture(scope="module")
def nlp():
    return build_rule_nlp()


def test_the_links_still_join_names_and_towns(nlp):
    doc = nlp("Vive con sus hijas, Sonia y Marta, en Villanueva de la Cañada.\n")
    found = {(e.label_, e.text) for e in doc.ents}
    assert {
        ("FAMILIARES_SUJETO_ASISTENCIA", "Sonia"),
        ("FAMILIARES_SUJETO_ASISTENCIA", "Marta"),
        ("TERRITORIO", "Villanueva de la Cañada"),
    } <= found
