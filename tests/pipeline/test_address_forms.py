"""The address_forms component: streets and places as the Americas write them, the CALLE and
TERRITORIO spans of the third round's conventions; invented texts."""

import pytest
import spacy

from meddocan_deid.errors import PatternFileError
from meddocan_deid.pipeline.address_forms import AddressForms, address_forms  # noqa: F401
from meddocan_deid.pipeline.tokenizer import create_meddocan_tokenizer


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("es")
    nlp.tokenizer = create_meddocan_tokenizer()(nlp)
    nlp.add_pipe("meddocan_address_forms")
    return nlp


def ents(nlp, text):
    return [(e.text, e.label_) for e in nlp(text).ents]


def test_mexican_address(nlp):
    text = (
        "Derechohabiente del IMSS. Col. Roma Norte, alcaldía Cuauhtémoc, C.P. 06700, "
        "Ciudad de México. Nació en el estado de Jalisco. Estado general bueno."
    )
    assert ents(nlp, text) == [
        ("Roma Norte", "TERRITORIO"),
        ("Cuauhtémoc", "TERRITORIO"),
        ("06700", "TERRITORIO"),
        ("Ciudad de México", "TERRITORIO"),
        ("Jalisco", "TERRITORIO"),
    ]


def test_grid_street_with_its_unit_and_a_known_department(nlp):
    text = (
        "Afiliada a Nueva EPS. Calle 10 # 5-51 apto 302, barrio Chapinero. Departamento de "
        "Cardiología. Vive en el departamento de Antioquia."
    )
    assert ents(nlp, text) == [
        ("Calle 10 # 5-51 apto 302", "CALLE"),
        ("Chapinero", "TERRITORIO"),
        ("Antioquia", "TERRITORIO"),
    ]


def test_streets_between_streets_and_blocks(nlp):
    cuban = "Vive en calle 7 e/ 40 y 41, reparto Vista Alegre. Policlínico Docente Plaza."
    assert ents(nlp, cuban) == [("calle 7 e/ 40 y 41", "CALLE"), ("Vista Alegre", "TERRITORIO")]
    peruvian = "Asegurado de EsSalud. Jr. Huallaga 345, distrito de Cercado de Lima. Mz. 4 Lt. 12."
    assert ents(nlp, peruvian) == [
        ("Jr. Huallaga 345", "CALLE"),
        ("Cercado de Lima", "TERRITORIO"),
        ("Mz. 4 Lt. 12", "CALLE"),
    ]


def test_lower_case_takes_known_places_only(nlp):
    text = "paciente de fonasa, vive en la comuna de peñalolén, en la colonia las brisas."
    assert ents(nlp, text) == [("peñalolén", "TERRITORIO")]
    known = "paciente de fonasa, comuna de ñuñoa, en la colonia santa rita."
    assert ents(nlp, known) == [("ñuñoa", "TERRITORIO"), ("santa rita", "TERRITORIO")]


def test_colonia_the_perfume_is_no_place(nlp):
    assert ents(nlp, "Derechohabiente del IMSS. Usa colonia Nenuco a diario.") == []


def test_spain_gets_postal_codes_only_in_gaps(nlp):
    text = "DNI 12345678Z, vive en Getafe, C.P. 28901, barrio de Salamanca, Mz. 4 Lt. 12."
    assert ents(nlp, text) == [("28901", "TERRITORIO")]


def test_a_bad_forms_file_is_named(tmp_path):
    path = tmp_path / "forms.json"
    path.write_text('{"patterns": [{"id": "x", "label": "CALLE", "regex": "("}]}', "utf-8")
    with pytest.raises(PatternFileError, match="forms.json: not valid address forms"):
        address_forms(path)
    with pytest.raises(PatternFileError, match="missing.json: address forms not found"):
        address_forms(tmp_path / "missing.json")


def test_in_the_rule_pipeline(rule_nlp):
    # the shipped config (configs/pipeline.cfg without the NER): both components run
    text = (
        "Derechohabiente del IMSS, adscrita a la UMF No. 12. Domicilio: Calle 10 # 5-51, "
        "Col. Roma Norte, alcaldía Coyoacán."
    )
    found = {(e.text, e.label_) for e in rule_nlp(text).ents}
    assert {
        ("IMSS", "INSTITUCION"),
        ("UMF No. 12", "CENTRO_SALUD"),
        ("Calle 10 # 5-51", "CALLE"),
        ("Roma Norte", "TERRITORIO"),
        ("Coyoacán", "TERRITORIO"),
    } <= found


def test_a_header_address_line_is_split_and_keeps_its_rest(rule_nlp):
    text = "Derechohabiente del IMSS.\nDomicilio: Calle Pino 5, Mz. 4 Lt. 12, Col. Roma Norte\n"
    found = [(e.text, e.label_) for e in rule_nlp(text).ents if e.label_ != "INSTITUCION"]
    assert found == [
        ("Calle Pino 5", "CALLE"),
        ("Mz. 4 Lt. 12", "CALLE"),
        ("Roma Norte", "TERRITORIO"),
    ]


PANAMA = "Asegurada de la Caja de Seguro Social, cédula 8-123-4567. "


def test_a_corregimiento_after_its_type_word(nlp):
    text = PANAMA + "Vive en el corregimiento de Betania, distrito de San Miguelito."
    assert ents(nlp, text) == [("Betania", "TERRITORIO"), ("San Miguelito", "TERRITORIO")]
    lower = (PANAMA + "vive en el corregimiento de pueblo nuevo.").lower()
    assert ents(nlp, lower) == [("pueblo nuevo", "TERRITORIO")]
    # a corregimiento named with its type word is the place whole
    assert ents(nlp, PANAMA + "Reside en Barrio Norte, Colón.") == [("Barrio Norte", "TERRITORIO")]


def test_a_bare_corregimiento_in_an_address(nlp):
    assert ents(nlp, PANAMA + "Domicilio: Betania, Panamá. Acude por tos.") == [
        ("Betania", "TERRITORIO")
    ]
    assert ents(nlp, PANAMA + "Procedente de Juan Díaz, San Miguelito.") == [
        ("Juan Díaz", "TERRITORIO")
    ]
    street = PANAMA + "Vive en Calle 50 # 12-30, Bella Vista. Acude por tos."
    assert ents(nlp, street) == [("Calle 50 # 12-30", "CALLE"), ("Bella Vista", "TERRITORIO")]


def test_ordinary_words_named_like_a_corregimiento_are_no_place(nlp):
    # `pueblo nuevo` and `santa ana` in lower case, or capitalised outside an address
    text = (PANAMA + "Se mudó a un pueblo nuevo; su hermana santa ana vive cerca.").lower()
    assert ents(nlp, text) == []
    assert ents(nlp, PANAMA + "Se mudó a un Pueblo Nuevo, Panamá le gusta.") == []
    # a centre named after one stays whole: no place is cut out of it
    assert ents(nlp, PANAMA + "Ingresa en el Hospital de Santa Ana, Panamá.") == []


def test_a_panamanian_address_line_is_split_into_its_places(rule_nlp):
    text = (
        "Asegurada de la Caja de Seguro Social.\n"
        "Domicilio: Calle 50, edificio 12, Bella Vista, Panamá\nCédula: 8-123-4567\n"
    )
    found = [(e.text, e.label_) for e in rule_nlp(text).ents]
    assert ("Bella Vista", "TERRITORIO") in found and ("Panamá", "TERRITORIO") in found
    assert ("Calle 50, edificio 12", "CALLE") in found


def test_a_bare_corregimiento_after_an_address_key(nlp):
    assert ents(nlp, PANAMA + "Vive en Pueblo Nuevo desde 2019.") == [
        ("Pueblo Nuevo", "TERRITORIO")
    ]
    assert ents(nlp, PANAMA + "Es natural de Santa Ana.") == [("Santa Ana", "TERRITORIO")]
    # the same words after another word are none
    assert ents(nlp, PANAMA + "Sueña en Pueblo Nuevo; lee de Santa Ana.") == []
