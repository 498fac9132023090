"""The gazetteer inside the pipeline: stored in `nlp.vocab.lookups` at [initialize], saved
with the pipeline, and used by the surrogates wherever the pipeline is loaded from."""

import logging

import pytest
import spacy
from thinc.api import Config

from meddocan_deid.deid import deidentify, gazetteer_source, resolve_gazetteer
from meddocan_deid.deid.gazetteer import ENV_GAZETTEER, FAKER_ONLY, PIPELINE, TABLE, from_vocab
from meddocan_deid.deid.surrogates.names import name_lists

KEY = b"pipeline-gazetteer-key-0123456789"
# invented entries only
HOSPITALS = ["HOSPITAL INVENTADO DE LA SIERRA", "CLINICA FICTICIA DEL VALLE"]
TOWNS = ["Villaficticia de Abajo", "Pueblinventado"]
STREETS = ["CALLE INVENTADA DE LA SIERRA, 3", "AVENIDA FICTICIA DEL VALLE, 12"]
STREET_NAMES = ["Inventada de la Sierra", "Ficticia del Valle"]  # as a surrogate writes them
FIRST_NAMES = ["Zulemira", "Ximenaldo"]

CFG = """
[paths]
gazetteer = null

[nlp]
lang = "es"
pipeline = []

[components]

[initialize]

[initialize.after_init]
@callbacks = "meddocan_deid.store_gazetteer.v1"
path = ${paths.gazetteer}
"""


@pytest.fixture
def folder(tmp_path):
    gaz = tmp_path / "gaz"
    gaz.mkdir()
    (gaz / "Hospitales (Hospitals).txt").write_text("\n".join(HOSPITALS) + "\n", encoding="utf-8")
    (gaz / "Municipios (Cities and towns).txt").write_text(
        "\n".join(TOWNS) + "\n", encoding="utf-8"
    )
    (gaz / "Nombres (Firstnames).txt").write_text("\n".join(FIRST_NAMES) + "\n", encoding="utf-8")
    (gaz / "Direcciones (Addresses).txt").write_text("\n".join(STREETS) + "\n", encoding="utf-8")
    return gaz


def build(path):
    config = Config().from_str(
        CFG, overrides={"paths.gazetteer": None if path is None else str(path)}
    )
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    return nlp


def doc_with(nlp, text, ents):
    doc = nlp.make_doc(text)
    doc.ents = [doc.char_span(s, e, label=label) for label, s, e in ents]
    return doc


def test_initialize_stores_the_tables(folder):
    nlp = build(folder)
    assert nlp.vocab.lookups.has_table(TABLE)
    table = nlp.vocab.lookups.get_table(TABLE)
    assert sorted(table["hospitals"]) == sorted(HOSPITALS)
    assert table["surnames"] == []
    assert table["__meta__"]["license"] == "CC BY 4.0"
    assert "MEDDOCAN" in table["__meta__"]["name"]


@pytest.mark.parametrize("path", [None, "missing-folder"])
def test_no_folder_stores_nothing(path, tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="meddocan_deid"):
        nlp = build(None if path is None else tmp_path / path)
    assert not nlp.vocab.lookups.has_table(TABLE)
    assert (path is not None) == ("gazetteer folder not found" in caplog.text)


def test_saved_pipeline_carries_the_gazetteer(folder, tmp_path, monkeypatch):
    build(folder).to_disk(tmp_path / "pipeline")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no ../shared/meddocan/gazetteer from here
    monkeypatch.delenv(ENV_GAZETTEER, raising=False)
    nlp = spacy.load(tmp_path / "pipeline")
    assert gazetteer_source(nlp.vocab) == PIPELINE
    # the street names of the pipeline's table (hospitals are made by kind, towns by province)
    text = "Domicilio: Calle Mayor 5, natural de Ciudadfalsa."
    doc = doc_with(nlp, text, [("CALLE", 11, 24)])
    res = deidentify(doc, mode="surrogate", key=KEY, scope="r1")
    (street,) = (res.text[r.new_start : r.new_end] for r in res.replacements)
    assert street.startswith("Calle ") and street[len("Calle ") :].rsplit(" ", 1)[0] in STREET_NAMES


def test_first_names_of_the_pipeline_gazetteer_are_read_as_first_names(
    folder, tmp_path, monkeypatch
):
    """An invented first name known only to the pipeline's gazetteer gets a first-name
    surrogate (Faker's gendered lists keep the gender); unknown, it reads as a surname."""
    monkeypatch.delenv(ENV_GAZETTEER, raising=False)
    monkeypatch.chdir(tmp_path)
    nlp = build(folder)
    text = "Paciente: Zulemira."
    doc = doc_with(nlp, text, [("NOMBRE_SUJETO_ASISTENCIA", 10, 18)])
    new = deidentify(doc, mode="surrogate", key=KEY, scope="r1").text[10:-1]
    male, female, *_ = name_lists(resolve_gazetteer(nlp.vocab))
    assert new in female
    bare = build(None)
    assert gazetteer_source(bare.vocab) == FAKER_ONLY
    other = deidentify(
        doc_with(bare, text, [("NOMBRE_SUJETO_ASISTENCIA", 10, 18)]),
        mode="surrogate",
        key=KEY,
        scope="r1",
    ).text[10:-1]
    assert other not in female and other not in male


def test_folder_source_is_reported(folder, monkeypatch):
    monkeypatch.delenv(ENV_GAZETTEER, raising=False)
    bare = build(None)
    assert from_vocab(bare.vocab) is None
    assert gazetteer_source(bare.vocab, folder) == str(folder.resolve())
    monkeypatch.setenv(ENV_GAZETTEER, str(folder))
    assert gazetteer_source(bare.vocab) == str(folder.resolve())
    assert gazetteer_source(build(folder).vocab) == str(
        folder.resolve()
    )  # a folder the user names wins
    monkeypatch.delenv(ENV_GAZETTEER)
    assert gazetteer_source(build(folder).vocab) == PIPELINE  # else the pipeline's own table


class _Streets:
    """A stand-in detector for the CLI test: every `Calle ...` line is a CALLE."""

    def __init__(self, nlp):
        self.nlp = nlp
        self.vocab = nlp.vocab
        self.meta = nlp.meta
        self.max_length = nlp.max_length

    def pipe(self, texts, **kwargs):
        for text in texts:
            doc = self.nlp.make_doc(text)
            start = text.index("Calle")
            doc.ents = [doc.char_span(start, len(text.rstrip()), label="CALLE")]
            yield doc

    def __call__(self, text):
        return next(self.pipe([text]))


@pytest.mark.parametrize("with_table", [True, False])
def test_run_report_records_the_gazetteer_source(with_table, folder, tmp_path, monkeypatch):
    from meddocan_deid.engine import run

    monkeypatch.delenv(ENV_GAZETTEER, raising=False)
    monkeypatch.chdir(tmp_path)
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "a.txt").write_text("Domicilio en Calle Mayor 5\n", encoding="utf-8")
    nlp = _Streets(build(folder if with_table else None))
    report = run(inp, tmp_path / "out", mode="surrogate", key=KEY, nlp=nlp, progress=False)
    assert report["gazetteer"] == (PIPELINE if with_table else FAKER_ONLY)
    written = (tmp_path / "out" / "a.txt").read_text(encoding="utf-8")
    name = written.split("Calle ", 1)[1].strip().rsplit(" ", 1)[0]
    assert (name in STREET_NAMES) is with_table
