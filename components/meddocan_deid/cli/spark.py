"""`meddocan-deid deidentify-spark INPUT OUTPUT --mode ...`: the de-identification on Apache Spark.

INPUT: parquet (a file or a folder; columns `id`, `text`, optional `patient_id`, names
configurable), JSONL (same fields) or a folder of `.txt` files (recursive; the id is the
relative path without `.txt`, as in `meddocan-deid deidentify`). OUTPUT: a folder written by
Spark's own writer (parquet or JSON lines; `_SUCCESS` on job commit) with the input columns
but the text, plus `deid_text`, `phi` (label, start, end in the original) and `status`;
`--phi-column COLUMN:LABEL` columns are de-identified in place and are known identifiers of
the row's text and of the patient's rows.
Runs on `local[*]` by default, on a cluster with `--master` or under `spark-submit`.
Exit status: 0 when every row is `ok`, 1 when a row failed, 2 when the run could not start.
"""

import json
import logging
import re
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import typer

from ..engine import RunError, resolve_key_and_options
from ..errors import SparkCliError
from . import options as opt
from .options import Mode

logger = logging.getLogger("meddocan_deid.deid")
ERROR_COL = "_meddocan_input_error"
CORRUPT_COL = "_meddocan_corrupt_record"


def _hadoop_path(spark, path: str):
    jvm = spark.sparkContext._jvm
    p = jvm.org.apache.hadoop.fs.Path(path)
    fs = p.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    return fs, fs.makeQualified(p)


def input_format(path: str, fmt: str) -> str:
    if fmt != "auto":
        return fmt
    local = Path(path)
    suffix = local.suffix.lower()
    if suffix == ".parquet":
        return "parquet"
    if suffix in (".jsonl", ".json"):
        return "jsonl"
    if suffix == ".txt":
        return "txt"
    if local.is_dir():
        names = [
            p.name for p in local.rglob("*") if p.is_file() and not p.name.startswith((".", "_"))
        ]
        for wanted, kind in (
            (".parquet", "parquet"),
            (".jsonl", "jsonl"),
            (".json", "jsonl"),
            (".txt", "txt"),
        ):
            if any(n.lower().endswith(wanted) for n in names):
                return kind
    raise SparkCliError(
        f"{path}: cannot tell the input format; give --input-format parquet|jsonl|txt"
    )


def read_input(
    spark,
    path: str,
    fmt: str,
    id_col: str,
    text_col: str,
    patient_col: str | None,
    phi_cols: Sequence[str] = (),
):
    """The input as a DataFrame; returns (df, id_col, text_col, patient_col, error_col).
    phi_cols: PHI columns a JSONL input is read with (as strings)."""
    from pyspark.sql import functions as F

    if fmt == "parquet":
        df = spark.read.parquet(path)
        if patient_col is not None and patient_col not in df.columns:
            patient_col = None
        return df, id_col, text_col, patient_col, None
    if fmt == "jsonl":
        pcol = patient_col or "patient_id"
        # known_phi (an object) is read as its JSON text
        extra = "".join(
            f", `{c}` string" for c in phi_cols if c not in (id_col, text_col, pcol, "known_phi")
        )
        schema = (
            f"`{id_col}` string, `{text_col}` string, `{pcol}` string, `known_phi` string{extra}, "
            f"`{CORRUPT_COL}` string"
        )
        df = (
            spark.read.schema(schema)
            .option("mode", "PERMISSIVE")
            .option("columnNameOfCorruptRecord", CORRUPT_COL)
            .json(path)
        )
        # the corrupt line itself (which may hold text) never goes further than this
        df = df.withColumn(
            ERROR_COL, F.when(F.col(CORRUPT_COL).isNotNull(), F.lit("not valid JSON"))
        ).drop(CORRUPT_COL)
        return df, id_col, text_col, pcol, ERROR_COL
    if fmt == "txt":
        df = (
            spark.read.format("binaryFile")
            .option("pathGlobFilter", "*.txt")
            .option("recursiveFileLookup", "true")
            .load(path)
        )
        _fs, root = _hadoop_path(spark, path)
        root = root.toString()
        if root.lower().endswith(".txt"):  # one file: the id is its name
            rel = F.regexp_extract(F.col("path"), r"([^/]*)$", 1)
        else:
            rel = F.expr(f"substring(path, {len(root.rstrip('/')) + 2})")
        df = df.select(
            F.regexp_replace(rel, r"\.txt$", "").alias(id_col), F.col("content").alias(text_col)
        )
        return df, id_col, text_col, None, None
    raise SparkCliError(f"unknown input format {fmt!r}")


def _worker_error(err: BaseException) -> str:
    """One line about a failed Spark job: the exception class and, for a Python worker, the
    last exception line of its traceback (e.g. a model that cannot be loaded)."""
    msg = str(err)
    lines = [
        ln.strip() for ln in msg.splitlines() if re.match(r"^\s*\w+(\.\w+)*(Error|Exception): ", ln)
    ]
    detail = (
        lines[-1][:200] if lines else (msg.strip().splitlines()[0][:200] if msg.strip() else "")
    )
    return f"the Spark job failed ({type(err).__name__}{': ' + detail if detail else ''})"


def run_spark(
    spark,
    input_path: str,
    output: str,
    mode: str,
    key: bytes | None,
    *,
    model: str,
    out_format: str = "parquet",
    in_format: str = "auto",
    id_col: str = "id",
    text_col: str = "text",
    patient_col: str | None = "patient_id",
    batch_size: int = 32,
    partitions: int = 0,
    overwrite: bool = False,
    options=None,
    known_col: str | None = "known_phi",
    privacy: str | None = None,
    phi_cols: dict[str, str] | None = None,
) -> dict:
    """Read, de-identify, write; returns the run summary (counts read back from the output)."""
    from ..spark import STATUS_COL, deidentify_dataframe

    start = time.time()
    fmt = input_format(input_path, in_format)
    fs, out_q = _hadoop_path(spark, output)
    _fs_in, in_q = _hadoop_path(spark, input_path)
    out_s, in_s = out_q.toString().rstrip("/"), in_q.toString().rstrip("/")
    if out_s == in_s or out_s.startswith(in_s + "/") or in_s.startswith(out_s + "/"):
        raise SparkCliError(f"{output}: the output must not be, contain or be inside the input")
    if fs.exists(out_q) and not overwrite:
        raise SparkCliError(
            f"{output}: output exists; give --overwrite to replace it (runs are never mixed)"
        )
    if not _fs_in.exists(in_q):
        raise SparkCliError(f"{input_path}: input not found")
    try:
        df, id_col, text_col, patient_col, error_col = read_input(
            spark, input_path, fmt, id_col, text_col, patient_col, tuple(phi_cols or ())
        )
        for col in (id_col, text_col, *(phi_cols or ())):
            if col not in df.columns:
                raise SparkCliError(
                    f"{input_path}: no column {col!r} (columns: {', '.join(df.columns)})"
                )
        rows_in = df.count()
        target = partitions or 4 * spark.sparkContext.defaultParallelism
        if partitions or df.rdd.getNumPartitions() < target:
            df = df.repartition(target)
        out = deidentify_dataframe(
            df,
            mode,
            key,
            model=model,
            id_col=id_col,
            text_col=text_col,
            patient_col=patient_col,
            batch_size=batch_size,
            options=options,
            error_col=error_col,
            known_col=known_col if known_col in df.columns else None,
            privacy=privacy,
            phi_cols=phi_cols,
        )
    except ValueError as err:
        raise SparkCliError(str(err)) from None
    writer = out.write.mode("overwrite" if overwrite else "errorifexists")
    if out_format == "jsonl":
        writer = writer.format("json").option("ignoreNullFields", "false")
    else:
        writer = writer.format("parquet")
    try:
        writer.save(output)
    except Exception as err:  # noqa: BLE001 - py4j / analysis / worker errors: one line, no trace
        raise SparkCliError(_worker_error(err)) from None
    reader = spark.read.format("json" if out_format == "jsonl" else "parquet")
    if out_format == "jsonl":
        reader = reader.schema(f"`{id_col}` string, {STATUS_COL} string")
    written = reader.load(output)
    statuses = Counter(
        {
            r[STATUS_COL]: r["n"]
            for r in written.groupBy(STATUS_COL).count().withColumnRenamed("count", "n").collect()
        }
    )
    failed_rows = [
        {"id": r[0], "reason": r[1][len("failed: ") :]}
        for r in written.filter(f"{STATUS_COL} != 'ok'")
        .select(id_col, STATUS_COL)
        .limit(1000)
        .collect()
    ]
    rows_out = sum(statuses.values())
    ok = statuses.get("ok", 0)
    reasons = Counter()
    for status, n in statuses.items():
        if status != "ok":
            reasons[status[len("failed: ") :] if status.startswith("failed: ") else status] += n
    return {
        "mode": mode,
        "input": input_path,
        "input_format": fmt,
        "output": output,
        "output_format": out_format,
        "model": model,
        "master": spark.sparkContext.master,
        "batch_size": batch_size,
        "partitions": out.rdd.getNumPartitions(),
        "rows": {"in": rows_in, "out": rows_out, "ok": ok, "failed": rows_out - ok},
        "failure_reasons": dict(reasons.most_common()),
        "failed": failed_rows,  # the first 1000 (id and reason)
        "seconds": round(time.time() - start, 3),
    }


def deidentify_spark(
    input_path: str = typer.Argument(
        ...,
        metavar="INPUT",
        help="Parquet, JSONL (id, text, patient_id) or a folder of .txt files; any Hadoop path.",
    ),
    output: str = typer.Argument(
        ..., metavar="OUTPUT", help="Output folder written by Spark (parquet or JSON lines)."
    ),
    mode: Mode = opt.MODE,
    out_format: str = typer.Option("parquet", "--format", help="Output format: parquet or jsonl."),
    in_format: str = typer.Option("auto", "--input-format", help="auto, parquet, jsonl or txt."),
    master: str | None = typer.Option(
        None, "--master", help="Spark master (default: spark-submit's, else local[*])."
    ),
    conf: list[str] | None = typer.Option(
        None, "--conf", help="Extra Spark setting KEY=VALUE (repeatable)."
    ),
    key_file: Path | None = opt.KEY_FILE,
    random_key: bool = opt.RANDOM_KEY,
    model: str = opt.MODEL,
    batch_size: int = opt.BATCH_SIZE,
    partitions: int = typer.Option(
        0,
        "--partitions",
        min=0,
        help="Repartition the input into N tasks (0: at least 4 per core).",
    ),
    id_col: str = typer.Option("id", "--id-col", help="Id column (parquet/JSONL)."),
    text_col: str = typer.Option("text", "--text-col", help="Text column (parquet/JSONL)."),
    patient_col: str = typer.Option(
        "patient_id", "--patient-col", help="Patient id column, used when present."
    ),
    overwrite: bool = typer.Option(
        False, "--overwrite", help="Replace an existing OUTPUT (default: refuse)."
    ),
    gazetteer: Path | None = opt.GAZETTEER,
    tag_table: Path | None = opt.TAG_TABLE,
    tag_numbering: bool = opt.TAG_NUMBERING,
    keep_sex: bool = opt.KEEP_SEX,
    keep_age: bool = opt.KEEP_AGE,
    age_aggregate: str = opt.AGE_AGGREGATE,
    keep_kinship: bool | None = opt.KEEP_KINSHIP,
    max_chars: int = opt.MAX_CHARS,
    option: list[str] | None = opt.OPTION,
    report: Path | None = typer.Option(
        None, "--report", help="Also write the run summary as JSON here (local path)."
    ),
    policy: Path | None = opt.POLICY,
    privacy: str | None = opt.PRIVACY,
    phi_column: list[str] | None = opt.PHI_COLUMN,
):
    """De-identify every row of INPUT into OUTPUT with Apache Spark."""

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError:
        typer.echo(
            "meddocan-deid: deidentify-spark needs the spark extra: pip install 'meddocan-deid[spark]'",
            err=True,
        )
        raise typer.Exit(2)
    spark = created = None
    try:
        try:
            phi_cols = opt.phi_columns(phi_column)
        except ValueError as err:
            raise SparkCliError(str(err)) from None
        if phi_cols and in_format == "txt":
            raise SparkCliError(
                "--phi-column needs a table input (parquet or jsonl), not a folder of .txt files"
            )
        if out_format not in ("parquet", "jsonl"):
            raise SparkCliError(f"unknown --format {out_format!r} (expected parquet or jsonl)")
        if in_format not in ("auto", "parquet", "jsonl", "txt"):
            raise SparkCliError(
                f"unknown --input-format {in_format!r} (expected auto, parquet, jsonl or txt)"
            )
        try:  # exactly as `meddocan-deid deidentify`
            key, options = resolve_key_and_options(
                mode.value,
                key_file=key_file,
                random_key=random_key,
                tag_table=tag_table,
                tag_numbering=tag_numbering,
                keep_sex=keep_sex,
                keep_age=keep_age,
                age_aggregate=age_aggregate,
                gazetteer=gazetteer,
                max_chars=max_chars,
                policy=policy,
                keep_kinship=keep_kinship,
                option_values=opt.option_values(option),
            )
        except (RunError, ValueError) as err:
            raise SparkCliError(str(err)) from None
        if options.extra_patterns is not None:
            raise SparkCliError(
                "the policy's field_keys are not read by deidentify-spark: save a pipeline with "
                "them (meddocan-deid add-patterns) and give it as --model"
            )
        settings = {}
        for item in conf or []:
            k, sep, v = item.partition("=")
            if not sep or not k.strip():
                raise SparkCliError(f"--conf expects KEY=VALUE, got {item.split('=')[0]!r}")
            settings[k.strip()] = v
        if (
            not re.match(r"^\w+:", output) and Path(output).exists() and not overwrite
        ):  # before starting Spark
            raise SparkCliError(
                f"{output}: output exists; give --overwrite to replace it (runs are never mixed)"
            )
        if not re.match(r"^\w+:", input_path) and not Path(input_path).exists():
            raise SparkCliError(f"{input_path}: input not found")
        from pyspark.sql import SparkSession

        from ..spark import make_session

        existing = SparkSession.getActiveSession()
        spark = make_session(master, app_name="meddocan-deid", conf=settings)
        created = existing is None
        result = run_spark(
            spark,
            input_path,
            output,
            mode.value,
            key,
            model=model,
            out_format=out_format,
            in_format=in_format,
            id_col=id_col,
            text_col=text_col,
            patient_col=patient_col,
            batch_size=batch_size,
            partitions=partitions,
            overwrite=overwrite,
            options=options,
            privacy=privacy,
            phi_cols=phi_cols,
        )
        if report is not None:
            Path(report).parent.mkdir(parents=True, exist_ok=True)
            Path(report).write_text(
                json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
            )
    except (SparkCliError, RunError) as err:
        typer.echo(f"meddocan-deid: {err}", err=True)
        raise typer.Exit(2)
    except KeyboardInterrupt:
        typer.echo(
            "meddocan-deid: interrupted; nothing was committed unless OUTPUT/_SUCCESS exists",
            err=True,
        )
        raise typer.Exit(130)
    finally:
        if spark is not None and created:
            spark.stop()
    r = result["rows"]
    reasons = ", ".join(
        f"{n} {reason}" for reason, n in list(result["failure_reasons"].items())[:5]
    )
    typer.echo(
        f"rows in {r['in']}, out {r['out']}, ok {r['ok']}, failed {r['failed']}"
        f"{' (' + reasons + ')' if reasons else ''} in {result['seconds']:.1f}s on {result['master']} -> {output}",
        err=True,
    )
    if r["in"] != r["out"]:
        typer.echo("meddocan-deid: row count out differs from row count in", err=True)
        raise typer.Exit(1)
    raise typer.Exit(1 if r["failed"] else 0)
