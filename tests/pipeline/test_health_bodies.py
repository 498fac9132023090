"""The health_bodies component: institutions and centres of the Americas, case-blind, with the
labels of the third round's conventions; invented texts."""

import pytest
import spacy

from meddocan_deid.pipeline.health_bodies import HealthBodies  # noqa: F401  (the factory)
from meddocan_deid.pipeline.tokenizer import create_meddocan_tokenizer


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("es")
    nlp.tokenizer = create_meddocan_tokenizer()(nlp)
    nlp.add_pipe("meddocan_health_bodies")
    return nlp


def ents(nlp, text):
    return [(e.text, e.label_) for e in nlp(text).ents]


def test_institutions_and_numbered_units(nlp):
    text = (
        "Derechohabiente del IMSS (Instituto Mexicano del Seguro Social), adscrita a la "
        "UMF No. 12, enviada al HGZ N° 32 del IMSS."
    )
    assert ents(nlp, text) == [
        ("IMSS", "INSTITUCION"),
        ("Instituto Mexicano del Seguro Social", "INSTITUCION"),
        ("UMF No. 12", "CENTRO_SALUD"),
        ("HGZ N° 32", "HOSPITAL"),
        ("IMSS", "INSTITUCION"),
    ]


def test_named_centres_end_at_the_next_head(nlp):
    text = "Control en CESFAM Cordillera y CESFAM Dr. Ramón Ruiz Tagle, afiliada a Fonasa."
    assert ents(nlp, text) == [
        ("CESFAM Cordillera", "CENTRO_SALUD"),
        ("CESFAM Dr. Ramón Ruiz Tagle", "CENTRO_SALUD"),
        ("Fonasa", "INSTITUCION"),
    ]


def test_case_blind_in_a_report_in_lower_case(nlp):
    text = "paciente afiliado a nueva eps, derivado del caps 15 por control. atendido en el imss"
    assert ents(nlp, text) == [
        ("nueva eps", "INSTITUCION"),
        ("caps 15", "CENTRO_SALUD"),
        ("imss", "INSTITUCION"),
    ]


def test_country_heads_only_in_their_countries(nlp):
    cuban = "Vive en calle 7 e/ 40 y 41. Atendida en el Policlínico Docente Plaza, MINSAP."
    assert ("Policlínico Docente Plaza", "CENTRO_SALUD") in ents(nlp, cuban)
    spanish = "DNI 12345678Z, tarjeta sanitaria. Atendida en el Policlínico Docente Plaza."
    assert ents(nlp, spanish) == []


def test_head_alone_acronym_in_lower_case_and_words_are_not_bodies(nlp):
    assert ents(nlp, "Se deriva a un CESFAM. La DIF renal es normal. El sis de Monday.") == []
    assert ents(nlp, "Usa colirio. Centro de Salud Las Margaritas (Madrid).") == []


def test_a_longer_entity_of_the_same_label_is_kept(nlp):
    doc = nlp.make_doc("Instituto Mexicano del Seguro Social Delegación Sur.")
    doc.ents = [doc.char_span(0, len(doc.text) - 1, label="INSTITUCION")]
    doc = nlp.get_pipe("meddocan_health_bodies")(doc)
    assert [e.text for e in doc.ents] == ["Instituto Mexicano del Seguro Social Delegación Sur"]
    assert [s.text for s in doc.spans["health_bodies"]] == ["Instituto Mexicano del Seguro Social"]


def test_public_bodies_universities_and_companies(nlp):
    text = (
        "Trasladado por Carabineros de Chile; la denuncia al SENAME. Estudiante de la "
        "Universidad de Concepción, receta retirada en Walgreens."
    )
    assert ents(nlp, text) == [
        ("Carabineros de Chile", "INSTITUCION"),
        ("SENAME", "INSTITUCION"),
        ("Universidad de Concepción", "INSTITUCION"),
        ("Walgreens", "INSTITUCION"),
    ]


def test_a_clinical_abbreviation_is_no_body(nlp):
    # PNP (polineuropatía) and SRT (radioterapia estereotáctica) are left out of the table
    assert ents(nlp, "PNP sensitivo-motora. Planificada SRT sobre la lesión.") == []
