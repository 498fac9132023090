"""Re-identification risk of a table: the generalisation operators, k and l by hand-counted
classes, the rows at risk by id (never a value), the least generalisation that reaches k, and
the `risk` command on a file."""

import csv
import json

import pytest
from typer.testing import CliRunner

from meddocan_deid.cli.app import app
from meddocan_deid.deid.options import DeidOptions
from meddocan_deid.engine import run
from meddocan_deid.evidence.generalise import generalise, generalise_column, guess_kind
from meddocan_deid.evidence.table_risk import least_generalisation, measure
from meddocan_deid.evidence.targets import Generalise, TableTargets


@pytest.mark.parametrize(
    "kind,value,level,expected",
    [
        ("age", "47", 10, "40-49"),
        ("age", "47", 5, "45-49"),
        ("age", "47", None, "47"),
        ("date", "2021-03-14", "month", "2021-03"),
        ("date", "14/03/2021", "year", "2021"),
        ("postal_code", "28029", 3, "280"),
        ("postal_code", "28029", 2, "28"),
        ("town", "Talavera de la Reina", "province", "Toledo"),
        ("town", "Nowhere-on-Sea", "province", "*"),
        ("category", "F", "*", "*"),
        ("age", "", 10, ""),
    ],
)
def test_operators(kind, value, level, expected):
    assert generalise(kind, value, level) == expected


def test_a_bad_cell_is_named_by_column_and_row_not_value():
    with pytest.raises(ValueError) as err:
        generalise_column("cp", "postal_code", ["28029", "Calle 7"], 3)
    assert "column 'cp', row 2: not a postal code" in str(err.value)
    assert "Calle" not in str(err.value)


def test_kinds_guessed_from_names():
    assert [guess_kind(c) for c in ("edad", "CP", "fecha_ingreso", "municipio", "sexo")] == [
        "age",
        "postal_code",
        "date",
        "town",
        "category",
    ]


def test_k_l_and_rows_at_risk_by_hand():
    sex = ["F", "F", "F", "M", "M", "M", "M"]
    town = ["a", "a", "a", "a", "a", "a", "b"]
    ids = [f"r{i}" for i in range(7)]
    diagnosis = ["x", "y", "x", "x", "x", "x", "z"]
    m = measure([sex, town], ids, 3, diagnosis)
    # classes: (F, a) x3, (M, a) x3, (M, b) x1
    assert (m.k, m.l, m.classes) == (1, 1, 3)
    assert m.at_risk == ["r6"]
    # withholding one row of seven is allowed at 0.2: k and l of the rows kept
    m = measure([sex, town], ids, 3, diagnosis, max_suppressed=0.2)
    assert (m.k, m.l, m.suppressed, m.at_risk) == (3, 1, ["r6"], [])


def test_least_generalisation_reaches_k_with_the_smallest_loss():
    ages = [20, 21, 22, 23, 24, 25, 26, 27, 28, 29]
    table = {"age": [str(a) for a in ages], "sex": ["F", "M"] * 5}
    ids = [str(i) for i in range(10)]
    targets = TableTargets(k=5, generalise=Generalise(age=[5, 10, "*"], category=["*"]))
    report, columns = least_generalisation(table, {"age": "age", "sex": "category"}, ids, targets)
    assert report.before.k == 1 and len(report.before.at_risk) == 10
    # 10-year bands alone (loss 2/3) give one class of 10; sex withheld with 5-year bands
    # (1/3 + 1) is more loss
    assert report.levels == {"age": "10-year bands", "sex": "as written"}
    assert report.after.k == 5 and columns["age"] == ["20-29"] * 10
    # a target no ladder reaches
    targets = TableTargets(k=11)
    report, columns = least_generalisation(table, {"age": "age", "sex": "category"}, ids, targets)
    assert columns is None and report.after is None


def test_risk_command_writes_no_values(tmp_path):
    path = tmp_path / "t.csv"
    rows = [
        {"id": f"P{i}", "edad": 30 + i % 10, "cp": f"2802{i % 10}", "dx": ["a", "b"][i % 2]}
        for i in range(40)
    ]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    out, written = tmp_path / "risk.json", tmp_path / "k5.csv"
    r = CliRunner().invoke(
        app,
        ["risk", str(path), "--qi", "edad,cp", "--sensitive", "dx", "--id", "id"]
        + ["--k", "5", "--out", str(out), "--write", str(written)],
    )
    assert r.exit_code == 0, r.output
    assert "before: k = 4" in r.output and "after: k = " in r.output
    result = json.loads(out.read_text())
    assert result["before"]["rows_at_risk"] == 40 and result["after"]["k"] >= 5
    assert "28020" not in out.read_text()  # ids and counts only
    with open(written, encoding="utf-8") as fh:
        back = list(csv.DictReader(fh))
    assert len(back) == 40 and back[0]["anonymity"] == "ok" and back[0]["id"] == "P0"
    r = CliRunner().invoke(app, ["risk", str(path), "--qi", "edad,nope"])
    assert r.exit_code == 2 and "no column 'nope'" in r.output


def test_risk_of_the_values_a_run_keeps_in_its_text(tmp_path, rule_nlp):
    inp, out = tmp_path / "in", tmp_path / "out"
    inp.mkdir()
    for i in range(30):
        (inp / f"r{i:02d}.txt").write_text(
            f"Fecha de Ingreso: {1 + i % 28:02d}/05/2001.\nPaciente de 45 años con fiebre.\n",
            encoding="utf-8",
        )
    keep = {"FECHAS": "keep", "EDAD_SUJETO_ASISTENCIA": "keep"}
    run(
        inp,
        out,
        "tag",
        b"k" * 32,
        nlp=rule_nlp,
        progress=False,
        options=DeidOptions(label_modes=keep),
    )
    r = CliRunner().invoke(app, ["risk", str(out), "--k", "5", "--out", str(tmp_path / "r.json")])
    assert r.exit_code == 0, r.output
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["quasi_identifiers"] == {"age": "age", "date": "date"}
    # 28 days: 26 reports alone on theirs; by month, one class of 30
    assert result["before"]["k"] == 1 and result["before"]["rows_at_risk"] == 30
    assert result["generalisation"] == {"age": "as written", "date": "to month"}
    assert result["after"]["k"] == 30 and "r00" in result["before"]["at_risk_ids"]
    # a run in tag mode keeps none (keep_age and keep_sex are for surrogate mode)
    run(inp, tmp_path / "tagged", "tag", b"k" * 32, nlp=rule_nlp, progress=False)
    r = CliRunner().invoke(app, ["risk", str(tmp_path / "tagged")])
    assert r.exit_code == 2 and "kept no quasi-identifier" in r.output
