"""`meddocan-deid deidentify` on tables (CSV, TSV, Excel, Parquet, JSONL: same columns and
rows, text and PHI columns replaced, a status column) and on documents (.docx, .pdf, .rtf: a
.txt and its .ann, a .docx for a .docx, OCR for a PDF without text). The CLI runs
in-process on the rule pipeline; every table and document is invented here (Faker es_ES)."""

import csv
import io
import json
import sys
from pathlib import Path

import pytest
from faker import Faker
from typer.testing import CliRunner

from meddocan_deid.brat import validate_ann
from meddocan_deid.cli.app import app
from meddocan_deid.lexicon import words

sys.path.insert(0, str(Path(__file__).parent.parent / "formats"))
from office_files import make_docx, make_rtf, minimal_pdf  # noqa: E402

KEY = "tables-cli-key-0123456789abcdef"
COLUMNS = ["id", "paciente", "nombre", "nhc", "nacimiento", "nota", "planta"]
TABLE_ARGS = [
    "--id-column",
    "id",
    "--text-column",
    "nota",
    "--patient-column",
    "paciente",
    "--phi-column",
    "nombre:NOMBRE_SUJETO_ASISTENCIA",
    "--phi-column",
    "nhc:ID_SUJETO_ASISTENCIA",
    "--phi-column",
    "nacimiento:FECHAS",
]
MONTHS = tuple(words("months", "es"))  # January first


def cli(monkeypatch, nlp, *args, key=None):
    monkeypatch.setattr("meddocan_deid.engine.runner.load_model", lambda *a, **k: nlp)
    return CliRunner().invoke(
        app, ["deidentify", *[str(a) for a in args]], env={"MEDDOCAN_DEID_KEY": key}
    )


@pytest.fixture(scope="module")
def rows():
    """Six rows of three patients; a patient's later rows have no PHI cells of their own."""
    fake = Faker("es_ES")
    fake.seed_instance(5150)
    out = []
    for p in range(3):
        given, s1, s2 = fake.first_name(), fake.last_name(), fake.last_name()
        nhc = str(fake.random_int(1_000_000, 9_999_999))
        born = fake.date_of_birth(minimum_age=20, maximum_age=85)
        notes = [
            f"{given} {s1} {s2} ({born.day} de {MONTHS[born.month - 1]} de {born.year}) "
            "ingresa por disnea.",
            f"Control de {s1.lower()}: mejora. Historia {nhc[:2]}.{nhc[2:5]}.{nhc[5:]}.",
        ]
        for j, note in enumerate(notes):
            first = j == 0
            out.append(
                {
                    "id": f"E{p}{j}",
                    "paciente": f"P{p}",
                    "nombre": f"{given} {s1} {s2}" if first else "",
                    "nhc": nhc if first else "",
                    "nacimiento": born.strftime("%d/%m/%Y") if first else "",
                    "nota": note,
                    "planta": str(3 + p),
                    "_words": [given, s1, s2, nhc, born.strftime("%d/%m/%Y"), str(born.year)],
                }
            )
    return out


def write_table(path: Path, fmt: str, rows) -> None:
    data = [[r[c] for c in COLUMNS] for r in rows]
    if fmt in ("csv", "tsv"):
        with open(path, "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh, delimiter="," if fmt == "csv" else "\t", lineterminator="\r\n")
            w.writerow(COLUMNS)
            w.writerows(data)
    elif fmt == "jsonl":
        path.write_text(
            "".join(json.dumps(dict(zip(COLUMNS, d)), ensure_ascii=False) + "\n" for d in data),
            encoding="utf-8",
        )
    elif fmt == "xlsx":
        from openpyxl import Workbook
        from openpyxl.styles import Font

        wb = Workbook()
        ws = wb.active
        ws.append(COLUMNS)
        for d in data:
            ws.append(
                [None if v == "" else (int(v) if c == "planta" else v) for c, v in zip(COLUMNS, d)]
            )
        ws["A1"].font = Font(bold=True)
        wb.create_sheet("otra").append(["no copiada"])
        wb.save(path)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        cols = {c: [d[i] or None for d in data] for i, c in enumerate(COLUMNS)}
        cols["planta"] = [int(v) for v in cols["planta"]]
        pq.write_table(pa.table(cols), path)


def read_table(path: Path, fmt: str):
    """(columns, rows as lists of strings or None) read with the format's own reader."""
    if fmt in ("csv", "tsv"):
        text = path.read_bytes().decode("utf-8")
        assert text.count("\r\n") == text.count("\n")  # the input's line ends
        rows = list(
            csv.reader(io.StringIO(text, newline=""), delimiter="," if fmt == "csv" else "\t")
        )
        return rows[0], [[v if v != "" else None for v in r] for r in rows[1:]]
    if fmt == "jsonl":
        objs = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
        return list(objs[0]), [
            [None if o[c] in ("", None) else str(o[c]) for c in objs[0]] for o in objs
        ]
    if fmt == "xlsx":
        from openpyxl import load_workbook

        wb = load_workbook(path)
        assert wb.sheetnames == ["Sheet"] and wb.active["A1"].font.bold  # one sheet, its look kept
        values = [
            [None if v is None else str(v) for v in r]
            for r in wb.active.iter_rows(values_only=True)
        ]
        return values[0], values[1:]
    import pyarrow.parquet as pq

    t = pq.read_table(path)
    assert t.schema.field("planta").type.bit_width == 64  # other columns keep their type
    return t.column_names, [
        [None if v is None else str(v) for v in r.values()] for r in t.to_pylist()
    ]


@pytest.mark.parametrize("fmt", ["csv", "tsv", "xlsx", "parquet", "jsonl"])
def test_table_round_trip(tmp_path, rule_nlp, monkeypatch, rows, fmt):
    src = tmp_path / f"notas.{fmt}"
    write_table(src, fmt, rows)
    result = cli(monkeypatch, rule_nlp, src, tmp_path / "out", "--mode", "tag", *TABLE_ARGS)
    assert result.exit_code == 0, result.output
    assert "rows read 6, ok 6, failed 0" in result.output
    out = tmp_path / "out" / src.name
    columns, got = read_table(out, fmt)
    assert columns == COLUMNS + ["deid_status"]
    assert len(got) == len(rows)
    for r, g in zip(rows, got):
        row = dict(zip(columns, g))
        assert (row["id"], row["paciente"], row["planta"]) == (
            r["id"],
            r["paciente"],
            r["planta"],
        )  # untouched
        assert row["deid_status"] == "ok"
        if r["nombre"]:
            assert (row["nombre"], row["nhc"], row["nacimiento"]) == (
                "[NOMBRE_SUJETO_ASISTENCIA]",
                "[ID_SUJETO_ASISTENCIA]",
                "[FECHAS]",
            )
        else:
            assert row["nombre"] is None and row["nhc"] is None
        for word in r["_words"]:  # the row's cells and its patient's, wherever they are in the note
            assert word.lower() not in row["nota"].lower(), (fmt, r["id"])
    raw = out.read_bytes() if fmt != "xlsx" else b""
    for r in rows:
        assert r["nhc"].encode() not in raw or not r["nhc"]
    rep = json.loads((tmp_path / "out" / "run_report.json").read_text(encoding="utf-8"))
    assert rep["rows"] == {"read": 6, "ok": 6, "failed": 0} and rep["format"] == fmt
    assert rep["columns"]["phi"] == {
        "nombre": "NOMBRE_SUJETO_ASISTENCIA",
        "nhc": "ID_SUJETO_ASISTENCIA",
        "nacimiento": "FECHAS",
    }


def test_surrogates_agree_between_cells_and_text(tmp_path, rule_nlp, monkeypatch, rows):
    first, second = dict(rows[0]), dict(rows[1])
    first["nota"] = f"{first['nombre']} ingresa; NHC {first['nhc']}."
    second["nota"] = f"Control de {first['nombre'].split()[1]}: NHC {first['nhc']}."
    src = tmp_path / "notas.csv"
    write_table(src, "csv", [first, second])
    result = cli(
        monkeypatch, rule_nlp, src, tmp_path / "out", "--mode", "surrogate", *TABLE_ARGS, key=KEY
    )
    assert result.exit_code == 0, result.output
    _cols, got = read_table(tmp_path / "out" / "notas.csv", "csv")
    name, nhc = got[0][2], got[0][3]
    assert name != first["nombre"] and nhc != first["nhc"]
    assert got[0][5] == f"{name} ingresa; NHC {nhc}."
    # the patient's other row: the same surrogates (one patient scope)
    assert got[1][5] == f"Control de {name.split()[1]}: NHC {nhc}."


def test_a_failed_row_is_kept_and_the_exit_code_says_so(tmp_path, rule_nlp, monkeypatch, rows):
    src = tmp_path / "notas.csv"
    write_table(src, "csv", rows)
    lines = src.read_bytes().decode("utf-8").split("\r\n")
    lines[3] = "," + lines[3].split(",", 1)[1]  # row 3 loses its id
    lines[5] = "solo,dos"
    src.write_bytes("\r\n".join(lines).encode("utf-8"))
    result = cli(monkeypatch, rule_nlp, src, tmp_path / "out", "--mode", "mask", *TABLE_ARGS)
    assert result.exit_code == 1
    assert "failed: notas.csv: line 4: no id (column 'id' is empty)" in result.output
    # a row that cannot be split keeps its id: it comes before every text and PHI column
    assert "failed: notas.csv: line 6 (id solo): 2 fields, the header has 7" in result.output
    assert "rows read 6, ok 4, failed 2" in result.output
    _cols, got = read_table(tmp_path / "out" / "notas.csv", "csv")
    assert len(got) == 6 and [g[0] for g in got] == ["E00", "E01", None, "E11", "solo", "E21"]
    assert got[2][:7] == [None, "P1", None, None, None, None, "4"] and got[2][7].startswith(
        "failed: no id"
    )
    assert got[4] == ["solo"] + [None] * 6 + ["failed: 2 fields, the header has 7"]
    # the failed row's cells still name its patient in the patient's other row
    assert rows[2]["_words"][1].lower() not in got[3][5].lower() and got[3][-1] == "ok"


def test_table_run_refusals(tmp_path, rule_nlp, monkeypatch, rows):
    src = tmp_path / "notas.csv"
    write_table(src, "csv", rows)
    ok = cli(monkeypatch, rule_nlp, src, tmp_path / "out", "--mode", "tag", *TABLE_ARGS)
    assert ok.exit_code == 0
    again = cli(monkeypatch, rule_nlp, src, tmp_path / "out", "--mode", "tag", *TABLE_ARGS)
    assert again.exit_code == 2 and "the output table exists; give --overwrite" in again.output
    assert (
        cli(
            monkeypatch,
            rule_nlp,
            src,
            tmp_path / "out",
            "--mode",
            "tag",
            *TABLE_ARGS,
            "--overwrite",
        ).exit_code
        == 0
    )
    same = cli(monkeypatch, rule_nlp, src, tmp_path, "--mode", "tag", *TABLE_ARGS)
    assert same.exit_code == 2 and "would replace the input" in same.output
    no_cols = cli(monkeypatch, rule_nlp, src, tmp_path / "o2", "--mode", "tag")
    assert (
        no_cols.exit_code == 2
        and "needs --id-column and at least one --text-column" in no_cols.output
    )
    missing = cli(
        monkeypatch,
        rule_nlp,
        src,
        tmp_path / "o3",
        "--mode",
        "tag",
        "--id-column",
        "id",
        "--text-column",
        "informe",
    )
    assert (
        missing.exit_code == 2
        and "notas.csv: no column 'informe' (columns: 'id', 'paciente'" in missing.output
    )
    folder = cli(
        monkeypatch, rule_nlp, tmp_path, tmp_path / "o4", "--mode", "tag", "--text-column", "nota"
    )
    assert folder.exit_code == 2 and "are for a table input" in folder.output
    bad = cli(
        monkeypatch,
        rule_nlp,
        src,
        tmp_path / "o5",
        "--mode",
        "tag",
        "--id-column",
        "id",
        "--phi-column",
        "nombre:NOMBRE",
    )
    assert bad.exit_code == 2 and "unknown label 'NOMBRE'" in bad.output
    assert not any((tmp_path / f"o{i}").exists() for i in range(2, 6))


def test_documents_round_trip(tmp_path, rule_nlp, monkeypatch):
    fake = Faker("es_ES")
    fake.seed_instance(404)
    given, s1, s2, nhc = (
        fake.first_name(),
        fake.last_name(),
        fake.last_name(),
        str(fake.random_int(10**6, 10**7 - 1)),
    )
    lines = [
        "Datos del paciente.",
        f"Nombre: {given}.",
        f"Apellidos: {s1} {s2}.",
        f"NHC: {nhc}.",
        "Informe clínico del paciente: acude por tos.",
    ]
    inp = tmp_path / "in"
    inp.mkdir()
    make_docx(
        inp / "carta.docx",
        header="Datos del paciente.",
        paragraphs=[
            ["Nombre: ", given, "."],
            ["Apellidos: ", s1[:3], s1[3:] + " " + s2, "."],
            [f"NHC: {nhc}."],
        ],
    )
    (inp / "informe.pdf").write_bytes(minimal_pdf([lines]))
    (inp / "escaneo.pdf").write_bytes(minimal_pdf([None]))
    (inp / "nota.rtf").write_bytes(make_rtf("\n".join(lines)))
    result = cli(monkeypatch, rule_nlp, inp, tmp_path / "out", "--mode", "tag")
    # a PDF without text is read by OCR (tests/formats/test_ocr.py): a blank page is empty text,
    # flagged for review
    assert result.exit_code == 0
    assert "review: escaneo.pdf page 1: no word recognised" in result.output
    assert "reports read 4, written 3, skipped 0, failed 0, empty 1" in result.output
    out = tmp_path / "out"
    from meddocan_deid.formats.sources import extract_text

    for stem in ("carta", "informe", "nota"):
        text = (out / f"{stem}.txt").read_text(encoding="utf-8")
        assert validate_ann(text, (out / f"{stem}.ann").read_text(encoding="utf-8")) == 3
        assert all(v not in text for v in (given, s1, s2, nhc))
    assert extract_text((out / "carta.docx").read_bytes(), "docx") == (out / "carta.txt").read_text(
        encoding="utf-8"
    )
    rerun = cli(monkeypatch, rule_nlp, inp, tmp_path / "out", "--mode", "tag", "--skip-unsupported")
    assert (
        "written 0, skipped 3, failed 0, empty 1" in rerun.output
    )  # resumed: unchanged documents are skipped
