"""The one `Run`: reports and tables from any source of meddocan_deid/formats, one `RunReport`,
its failures by name and its exit code."""

import csv
import json

import pytest
from command_line import report_counts

from meddocan_deid.deid.tables import TableSpec
from meddocan_deid.engine import RunConfig, RunError
from meddocan_deid.engine.report import RunReport
from meddocan_deid.engine.runner import Run

NOTE = "Nombre: Ana.\nApellidos: Ruiz Gil.\nNHC: 5192837.\n"


def run(rule_nlp, inp, out, **kw) -> RunReport:
    return Run(
        RunConfig(input=inp, output=out, mode="tag", progress=False, **kw), nlp=rule_nlp
    ).execute_report()


def test_a_folder_of_reports(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "a.txt").write_text(NOTE, encoding="utf-8")
    (inp / "b.odt").write_bytes(b"PK")
    report = run(rule_nlp, inp, tmp_path / "out")
    assert isinstance(report, RunReport) and report.kind == "reports"
    assert report.counts["written"] == 1 and report.exit_code == 1  # the .odt fails, by name
    assert [f["file"] for f in report.failed] == ["b.odt"]
    written = json.loads((tmp_path / "out" / "run_report.json").read_text(encoding="utf-8"))
    assert written == report.to_dict() and written["reports"]["failed"] == 1
    assert "[NOMBRE_SUJETO_ASISTENCIA]" in (tmp_path / "out" / "a.txt").read_text(encoding="utf-8")


def test_a_table_through_the_same_run(tmp_path, rule_nlp):
    src = tmp_path / "notas.csv"
    with open(src, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "nota"])
        w.writerow(["n1", NOTE])
        w.writerow(["n2", "Sin datos."])
    spec = TableSpec(id_column="id", text_columns=("nota",))
    report = run(rule_nlp, src, tmp_path / "out", table=spec)
    assert (
        report.kind == "table"
        and report.exit_code == 0
        and report.rows == {"read": 2, "ok": 2, "failed": 0}
    )
    written = json.loads((tmp_path / "out" / "run_report.json").read_text(encoding="utf-8"))
    assert written == report.to_dict() and written["format"] == "csv" and "reports" not in written
    assert "5192837" not in (tmp_path / "out" / "notas.csv").read_text(encoding="utf-8")
    # the table run holds the folder's rules as a report run does: no silent replacement
    with pytest.raises(RunError, match="--overwrite"):
        run(rule_nlp, src, tmp_path / "out", table=spec)
    with pytest.raises(RunError, match="for reports, not tables"):
        run(rule_nlp, src, tmp_path / "o2", table=spec, review_dir=tmp_path / "review")


def test_the_exit_code_follows_the_failures():
    base = dict(
        mode="tag", input="i", output="o", model={}, library_version="0", fingerprint={}, options={}
    )
    assert RunReport(counts={"failed": 0}, **base).exit_code == 0
    assert RunReport(counts={"failed": 2}, **base).exit_code == 1
    assert RunReport(kind="table", rows={"read": 3, "ok": 2, "failed": 1}, **base).exit_code == 1


def test_a_row_that_cannot_be_split_keeps_its_id_where_the_id_can_be_read(tmp_path, rule_nlp):
    """A CSV row with a stray comma in its note: the id, left of every text and PHI column and at
    the start of a record, names the row in the report and stays in the output row."""
    src = tmp_path / "notas.csv"
    src.write_text(
        "id,nota,nhc\nn1,Sin datos.,1\nn2,Paciente Ana, sin comillas,2\nn3,Otra, coma,3\n",
        encoding="utf-8",
    )
    spec = TableSpec(id_column="id", text_columns=("nota",))
    report = run(rule_nlp, src, tmp_path / "out", table=spec)
    assert report.exit_code == 1 and report.rows == {"read": 3, "ok": 1, "failed": 2}
    named, after_a_broken_row = report.failed
    assert named["id"] == "n2" and named["where"] == "notas.csv: line 3"
    assert "4 fields" in named["reason"]
    # the row before it could not be split either: this one may be the rest of it
    assert "id" not in after_a_broken_row and after_a_broken_row["where"] == "notas.csv: line 4"
    lines = (tmp_path / "out" / "notas.csv").read_text(encoding="utf-8").splitlines()
    assert lines[2] == 'n2,,,"failed: 4 fields, the header has 3"'
    assert lines[3].startswith(',,,"failed')
    # an id that is a PHI column, or that comes after a text column, is never read by position
    for i, other in enumerate(
        (
            TableSpec(
                id_column="id", text_columns=("nota",), phi_columns={"id": "ID_SUJETO_ASISTENCIA"}
            ),
            TableSpec(id_column="nhc", text_columns=("nota",)),
        )
    ):
        report = run(rule_nlp, src, tmp_path / f"out{i}", table=other)
        assert all("id" not in f for f in report.failed)
        lines = (tmp_path / f"out{i}" / "notas.csv").read_text(encoding="utf-8").splitlines()
        assert lines[2].startswith(',,,"failed')


def test_a_continuation_line_of_a_note_is_never_named_by_a_piece_of_the_note(tmp_path, rule_nlp):
    """A TSV note with a line break: the line after the break cannot be told from a record by its
    fields (its first field is a piece of the note), so it is named by its file and line only."""
    src = tmp_path / "notas.tsv"
    src.write_text(
        "id\tnota\nn1\tSin datos.\nn2\tPaciente Ana Ruiz\nGil, de Madrid.\textra\tmore\n",
        encoding="utf-8",
    )
    spec = TableSpec(id_column="id", text_columns=("nota",))
    report = run(rule_nlp, src, tmp_path / "out", table=spec)
    assert report.exit_code == 1 and report.rows == {"read": 3, "ok": 2, "failed": 1}
    (failed,) = report.failed
    assert failed["where"] == "notas.tsv: line 4" and "id" not in failed
    lines = (tmp_path / "out" / "notas.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[3] == "\t\tfailed: 3 fields, the header has 2"
    assert "Gil" not in json.dumps(report.to_dict())
    # the same when the note is not the last column: the line before ends inside it
    src.write_text(
        "id\tnota\tnhc\nn1\tSin datos.\t1\nn2\tPaciente Ana\nRuiz Gil, de Madrid.\t2\textra\n",
        encoding="utf-8",
    )
    report = run(rule_nlp, src, tmp_path / "out2", table=spec)
    assert [f["where"] for f in report.failed] == ["notas.tsv: line 3", "notas.tsv: line 4"]
    assert report.failed[0]["id"] == "n2" and "id" not in report.failed[1]
    assert "Ruiz" not in json.dumps(report.to_dict())


def test_an_empty_file_has_a_status_of_its_own(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "a.txt").write_text(NOTE, encoding="utf-8")
    (inp / "vacio.txt").write_text("\n \n", encoding="utf-8")
    report = run(rule_nlp, inp, tmp_path / "out")
    assert report.exit_code == 0 and report.failed == []
    assert report.counts == report_counts(2, 1, empty=1)
    assert report.to_dict()["empty"] == [{"id": "vacio", "file": "vacio.txt"}]
