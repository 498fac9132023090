"""The lexicon vectors: word classes that hold in any case, as spaCy vectors."""

import subprocess
import sys
from pathlib import Path

import pytest
import spacy

from meddocan_deid.training.lexicon_vectors import (
    CLASSES,
    LexiconSources,
    build_lexicon,
    case_forms,
    write_word2vec,
)

ROOT = Path(__file__).resolve().parents[2]

# an invented gazetteer with the task's file names
GAZETTEER = {
    "Nombres (Firstnames).txt": "Zoraida\nMaría José\n",
    "Apellidos (Lastnames).txt": "Quintanilla\nde la Fuente\n",
    "Municipios (Cities and towns).txt": "Villanueva del Arzobispo\nXeraco\n",
    "Territorio (Autonomous communities and provinces).txt": "Teruel\n",
    "Direcciones (Addresses).txt": "CALLE DEL OLMO, 12\n",
    "Hospitales (Hospitals).txt": "Hospital Comarcal de Xeraco\n",
    "Profesiones (Professions).txt": "Fontanero\n",
}


@pytest.fixture(scope="module")
def gazetteer(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gazetteer")
    for name, text in GAZETTEER.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def lexicon(gazetteer):
    return build_lexicon(LexiconSources(gazetteer=gazetteer, common_words=5000, frequent_words=500))


def test_gazetteer_words_get_their_class(lexicon):
    assert "first_name" in lexicon["zoraida"]
    assert "surname" in lexicon["quintanilla"]
    assert "town" in lexicon["xeraco"]
    assert {"place_part"} <= lexicon["arzobispo"] and "town" not in lexicon.get("arzobispo", set())
    assert "province" in lexicon["teruel"]
    assert "street_part" in lexicon["olmo"]
    assert "hospital_part" in lexicon["comarcal"]
    assert "profession" in lexicon["fontanero"]


def test_stop_words_of_names_are_not_name_parts(lexicon):
    assert "surname" not in lexicon.get("de", set())
    assert "place_part" not in lexicon.get("del", set())


def test_accentless_spelling_gets_the_classes_of_the_accented_one(lexicon):
    assert "first_name" in lexicon["maría"]
    assert "first_name" in lexicon["maria"]


def test_nicknames_numbers_and_common_words(lexicon):
    assert "nickname" in lexicon["pili"]
    assert "number_word" in lexicon["veintitrés"] and "number_word" in lexicon["veintitres"]
    assert "common_word" in lexicon["aporta"]
    assert "town" not in lexicon["aporta"] and "first_name" not in lexicon["aporta"]
    assert "calendar_word" in lexicon["septiembre"]
    assert "kinship" in lexicon["hija"]


def test_case_forms():
    assert case_forms("teruel") == ["teruel", "Teruel", "TERUEL"]
    assert case_forms("x") == ["x", "X"]


def test_word2vec_rows_are_the_classes(tmp_path):
    path = tmp_path / "v.txt"
    assert write_word2vec({"teruel": {"province", "surname"}, "a b": {"town"}}, path) == 1
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == f"3 {len(CLASSES)}"
    row = dict(line.split(" ", 1) for line in lines[1:])
    assert set(row) == {"teruel", "Teruel", "TERUEL"}
    values = row["TERUEL"].split()
    assert values[CLASSES.index("province")] == "1" and values[CLASSES.index("surname")] == "1"
    assert values.count("1") == 2


def test_script_writes_vectors_found_in_any_case(tmp_path, gazetteer):
    out = tmp_path / "vectors"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "lexicon_vectors.py"),
            str(out),
            "--gazetteer",
            str(gazetteer),
            "--common-words",
            "3000",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"{len(CLASSES)} classes" in proc.stdout
    nlp = spacy.load(out)
    doc = nlp.make_doc("ZORAIDA zoraida Zoraida qwzx")
    assert [t.has_vector for t in doc] == [True, True, True, False]
    assert (doc[0].vector == doc[1].vector).all()
    assert doc[0].vector[CLASSES.index("first_name")] == 1.0


def test_script_names_a_missing_gazetteer(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "lexicon_vectors.py"),
            str(tmp_path / "v"),
            "--gazetteer",
            str(tmp_path / "nowhere"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert "nowhere: not a folder" in proc.stderr


def test_places_of_the_americas_are_towns(lexicon):
    # GeoNames places of the country table (country_data), read with the Spanish towns
    assert "town" in lexicon["tlalnepantla"]
    assert "town" in lexicon["peñalolén"] and "town" in lexicon["penalolen"]
    assert "place_part" in lexicon["macorís"]
