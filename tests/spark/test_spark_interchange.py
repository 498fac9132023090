"""A column of FHIR JSON or of HL7 v2 messages on Spark (local mode): each row rewritten by the
rewriter the CLI's run writes their files with (the same output for the same key), a row its
format cannot read failed by its reason, and `deidentify-spark --text-format`. All values are
invented."""

import json

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

from meddocan_deid import Deidentifier  # noqa: E402
from meddocan_deid.formats import fhir, hl7v2  # noqa: E402

KEY = b"clave inventada de spark para intercambio"
BUNDLE = {
    "resourceType": "Bundle",
    "type": "collection",
    "entry": [
        {
            "resource": {
                "resourceType": "Patient",
                "id": "s1",
                "name": [{"family": "Iturbide", "given": ["Remigia"]}],
                "birthDate": "1966-09-30",
            }
        },
        {
            "resource": {
                "resourceType": "Observation",
                "id": "s2",
                "status": "final",
                "code": {"text": "nota"},
                "subject": {"reference": "Patient/s1"},
                "valueString": "Remigia Iturbide sin cambios.",
            }
        },
    ],
}
MESSAGE = "\r".join(
    (
        "MSH|^~\\&|HIS|HOSP|LAB|HOSP|20240105101500||ADT^A01|M1|P|2.5",
        "PID|1||NHC118822^^^HOSP^MR||Iturbide^Remigia||19660930|F",
    )
)


def test_fhir_column_as_the_cli_writes_it(spark, model_dir, rule_nlp):
    from meddocan_deid.spark import deidentify_dataframe

    source = json.dumps(BUNDLE, ensure_ascii=False)
    df = spark.createDataFrame(
        [("a", source), ("b", '{"resourceType": "Patient", "name": [')], "id string, text string"
    )
    out = deidentify_dataframe(
        df, "surrogate", KEY, model=str(model_dir), text_format="fhir"
    ).collect()
    rows = {r["id"]: r for r in out}
    assert rows["a"]["status"] == "ok" and rows["a"]["phi"] == []
    rewriter = fhir.rewriter(Deidentifier(rule_nlp, "surrogate", key=KEY))
    rewriter.collect_text(source, "text")
    assert json.loads(rows["a"]["deid_text"]) == json.loads(rewriter.rewrite(source, "text")[0])
    assert "Iturbide" not in rows["a"]["deid_text"]
    assert rows["b"]["status"] == "failed: text: not valid JSON (line 1)"
    assert rows["b"]["deid_text"] is None


def test_cli_hl7_column(spark, model_dir, tmp_path):
    from typer.testing import CliRunner

    from meddocan_deid.cli.app import app

    src = tmp_path / "mensajes.jsonl"
    src.write_text(json.dumps({"id": "m1", "text": MESSAGE}) + "\n", "utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["deidentify-spark", str(src), str(out), "--mode", "tag", "--model", str(model_dir)]
        + ["--format", "jsonl", "--text-format", "hl7v2", "--master", "local[2]"],
        env={"MEDDOCAN_DEID_KEY": KEY.decode()},
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for p in out.glob("*.json") for line in p.read_text().splitlines()]
    assert len(rows) == 1 and rows[0]["status"] == "ok"
    message = rows[0]["deid_text"]
    assert message.split("\r")[0].startswith("MSH|") and "Iturbide" not in message
    hl7v2.parse(message)
    refused = CliRunner().invoke(
        app,
        ["deidentify-spark", str(src), str(tmp_path / "o2"), "--mode", "tag"]
        + ["--text-format", "hl7v2", "--model", str(model_dir)],
        env={},
    )
    assert refused.exit_code == 2 and "needs a key" in refused.output
