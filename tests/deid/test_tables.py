"""Tables (deid/tables.py): PHI columns de-identified with the run's operator, their values
known identifiers of the row's texts and of the patient's other rows, surrogates shared by a
cell and the text, failed rows kept with no PHI, the column spec checked. Content invented
with Faker (es_ES, fixed seed)."""

import datetime as dt
import json

import pytest
from faker import Faker

from meddocan_deid.deid.tables import (
    TableSpec,
    cell_text,
    date_variants,
    deidentify_table,
    known_of,
    parse_phi_column,
)
from meddocan_deid.errors import InputError

KEY = b"table-test-key-0123456789abcdef"
SPEC = TableSpec(
    id_column="id",
    text_columns=("nota",),
    patient_column="paciente",
    phi_columns={"nombre": "NOMBRE_SUJETO_ASISTENCIA", "nhc": "ID_SUJETO_ASISTENCIA"},
)


@pytest.fixture(scope="module")
def people():
    fake = Faker("es_ES")
    fake.seed_instance(20240611)
    out = []
    for _ in range(4):
        given, s1, s2 = fake.first_name(), fake.last_name(), fake.last_name()
        out.append(
            {
                "given": given,
                "s1": s1,
                "s2": s2,
                "full": f"{given} {s1} {s2}",
                "nhc": str(fake.random_int(1_000_000, 9_999_999)),
            }
        )
    return out


def frame(people):
    import pandas as pd

    a, b = people[0], people[1]
    return pd.DataFrame(
        {
            "id": ["r1", "r2", "r3"],
            "paciente": ["P1", "P1", "P2"],
            "nombre": [a["full"], None, b["full"]],
            "nhc": [int(a["nhc"]), None, int(b["nhc"])],
            # the notes name the patient in ways no field key announces
            "nota": [
                f"Acude {a['given'].lower()} {a['s1']} por dolor; historia {a['nhc']}.",
                f"Control: {a['s1'].upper()} mejora (NHC {a['nhc'][:3]}.{a['nhc'][3:]}).",
                f"{b['s1']} {b['s2']} sin cambios.",
            ],
            "planta": [3, 3, 5],
        }
    )


def test_phi_columns_are_replaced_and_fed_to_the_text(rule_nlp, people):
    df = frame(people)
    res = deidentify_table(df, columns=SPEC, mode="tag", nlp=rule_nlp)
    out = res.table
    assert list(out.columns) == list(df.columns) + ["deid_status"]
    assert out["deid_status"].tolist() == ["ok", "ok", "ok"] and res.ok == 3 and res.failed == []
    assert out["id"].tolist() == ["r1", "r2", "r3"] and out["planta"].tolist() == [3, 3, 5]
    assert out["nombre"].tolist() == [
        "[NOMBRE_SUJETO_ASISTENCIA]",
        None,
        "[NOMBRE_SUJETO_ASISTENCIA]",
    ]
    assert out["nhc"].tolist()[0] == "[ID_SUJETO_ASISTENCIA]"
    a, b = people[0], people[1]
    notes = " ".join(out["nota"])
    # the row's cells and, for r2, its patient's cells of r1 (no cell of its own)
    for word in (a["given"], a["s1"], a["nhc"], a["nhc"][3:], b["s1"], b["s2"]):
        assert word.lower() not in notes.lower(), word
    assert out["nota"][1].startswith(
        "Control: [NOMBRE_SUJETO_ASISTENCIA] mejora (NHC [ID_SUJETO_ASISTENCIA])"
    )


def test_without_feeding_the_columns_the_text_keeps_what_the_pipeline_misses(rule_nlp, people):
    spec = TableSpec(
        id_column="id",
        text_columns=("nota",),
        patient_column="paciente",
        phi_columns=SPEC.phi_columns,
        phi_to_text=False,
    )
    out = deidentify_table(frame(people), columns=spec, mode="tag", nlp=rule_nlp).table
    assert out["nombre"][0] == "[NOMBRE_SUJETO_ASISTENCIA]"  # the cells are replaced all the same
    assert people[0]["s1"].upper() in out["nota"][1]  # the rule pipeline alone does not see it


def test_a_cell_and_the_text_share_the_surrogate(rule_nlp, people):
    import pandas as pd

    a = people[2]
    df = pd.DataFrame(
        {
            "id": ["x1", "x2"],
            "paciente": ["P9", "P9"],
            "nombre": [a["full"], a["full"]],
            "nhc": [a["nhc"], None],
            "nota": [f"Paciente {a['full']}, historia {a['nhc']}.", f"Revisión de {a['full']}."],
        }
    )
    out = deidentify_table(df, columns=SPEC, mode="surrogate", key=KEY, nlp=rule_nlp).table
    name, nhc = out["nombre"][0], out["nhc"][0]
    assert name != a["full"] and nhc != a["nhc"] and len(nhc) == len(a["nhc"])
    assert out["nota"][0] == f"Paciente {name}, historia {nhc}."
    assert (
        out["nombre"][1] == name and out["nota"][1] == f"Revisión de {name}."
    )  # one patient, one surrogate
    again = deidentify_table(df, columns=SPEC, mode="surrogate", key=KEY, nlp=rule_nlp).table
    assert again["nota"].tolist() == out["nota"].tolist()  # the same key gives the same output


def test_failed_rows_are_kept_with_no_phi(rule_nlp, people):
    from meddocan_deid.deid.options import DeidOptions

    df = frame(people)
    df.loc[1, "nota"] = "x" * 300
    df.loc[2, "id"] = None
    res = deidentify_table(
        df, columns=SPEC, mode="mask", nlp=rule_nlp, options=DeidOptions(max_chars=200)
    )
    out = res.table
    assert len(out) == 3 and out["planta"].tolist() == [3, 3, 5]
    assert out["deid_status"][0] == "ok"
    assert out["deid_status"][1].startswith("failed: nota: text too long (300 characters")
    assert out["deid_status"][2] == "failed: no id (column 'id' is empty)"
    for i in (1, 2):
        assert out["nota"][i] is None and out["nombre"][i] is None and out["nhc"][i] is None
    assert (
        [f["row"] for f in res.failed] == [2, 3]
        and res.failed[0]["id"] == "r2"
        and "id" not in res.failed[1]
    )
    assert res.ok == 1


def test_parquet_keeps_other_types_and_row_order(tmp_path, rule_nlp, people):
    import pyarrow as pa
    import pyarrow.parquet as pq

    df = frame(people)
    df["ingreso"] = [dt.date(2020, 1, 2), dt.date(2021, 3, 4), dt.date(2022, 5, 6)]
    src = tmp_path / "notas.parquet"
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), src)
    res = deidentify_table(
        src, columns=SPEC, mode="tag", nlp=rule_nlp, output=tmp_path / "out" / "notas.parquet"
    )
    back = pq.read_table(res.table)
    original = pq.read_table(src)
    assert back.column_names == original.column_names + ["deid_status"]
    for col in ("id", "paciente", "planta", "ingreso"):
        assert back.column(col).equals(original.column(col)), col
    assert back.schema.field("nhc").type == pa.string()
    assert back.column("nhc").to_pylist() == [
        "[ID_SUJETO_ASISTENCIA]",
        None,
        "[ID_SUJETO_ASISTENCIA]",
    ]


def test_spec_and_columns_are_checked(tmp_path, rule_nlp, people):
    with pytest.raises(ValueError, match="unknown label 'NOMBRE'"):
        TableSpec(id_column="id", phi_columns={"nombre": "NOMBRE"})
    with pytest.raises(ValueError, match="named twice"):
        TableSpec(id_column="id", text_columns=("nota",), phi_columns={"nota": "FECHAS"})
    with pytest.raises(ValueError, match="at least one text column"):
        TableSpec(id_column="id")
    assert parse_phi_column("fecha:nacimiento:FECHAS") == ("fecha:nacimiento", "FECHAS")
    with pytest.raises(ValueError, match="expected COLUMN:LABEL"):
        parse_phi_column("nombre")
    src = tmp_path / "t.csv"
    src.write_text("id,texto\n1,hola\n", encoding="utf-8")
    with pytest.raises(
        InputError,
        match=r"t\.csv: no column 'nota', 'nombre', 'nhc', 'paciente' \(columns: 'id', 'texto'\)",
    ):
        deidentify_table(
            src, columns=SPEC, mode="tag", nlp=rule_nlp, output=tmp_path / "o" / "t.csv"
        )
    src.write_text("id,nota,deid_status\n1,hola,x\n", encoding="utf-8")
    with pytest.raises(InputError, match="already has a column 'deid_status'"):
        deidentify_table(
            src,
            columns=TableSpec(id_column="id", text_columns=("nota",)),
            mode="tag",
            nlp=rule_nlp,
            output=tmp_path / "o" / "t.csv",
        )
    with pytest.raises(InputError, match="give it the suffix .csv"):
        deidentify_table(
            src, columns=SPEC, mode="tag", nlp=rule_nlp, output=tmp_path / "o" / "t.xlsx"
        )
    with pytest.raises(ValueError, match="surrogate mode needs a key"):
        deidentify_table(frame(people), columns=SPEC, mode="surrogate", nlp=rule_nlp)


def test_cells_as_text_and_dates_in_their_usual_forms():
    assert cell_text(None) is None and cell_text(float("nan")) is None and cell_text("") is None
    assert cell_text(1234567.0) == "1234567" and cell_text(12) == "12" and cell_text(1.5) == "1.5"
    assert (
        cell_text(dt.datetime(1980, 3, 5)) == "1980-03-05"
        and cell_text(dt.date(1980, 3, 5)) == "1980-03-05"
    )
    with pytest.raises(ValueError, match="not a text value"):
        cell_text({"a": 1})
    forms = date_variants("1980-03-05")
    assert {"05/03/1980", "5/3/1980", "5 de marzo de 1980", "05-03-1980", "1980-03-05"} <= set(
        forms
    )
    assert set(date_variants("05/03/1980")) == set(forms)
    assert date_variants("marzo") == ["marzo"]
    known = known_of([("FECHAS", "05/03/1980"), ("NOMBRE_SUJETO_ASISTENCIA", "  ")])
    assert list(known) == ["FECHAS"] and "5 de marzo de 1980" in known["FECHAS"]


def test_jsonl_table_keeps_other_keys_and_marks_bad_lines(tmp_path, rule_nlp, people):
    a = people[3]
    lines = [
        json.dumps(
            {"id": 1, "nota": f"Visita de {a['full']}.", "nombre": a["full"], "extra": {"k": [1]}},
            ensure_ascii=False,
        ),
        "{roto",
        "",
        json.dumps({"id": 2, "nota": 7}),
    ]
    src = tmp_path / "t.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    spec = TableSpec(
        id_column="id", text_columns=("nota",), phi_columns={"nombre": "NOMBRE_SUJETO_ASISTENCIA"}
    )
    res = deidentify_table(
        src, columns=spec, mode="tag", nlp=rule_nlp, output=tmp_path / "o" / "t.jsonl"
    )
    rows = [json.loads(x) for x in res.table.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 3  # the blank line is no row
    assert rows[0] == {
        "id": 1,
        "nota": "Visita de [NOMBRE_SUJETO_ASISTENCIA].",
        "nombre": "[NOMBRE_SUJETO_ASISTENCIA]",
        "extra": {"k": [1]},
        "deid_status": "ok",
    }
    assert rows[1] == {"deid_status": "failed: not valid JSON"}
    assert rows[2] == {
        "id": 2,
        "nota": "7",
        "deid_status": "ok",
    }  # a number is text with nothing to replace
    assert res.failed == [{"row": 2, "where": "t.jsonl: line 2", "reason": "not valid JSON"}]


def test_an_excel_output_keeps_no_link_comment_or_property_that_names_the_patient(
    tmp_path, rule_nlp
):
    from openpyxl import Workbook, load_workbook
    from openpyxl.comments import Comment

    wb = Workbook()
    ws = wb.active
    ws.title = "Pacientes"
    ws.append(["id", "nombre", "nota"])
    ws.append(["r1", "Eulalia Marcó Bentabol", "Acude por dolor abdominal."])
    ws["B2"].hyperlink = "mailto:eulalia.marco@example.com"
    ws["B2"].comment = Comment("Llamar a Eulalia Marcó", "Admisión")
    wb.properties.creator = "Eulalia Marcó Bentabol"
    wb.properties.title = "Historia de Eulalia Marcó"
    src = tmp_path / "t.xlsx"
    wb.save(src)
    spec = TableSpec(
        id_column="id", text_columns=("nota",), phi_columns={"nombre": "NOMBRE_SUJETO_ASISTENCIA"}
    )
    deidentify_table(src, columns=spec, mode="tag", nlp=rule_nlp, output=tmp_path / "o" / "t.xlsx")
    out = load_workbook(tmp_path / "o" / "t.xlsx")
    cell = out.active["B2"]
    assert (
        cell.value == "[NOMBRE_SUJETO_ASISTENCIA]"
        and cell.hyperlink is None
        and cell.comment is None
    )
    assert "Eulalia" not in str(out.properties.creator) and "Eulalia" not in str(
        out.properties.title
    )
    with pytest.raises(InputError) as err:
        deidentify_table(
            src,
            columns=TableSpec(id_column="id", text_columns=("nota",), sheet="Otra"),
            mode="tag",
            nlp=rule_nlp,
            output=tmp_path / "o2" / "t.xlsx",
        )
    assert "Pacientes" not in str(err.value)
