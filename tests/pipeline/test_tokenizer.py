"""Token boundaries of the MEDDOCAN tokenizer: PHI must start and end on a token
boundary, so keys glued to values, single-letter abbreviations and missing spaces
are split, while dates, e-mail addresses and titles stay whole."""

import pytest
import spacy

from meddocan_deid.pipeline.tokenizer import blank_pipeline


@pytest.fixture(scope="module")
def nlp():
    return blank_pipeline()


def tokens(nlp, text):
    return [t.text for t in nlp(text)]


SPLITS = [
    ("Sexo: H.", ["Sexo", ":", "H", "."]),
    ("Sexo: M.", ["Sexo", ":", "M", "."]),
    ("2A.", ["2A", "."]),
    ("3 B.", ["3", "B", "."]),
    ("CP:28029", ["CP", ":", "28029"]),
    ("NHC:4567321", ["NHC", ":", "4567321"]),
    ("Edad:16", ["Edad", ":", "16"]),
    ("nhc-248135", ["nhc", "-", "248135"]),
    ("nhc/583914", ["nhc", "/", "583914"]),
    ("E-28935", ["E", "-", "28935"]),
    ("NºCol:49", ["NºCol", ":", "49"]),
    ("Ingreso:19/11/2016", ["Ingreso", ":", "19/11/2016"]),
    ("MartínezNºCol", ["Martínez", "NºCol"]),
    ("MartínezCorreo", ["Martínez", "Correo"]),
    ("DRAlberto", ["DR", "Alberto"]),
    ("DRAAlberto", ["DRA", "Alberto"]),
    ("DR.Francisco", ["DR", ".", "Francisco"]),
    ("2014.El", ["2014", ".", "El"]),
    ("Tfno.+34 945118273", ["Tfno", ".", "+", "34", "945118273"]),
    ("x@y.com.", ["x@y.com", "."]),
    ("\ufeffNombre: Ana", ["\ufeff", "Nombre", ":", "Ana"]),
    ("Dr. Luis", ["Dr.", "Luis"]),
]

WHOLE = [
    "19/11/2016",
    "x.y@hotmail.com",
    "juan.perez@salud.es",
    "Dr.",
    "Dra.",
    "Sra.",
    "etc.",
    "1.500",
    "3,5",
    "12:30",
    "https://www.salud.es/x",
    "paciente",
    "hipertensión",
    "Hospital",
    "DRAMA",
    "McDonald",
]


@pytest.mark.parametrize("text,expected", SPLITS)
def test_splits(nlp, text, expected):
    assert tokens(nlp, text) == expected


@pytest.mark.parametrize("text", WHOLE)
def test_stays_one_token(nlp, text):
    assert tokens(nlp, text) == [text]


@pytest.mark.parametrize(
    "text,address",
    [
        ("Email:x@y.com", "x@y.com"),
        ("email:ana.gil@hospital.es", "ana.gil@hospital.es"),
        ("e-mail: juan.perez@salud.es", "juan.perez@salud.es"),
        ("Correo electrónico: ana@x.es", "ana@x.es"),
    ],
)
def test_email_address_is_one_token_apart_from_its_key(nlp, text, address):
    toks = tokens(nlp, text)
    assert address in toks
    assert all(address not in t for t in toks if t != address)


def test_tokens_cover_the_text(nlp):
    text = "Datos del paciente.\r\nNombre: Ana.\tSexo: H.\n\nCP:28029 NºCol:49 DRAlberto 2014.El"
    doc = nlp(text)
    assert doc.text == text


def test_round_trip_keeps_tokenization(tmp_path):
    config = {"nlp": {"tokenizer": {"@tokenizers": "meddocan_deid.tokenizer.v1"}}}
    nlp = spacy.blank("es", config=config)
    nlp.to_disk(tmp_path / "model")
    loaded = spacy.load(tmp_path / "model")
    assert loaded.config["nlp"]["tokenizer"]["@tokenizers"] == "meddocan_deid.tokenizer.v1"
    texts = (
        [text for text, _ in SPLITS]
        + WHOLE
        + ["Email:x@y.com", "Médico: Dr. Luis Gil  NºCol: 28 31 64120."]
    )
    for text in texts:
        assert [t.text for t in loaded(text)] == [t.text for t in nlp(text)]
    # and the same as the blank pipeline helper
    helper = blank_pipeline()
    for text in texts:
        assert [t.text for t in loaded(text)] == [t.text for t in helper(text)]
