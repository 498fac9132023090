"""Spark's PHI columns (`phi_cols`, `--phi-column`): de-identified in place as the table
run does (the same output row by row), their values known identifiers of the row's text and
of the patient's rows, null in a failed row. pyspark local mode; content invented (Faker)."""

import json

import pytest
from faker import Faker

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

KEY = b"spark-phi-key-0123456789abcdef"
PHI = {"nombre": "NOMBRE_SUJETO_ASISTENCIA", "nhc": "ID_SUJETO_ASISTENCIA"}


@pytest.fixture(scope="module")
def rows():
    fake = Faker("es_ES")
    fake.seed_instance(90210)
    out = []
    for p in range(3):
        given, s1, s2 = fake.first_name(), fake.last_name(), fake.last_name()
        nhc = fake.random_int(1_000_000, 9_999_999)
        out.append(
            (
                f"R{p}a",
                f"P{p}",
                f"{given} {s1} {s2}",
                nhc,
                f"Acude {given} {s1} {s2}; historia {nhc}.",
                p,
            )
        )
        out.append(
            (f"R{p}b", f"P{p}", None, None, f"Revisión: {s1.lower()} estable (historia {nhc}).", p)
        )
    out.append((None, "P9", "Nadie Nunca", 1234, "Sin id.", 9))
    return out


SCHEMA = "id string, paciente string, nombre string, nhc long, nota string, planta int"


def test_phi_columns_in_spark(spark, model_dir, rows):
    from meddocan_deid.spark import deidentify_dataframe

    df = spark.createDataFrame(rows, SCHEMA).repartition(2)
    out = deidentify_dataframe(
        df, "tag", model=str(model_dir), text_col="nota", patient_col="paciente", phi_cols=PHI
    )
    assert [f.name for f in out.schema.fields] == [
        "id",
        "paciente",
        "nombre",
        "nhc",
        "planta",
        "deid_text",
        "phi",
        "status",
    ]
    assert out.schema["nhc"].dataType.simpleString() == "string"
    got = {r["id"]: r for r in out.collect()}
    assert len(got) == len(rows)
    for rid, patient, name, nhc, _note, planta in rows:
        row = got[rid]
        assert (row["paciente"], row["planta"]) == (patient, planta)
        if rid is None:
            assert row["status"] == "failed: no id" and row["nombre"] is None and row["nhc"] is None
            continue
        assert row["status"] == "ok"
        assert row["nombre"] == ("[NOMBRE_SUJETO_ASISTENCIA]" if name else None)
        assert row["nhc"] == ("[ID_SUJETO_ASISTENCIA]" if nhc else None)
    for rid, _p, name, nhc, _n, _pl in rows[
        :6:2
    ]:  # the first row of each patient names the patient
        surname = name.split()[1]
        for other in (rid, rid[:-1] + "b"):  # and its other row gets the patient's cells
            assert (
                surname.lower() not in got[other]["deid_text"].lower()
                and str(nhc) not in got[other]["deid_text"]
            )


def test_spark_agrees_with_the_table_run(spark, model_dir, rows, rule_nlp):
    import pandas as pd

    from meddocan_deid.deid.tables import TableSpec, deidentify_table
    from meddocan_deid.spark import deidentify_dataframe

    good = [r for r in rows if r[0] is not None]
    df = spark.createDataFrame(good, SCHEMA).repartition(2)
    out = {
        r["id"]: r
        for r in deidentify_dataframe(
            df,
            "surrogate",
            KEY,
            model=str(model_dir),
            text_col="nota",
            patient_col="paciente",
            phi_cols=PHI,
        ).collect()
    }
    frame = pd.DataFrame(good, columns=["id", "paciente", "nombre", "nhc", "nota", "planta"])
    spec = TableSpec(
        id_column="id", text_columns=("nota",), patient_column="paciente", phi_columns=PHI
    )
    table = deidentify_table(frame, columns=spec, mode="surrogate", key=KEY, nlp=rule_nlp).table
    for _i, t in table.iterrows():
        s = out[t["id"]]
        assert (s["deid_text"], s["nombre"], s["nhc"]) == (t["nota"], t["nombre"], t["nhc"])
    assert out["R0a"]["nombre"] != good[0][2] and out["R0a"]["nombre"] in out["R0a"]["deid_text"]


def test_bad_phi_columns_are_refused(spark, model_dir, rows):
    from meddocan_deid.spark import deidentify_dataframe

    df = spark.createDataFrame(rows, SCHEMA)
    with pytest.raises(ValueError, match="unknown label 'NOMBRE'"):
        deidentify_dataframe(
            df, "tag", model=str(model_dir), text_col="nota", phi_cols={"nombre": "NOMBRE"}
        )
    with pytest.raises(ValueError, match="no column 'apellidos'"):
        deidentify_dataframe(
            df,
            "tag",
            model=str(model_dir),
            text_col="nota",
            phi_cols={"apellidos": "NOMBRE_SUJETO_ASISTENCIA"},
        )


def test_deidentify_spark_phi_column_on_jsonl(spark, model_dir, rows, tmp_path):
    from typer.testing import CliRunner

    from meddocan_deid.cli.app import app

    src = tmp_path / "in.jsonl"
    src.write_text(
        "".join(
            json.dumps(
                {"id": r[0], "patient_id": r[1], "nombre": r[2], "text": r[4]}, ensure_ascii=False
            )
            + "\n"
            for r in rows[:4]
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            "deidentify-spark",
            str(src),
            str(out),
            "--mode",
            "tag",
            "--format",
            "jsonl",
            "--model",
            str(model_dir),
            "--phi-column",
            "nombre:NOMBRE_SUJETO_ASISTENCIA",
        ],
    )
    assert result.exit_code == 0, result.output
    got = [
        json.loads(line)
        for p in sorted(out.glob("part-*.json"))
        for line in p.read_text().splitlines()
    ]
    assert sorted(r["id"] for r in got) == [r[0] for r in rows[:4]]
    assert {r["nombre"] for r in got} == {"[NOMBRE_SUJETO_ASISTENCIA]", None}
    assert all(rows[0][2].split()[1].lower() not in r["deid_text"].lower() for r in got)
    bad = CliRunner().invoke(
        app,
        [
            "deidentify-spark",
            str(src),
            str(tmp_path / "o2"),
            "--mode",
            "tag",
            "--phi-column",
            "nombre",
        ],
    )
    assert bad.exit_code == 2 and "expected COLUMN:LABEL" in bad.output
