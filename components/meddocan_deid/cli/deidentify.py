"""`meddocan-deid` (also `python -m meddocan_deid`): de-identify reports from the command line.

    meddocan-deid deidentify INPUT OUTPUT --mode tag|mask|redact|surrogate [options]

INPUT: a .txt file, a document (.docx, .pdf, .rtf with the `documents` extra), a folder
(searched recursively; relative paths are mirrored in OUTPUT) or a JSONL file (`id`, `text`,
optional `patient_id`); FHIR `.json`/`.ndjson` (by content) and HL7 v2 `.hl7` files, alone or in
the folder, are written back whole in their format under their own names (engine/interchange.py,
docs/interchange.md). For each report OUTPUT gets the de-identified `.txt` and a BRAT `.ann`
(the output's offsets, each entity on its replacement; a `.docx` also its de-identified
`.docx`), and the run gets one JSON run report. A table (.csv, .tsv, .xlsx, .parquet, or a
.jsonl with --text-column) is de-identified into OUTPUT/<its name> in its format, its columns
named by --id-column, --text-column, --phi-column and --patient-column (the engine's Run, as
reports). `--private-dir DIR` also writes the originals with their `.ann` (original offsets),
and `--export-format labelstudio|doccano|brat` the same for an annotation tool
(cli/annotations.py); `--review DIR` writes a static HTML review site; both hold PHI and are
refused inside OUTPUT. Exit status: 0 when every report was written or skipped, 1 when any
failed or the disk is full (a rerun resumes), 2 when the run could not start (e.g. another run
holds OUTPUT/.meddocan-deid.lock). Every file under a folder INPUT is either a report (`.txt`
in any case) or listed as not read with its reason (other kinds fail unless
--skip-unsupported; hidden files and links to folders are listed only).

The run itself is the engine's (meddocan_deid.engine: RunConfig, Run, and the lines printed
about its RunReport); this module maps its options onto a RunConfig (the ones shared with
`deidentify-spark` come as one RunOptions, cli/options.py).
"""

import logging
from dataclasses import dataclass
from pathlib import Path

import typer

from ..deid.tables import table_format
from ..engine import REPORT_NAME, Run, RunConfig, RunError, interchange
from ..engine.scans import DEFAULT_REVIEW_BELOW
from ..errors import InputError, OutputFullError
from ..formats import registry
from .options import ReviewLanguage, RunOptions, option_field, takes_options

DEIDENTIFY_EPILOG = """\b
Examples:
  meddocan-deid keygen deid.key
  meddocan-deid deidentify in/ out/ --mode surrogate --key-file deid.key
  meddocan-deid deidentify notes.jsonl out/ --mode tag --encoding cp1252
  meddocan-deid deidentify notas.csv out/ --mode tag --id-column id
      --text-column nota --patient-column nhc
      --phi-column nombre:NOMBRE_SUJETO_ASISTENCIA
"""


@dataclass(frozen=True, kw_only=True)
class BatchOptions:
    """The options of `deidentify` alone (those it shares with Spark are RunOptions)."""

    n_process: int = option_field(1, "--n-process", min=1, help="Worker processes.")
    overwrite: bool = option_field(
        False,
        "--overwrite",
        help="Redo every report, even into a folder made by another kind of run (default: "
        "resume, skipping reports already written).",
    )
    encoding: str = option_field(
        "utf-8",
        "--encoding",
        help="Encoding of the input files (any Python codec, e.g. cp1252, latin-1). Outputs are "
        "always UTF-8.",
    )
    verbose: bool = option_field(
        False, "--verbose", "-v", help="Log progress details (ids and counts only)."
    )
    private_dir: Path | None = option_field(
        None,
        "--private-dir",
        help="Also write each original and its .ann in the ORIGINAL's offsets here (PHI: not "
        "inside OUTPUT).",
    )
    export_format: str | None = option_field(
        None,
        "--export-format",
        help="Also write the --private-dir reports for correction: brat (adds annotation.conf), "
        "labelstudio (labelstudio.json) or doccano (doccano.jsonl); see `meddocan-deid export`.",
    )
    review_dir: Path | None = option_field(
        None,
        "--review",
        help="Write a static HTML review site here: originals with PHI highlighted beside the "
        "output (PHI: not inside OUTPUT).",
    )
    review_language: ReviewLanguage = option_field(
        "en",
        "--review-language",
        help="The language the --review site reads in: en (English) or es (Spanish).",
    )
    time_limit: float | None = option_field(
        None,
        "--time-limit",
        min=0.001,
        help="Seconds one report may take (checked between its pieces of 20,000 characters); a "
        "report over it fails by name and the run goes on (default: no limit).",
    )
    skip_unsupported: bool = option_field(
        False,
        "--skip-unsupported",
        help="Files of INPUT that are not plain-text reports (.pdf, .docx, .csv) are listed in "
        "the run report as not read, and the exit status ignores them (default: each is a "
        "failure, exit 1).",
    )
    extra_patterns: Path | None = option_field(
        None,
        "--extra-patterns",
        help="Folder of *.jsonl field-key files (the form of configs/patterns/fields.jsonl): a "
        "hospital's own keys, added to the pipeline for this run (overrides the policy's "
        "field_keys).",
    )
    status_column: str = option_field(
        "deid_status",
        "--status-column",
        help="Table input: the column added with ok / failed: <reason>.",
    )
    sheet: str | None = option_field(
        None,
        "--sheet",
        help="Excel input: the sheet (default: the first; other sheets are not copied).",
    )
    input_format: str = option_field(
        "auto",
        "--input-format",
        help="auto (by suffix; a .json or .ndjson file that holds FHIR is FHIR, a .hl7 file HL7 "
        "v2), fhir (FHIR R4 bundles, resources or NDJSON, written back as FHIR) or hl7v2 "
        "(messages, MLLP-framed or not, written back as messages): a file is read as that "
        "format, a folder's files where their content is of it (e.g. messages in .txt files), "
        "the other files as usual. FHIR and HL7 v2 files go through the same run as reports "
        "(run report, resume, failures by name).",
    )
    fhir_rules: Path | None = option_field(
        None,
        "--fhir-rules",
        help="A JSON rule set for FHIR's structured elements (default: the policy's fhir_rules, "
        "else the shipped one; see docs/interchange.md).",
    )
    interchange_ann: bool = option_field(
        False,
        "--interchange-ann",
        help="Also write, for each FHIR or HL7 v2 file, <its name>.values.txt (its de-identified "
        "values, each under its path: Patient.name[0].family, OBX[3].5) and its BRAT .ann into "
        "OUTPUT (--private-dir and --review list such files by the same paths).",
    )
    redacted_pdf: bool = option_field(
        False,
        "--redacted-pdf",
        help="Also write a redacted copy of each PDF with a text layer (pages as images, a box "
        "over every PHI word), as scans (PDFs without text, .png, .jpg, .tif: read by OCR, the "
        "ocr extra) always get.",
    )
    ocr_review_below: float = option_field(
        DEFAULT_REVIEW_BELOW,
        "--ocr-review-below",
        min=0,
        max=100,
        help="A scanned page whose mean OCR word confidence (0-100) is below this is flagged "
        "for review in the run report.",
    )
    audit_log: Path | None = option_field(
        None,
        "--audit-log",
        help="Append the run's audit line here (default: env MEDDOCAN_DEID_AUDIT_LOG, else "
        "OUTPUT/audit_log.jsonl); check it with `meddocan-deid audit verify`.",
    )
    hl7_rules: Path | None = option_field(
        None,
        "--hl7-rules",
        help="A JSON rule set for HL7 v2 fields (default: the policy's hl7_rules, else the "
        "shipped one; see docs/interchange.md).",
    )


@takes_options(run=RunOptions, batch=BatchOptions)
def deidentify(
    ctx: typer.Context,
    input_path: Path = typer.Argument(
        ...,
        metavar="INPUT",
        help="A .txt file, a document (.docx, .pdf, .rtf), FHIR JSON (.json, .ndjson) or HL7 v2 "
        "messages (.hl7), a folder of them (recursive), a JSONL file (id, text, patient_id) or "
        "a table (.csv, .tsv, .xlsx, .parquet; .jsonl with --text-column).",
    ),
    output: Path = typer.Argument(
        ..., metavar="OUTPUT", help="Output folder (.txt + .ann per report, run_report.json)."
    ),
    *,
    run: RunOptions,
    batch: BatchOptions,
):
    """De-identify every report of INPUT into OUTPUT.

    OUTPUT keeps run_fingerprint.json (mode, policy, key fingerprint, model and
    library versions). A rerun with the same settings resumes: reports already
    written are skipped. A rerun with other settings is refused unless --overwrite.

    Surrogate mode needs a secret key: make one with `meddocan-deid keygen FILE`
    and pass --key-file FILE, or put the key in the environment variable
    MEDDOCAN_DEID_KEY. The same key gives the same surrogates: keep it secret.

    A table (.csv, .tsv, .xlsx, .parquet, or .jsonl with --text-column) is
    written whole to OUTPUT/<its name> in its format, with the column
    deid_status (ok, or failed: reason); a failed row keeps its place with its
    text and PHI cells empty. Needs --id-column and --text-column or
    --phi-column.
    """
    logging.basicConfig(
        level=logging.DEBUG if batch.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if batch.review_dir is not None:
        typer.echo(
            f"meddocan-deid: warning: the review site in {batch.review_dir} shows the original "
            "reports (PHI); keep it private and never share it with the output",
            err=True,
        )
    try:
        config = run_config(ctx, input_path, output, run, batch)
        report = Run(config).execute_report()
    except RunError as err:
        typer.echo(f"meddocan-deid: {err}", err=True)
        raise typer.Exit(2) from None
    except OutputFullError as err:
        typer.echo(f"meddocan-deid: {err}", err=True)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        typer.echo("meddocan-deid: interrupted; rerun the same command to resume", err=True)
        raise typer.Exit(130) from None
    report_file = run.report or Path(output) / REPORT_NAME
    *problems, counts = report.summary_lines(report_file, batch.encoding)
    for line in problems:
        typer.echo(f"meddocan-deid: {line}", err=True)
    typer.echo(counts, err=True)
    raise typer.Exit(report.exit_code)


def run_config(
    ctx: typer.Context, input_path: Path, output: Path, run: RunOptions, batch: BatchOptions
) -> RunConfig:
    """The RunConfig the command's options ask for (RunError naming a bad one)."""
    table = _table_columns(input_path, run, batch.status_column, batch.sheet)
    input_format = check_input_format(batch.input_format)
    key, options = run.key_and_options(
        batch.extra_patterns,
        key_wanted=table is None and holds_interchange(input_path, input_format, batch.encoding),
    )
    return run.run_config(
        ctx,
        key,
        options,
        input=input_path,
        output=output,
        n_process=batch.n_process,
        overwrite=batch.overwrite,
        private_dir=batch.private_dir,
        review_dir=batch.review_dir,
        review_language=ReviewLanguage(batch.review_language).value,
        encoding=batch.encoding,
        export_format=batch.export_format,
        time_limit=batch.time_limit,
        skip_unsupported=batch.skip_unsupported,
        table=table,
        input_format=input_format,
        interchange_rules={
            name: path
            for name, path in (("fhir", batch.fhir_rules), ("hl7v2", batch.hl7_rules))
            if path is not None
        },
        interchange_ann=batch.interchange_ann,
        redacted_pdf=batch.redacted_pdf,
        ocr_review_below=batch.ocr_review_below,
        audit_log=batch.audit_log,
    )


def holds_interchange(input_path: Path, input_format: str, encoding: str) -> bool:
    """Whether INPUT is or holds a FHIR or HL7 v2 file (its key is read in every mode); False
    for an input the run will refuse, with its own message."""
    try:
        return interchange.first_item(input_path, input_format, encoding) is not None
    except (InputError, OSError):
        return False


def check_input_format(input_format: str) -> str:
    """auto, or a format read whole and written back (fhir, hl7v2); RunError otherwise."""
    names = registry.interchange_names()
    if input_format not in ("auto", *names):
        raise RunError(
            f"unknown --input-format {input_format!r} (expected auto, {', '.join(names)})"
        )
    return input_format


def _table_columns(input_path: Path, run: RunOptions, status_column: str, sheet: str | None):
    """The TableSpec of a table input (None for reports); RunError for table options without
    a table, a table without its columns named, or a bad column spec."""
    named = run.table_named() or bool(sheet)
    suffix = Path(input_path).suffix.lower()
    is_table = Path(input_path).is_file() and (
        table_format(input_path) is not None or (suffix == ".jsonl" and named)
    )
    if not is_table:
        if named:
            raise RunError(
                "--id-column, --text-column, --phi-column, --patient-column and --sheet are for "
                "a table input (.csv, .tsv, .xlsx, .parquet, .jsonl)"
            )
        return None
    if not run.id_column or not (run.text_column or run.phi_column):
        raise RunError(
            f"{input_path}: a table input needs --id-column and at least one --text-column or "
            "--phi-column"
        )
    return run.table_spec(status_column=status_column, sheet=sheet)
