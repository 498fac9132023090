"""The Spark integration (pyspark local mode, `local[2]`): the same answers as the batch core
and the single-machine CLI, failing rows marked and never dropped, one model load per
executor Python process, no key in the plan or the logs, and the `deidentify-spark` command.

One SparkSession for the whole test session (conftest.py); small data (the rule pipeline
saved to disk)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")

from meddocan_deid.deid import Record, deidentify_records  # noqa: E402
from meddocan_deid.deid.options import DeidOptions  # noqa: E402

ROOT = Path(__file__).parent.parent.parent
CANDIDATES = [
    ROOT.parent / "shared" / "meddocan" / "corpus" / "dev" / "brat",
    ROOT / "assets" / "meddocan" / "corpus" / "dev" / "brat",
]
DEV = next((p for p in CANDIDATES if p.is_dir()), None)
needs_dev = pytest.mark.skipif(DEV is None, reason="MEDDOCAN dev corpus not found")
KEY = b"spark-test-key-0123456789abcdef"


@pytest.fixture(scope="module")
def dev_records():
    if DEV is None:
        return []
    files = sorted(DEV.glob("*.txt"))
    # every fifth report shares a patient id with the next one: patient-scoped surrogates
    return [
        Record(f.stem, f.read_text(encoding="utf-8"), f"P{i // 2}" if i % 5 < 2 else None)
        for i, f in enumerate(files)
    ]


def frame(spark, records, partitions=4):
    rows = [(r.id, r.text, r.patient_id) for r in records]
    return spark.createDataFrame(rows, "id string, text string, patient_id string").repartition(
        partitions
    )


def by_id(rows):
    return {r["id"]: r for r in rows}


@needs_dev
@pytest.mark.parametrize("mode", ["surrogate", "tag"])
def test_same_as_batch_core_on_dev(spark, rule_nlp, model_dir, dev_records, mode):
    """All the dev reports: identical de-identified text and PHI list per report."""
    from meddocan_deid.spark import deidentify_dataframe

    records = dev_records if mode == "surrogate" else dev_records[:40]
    options = DeidOptions(tag_numbering=True) if mode == "tag" else None
    key = KEY if mode == "surrogate" else None
    expected = {r.id: r for r in deidentify_records(rule_nlp, records, mode, key, options=options)}
    out = deidentify_dataframe(
        frame(spark, records),
        mode,
        key,
        model=str(model_dir),
        patient_col="patient_id",
        batch_size=7,
        options=options,
    )
    rows = out.collect()
    assert len(rows) == len(records) and set(out.columns) == {
        "id",
        "patient_id",
        "deid_text",
        "phi",
        "status",
    }
    got = by_id(rows)
    assert set(got) == set(expected)
    differing = [
        rid
        for rid, res in expected.items()
        if got[rid]["status"] != res.status
        or got[rid]["deid_text"] != res.text
        or [(p["label"], p["start"], p["end"]) for p in got[rid]["phi"]]
        != [tuple(x) for x in res.phi]
    ]
    assert differing == [], f"{len(differing)} reports differ"
    assert all(r["status"] == "ok" for r in rows)
    assert sum(len(r["phi"]) for r in rows) > 5 * len(records)


def test_failing_rows_marked_not_dropped(spark, model_dir):
    from meddocan_deid.spark import deidentify_dataframe

    good = "Nombre: Ana.\nApellidos: Ruiz Gil.\nNHC: 5192837.\n"
    rows = [
        ("ok1", good.encode(), None),
        ("empty", b"", None),
        ("blank", b" \n ", None),
        ("null", None, None),
        ("utf8", b"Nombre: Ana.\n\xff\xfe", None),
        ("big", (good * 50).encode(), None),
        (None, good.encode(), None),
        ("bad-line", None, "not valid JSON"),
        ("ok2", good.encode(), None),
    ]
    df = spark.createDataFrame(rows, "id string, content binary, err string").repartition(3)
    out = deidentify_dataframe(
        df,
        "surrogate",
        KEY,
        model=str(model_dir),
        text_col="content",
        error_col="err",
        options=DeidOptions(max_chars=1000),
    )
    assert out.columns == ["id", "deid_text", "phi", "status"]  # the original text is not kept
    res = out.collect()
    assert len(res) == len(rows)
    status = {r["id"]: r["status"] for r in res}
    assert status == {
        "ok1": "ok",
        "ok2": "ok",
        "empty": "failed: empty text",
        "blank": "failed: empty text",
        "null": "failed: no text",
        "utf8": "failed: not valid UTF-8 (byte 13)",
        "big": "failed: text too long (2400 characters, limit 1000)",
        None: "failed: no id",
        "bad-line": "failed: not valid JSON",
    }
    for r in res:
        assert (r["deid_text"] is None) == (r["status"] != "ok")
        assert r["phi"] == [] or r["status"] == "ok"
    assert "Ana" not in by_id(res)["ok1"]["deid_text"]
    with pytest.raises(ValueError, match="needs a key"):
        deidentify_dataframe(df, "surrogate", None, model=str(model_dir), text_col="content")
    with pytest.raises(ValueError, match="no column"):
        deidentify_dataframe(df, "mask", model=str(model_dir))
    with pytest.raises(ValueError, match="unknown mode"):
        deidentify_dataframe(df, "scramble", model=str(model_dir), text_col="content")
    with pytest.raises(ValueError, match="unknown privacy level 'maximum'"):
        deidentify_dataframe(df, "tag", model=str(model_dir), text_col="content", privacy="maximum")


def test_privacy_level_reaches_the_executors(spark, model_dir):
    """privacy="high" loads the pipeline at that level in the workers: more is removed."""
    from meddocan_deid.spark import deidentify_dataframe

    text = (
        "Datos del paciente.\nNombre: Ana.\n\nPaciente con tos.\n\n"
        "Remitido por: Dra. Quelvoria Zubimendi. Avenida Olmos 14, 31500 Tudela.\n"
    )
    df = spark.createDataFrame([("r1", text)], "id string, text string")
    balanced = deidentify_dataframe(df, "tag", model=str(model_dir)).collect()[0]
    high = deidentify_dataframe(df, "tag", model=str(model_dir), privacy="high").collect()[0]
    assert balanced["status"] == high["status"] == "ok"
    assert len(high["phi"]) > len(balanced["phi"])
    assert "Quelvoria" not in high["deid_text"]


def test_model_loaded_once_per_python_worker(spark, tmp_path, model_dir, load_log):
    """Several jobs, many partitions, small batches: each worker process loads the pipeline
    once (a copy of the model under another path, so that other tests do not count)."""
    import shutil

    from meddocan_deid.spark import deidentify_dataframe

    model = tmp_path / "model_copy"
    shutil.copytree(model_dir, model)
    records = [Record(f"r{i}", f"Nombre: Ana.\nNHC: {5192837 + i}.\n") for i in range(60)]
    for _ in range(3):
        out = deidentify_dataframe(
            frame(spark, records, partitions=8), "mask", model=str(model), batch_size=2
        )
        assert out.filter("status = 'ok'").count() == 60
    loads = {}
    for f in load_log.glob("loads-*.txt"):
        n = sum(1 for line in f.read_text(encoding="utf-8").splitlines() if line == str(model))
        if n:
            loads[f.name] = n
    assert loads and all(n == 1 for n in loads.values()), loads
    assert len(loads) <= 4  # 2 cores: a couple of reused workers, not one per task or batch


def test_key_not_in_plan(spark, model_dir, capsys):
    from meddocan_deid.spark import deidentify_dataframe

    out = deidentify_dataframe(
        frame(spark, [Record("a", "Nombre: Ana.\n")], 1), "surrogate", KEY, model=str(model_dir)
    )
    out.explain(mode="extended")
    plans = capsys.readouterr().out + out._jdf.queryExecution().toString()
    assert "MapInPandas" in plans or "mapInPandas" in plans.lower()
    for form in (KEY.decode(), KEY.hex(), KEY.decode()[:20]):
        assert form not in plans
    assert out.first()["status"] == "ok"


# ---------------------------------------------------------------- the deidentify-spark command


def invoke(*args, env=None):
    """The command in this process: it runs on the module's SparkSession (local[2])."""
    from typer.testing import CliRunner

    from meddocan_deid.cli import app

    env = {"MEDDOCAN_DEID_KEY": None, **(env or {})}
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def spark_rows(spark, folder: Path, fmt="parquet"):
    if fmt == "jsonl":
        return (
            spark.read.schema(
                "id string, patient_id string, deid_text string, "
                "phi array<struct<label:string,start:int,end:int>>, status string"
            )
            .json(str(folder))
            .collect()
        )
    return spark.read.parquet(str(folder)).collect()


def original_spans(path: Path):
    from meddocan_deid.brat import parse_ann

    return [
        (label, frags[0][0], frags[-1][1])
        for _id, label, frags, _text in parse_ann(path.read_text(encoding="utf-8"))
    ]


@needs_dev
def test_cli_same_as_single_machine_cli(spark, tmp_path, model_dir, dev_records):
    """The same JSONL through `meddocan-deid deidentify` (a subprocess) and
    `meddocan-deid deidentify-spark`, the key from the environment: identical text and PHI."""
    records = dev_records[:30]
    lines = [
        json.dumps(
            {"id": r.id, "text": r.text, **({"patient_id": r.patient_id} if r.patient_id else {})},
            ensure_ascii=False,
        )
        for r in records
    ]
    inp = tmp_path / "in.jsonl"
    inp.write_text("\n".join(lines) + "\n{broken\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "MEDDOCAN_DEID_KEY"}
    env["MEDDOCAN_DEID_KEY"] = KEY.decode()
    single = tmp_path / "single"
    private = tmp_path / "private"  # the .ann in the original's offsets, as Spark's `phi`
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "meddocan_deid",
            "deidentify",
            str(inp),
            str(single),
            "--mode",
            "surrogate",
            "--model",
            str(model_dir),
            "--private-dir",
            str(private),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert r.returncode == 1, r.stderr  # the broken line
    out = tmp_path / "spark_out"
    res = invoke(
        "deidentify-spark",
        inp,
        out,
        "--mode",
        "surrogate",
        "--model",
        model_dir,
        "--batch-size",
        "4",
        env={"MEDDOCAN_DEID_KEY": KEY.decode()},
    )
    assert res.exit_code == 1, res.output
    assert "rows in 31, out 31, ok 30, failed 1 (1 not valid JSON)" in res.output
    assert (out / "_SUCCESS").exists()
    rows = [r for r in spark_rows(spark, out) if r["status"] == "ok"]
    assert len(rows) == 30
    differing = [
        row["id"]
        for row in rows
        if row["deid_text"] != (single / f"{row['id']}.txt").read_text(encoding="utf-8")
        or [(p["label"], p["start"], p["end"]) for p in row["phi"]]
        != original_spans(private / f"{row['id']}.ann")
    ]
    assert differing == [], f"{len(differing)} reports differ"
    assert {row["patient_id"] for row in rows} >= {"P0", "P2"}


def test_cli_txt_folder_refuse_and_overwrite(spark, tmp_path, model_dir, rule_nlp):
    """A nested folder of .txt: the ids are those of `meddocan-deid deidentify`; a second run
    into the same OUTPUT is refused (nothing touched) unless --overwrite, which replaces it."""
    from meddocan_deid.engine import run

    inp = tmp_path / "in"
    for i in range(6):
        sub = inp / f"sub{i % 2}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"doc{i}.txt").write_text(
            f"Nombre: Ana.\nApellidos: Ruiz Gil.\nNHC: {5192837 + i}.\n", encoding="utf-8"
        )
    (inp / "sub0" / "bad.txt").write_bytes(b"Nombre: Ana.\n\xff")
    single = tmp_path / "single"
    run(inp, single, "tag", None, nlp=rule_nlp, progress=False)
    out = tmp_path / "out"
    res = invoke(
        "deidentify-spark", inp, out, "--mode", "tag", "--model", model_dir, "--format", "jsonl"
    )
    assert (
        res.exit_code == 1
        and "rows in 7, out 7, ok 6, failed 1 (1 not valid UTF-8 (byte 13))" in res.output
    )
    rows = spark_rows(spark, out, "jsonl")
    assert sorted(r["id"] for r in rows) == sorted(
        p.relative_to(inp).with_suffix("").as_posix() for p in inp.rglob("*.txt")
    )
    for row in rows:
        if row["status"] == "ok":
            assert row["deid_text"] == (single / f"{row['id']}.txt").read_text(encoding="utf-8")
    before = sorted(p.name for p in out.iterdir())
    res = invoke(
        "deidentify-spark", inp, out, "--mode", "mask", "--model", model_dir, "--format", "jsonl"
    )
    assert res.exit_code == 2 and "output exists" in res.output
    assert sorted(p.name for p in out.iterdir()) == before
    res = invoke(
        "deidentify-spark",
        inp,
        out,
        "--mode",
        "mask",
        "--model",
        model_dir,
        "--format",
        "jsonl",
        "--overwrite",
    )
    assert res.exit_code == 1, res.output
    rows = spark_rows(spark, out, "jsonl")
    assert len(rows) == 7 and all(
        "[" not in (r["deid_text"] or "") for r in rows
    )  # only the new run
    assert all("*" in r["deid_text"] for r in rows if r["status"] == "ok")


def test_cli_subprocess_key_never_logged(tmp_path, model_dir):
    """The real entry point in its own JVM (`--master local[2]`): the key from a file is
    nowhere in the output; refusals come before Spark starts, as one line."""
    inp = tmp_path / "in.jsonl"
    inp.write_text(
        "".join(
            json.dumps({"id": f"r{i}", "text": f"Nombre: Ana.\nNHC: {5192837 + i}.\n"}) + "\n"
            for i in range(8)
        ),
        encoding="utf-8",
    )
    key_file = tmp_path / "key"
    key_file.write_bytes(KEY + b"\n")
    env = {k: v for k, v in os.environ.items() if k not in ("MEDDOCAN_DEID_KEY", "PYSPARK_PYTHON")}

    def cli(*args):
        return subprocess.run(
            [sys.executable, "-m", "meddocan_deid", "deidentify-spark", *map(str, args)],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=300,
        )

    r = cli(inp, tmp_path / "o0", "--mode", "surrogate", "--model", model_dir)
    assert (
        r.returncode == 2 and "needs a key" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    )
    r = cli(
        inp,
        tmp_path / "o1",
        "--mode",
        "surrogate",
        "--key-file",
        key_file,
        "--model",
        model_dir,
        "--master",
        "local[2]",
        "--report",
        tmp_path / "report.json",
    )
    assert r.returncode == 0, r.stderr[-2000:]
    logs = r.stdout + r.stderr + (tmp_path / "report.json").read_text()
    for form in (KEY.decode(), KEY.hex(), KEY.decode()[:20]):
        assert form not in logs
    assert "Ana" not in logs and "Traceback" not in logs
    assert re.search(r"rows in 8, out 8, ok 8, failed 0 in [\d.]+s on local\[2\]", r.stderr)
    r = cli(inp, tmp_path / "o1", "--mode", "mask", "--model", model_dir)
    assert (
        r.returncode == 2
        and "output exists" in r.stderr
        and len(r.stderr.strip().splitlines()) == 1
    )


def test_cli_without_pyspark(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "pyspark", None)
    res = invoke("deidentify-spark", tmp_path / "in.jsonl", tmp_path / "out", "--mode", "mask")
    assert res.exit_code == 2 and "pip install 'meddocan-deid[spark]'" in res.output


def test_a_spark_run_is_the_one_run(spark, tmp_path, model_dir):
    """A RunConfig with a SparkJob: the input through its format's Spark source, the output
    through a Spark sink, one RunReport with the failed rows by id and reason, its exit code;
    what Spark cannot do is refused before Spark is used."""
    from meddocan_deid.deid.tables import TableSpec
    from meddocan_deid.engine import Run, RunConfig, RunError, SparkJob

    inp = tmp_path / "notas.jsonl"
    lines = [
        json.dumps({"ref": f"r{i}", "nota": f"Nombre: Ana.\nNHC: {5192837 + i}.\n"})
        for i in range(3)
    ]
    lines += [json.dumps({"ref": "r3"}), "{roto"]
    inp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    spec = TableSpec(id_column="ref", text_columns=("nota",), status_column="status")
    config = RunConfig(
        input=str(inp),
        output=str(tmp_path / "out"),
        mode="tag",
        model=str(model_dir),
        report_path=tmp_path / "report.json",
        table=spec,
        spark=SparkJob(output_format="jsonl"),
    )
    report = Run(config, spark=spark).execute_report()
    assert report.kind == "spark" and report.exit_code == 1
    assert report.rows == {"in": 5, "out": 5, "ok": 3, "failed": 2}
    assert sorted((f["id"], f["reason"]) for f in report.failed if f["id"]) == [("r3", "no text")]
    assert report.failure_reasons == {"no text": 1, "not valid JSON": 1}
    written = (tmp_path / "report.json").read_text(encoding="utf-8")
    assert json.loads(written) == report.to_dict() and "Ana" not in written
    assert report.summary_lines(None)[-1].startswith("rows in 5, out 5, ok 3, failed 2 (")
    assert (tmp_path / "out" / "_SUCCESS").exists()
    # refused before Spark reads anything: the output exists, two text columns, field keys
    with pytest.raises(RunError, match="output exists"):
        Run(config, spark=spark).execute_report()
    two = TableSpec(id_column="ref", text_columns=("nota", "otra"), status_column="status")
    with pytest.raises(RunError, match="one text column"):
        Run(
            RunConfig(**{**vars(config), "output": str(tmp_path / "o2"), "table": two})
        ).execute_report()
    keys = DeidOptions(extra_patterns=tmp_path)
    with pytest.raises(RunError, match="field_keys are not read"):
        Run(
            RunConfig(**{**vars(config), "output": str(tmp_path / "o3"), "options": keys})
        ).execute_report()
    assert not (tmp_path / "o2").exists() and not (tmp_path / "o3").exists()


def test_cli_names_the_columns_as_the_batch_command(spark, tmp_path, model_dir):
    """--id-column and --text-column name a parquet input's columns (the options of
    `meddocan-deid deidentify`); the report is written where --report says."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    inp = tmp_path / "notas.parquet"
    pq.write_table(
        pa.Table.from_pylist(
            [{"ref": f"r{i}", "nota": f"Nombre: Ana.\nNHC: {5192837 + i}.\n"} for i in range(4)]
        ),
        inp,
    )
    out = tmp_path / "out"
    args = ["deidentify-spark", inp, out, "--mode", "mask", "--model", model_dir]
    res = invoke(
        *args, "--id-column", "ref", "--text-column", "nota", "--report", tmp_path / "r.json"
    )
    assert res.exit_code == 0, res.output
    assert "rows in 4, out 4, ok 4, failed 0" in res.output
    rows = spark_rows(spark, out)
    assert sorted(r["ref"] for r in rows) == ["r0", "r1", "r2", "r3"]
    assert all("Ana" not in r["deid_text"] for r in rows)
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["input_format"] == "parquet" and report["rows"]["ok"] == 4
    res = invoke(*args[:2], tmp_path / "o2", *args[3:], "--text-column", "a", "--text-column", "b")
    assert res.exit_code == 2 and "one text column" in res.output
