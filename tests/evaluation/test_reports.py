"""The evaluation reports (evaluate, export-brat, errors: meddocan_deid.evaluation.reports)
on three invented reports, with a
blank Spanish pipeline + entity_ruler as the model, and the BRAT -> DocBin -> BRAT
round trip. No corpus needed."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin
from spacy.util import filter_spans

from meddocan_deid.brat import read_brat_dir, write_brat
from meddocan_deid.evaluation.metrics import count_sentences, evaluate
from meddocan_deid.evaluation.reports import (
    error_kind,
    evaluate_model,
    export,
    export_brat,
    write_errors,
)
from meddocan_deid.evaluation.results import run_model

ROOT = Path(__file__).resolve().parent.parent.parent

REPORTS = {
    # "45" lies inside the token "45años": it is in meddocan_gold but not in doc.ents
    "r1": (
        "Nombre: Juan Pérez García.\nEdad: 45años.\nDomicilio: Calle Mayor, 5.\n",
        [
            ("NOMBRE_SUJETO_ASISTENCIA", "Juan Pérez García"),
            ("EDAD_SUJETO_ASISTENCIA", "45"),
            ("CALLE", "Calle Mayor, 5"),
        ],
        3,
    ),
    "r2": (
        "Médico: Ana López.\nFecha de ingreso: 12/03/2019 - 15/03/2019.\n",
        [
            ("NOMBRE_PERSONAL_SANITARIO", "Ana López"),
            ("FECHAS", "12/03/2019"),
            ("FECHAS", "15/03/2019"),
        ],
        2,
    ),
    "r3": ("Sin datos identificativos.\n", [], 1),
}
PATTERNS = [
    {"label": "NOMBRE_SUJETO_ASISTENCIA", "pattern": "Juan Pérez García"},  # TP
    {"label": "CALLE", "pattern": "Calle Mayor"},  # split at ", ": s1 FP, merged TP
    {"label": "CALLE", "pattern": "5"},
    {"label": "NOMBRE_SUJETO_ASISTENCIA", "pattern": "Ana López"},  # wrong label
    {"label": "FECHAS", "pattern": "12/03/2019 - 15/03/2019"},  # both dates in one span
    {"label": "PROFESION", "pattern": "datos"},  # FP in a report without gold
]
SURFACES = ["Juan", "Pérez", "Ana", "López", "Calle", "Mayor", "12/03", "datos", "45años"]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """BRAT folder, sentence files, a DocBin as the converter writes it, and a model."""
    tmp = tmp_path_factory.mktemp("meddocan")
    brat, sentences = tmp / "brat", tmp / "sentences"
    sentences.mkdir()
    for doc_id, (text, ents, n_sent) in REPORTS.items():
        write_brat(
            brat,
            doc_id,
            text,
            [(label, text.index(s), text.index(s) + len(s)) for label, s in ents],
        )
        (sentences / f"{doc_id}.ann").write_text(
            "".join(f"T{i}\tFp 0 1\tx\n" for i in range(n_sent)), encoding="utf-8"
        )
    nlp = spacy.blank("es")
    db = DocBin(store_user_data=True)
    n_sents = count_sentences(sentences, REPORTS)
    for report in read_brat_dir(brat):
        doc = nlp.make_doc(report.text)
        spans = [doc.char_span(s, e, label=label) for label, s, e in report.entities]
        doc.ents = filter_spans([s for s in spans if s is not None])
        doc.user_data.update(
            {
                "meddocan_id": report.doc_id,
                "meddocan_gold": [list(e) for e in report.entities],
                "meddocan_n_sentences": n_sents[report.doc_id],
            }
        )
        db.add(doc)
    db.to_disk(tmp / "dev.spacy")
    model = spacy.blank("es")
    model.add_pipe("entity_ruler").add_patterns(PATTERNS)
    model.to_disk(tmp / "model")
    return tmp


def assert_no_text(output):
    for surface in SURFACES:
        assert surface not in output


def test_round_trip_and_gold_against_itself(data):
    results, _ = run_model(
        spacy.blank("es"), data / "dev.spacy"
    )  # blank model: gold only matters here
    export(results, data / "roundtrip")
    original = {d.doc_id: d for d in read_brat_dir(data / "brat")}
    back = {d.doc_id: d for d in read_brat_dir(data / "roundtrip" / "ref" / "brat")}
    assert set(back) == set(original) == set(REPORTS)
    for doc_id, doc in original.items():
        assert back[doc_id].text == doc.text
        assert set(back[doc_id].entities) == set(doc.entities)  # includes the unaligned "45"
    gold = {d: (doc.text, doc.entities) for d, doc in original.items()}
    scores = evaluate(
        gold, {d: back[d].entities for d in back}, count_sentences(data / "sentences", back)
    )
    for key in ("s1_p", "s1_r", "s1_f", "s2_strict_f", "s2_merged_p", "s2_merged_r", "s2_merged_f"):
        assert scores[f"meddocan_{key}"] == 1.0
    assert scores["meddocan_s1_leak"] == 0.0


def test_evaluate(data, capsys):
    out, table = data / "metrics" / "dev.json", data / "metrics" / "dev_per_type.md"
    evaluate_model(str(data / "model"), data / "dev.spacy", output_dir=data / "metrics")
    scores = json.loads(out.read_text(encoding="utf-8"))
    # s1: TP 1 (Juan Pérez García); FP 5 (Calle Mayor, 5, Ana López as the patient, the
    # two-date span, datos); FN 5 (45, Calle Mayor 5, Ana López, 12/03, 15/03)
    assert (scores["meddocan_s1_tp"], scores["meddocan_s1_fp"], scores["meddocan_s1_fn"]) == (
        1,
        5,
        5,
    )
    assert scores["meddocan_s1_f"] == pytest.approx(1 / 6)
    # strict: TP 2 (+ Ana López); FP 4; FN 4
    assert (
        scores["meddocan_s2_strict_tp"],
        scores["meddocan_s2_strict_fp"],
        scores["meddocan_s2_strict_fn"],
    ) == (2, 4, 4)
    # merged: r1 TP {Juan, Calle Mayor, 5} = 2, FN 45; r2 TP {Ana, dates} = 2; r3 FP datos
    # -> TP 4, FP 1, FN 1: P = R = F = 0.8
    assert (
        scores["meddocan_s2_merged_tp"],
        scores["meddocan_s2_merged_fp"],
        scores["meddocan_s2_merged_fn"],
    ) == (4, 1, 1)
    assert scores["meddocan_s2_merged_f"] == pytest.approx(0.8)
    # leak: FN 5 / (3 + 2 + 1) sentences
    assert scores["meddocan_s1_leak"] == pytest.approx(5 / 6)
    assert scores["meddocan_sentence_source"] == "official"
    md = table.read_text(encoding="utf-8")
    assert md.startswith("| label | support | P | R | F1 |")
    assert "| FECHAS | 2 | 0.00 | 0.00 | 0.00 |" in md
    assert "| NOMBRE_SUJETO_ASISTENCIA | 1 | 50.00 | 100.00 | 66.67 |" in md
    console = capsys.readouterr().out
    assert "words/s" in console and "80.00" in console
    assert_no_text(console)


def test_export_brat_layout(data, capsys):
    export_brat(str(data / "model"), data / "dev.spacy", data / "out")
    for sub in ("res/brat/subtask1", "res/brat/subtask2", "ref/brat"):
        assert sorted(p.name for p in (data / "out" / sub).iterdir()) == sorted(
            f"{d}.{ext}" for d in REPORTS for ext in ("ann", "txt")
        )
    sub1 = {d.doc_id: set(d.entities) for d in read_brat_dir(data / "out/res/brat/subtask1")}
    sub2 = {d.doc_id: set(d.entities) for d in read_brat_dir(data / "out/res/brat/subtask2")}
    assert sub1 == sub2
    text = REPORTS["r3"][0]
    assert sub1["r3"] == {("PROFESION", text.index("datos"), text.index("datos") + 5)}
    assert_no_text(capsys.readouterr().out)


def test_errors(data, capsys):
    counts = write_errors(str(data / "model"), data / "dev.spacy", data / "reports" / "errors.tsv")
    assert sum(v for (_, kind), v in counts.items() if kind == "FN") == 5
    assert sum(v for (_, kind), v in counts.items() if kind == "FP") == 5
    assert counts["FECHAS", "FN"] == 2 and counts["PROFESION", "FP"] == 1
    lines = (data / "reports" / "errors.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t") == [
        "label",
        "kind",
        "doc_id",
        "start",
        "end",
        "left",
        "span",
        "right",
        "other",
    ]
    assert len(lines) == 1 + 10
    mislabel = [
        line.split("\t") for line in lines if line.startswith("NOMBRE_PERSONAL_SANITARIO\tFN")
    ]
    assert mislabel[0][6] == "Ana López" and mislabel[0][8].startswith("NOMBRE_SUJETO_ASISTENCIA:")
    out = capsys.readouterr().out
    assert_no_text(out)
    kinds = {
        line[:36].strip(): line[36:].split()
        for line in out.splitlines()
        if line[:36].strip()
        in ("missed", "spurious", "boundaries", "label", "label and boundaries")
    }
    # FN: `45` missed, `Calle Mayor, 5` and the two dates split, `Ana López` mislabelled;
    # FP: `Calle Mayor`, `5` and the date pair, `Ana López`, `datos` in a report without PHI
    assert kinds == {
        "missed": ["1", "0"],
        "spurious": ["0", "1"],
        "boundaries": ["3", "3"],
        "label": ["1", "1"],
        "label and boundaries": ["0", "0"],
    }


@pytest.mark.parametrize(
    "kind,label,span,overlap,expected",
    [
        ("FN", "CALLE", (0, 10), [], "missed"),
        ("FP", "CALLE", (0, 10), [], "spurious"),
        ("FN", "CALLE", (0, 10), [("CALLE", 0, 8)], "boundaries"),
        ("FN", "CALLE", (0, 10), [("HOSPITAL", 0, 10)], "label"),
        ("FP", "CALLE", (0, 10), [("HOSPITAL", 2, 12)], "label and boundaries"),
        ("FP", "CALLE", (0, 10), [("HOSPITAL", 2, 12), ("CALLE", 0, 4)], "boundaries"),
    ],
)
def test_error_kind(kind, label, span, overlap, expected):
    assert error_kind(kind, label, *span, overlap) == expected


def test_cli_with_sentences_and_gold_brat(data):
    """The typer wiring, run as the project would: official sentences and BRAT gold."""
    out = data / "cli" / "dev.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "evaluate.py"),
            str(data / "model"),
            str(data / "dev.spacy"),
            "--output-dir",
            str(data / "cli"),
            "--gold-brat",
            str(data / "brat"),
            "--sentences",
            str(data / "sentences"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    scores = json.loads(out.read_text(encoding="utf-8"))
    assert scores["meddocan_s1_leak"] == pytest.approx(5 / 6)
    assert (data / "cli" / "dev_per_type.md").exists()
    assert_no_text(proc.stdout + proc.stderr)
