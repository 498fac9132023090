"""`meddocan-deid deidentify-spark INPUT OUTPUT --mode ...`: the de-identification on Apache Spark.

INPUT: parquet (a file or a folder; columns `id`, `text`, optional `patient_id`, names given by
--id-column, --text-column and --patient-column), JSONL (same fields) or a folder of `.txt`
files (recursive; the id is the relative path without `.txt`, as in `meddocan-deid
deidentify`). OUTPUT: a folder written by Spark's own writer (parquet or JSON lines; `_SUCCESS`
on job commit) with the input columns but the text, plus `deid_text`, `phi` (label, start, end
in the original) and `status`; `--phi-column COLUMN:LABEL` columns are de-identified in place
and are known identifiers of the row's text and of the patient's rows. `--text-format
fhir|hl7v2`: the text column holds a FHIR resource or HL7 v2 messages a row, rewritten whole as
`deidentify` writes their files. `--text-format scan`, or an INPUT folder (or file) of scanned
PDFs and PNG, JPEG or TIFF images: each file's bytes read by OCR as `deidentify` reads it, the
row's text de-identified, and its pages' OCR confidence and review flags (`ocr_pages`,
`ocr_review`) and its redacted file (`redacted`, `redacted_type`) in the row.
Runs on `local[*]` by default, on a cluster with `--master` or under `spark-submit`.
Exit status: 0 when every row is `ok`, 1 when a row failed, 2 when the run could not start.

The run itself is the engine's (meddocan_deid.engine: a RunConfig with a SparkJob, the Run and
its RunReport); this module maps the command's options onto them.
"""

import logging
from dataclasses import dataclass
from pathlib import Path

import typer

from ..engine import Run, RunError, SparkJob
from ..formats.scan_bytes import DEFAULT_REVIEW_BELOW
from ..spark.dataframe import STATUS_COL
from .options import RunOptions, option_field, takes_options


@dataclass(frozen=True, kw_only=True)
class SparkOptions:
    """The options of `deidentify-spark` alone (those it shares with `deidentify` are
    RunOptions)."""

    out_format: str = option_field("parquet", "--format", help="Output format: parquet or jsonl.")
    in_format: str = option_field(
        "auto", "--input-format", help="auto, parquet, jsonl, txt or scans (PDFs and images)."
    )
    master: str | None = option_field(
        None, "--master", help="Spark master (default: spark-submit's, else local[*])."
    )
    conf: list[str] | None = option_field(
        None, "--conf", help="Extra Spark setting KEY=VALUE (repeatable)."
    )
    partitions: int = option_field(
        0,
        "--partitions",
        min=0,
        help="Repartition the input into N tasks (0: at least 4 per core).",
    )
    overwrite: bool = option_field(
        False, "--overwrite", help="Replace an existing OUTPUT (default: refuse)."
    )
    text_format: str = option_field(
        "text",
        "--text-format",
        help="What the text column holds: text (reports), fhir (a FHIR resource or Bundle as "
        "JSON a row) or hl7v2 (HL7 v2 messages a row), rewritten whole as `deidentify` writes "
        "their files (a key in every mode), or scan (a binary column of scanned PDFs or images, "
        "read by OCR; a folder of scans is read so without it).",
    )
    ocr_review_below: float = option_field(
        DEFAULT_REVIEW_BELOW,
        "--ocr-review-below",
        min=0,
        max=100,
        help="A scanned page whose mean OCR word confidence (0-100) is below this is flagged "
        "for review (the ocr_pages and ocr_review columns).",
    )

    def job(self) -> SparkJob:
        """The SparkJob of these options (RunError for a malformed --conf)."""
        settings = {}
        for item in self.conf or []:
            k, sep, v = item.partition("=")
            if not sep or not k.strip():
                raise RunError(f"--conf expects KEY=VALUE, got {item.split('=')[0]!r}")
            settings[k.strip()] = v
        return SparkJob(
            input_format=self.in_format,
            output_format=self.out_format,
            master=self.master,
            conf=settings,
            partitions=self.partitions,
            text_format=self.text_format,
        )


@takes_options(run=RunOptions, spark_options=SparkOptions)
def deidentify_spark(
    ctx: typer.Context,
    input_path: str = typer.Argument(
        ...,
        metavar="INPUT",
        help="Parquet, JSONL (id, text, patient_id) or a folder of .txt files; any Hadoop path.",
    ),
    output: str = typer.Argument(
        ..., metavar="OUTPUT", help="Output folder written by Spark (parquet or JSON lines)."
    ),
    *,
    run: RunOptions,
    spark_options: SparkOptions,
):
    """De-identify every row of INPUT into OUTPUT with Apache Spark."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        job = spark_options.job()
        table = run.table_spec(
            id_column="id",
            text_columns=("text",),
            patient_column="patient_id",
            status_column=STATUS_COL,
        )
        key, options = run.key_and_options(key_wanted=job.text_format not in ("text", "scan"))
        config = run.run_config(
            ctx,
            key,
            options,
            input=input_path,
            output=output,
            overwrite=spark_options.overwrite,
            table=table,
            spark=job,
            ocr_review_below=spark_options.ocr_review_below,
        )
        report = Run(config).execute_report()
    except RunError as err:
        typer.echo(f"meddocan-deid: {err}", err=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        typer.echo(
            "meddocan-deid: interrupted; nothing was committed unless OUTPUT/_SUCCESS exists",
            err=True,
        )
        raise typer.Exit(130) from None
    *problems, counts = report.summary_lines(Path(run.report) if run.report else None)
    typer.echo(counts, err=True)
    for line in problems:
        typer.echo(f"meddocan-deid: {line}", err=True)
    raise typer.Exit(report.exit_code)
