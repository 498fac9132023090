"""The annotation round trip: the rule pipeline's entities exported to BRAT, Label Studio and
doccano, imported back as a DocBin with the project tokenizer, offsets and labels unchanged;
and a clear error (file and line, JSON line or task; never text) for each kind of bad file.
Reports are invented."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from spacy.tokens import DocBin

from meddocan_deid.annotations import (
    AnnotatedReport,
    AnnotationError,
    read_annotations,
    write_annotations,
)
from meddocan_deid.annotations.docbin import to_docbin
from meddocan_deid.cli.annotations import export_reports, import_annotations
from meddocan_deid.engine import run
from meddocan_deid.errors import RunError
from meddocan_deid.evaluation.results import GOLD_KEY, ID_KEY
from meddocan_deid.pipeline.tokenizer import blank_pipeline

ROOT = Path(__file__).resolve().parent.parent.parent
REPORTS = {
    "ana": (
        "Datos del paciente.\n"
        "Nombre: Ana.\n"
        "Apellidos: Ruiz Gil.\n"
        "NHC: 5192837.\n"
        "Edad: 16 años Sexo: M.\n"
        "Médico: Luis Albarrán Tejero NºCol: 28 31 64120.\n"
        "Informe clínico del paciente: paciente de 16 años, ingresa el 17 de marzo de 2003.\n"
        "Remitido por: Dr. Luis Albarrán Tejero. Teléfono: 915 37 48 21 E-mail: "
        "lalbarran@example.com\n"
    ),
    "sub/pedro": (
        "Datos del paciente.\nNombre: Pedro.\nApellidos: Sanz Vidal.\nNHC: 7700123.\n"
        "Fecha de Ingreso: 03/05/2001.\nDomicilio: C/ Mayor, 12.\nCP: 28029.\n"
        "Informe clínico del paciente: varón de 45 años, su esposa refiere dolor torácico.\n"
        "Correo electrónico: pedro.sanz@example.org\n"
    ),
    "vacio": "Informe clínico del paciente: sin datos identificativos en este texto.\n",
}
MARKER = "Zorionak"  # an invented name that must never appear in an error message


@pytest.fixture(scope="module")
def input_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("informes")
    for doc_id, text in REPORTS.items():
        path = folder / f"{doc_id}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def predicted(rule_nlp):
    """The spans the export must carry: the rule pipeline's entities on each report."""
    return {
        doc_id: sorted((e.label_, e.start_char, e.end_char) for e in rule_nlp(text).ents)
        for doc_id, text in REPORTS.items()
    }


def docbin_spans(path: Path):
    docs = DocBin().from_disk(path).get_docs(blank_pipeline().vocab)
    return {
        d.user_data[ID_KEY]: (
            d.text,
            sorted((e.label_, e.start_char, e.end_char) for e in d.ents),
            sorted(tuple(g) for g in d.user_data[GOLD_KEY]),
        )
        for d in docs
    }


@pytest.mark.parametrize(
    "fmt,src", [("brat", "."), ("labelstudio", "labelstudio.json"), ("doccano", "doccano.jsonl")]
)
def test_export_import_keeps_offsets_and_labels(tmp_path, input_dir, predicted, rule_nlp, fmt, src):
    assert sum(len(s) for s in predicted.values()) >= 12  # the rules found the invented PHI
    export = tmp_path / "export"
    result = export_reports(input_dir, export, fmt, nlp=rule_nlp)
    assert result["written"] == len(REPORTS) and result["failed"] == 0
    # Label Studio exports predictions; a corrected export has them as annotations: make it so
    if fmt == "labelstudio":
        tasks = json.loads((export / src).read_text(encoding="utf-8"))
        assert tasks[0]["predictions"][0]["result"][0]["type"] == "labels"
        assert {"from_name", "to_name"} <= set(tasks[0]["predictions"][0]["result"][0])
        assert (export / "labelstudio_config.xml").is_file()
        for i, task in enumerate(tasks):
            task["id"] = 100 + i
            task["annotations"] = [
                {"id": i, "result": task.pop("predictions")[0]["result"], "was_cancelled": False}
            ]
        (export / src).write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
    if fmt == "brat":
        assert "NOMBRE_SUJETO_ASISTENCIA" in (export / "annotation.conf").read_text(
            encoding="utf-8"
        )
        assert (export / "sub" / "pedro.txt").read_text(encoding="utf-8") == REPORTS["sub/pedro"]
    out = tmp_path / "local.spacy"
    lines = import_annotations(export / src, out, fmt)
    assert any("aligned to tokens" in line and "(100.0000%)" in line for line in lines)
    back = docbin_spans(out)
    assert set(back) == set(REPORTS)
    for doc_id, (text, ents, gold) in back.items():
        assert text == REPORTS[doc_id]
        assert ents == predicted[doc_id] == gold


def test_labelstudio_without_annotation_is_skipped_unless_predictions_asked(
    tmp_path, input_dir, predicted, rule_nlp
):
    export_reports(input_dir, tmp_path / "ls", "labelstudio", nlp=rule_nlp)
    src = tmp_path / "ls" / "labelstudio.json"
    with pytest.raises(RunError, match="no annotated report"):
        import_annotations(src, tmp_path / "a.spacy", "labelstudio")
    lines = import_annotations(src, tmp_path / "b.spacy", "labelstudio", use_predictions=True)
    assert {k: v[1] for k, v in docbin_spans(tmp_path / "b.spacy").items()} == predicted
    assert not any("skipped" in line for line in lines)


def test_labelstudio_takes_the_latest_annotation_not_cancelled(tmp_path):
    text = "Nombre: Ana Ruiz.\n"

    def ann(s, e, lab):
        return {
            "type": "labels",
            "from_name": "label",
            "to_name": "text",
            "value": {"start": s, "end": e, "text": text[s:e], "labels": [lab]},
        }

    task = {
        "id": 7,
        "data": {"text": text},
        "predictions": [{"result": [ann(8, 11, "NOMBRE_SUJETO_ASISTENCIA")]}],
        "annotations": [
            {
                "result": [ann(8, 16, "NOMBRE_SUJETO_ASISTENCIA")],
                "updated_at": "2026-11-20T10:00:00Z",
            },
            {
                "result": [ann(8, 12, "TERRITORIO")],
                "updated_at": "2026-11-21T10:00:00Z",
                "was_cancelled": True,
            },
            {
                "result": [
                    ann(8, 11, "NOMBRE_SUJETO_ASISTENCIA"),
                    ann(12, 16, "NOMBRE_SUJETO_ASISTENCIA"),
                ],
                "updated_at": "2026-11-19T10:00:00Z",
            },
        ],
    }
    path = tmp_path / "export.json"
    path.write_text(json.dumps([task]), encoding="utf-8")
    [report] = read_annotations("labelstudio", path)
    assert report.doc_id == "task-7" and report.spans == [("NOMBRE_SUJETO_ASISTENCIA", 8, 16)]


def test_labelstudio_utf16_offsets_are_converted(tmp_path):
    text = (
        "Nota 🩺: Nombre: Ana.\n"  # the emoji is two UTF-16 code units: a browser counts one more
    )
    start = text.index("Ana")
    task = {
        "data": {"text": text},
        "annotations": [
            {
                "result": [
                    {
                        "type": "labels",
                        "value": {
                            "start": start + 1,
                            "end": start + 4,
                            "text": "Ana",
                            "labels": ["NOMBRE_SUJETO_ASISTENCIA"],
                        },
                    }
                ]
            }
        ],
    }
    path = tmp_path / "export.json"
    path.write_text(json.dumps([task]), encoding="utf-8")
    assert read_annotations("labelstudio", path)[0].spans == [
        ("NOMBRE_SUJETO_ASISTENCIA", start, start + 3)
    ]


def test_doccano_entities_export_form(tmp_path):
    text = "Nombre: Ana.\nNHC: 5192837.\n"
    path = tmp_path / "admin.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": 3,
                "text": text,
                "entities": [
                    {"id": 1, "label": "ID_SUJETO_ASISTENCIA", "start_offset": 18, "end_offset": 25}
                ],
                "relations": [],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    [report] = read_annotations("doccano", path)
    assert report.doc_id == "3" and report.spans == [("ID_SUJETO_ASISTENCIA", 18, 25)]


def test_brat_span_across_a_line_break_round_trips(tmp_path):
    text = "Domicilio: C/ Mayor,\n12.\n"
    report = AnnotatedReport("r1", text, [("CALLE", 11, 23)])
    write_annotations("brat", [report], tmp_path)
    assert "CALLE 11 20;21 23\t" in (tmp_path / "r1.ann").read_text(
        encoding="utf-8"
    )  # BRAT fragments
    assert read_annotations("brat", tmp_path)[0].spans == [("CALLE", 11, 23)]


def test_alignment_expand_is_counted(tmp_path):
    text = "Nombre: Ana Ruiz.\n"
    report = AnnotatedReport("r1", text, [("NOMBRE_SUJETO_ASISTENCIA", 9, 16)], where="r1.ann:1")
    with pytest.raises(AnnotationError) as info:
        to_docbin([report])
    assert (
        "r1.ann:1 9-16" in str(info.value)
        and "Ana" not in str(info.value)
        and "na Ruiz" not in str(info.value)
    )
    db, stats = to_docbin([report], alignment="expand")
    [doc] = db.get_docs(blank_pipeline().vocab)
    assert [(e.start_char, e.end_char) for e in doc.ents] == [(8, 16)]
    assert stats.expanded == 1 and "expanded to token boundaries: 1" in stats.lines()[0]
    assert [tuple(g) for g in doc.user_data[GOLD_KEY]] == [
        ("NOMBRE_SUJETO_ASISTENCIA", 9, 16)
    ]  # as written


TEXT = f"Nombre: {MARKER} Etxeberria.\nNHC: 5192837.\n"
S, E = TEXT.index(MARKER), TEXT.index(MARKER) + len(MARKER)


def ls_task(value=None, data=None, kind="labels"):
    value = (
        value
        if value is not None
        else {"start": S, "end": E, "text": MARKER, "labels": ["NOMBRE_SUJETO_ASISTENCIA"]}
    )
    return {
        "data": data if data is not None else {"text": TEXT},
        "annotations": [{"result": [{"type": kind, "value": value}]}],
    }


def good_doccano():
    return json.dumps(
        {"id": "a", "text": TEXT, "label": [[S, E, "NOMBRE_SUJETO_ASISTENCIA"]]}, ensure_ascii=False
    )


@pytest.mark.parametrize(
    "fmt,content,where,problem",
    [
        # BRAT: the .ann line
        (
            "brat",
            f"T1\tNOMBRE_SUJETO_ASISTENCIA {S} {E}\t{MARKER}\n"
            f"T2\tNOMBRE_SUJETO_ASISTENCIA {S} {E + 3}\t{MARKER}\n",
            "r.ann:2",
            "does not match",
        ),
        (
            "brat",
            f"T1\tNOMBRE_SUJETO_ASISTENCIA {S} 9999\t{MARKER}\n",
            "r.ann:1",
            "outside the text",
        ),
        (
            "brat",
            f"#1\tAnnotatorNotes T1\tnota\nT1\tPACIENTE {S} {E}\t{MARKER}\n",
            "r.ann:2",
            "unknown label 'PACIENTE'",
        ),
        (
            "brat",
            f"T1\tNOMBRE_SUJETO_ASISTENCIA {S} {S + 3};{S + 4} {E}\t{MARKER}\n",
            "r.ann:1",
            "discontinuous",
        ),
        (
            "brat",
            f"T1\tNOMBRE_SUJETO_ASISTENCIA {S} {S + 2}\t{MARKER[:2]}\n",
            "r.ann:1",
            "not on token boundaries",
        ),
        # doccano: the JSON line
        (
            "doccano",
            good_doccano() + '\n{"text": "x", "label": [[0, 1]]}\n',
            "doccano.jsonl:2",
            "is not [start, end, LABEL]",
        ),
        (
            "doccano",
            good_doccano() + "\n\n" + good_doccano()[:-3] + "\n",
            "doccano.jsonl:3",
            "not valid JSON",
        ),
        (
            "doccano",
            json.dumps({"id": "b", "text": TEXT, "label": [[S, 999, "NOMBRE_SUJETO_ASISTENCIA"]]})
            + "\n",
            "doccano.jsonl:1",
            "outside the text",
        ),
        ("doccano", good_doccano() + "\n" + good_doccano() + "\n", "doccano.jsonl:2", "repeats"),
        (
            "doccano",
            json.dumps({"id": "c", "label": []}) + "\n",
            "doccano.jsonl:1",
            "'text' string",
        ),
        # Label Studio: the task index
        (
            "labelstudio",
            [
                ls_task(),
                ls_task(
                    value={
                        "start": S,
                        "end": E + 2,
                        "text": MARKER,
                        "labels": ["NOMBRE_SUJETO_ASISTENCIA"],
                    }
                ),
            ],
            "labelstudio.json: task 1, result 0",
            "differs from data.text",
        ),
        (
            "labelstudio",
            [ls_task(), ls_task(), ls_task(value={"start": S, "end": E, "labels": ["A", "B"]})],
            "labelstudio.json: task 2, result 0",
            "exactly one label",
        ),
        ("labelstudio", [ls_task(data={"texto": TEXT})], "labelstudio.json: task 0", "'data.text'"),
        (
            "labelstudio",
            [ls_task(value={"start": "8", "end": E, "labels": ["FECHAS"]})],
            "labelstudio.json: task 0, result 0",
            "must be integers",
        ),
        (
            "labelstudio",
            '[{"data": {"text": "' + MARKER + '"}},\n  {"data": ',
            "labelstudio.json:2",
            "not valid JSON",
        ),
    ],
)
def test_bad_file_names_file_and_place(tmp_path, fmt, content, where, problem):
    if fmt == "brat":
        src = tmp_path / "brat"
        src.mkdir()
        (src / "r.txt").write_text(TEXT, encoding="utf-8")
        (src / "r.ann").write_text(content, encoding="utf-8")
    else:
        src = tmp_path / ("doccano.jsonl" if fmt == "doccano" else "labelstudio.json")
        src.write_text(
            content if isinstance(content, str) else json.dumps(content, ensure_ascii=False),
            encoding="utf-8",
        )
    with pytest.raises(RunError) as info:
        import_annotations(src, tmp_path / "out.spacy", fmt)
    message = str(info.value)
    assert where in message and problem in message
    assert MARKER not in message and "Etxeberria" not in message
    assert not (tmp_path / "out.spacy").exists()


def test_export_refused_inside_input(tmp_path, input_dir, rule_nlp):
    with pytest.raises(RunError, match="must not be the input folder or inside it"):
        export_reports(input_dir, input_dir / "export", "brat", nlp=rule_nlp)
    assert not (input_dir / "export").exists()


def test_deidentify_export_format_writes_into_private_dir(tmp_path, input_dir, predicted, rule_nlp):
    private = tmp_path / "privado"
    report = run(
        input_dir,
        tmp_path / "salida",
        "tag",
        None,
        nlp=rule_nlp,
        private_dir=private,
        export_format="doccano",
    )
    assert report["export"]["path"] == str(private / "doccano.jsonl")
    import_annotations(private / "doccano.jsonl", tmp_path / "local.spacy", "doccano")
    assert {k: v[1] for k, v in docbin_spans(tmp_path / "local.spacy").items()} == predicted
    with pytest.raises(RunError, match="--private-dir"):
        run(input_dir, tmp_path / "salida2", "tag", None, nlp=rule_nlp, export_format="doccano")


def test_cli_import_and_export_refusal(tmp_path, input_dir):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "components"))
    src = tmp_path / "d.jsonl"
    src.write_text(good_doccano() + "\n", encoding="utf-8")
    ok = subprocess.run(
        [
            sys.executable,
            "-m",
            "meddocan_deid",
            "import",
            str(src),
            str(tmp_path / "o.spacy"),
            "--format",
            "doccano",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert ok.returncode == 0 and "1/1" in ok.stdout and MARKER not in ok.stdout + ok.stderr
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "meddocan_deid",
            "export",
            str(input_dir),
            str(input_dir / "x"),
            "--format",
            "brat",
            "--model",
            "does-not-matter",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert bad.returncode == 2 and "inside it" in bad.stderr


def test_export_skips_structured_records_and_files_not_read(tmp_path, rule_nlp):
    """A FHIR file and a table beside the reports are not exported as reports, and each
    report keeps its own name."""
    folder = tmp_path / "mixto"
    folder.mkdir()
    (folder / "a.txt").write_text("Nombre: Ana.\nApellidos: Ruiz Gil.\n", encoding="utf-8")
    (folder / "b.json").write_text(
        json.dumps({"resourceType": "Patient", "id": "x"}), encoding="utf-8"
    )
    (folder / "c.csv").write_text("id,nota\n1,sin datos\n", encoding="utf-8")
    (folder / "d.txt").write_text("Sin datos.\n", encoding="utf-8")
    export = tmp_path / "export"
    result = export_reports(folder, export, "brat", nlp=rule_nlp)
    assert result["written"] == 2 and result["failed"] == 0
    assert sorted(p.stem for p in export.rglob("*.txt")) == ["a", "d"]
    assert "Ruiz" in next(export.rglob("a.txt")).read_text(encoding="utf-8")
