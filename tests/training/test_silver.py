"""Self-training data: experiments/silver.py labels unannotated reports with a pipeline, and the
gold + silver corpus reader feeds both to training. Invented reports; no corpus needed."""

import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc, DocBin
from spacy.util import registry

import meddocan_deid  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent.parent
REPORTS = {
    "a": "Nombre: Juan Pérez García.\nMujer de 40 años.\n",
    "b": "Remitido por: Dra. Ana López.\nSin datos.\n",
}


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("silver")
    background = tmp / "background"
    background.mkdir()
    for name, text in REPORTS.items():
        (background / f"{name}.txt").write_text(text, encoding="utf-8")
    model = spacy.blank("es")
    model.add_pipe("entity_ruler").add_patterns(
        [
            {"label": "NOMBRE_SUJETO_ASISTENCIA", "pattern": "Juan Pérez García"},
            {"label": "NOMBRE_PERSONAL_SANITARIO", "pattern": "Ana López"},
            {"label": "EDAD_SUJETO_ASISTENCIA", "pattern": "40 años"},
        ]
    )
    model.to_disk(tmp / "model")
    return tmp


def run_silver(work, background, output):
    return subprocess.run(
        [
            sys.executable,
            str(ROOT / "experiments" / "silver.py"),
            str(work / "model"),
            str(background),
            str(output),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_silver_writes_each_report_with_its_entities(work):
    proc = run_silver(work, work / "background", work / "silver.spacy")
    assert proc.returncode == 0, proc.stderr[-2000:]
    nlp = spacy.blank("es")
    docs = list(DocBin().from_disk(work / "silver.spacy").get_docs(nlp.vocab))
    assert sorted(d.text for d in docs) == sorted(REPORTS.values())
    ents = sorted((e.label_, e.text) for d in docs for e in d.ents)
    assert ents == [
        ("EDAD_SUJETO_ASISTENCIA", "40 años"),
        ("NOMBRE_PERSONAL_SANITARIO", "Ana López"),
        ("NOMBRE_SUJETO_ASISTENCIA", "Juan Pérez García"),
    ]
    assert "2 reports" in proc.stdout and "3 entities" in proc.stdout
    for surface in ("Juan", "López", "40 años"):
        assert surface not in proc.stdout + proc.stderr


def test_silver_leaves_weak_labels_missing(work, tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "experiments" / "silver.py"),
            str(work / "model"),
            str(work / "background"),
            str(tmp_path / "silver.spacy"),
            "--missing-labels",
            "NOMBRE_PERSONAL_SANITARIO",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    docs = list(DocBin().from_disk(tmp_path / "silver.spacy").get_docs(spacy.blank("es").vocab))
    doc = [d for d in docs if "López" in d.text][0]
    assert [e.label_ for e in doc.ents] == []
    # the weak entity's tokens are missing (iob 0), every other token is outside (iob 2)
    assert [t.text for t in doc if t.ent_iob == 0] == ["Ana", "López"]
    assert all(t.ent_iob == 2 for t in doc if t.text not in ("Ana", "López"))


def test_silver_names_an_unreadable_report_and_keeps_the_others(work, tmp_path):
    background = tmp_path / "background"
    background.mkdir()
    for name, text in REPORTS.items():
        (background / f"{name}.txt").write_text(text, encoding="utf-8")
    (background / "broken.txt").write_bytes(b"Nombre: \xff\xfe Ana\n")
    proc = run_silver(work, background, tmp_path / "silver.spacy")
    assert proc.returncode == 1
    assert "broken.txt" in proc.stderr and "UTF-8" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(DocBin().from_disk(tmp_path / "silver.spacy")) == 2


def test_silver_fails_on_an_empty_folder(work, tmp_path):
    proc = run_silver(work, tmp_path, tmp_path / "silver.spacy")
    assert proc.returncode == 1 and "no .txt files" in proc.stderr
    assert not (tmp_path / "silver.spacy").exists()


def _docbin(path, n, label):
    nlp = spacy.blank("es")
    db = DocBin()
    for i in range(n):
        doc = Doc(nlp.vocab, words=["caso", str(i)])
        doc.ents = [doc.char_span(0, 4, label=label)]
        db.add(doc)
    db.to_disk(path)


@pytest.mark.parametrize(
    "gold_copies,with_silver,expected",
    [
        (1, False, {"GOLD": 2}),
        (2, False, {"GOLD": 4}),
        (1, True, {"GOLD": 2, "SILVER": 3}),
        (2, True, {"GOLD": 4, "SILVER": 3}),
    ],
)
def test_gold_and_silver_reader(tmp_path, gold_copies, with_silver, expected):
    _docbin(tmp_path / "gold.spacy", 2, "GOLD")
    _docbin(tmp_path / "silver.spacy", 3, "SILVER")
    make = registry.readers.get("meddocan_deid.gold_and_silver.v1")
    read = make(
        tmp_path / "gold.spacy",
        silver_path=tmp_path / "silver.spacy" if with_silver else None,
        gold_copies=gold_copies,
    )
    counts = {}
    for example in read(spacy.blank("es")):
        label = example.reference.ents[0].label_
        counts[label] = counts.get(label, 0) + 1
    assert counts == expected


def test_gold_and_silver_reader_needs_the_gold_once(tmp_path):
    with pytest.raises(ValueError, match="gold_copies"):
        registry.readers.get("meddocan_deid.gold_and_silver.v1")(
            tmp_path / "gold.spacy", gold_copies=0
        )
